"""Strand unter's timeline: castles, the sea and the shells between two accepted readings.

Rules (``shared/rules/strand-unter.md``): a castle is built on the beach (a visible groove) and
never moves or changes value; it leaves only when the sea reaches its groove (washed away), and a
player has one castle of each value, so a castle once built is never built again. The sea front
moves one groove a round (landwards at high tide, seawards at low tide), except at the turn of the
tide, when the sea goes back from groove 9 to uncover groove 9, 10 or 11. Shells only leave the
grooves (players take them); a groove the sea uncovers may show any shells.

The facts: ``built`` (every castle built, with its groove), ``washed`` (those the sea took),
``taken`` (shells taken from the grooves, per colour).
"""

from __future__ import annotations

from scoring.strand_unter import COLOURS, GROOVES, read_state
from scoring.timeline.common import Step, change, plural

#: The groove the sea front stands at when the tide turns (after round 8, every groove up to 8 uncovered).
TIDE_TURN_FRONT = 9


def initial_facts(players: list[str] | None = None) -> dict:
    """Nothing built, washed or taken yet.

    >>> initial_facts()
    {'built': [], 'washed': [], 'taken': {'white': 0, 'gray': 0, 'brown': 0, 'black': 0}}
    """
    return {"built": [], "washed": [], "taken": {c: 0 for c in COLOURS}}


def with_facts(setup: dict | None, facts: dict | None) -> dict:
    """The setup as it is: the final score needs the buckets and cards, which no photo shows."""
    return dict(setup or {})


def corrected_facts(step: Step, state: dict) -> dict:
    """The facts once a player's correction ``state`` (compared with the last accepted reading as
    ``step``) is accepted. A correction is the truth about the board, and castles never move or leave
    a groove the sea has not reached: a castle the correction no longer shows there was misread
    before and was never built, and a castle it shows in another groove stood there all along.

    >>> before = {"game": "strand-unter", "sea_front": 3, "grooves": [
    ...     {"number": 1, "castles": [{"player": "yellow", "value": 2}]}, {"number": 2}]}
    >>> fixed = {"game": "strand-unter", "sea_front": 3, "grooves": [
    ...     {"number": 1, "castles": [{"player": "yellow", "value": 3}]}, {"number": 2}]}
    >>> first = compare(None, before)
    >>> corrected_facts(compare(before, fixed, facts=first.facts), fixed)["built"]
    [{'player': 'yellow', 'value': 3, 'groove': 1}]
    """
    now = _castles(state)
    misread = {(c["player"], c["value"]) for c in step.impossible if c["kind"] == "removed"}
    built: dict[tuple[str, int], dict] = {}
    for x in step.facts["built"]:
        key = (x["player"], int(x["value"]))
        if key not in misread:
            built[key] = dict(x, groove=now.get(key, x["groove"]))
    return dict(step.facts, built=list(built.values()))


def _castles(state: dict) -> dict[tuple[str, int], int]:
    return {(c["player"], int(c["value"])): int(g["number"]) for g in state.get("grooves", [])
            for c in g.get("castles", [])}


def _shells(state: dict) -> dict[int, dict[str, int]]:
    return {int(g["number"]): {c: int((g.get("shells") or {}).get(c, 0)) for c in COLOURS}
            for g in state.get("grooves", [])}


