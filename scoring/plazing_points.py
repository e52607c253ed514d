"""Plażing points per player: running points a snapshot can know, and the final scoring.

Rules: ``shared/rules/plazing.md`` §Scoring. A figure that needs an off-board fact that is
missing (weather, collected resources, closings, track, terrain) is ``None`` — never 0 —
and so is a total that needs it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from scoring.plazing_areas import Area
from scoring.plazing_state import Board, Facts, Piece
from scoring.ranking import split_prizes

MAJORITY_PRIZES_4 = (12, 6, 3)
MAJORITY_PRIZES = (12, 6)
SET_BONUS = 5
TRASH_BONUS = 5
START_WITH_MINUS = 10


@dataclass(frozen=True)
class PlayerFigures:
    """One player's figures; ``None`` = needs an off-board fact that is missing."""

    player: str
    areas: int
    largest_area: int
    most_areas_points: int
    largest_area_points: int
    weather_points: int | None
    field_points: int | None
    resource_points: int | None
    trash_points: int | None
    closing_points: int | None
    track: int | None
    start: int | None
    total: int | None

    def to_json(self) -> dict:
        """The contract's player object (plus ``start``)."""
        return asdict(self)


def triangular(n: int) -> int:
    """Points for ``n`` collected resources of one kind: 1, 3, 6, 10, 15, … = n(n+1)/2.

    >>> [triangular(n) for n in range(6)]
    [0, 1, 3, 6, 10, 15]
    """
    return n * (n + 1) // 2


def resource_points(collected: dict[str, int]) -> int:
    """Points for collected resources: triangular per kind + 5 per amber+shell+pebble set.

    Source: shared/rules/plazing.md §Final (rulebook example: 3 amber, 2 pebbles, 1 shell).

    >>> resource_points({"amber": 3, "pebble": 2, "shell": 1})
    15
    >>> resource_points({"amber": 2, "pebble": 2, "shell": 2, "trash": 4})
    19
    """
    kinds = ("amber", "shell", "pebble")
    return sum(triangular(collected.get(k, 0)) for k in kinds) + SET_BONUS * min(collected.get(k, 0) for k in kinds)


def weather_points(pieces: list[Piece], weather: str | None) -> int | None:
    """Weather points of one player's pieces on the board.

    sun: +2 per blanket; rain: −1 per gear; ``wind-X``: +2 per screen whose outer side faces
    X (N = the sea side). None when the weather is unknown, or under wind when a screen's
    facing is unknown.

    >>> from scoring.plazing_state import Piece
    >>> ps = [Piece(0, "red", "screen", ((0, 0), (0, 1), (0, 2)), "N"), Piece(1, "red", "gear", ((3, 3),))]
    >>> weather_points(ps, "wind-N"), weather_points(ps, "wind-S"), weather_points(ps, "rain"), weather_points(ps, None)
    (2, 0, -1, None)
    """
    if weather is None:
        return None
    if weather == "sun":
        return 2 * sum(1 for p in pieces if p.kind == "blanket")
    if weather == "rain":
        return -sum(1 for p in pieces if p.kind == "gear")
    direction = weather.removeprefix("wind-")
    screens = [p for p in pieces if p.kind == "screen"]
    if any(p.facing is None for p in screens):
        return None
    return 2 * sum(1 for p in screens if p.facing == direction)


def covered_field_points(board: Board, pieces: list[Piece]) -> int:
    """Sum of the ±1 squares covered by these pieces."""
    value = {"+": 1, "-": -1}
    return sum(value.get(board.terrain_at(cell), 0) for p in pieces for cell in p.cells)


def player_figures(board: Board, facts: Facts, areas: tuple[Area, ...]) -> list[PlayerFigures]:
    """Every player's figures, in the order of ``facts.players``.

    Most areas / largest area: 12 / 6 (/ 3 with 4 players), ties split rounding down, a
    player with no area earns nothing. Largest area = most ring pieces of an area the player
    owns (closed, by ring count). ``field_points`` = ±1 squares the player covers + those
    inside areas the player owns.
    """
    players = facts.players
    owned = {p: [a for a in areas if a.closed and a.owner == p] for p in players}
    held = {p: len(owned[p]) for p in players}
    largest = {p: max((a.size for a in owned[p]), default=0) for p in players}
    prizes = MAJORITY_PRIZES_4 if len(players) >= 4 else MAJORITY_PRIZES
    most_pts = split_prizes(held, prizes)
    large_pts = split_prizes(largest, prizes)
    trash = _trash_points(facts)
    start = None if board.terrain is None else (START_WITH_MINUS if board.has_minus_squares() else 0)
    out = []
    for p in players:
        mine = [x for x in board.pieces if x.player == p]
        fields = None
        if board.terrain is not None:
            fields = covered_field_points(board, mine) + sum(a.fields for a in owned[p])
        got = (facts.collected or {}).get(p)
        res = None if got is None else resource_points(got)
        closing = None if facts.closings is None else facts.closings.get(p)
        track = None if facts.track is None else facts.track.get(p)
        weather = weather_points(mine, facts.weather)
        final = [weather, res, most_pts[p], large_pts[p]]
        if facts.clean_beach:
            final.append(trash[p])
        if track is not None:
            parts = [track] + final
        else:
            parts = [start, closing, fields] + final
        total = None if any(x is None for x in parts) else sum(parts)
        out.append(PlayerFigures(p, held[p], largest[p], most_pts[p], large_pts[p], weather, fields, res,
                                 trash[p] if facts.clean_beach else None, closing, track, start, total))
    return out


def _trash_points(facts: Facts) -> dict[str, int | None]:
    """Clean beach: 1 per trash collected, +5 to the single player with most (none on a tie)."""
    collected = facts.collected or {}
    counts = {p: collected[p].get("trash", 0) if p in collected else None for p in facts.players}
    if any(n is None for n in counts.values()):
        return {p: None for p in facts.players}
    best = max(counts.values(), default=0)
    leaders = [p for p, n in counts.items() if n == best]
    return {p: n + (TRASH_BONUS if best > 0 and leaders == [p] else 0) for p, n in counts.items()}
