"""Sand Castles' timeline: waves, walls and castle pieces between two accepted readings.

Rules (``shared/rules/sand-castles.md``): a wave moves forward along its lane, one space a die
roll; a wave landing on a wall vanishes together with the wall and a new wave starts at the left
(space 1); a wave reaching the castle space washes its pieces away and the space stays flooded.
Castle pieces are only added (bought), except when their castle is washed away; walls are built
from the supply (``walls_left`` only goes down).

The facts: ``bought`` (castle pieces and walls bought), ``washed`` (castles flooded), ``waves``
(how many waves broke on a wall).
"""

from __future__ import annotations

from scoring.sand_castles import read_state
from scoring.timeline.common import Step, change, plural


def initial_facts(players: list[str] | None = None) -> dict:
    """Nothing bought, washed or broken yet.

    >>> initial_facts()
    {'bought': {'castle_pieces': 0, 'walls': 0}, 'washed': [], 'waves': 0}
    """
    return {"bought": {"castle_pieces": 0, "walls": 0}, "washed": [], "waves": 0}


def with_facts(setup: dict | None, facts: dict | None) -> dict:
    """The setup as it is (the score needs nothing the timeline learns)."""
    return dict(setup or {})


def compare(before: dict | None, after: dict, setup: dict | None = None, facts: dict | None = None) -> Step:
    """Compare a reading with the last accepted one under Sand Castles' rules.

    Returns:
        :class:`Step` (facts: ``bought``, ``washed``, ``waves``).
    Raises:
        InvalidStateError: a state breaks the single-photo rules.

    >>> lane = {"length": 7, "wave": 5, "wall": True, "castle_pieces": 1, "flooded": False}
    >>> b = {"game": "sand-castles", "lanes": {"top": lane, "middle": dict(lane), "bottom": dict(lane)}}
    >>> a = {"game": "sand-castles", "lanes": {"top": dict(lane, wave=1, wall=False), "middle": dict(lane, wave=4),
    ...      "bottom": dict(lane, castle_pieces=0)}}
    >>> s = compare(b, a)
    >>> [c["kind"] for c in s.changes], [c["kind"] for c in s.impossible]
    (['washed'], ['moved', 'removed'])
    """
    old_facts = facts or initial_facts()
    facts = {"bought": dict(old_facts["bought"]), "washed": list(old_facts["washed"]), "waves": old_facts["waves"]}
    step = Step(facts=facts)
    lanes, _ = read_state(after, setup)
    if before is None:
        return step
    old = {lane.name: lane for lane in read_state(before, setup)[0]}
    for lane in lanes:
        was = old.get(lane.name)
        if was is not None:
            _lane(step, was, lane)
    left_before, left_now = before.get("walls_left"), after.get("walls_left")
    if isinstance(left_before, int) and isinstance(left_now, int) and left_now > left_before:
        step.impossible.append(change("appeared", f"walls left went up from {left_before} to {left_now}: walls "
                                      "are only taken from the supply"))
    return step


def _lane(step: Step, was, now) -> None:
    name = now.name
    broke = was.wall and not now.wall and now.wave < was.wave
    if now.wave > was.wave:
        step.changes.append(change("moved", f"the {name} wave moved {plural(now.wave - was.wave, 'space')} "
                                   f"(to space {now.wave})", lane=name))
    elif broke:
        step.changes.append(change("washed", f"the {name} wave broke on the wall; a new wave starts", lane=name))
        step.facts["waves"] += 1
    elif now.wave < was.wave:
        step.impossible.append(change("moved", f"the {name} wave went back from space {was.wave} to {now.wave} "
                                      "with no wall to break on: waves only move forward", lane=name))
    if now.wall and not was.wall:
        step.changes.append(change("built", f"a wall was built in the {name} lane", lane=name))
        step.facts["bought"]["walls"] += 1
    elif was.wall and not now.wall and not broke:
        step.impossible.append(change("removed", f"the {name} lane's wall is gone with no wave on it", lane=name))
    if was.flooded and not now.flooded:
        step.impossible.append(change("changed", f"the {name} castle space is dry again: a flooded space stays "
                                      "flooded", lane=name))
    elif now.flooded and not was.flooded:
        step.changes.append(change("washed", f"the wave washed the {name} castle away", lane=name))
        step.facts["washed"].append(name)
    elif now.castle_pieces > was.castle_pieces:
        n = now.castle_pieces - was.castle_pieces
        step.changes.append(change("built", f"{plural(n, 'castle piece')} added to the {name} castle", lane=name))
        step.facts["bought"]["castle_pieces"] += n
    elif now.castle_pieces < was.castle_pieces:
        lost = plural(was.castle_pieces - now.castle_pieces, "piece")
        step.impossible.append(change("removed", f"the {name} castle lost {lost} with no wave on it: pieces leave "
                                      "only when the castle is washed away", lane=name))
