"""Sand Castles (co-operative) — variant score, outcome, and a danger note per lane.

Shapes: ``shared/contracts/sand-castles.md``. Rules: ``shared/rules/sand-castles.md``.

Lane spaces are numbered 1 (wave start) … ``length`` (castle space); ``length - 1`` is the
wall space. Pieces needed per castle: top 5, middle 3, bottom 4 by default, overridden by
``setup["needs"]`` (``{lane: n}``) or a lane's own ``castle_needs`` (the lane wins).
``walls_left`` comes from the state, else (missing or null there) the setup, else stays null.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.checks import Problems, show

DEFAULT_NEEDS = {"top": 5, "middle": 3, "bottom": 4}
WALLS_IN_BOX = 6
PIECES_IN_BOX = 12  # round castle pieces: 5 + 3 + 4
LANES = 3
LENGTH_MAX = 30  # lane length is profile data; no real board is longer


@dataclass(frozen=True)
class Lane:
    """One wave lane and its castle."""

    name: str
    length: int
    wave: int
    wall: bool
    castle_pieces: int
    flooded: bool
    needs: int

    @property
    def wall_space(self) -> int:
        """Index of the wall space (just before the castle space)."""
        return self.length - 1

    def is_complete(self) -> bool:
        """Is the castle complete (enough pieces, space not flooded)?"""
        return not self.flooded and self.castle_pieces >= self.needs

    def danger(self) -> str:
        """Short note: how far the wave is from the wall space and whether a wall stands.

        >>> Lane("top", 7, 3, False, 2, False, 5).danger()
        'wave 3 moves from the wall space, no wall'
        >>> Lane("top", 7, 6, False, 2, False, 5).danger()
        'wave on the wall space, no wall: the next move floods the castle'
        >>> Lane("top", 7, 5, True, 2, False, 5).danger()
        'wave 1 move from the wall space, wall standing'
        """
        if self.flooded:
            return "castle space flooded"
        gap = self.wall_space - self.wave
        if gap == 0:
            return "wave on the wall space, no wall: the next move floods the castle"
        wall = "wall standing" if self.wall else "no wall"
        return f"wave {gap} move{'s' if gap != 1 else ''} from the wall space, {wall}"


def read_state(state: dict, setup: dict | None = None) -> tuple[list[Lane], int | None]:
    """Check the state (and setup); return the lanes (in state order) and walls left.

    Raises:
        InvalidStateError: listing every problem.
    """
    p = Problems()
    setup = setup or {}
    needs = dict(DEFAULT_NEEDS)
    if "needs" in setup and p.need_dict(setup["needs"], "setup.needs") is not None:
        for name, n in setup["needs"].items():
            n = p.need_int(n, f"setup.needs.{name}", lo=1, hi=PIECES_IN_BOX)
            if n is not None:
                needs[name] = n
    lanes = []
    raw_lanes = p.need_dict(state.get("lanes"), "lanes") or {}
    if len(raw_lanes) > LANES:
        p.add(f"lanes: {len(raw_lanes)} lanes; the board has {LANES}")
    for name, raw in raw_lanes.items():
        where = f"lanes.{name}"
        if p.need_dict(raw, where) is None:
            continue
        need = raw.get("castle_needs", needs.get(name))
        if need is None:
            p.add(f"{where}: unknown lane {show(name)}; lanes are {', '.join(needs)} (or give castle_needs)")
            continue
        need = p.need_int(need, f"{where}.castle_needs", lo=1, hi=PIECES_IN_BOX)
        length = p.need_int(raw.get("length"), f"{where}.length", lo=2, hi=LENGTH_MAX)
        wave = p.need_int(raw.get("wave"), f"{where}.wave", lo=1, hi=length)
        wall = p.need_bool(raw.get("wall", False), f"{where}.wall")
        pieces = p.need_int(raw.get("castle_pieces", 0), f"{where}.castle_pieces", lo=0, hi=need)
        flooded = p.need_bool(raw.get("flooded", False), f"{where}.flooded")
        if None in (need, length, wave, wall, pieces, flooded):
            continue
        if flooded != (wave == length):
            p.add(f"{where}: flooded is {str(flooded).lower()} but the wave is on space {wave} of {length}; "
                  "a castle space is flooded exactly when the wave reached it")
        if flooded and pieces:
            p.add(f"{where}: {pieces} castle piece(s) on a flooded castle space")
        if wall and wave == length - 1:
            p.add(f"{where}: a wave on the wall space vanishes together with the wall; both are shown")
        lanes.append(Lane(name, length, wave, wall, pieces, flooded, need))
    if not raw_lanes:
        p.add("lanes: no lane given")
    pieces = sum(lane.castle_pieces for lane in lanes)
    if pieces > PIECES_IN_BOX:
        p.add(f"lanes: {pieces} castle pieces in all; the box has {PIECES_IN_BOX}")
    walls = state["walls_left"] if state.get("walls_left") is not None else setup.get("walls_left")
    if walls is not None:
        walls = p.need_int(walls, "walls_left", lo=0, hi=WALLS_IN_BOX)
    standing = sum(lane.wall for lane in lanes)
    if walls is not None and standing + walls > WALLS_IN_BOX:
        p.add(f"walls_left: {walls} left and {standing} standing; the box has {WALLS_IN_BOX} walls")
    p.raise_if_any()
    return lanes, walls


def validate(state: dict, setup: dict | None = None) -> None:
    """Check a Sand Castles state strictly: at most 3 lanes, lane names, length 2..30,
    1 <= wave <= length, castle needs 1..12, pieces 0..needed and at most 12 in all,
    flooded exactly when the wave is on the castle space, no pieces on a flooded space, no
    wave standing on a wall, ``walls_left`` 0..6 and at most 6 walls with those standing.

    Raises:
        InvalidStateError: with ``.problems`` listing every problem.

    >>> validate({"game": "sand-castles", "lanes": {"top": {"length": 7, "wave": 9, "castle_pieces": 6}}})
    Traceback (most recent call last):
    ...
    scoring.errors.InvalidStateError: invalid state: lanes.top.wave: expected an integer 1..7, got 9; lanes.top.castle_pieces: expected an integer 0..5, got 6
    """
    read_state(state, setup)


def score(state: dict, setup: dict | None = None) -> dict:
    """Variant score: 1 per castle piece standing + 1 per completed castle (max 15 by default).

    Returns:
        ``{"pieces", "completed", "points", "max_points", "outcome", "lanes": {name:
        {"needed", "missing", "danger", "moves_to_wall", "wall", "flooded"}}, "walls_left"}``;
        ``outcome`` is ``won`` (every castle complete), ``lost-castle`` (a castle space
        flooded) or ``playing``.
    Raises:
        InvalidStateError: the state is invalid (see ``validate``).
    Source: shared/rules/sand-castles.md §Outcome and score.

    >>> out = score({"game": "sand-castles", "lanes": {
    ...     "top": {"length": 7, "wave": 3, "wall": False, "castle_pieces": 2, "flooded": False},
    ...     "middle": {"length": 7, "wave": 5, "wall": True, "castle_pieces": 3, "flooded": False},
    ...     "bottom": {"length": 7, "wave": 7, "wall": False, "castle_pieces": 0, "flooded": True}}})
    >>> out["pieces"], out["completed"], out["points"], out["max_points"], out["outcome"]
    (5, ['middle'], 6, 15, 'lost-castle')
    """
    lanes, walls = read_state(state, setup)
    pieces = sum(lane.castle_pieces for lane in lanes)
    completed = [lane.name for lane in lanes if lane.is_complete()]
    if lanes and len(completed) == len(lanes):
        outcome = "won"
    elif any(lane.flooded for lane in lanes):
        outcome = "lost-castle"
    else:
        outcome = "playing"
    return {
        "pieces": pieces, "completed": completed, "points": pieces + len(completed),
        "max_points": sum(lane.needs + 1 for lane in lanes), "outcome": outcome,
        "lanes": {lane.name: {"needed": lane.needs, "missing": lane.needs - lane.castle_pieces,
                              "danger": lane.danger(), "moves_to_wall": None if lane.flooded else lane.wall_space - lane.wave,
                              "wall": lane.wall, "flooded": lane.flooded} for lane in lanes},
        "walls_left": walls,
        "rules": ["1 point per castle piece standing + 1 per completed castle",
                  "won: every castle complete; lost-castle: a castle space is flooded (play on)"],
    }


def explain(state: dict, setup: dict | None = None) -> str:
    """Text a player can check: per lane pieces and danger, then points and outcome.

    >>> print(explain({"game": "sand-castles", "lanes": {
    ...     "middle": {"length": 8, "wave": 2, "wall": True, "castle_pieces": 3, "flooded": False}}}))
    middle: 3/3 pieces (complete); wave 5 moves from the wall space, wall standing
    Points: 3 pieces + 1 completed castle = 4 of 4; outcome: won
    """
    lanes, _ = read_state(state, setup)
    out = score(state, setup)
    lines = []
    for lane in lanes:
        status = "complete" if lane.is_complete() else ("washed away" if lane.flooded else f"{lane.needs - lane.castle_pieces} missing")
        lines.append(f"{lane.name}: {lane.castle_pieces}/{lane.needs} pieces ({status}); {lane.danger()}")
    n = len(out["completed"])
    lines.append(f"Points: {out['pieces']} pieces + {n} completed castle{'s' if n != 1 else ''} = "
                 f"{out['points']} of {out['max_points']}; outcome: {out['outcome']}")
    return "\n".join(lines)


def complete_state(state: dict, setup: dict | None = None) -> dict:
    """The state with what the setup fills in (``walls_left`` when the state has none); a copy.

    >>> complete_state({"game": "sand-castles", "walls_left": None}, {"walls_left": 4})["walls_left"]
    4
    """
    out = dict(state)
    if out.get("walls_left") is None and isinstance(setup, dict) and setup.get("walls_left") is not None:
        out["walls_left"] = setup["walls_left"]
    return out