def compare(before: dict | None, after: dict, setup: dict | None = None, facts: dict | None = None) -> Step:
    """Compare a reading with the last accepted one under Strand unter's rules.

    Args:
        before: the last accepted state, or None at the first reading (every castle then counts as built).
        after: the new state. ``setup``: unused here (hands are off the board). ``facts``: so far.
    Returns:
        :class:`Step` (facts: ``built``, ``washed``, ``taken``).
    Raises:
        InvalidStateError: a state breaks the single-photo rules.

    >>> b = {"game": "strand-unter", "sea_front": 6, "grooves": [{"number": n, "shells": {"white": 1}}
    ...      for n in range(1, 6)]}
    >>> b["grooves"][4]["castles"] = [{"player": "red", "value": 2}]
    >>> a = {"game": "strand-unter", "sea_front": 5, "grooves": [{"number": n, "shells": {"white": 1}}
    ...      for n in range(1, 5)]}
    >>> [c["kind"] for c in compare(b, a).changes]
    ['washed', 'sea', 'washed']
    """
    read_state(after, setup)
    facts = {"built": [dict(x) for x in (facts or initial_facts())["built"]],
             "washed": [dict(x) for x in (facts or initial_facts())["washed"]],
             "taken": dict((facts or initial_facts())["taken"])}
    step = Step(facts=facts)
    sea = int(after["sea_front"])
    now = _castles(after)
    if before is None:
        for (who, value), groove in now.items():
            _built(step, who, value, groove)
        return step
    read_state(before, setup)
    old_sea = int(before["sea_front"])
    was = _castles(before)
    for (who, value), groove in was.items():
        if (who, value) in now:
            if now[(who, value)] != groove:
                step.impossible.append(change("moved", f"{who}'s castle {value} moved from groove {groove} to "
                                              f"{now[(who, value)]}: castles never move", player=who, value=value,
                                              groove=groove))
        elif groove >= sea:
            step.changes.append(change("washed", f"the sea washed away {who}'s castle {value} in groove {groove}",
                                       player=who, value=value, groove=groove))
            facts["washed"].append({"player": who, "value": value, "groove": groove})
        else:
            step.impossible.append(change("removed", f"{who}'s castle {value} left groove {groove}, which the sea "
                                          "has not reached: castles leave only under the sea", player=who,
                                          value=value, groove=groove))
    built_before = {(x["player"], x["value"]) for x in facts["built"] + facts["washed"]}
    for (who, value), groove in now.items():
        if (who, value) in was:
            continue
        if (who, value) in built_before:
            step.impossible.append(change("built", f"{who}'s castle {value} stands in groove {groove}, but it was "
                                          "built before: each castle is built once", player=who, value=value,
                                          groove=groove))
        else:
            _built(step, who, value, groove)
    _sea(step, old_sea, sea)
    _taken(step, _shells(before), _shells(after), old_sea)
    return step


def _built(step: Step, who: str, value: int, groove: int) -> None:
    step.changes.append(change("built", f"{who} built castle {value} in groove {groove}", player=who, value=value,
                               groove=groove))
    step.facts["built"].append({"player": who, "value": value, "groove": groove})


def _sea(step: Step, old: int, new: int) -> None:
    if new == old:
        return
    way = "back, uncovering" if new > old else "in, covering"
    text = f"the sea moved {way} {plural(abs(new - old), 'groove')} (front {old} → {new})"
    if abs(new - old) == 1 or (old == TIDE_TURN_FRONT and TIDE_TURN_FRONT < new <= GROOVES + 1):
        step.changes.append(change("sea", text, was=old, now=new))
    else:
        step.impossible.append(change("sea", text + ": the sea front moves one groove a round", was=old, now=new))


def _taken(step: Step, old: dict[int, dict[str, int]], new: dict[int, dict[str, int]], old_sea: int) -> None:
    for groove, counts in new.items():
        if groove >= old_sea:
            continue  # uncovered since: any shells may lie there
        before = old.get(groove, {c: 0 for c in COLOURS})
        more = {c: counts[c] - before[c] for c in COLOURS if counts[c] > before[c]}
        less = {c: before[c] - counts[c] for c in COLOURS if counts[c] < before[c]}
        if more:
            step.impossible.append(change("appeared", f"groove {groove} has more shells than before ("
                                          + ", ".join(f"{n} {c}" for c, n in more.items())
                                          + "): shells only leave the grooves", groove=groove))
        if less:
            for c, n in less.items():
                step.facts["taken"][c] += n
            step.changes.append(change("taken", f"{', '.join(f'{n} {c}' for c, n in less.items())} taken from "
                                       f"groove {groove}", groove=groove, shells=less))
    for groove, counts in old.items():
        if groove not in new and sum(counts.values()):
            step.changes.append(change("washed", f"the sea covered groove {groove} and its "
                                       f"{plural(sum(counts.values()), 'shell')}", groove=groove))
