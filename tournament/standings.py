"""Standings: tournament points per placement, then the tiebreakers in the event's order.

Rules (shared/contracts/tournament.md §Tiebreakers):

- A table of n players pays ``placement_points[n]`` for ranks 1…n. Players sharing a place
  split the points of the places they cover evenly: ranks 1 and 2 shared at a 4-player table
  get (4 + 2) / 2 = 3 each. Places are counted by position, so ``{"a": 1, "b": 1, "c": 3}``
  and ``{"a": 1, "b": 1, "c": 2}`` both put c third.
- Co-operative games: a table is a team. The round's played tables are ranked by their points
  (or by the ranks the file gives) and paid ``placement_points[number of tables in the round]``;
  every player of a team gets the team's points. Their "opponents" are the players they sat
  with (the only players they met).
- Then, in the configured order: ``game_points`` (sum), ``wins`` (tables where the player placed
  first, shared or not; co-operative: where the team was ranked first among the round's tables), ``opponents`` (mean tournament points of the players met, once per table
  met), ``head_to_head`` (among the players still tied: finishes ahead of another of them at a
  shared table, minus finishes behind). Players equal on everything share a rank.

All arithmetic is exact (:class:`fractions.Fraction`); numbers become int or float only in JSON.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

from tournament.event import Event, Player, Round, Table


def split_places(ranks: dict, placement: tuple[Real, ...]) -> dict:
    """Placement points per competitor; shared ranks split the points of the places they cover.

    Args:
        ranks: competitor -> rank (1 = best; equal ranks share).
        placement: points for places 1, 2, …; places past its end are worth 0.
    Returns:
        competitor -> Fraction.

    >>> {p: str(v) for p, v in split_places({"a": 1, "b": 1, "c": 3, "d": 4}, (4, 2, 1, 0)).items()}
    {'a': '3', 'b': '3', 'c': '1', 'd': '0'}
    >>> {p: str(v) for p, v in split_places({"a": 2, "b": 2, "c": 2, "d": 1}, (4, 2, 1, 0)).items()}
    {'a': '1', 'b': '1', 'c': '1', 'd': '4'}
    """
    out = {}
    place = 0
    for rank in sorted(set(ranks.values())):
        group = [p for p in ranks if ranks[p] == rank]
        pool = sum((Fraction(v) for v in placement[place:place + len(group)]), Fraction(0))
        for p in group:
            out[p] = pool / len(group)
        place += len(group)
    return {p: out[p] for p in ranks}


def team_ranks(rnd: Round) -> dict[int, int]:
    """Co-operative round: each played table's rank among the round's played tables.

    The file's ranks when it gives them, else by the team's points (more is better, equal share).

    >>> from tournament.event import Result
    >>> r = Round(1, (Table(1, ("a", "b"), Result({"a": 6, "b": 6}, None)),
    ...               Table(2, ("c", "d"), Result({"c": 9, "d": 9}, None))))
    >>> team_ranks(r)
    {1: 2, 2: 1}
    """
    played = [t for t in rnd.tables if t.result is not None]
    if played and all(t.result.ranks is not None for t in played):
        return {t.number: next(iter(t.result.ranks.values())) for t in played}
    value = {t.number: max(Fraction(v) for v in t.result.game_points.values()) for t in played}
    ordered = sorted(value.values(), reverse=True)
    return {n: 1 + ordered.index(v) for n, v in value.items()}


@dataclass(frozen=True)
class TableOutcome:
    """One played table seen by the standings: tournament points per player and who placed first."""

    round: int
    table: Table
    points: dict[str, Fraction]
    places: dict[str, int]  # the rank each player is compared by (team rank in co-op games)
    first: int | None = None  # the place that wins; None: the table's best (co-op: the round's best team)

    @property
    def winners(self) -> list[str]:
        best = min(self.places.values()) if self.first is None else self.first
        return [p for p, r in self.places.items() if r == best]


def outcomes(event: Event) -> list[TableOutcome]:
    """Tournament points of every played table of the event, round by round.

    >>> from tournament.event import Event
    >>> ev = Event.from_json({"game": "plazing", "players": [{"id": x, "name": x} for x in "abc"],
    ...     "rounds": [{"number": 1, "tables": [{"table": 1, "players": ["a", "b", "c"],
    ...         "result": {"game_points": {"a": 30, "b": 30, "c": 12}, "ranks": {"a": 1, "b": 1, "c": 3}}}]}]})
    >>> {p: str(v) for p, v in outcomes(ev)[0].points.items()}
    {'a': '2', 'b': '2', 'c': '0'}
    """
    out = []
    for rnd in event.rounds:
        if event.co_op:
            teams = team_ranks(rnd)
            team_points = split_places(teams, event.scoring.placement(len(rnd.tables)))
            best = min(teams.values(), default=None)
            for t in rnd.tables:
                if t.result is not None:
                    out.append(TableOutcome(rnd.number, t, {p: team_points[t.number] for p in t.players},
                                            {p: teams[t.number] for p in t.players}, best))
            continue
        for t in rnd.tables:
            if t.result is not None:
                out.append(TableOutcome(rnd.number, t, split_places(t.result.ranks, event.scoring.placement(len(t.players))),
                                        dict(t.result.ranks)))
    return out


@dataclass(frozen=True)
class Standing:
    """One row of the standings."""

    rank: int
    player: Player
    tournament_points: Fraction
    game_points: Fraction
    wins: int
    opponents: Fraction
    played: int
    byes: int
    head_to_head: int | None = None

    def to_json(self) -> dict:
        out = {"rank": self.rank, "player": self.player.id, "name": self.player.name,
               "tournament_points": as_number(self.tournament_points), "game_points": as_number(self.game_points),
               "wins": self.wins, "opponents": float(self.opponents), "played": self.played}
        if self.player.club:
            out["club"] = self.player.club
        if self.byes:
            out["byes"] = self.byes
        if self.player.dropped:
            out["dropped"] = True
        if self.head_to_head is not None:
            out["head_to_head"] = self.head_to_head
        return out


def as_number(value: Fraction) -> int | float:
    """An exact value as JSON shows it: an int when whole, else a float.

    >>> as_number(Fraction(6, 2)), as_number(Fraction(7, 3))
    (3, 2.3333333333333335)
    """
    return int(value) if value.denominator == 1 else float(value)


def standings(event: Event) -> list[Standing]:
    """The event's standings after the results in it, best first (a total order up to shared ranks).

    Every player appears, dropped ones too (they keep their results). Players equal on tournament
    points and every tiebreaker share a rank and keep file order.

    >>> from tournament.event import Event
    >>> ev = Event.from_json({"game": "strand-unter", "players": [{"id": x, "name": x.upper()} for x in "abcd"],
    ...     "rounds": [{"number": 1, "tables": [
    ...         {"table": 1, "players": ["a", "b"], "result": {"game_points": {"a": 20, "b": 14}, "ranks": {"a": 1, "b": 2}}},
    ...         {"table": 2, "players": ["c", "d"], "result": {"game_points": {"c": 18, "d": 18}, "ranks": {"c": 1, "d": 1}}}]}]})
    >>> [(s.rank, s.player.id, str(s.tournament_points)) for s in standings(ev)]
    [(1, 'a', '2'), (2, 'c', '1'), (2, 'd', '1'), (4, 'b', '0')]
    """
    played = outcomes(event)
    ids = [p.id for p in event.players]
    tp = {p: Fraction(0) for p in ids}
    gp = {p: Fraction(0) for p in ids}
    wins = dict.fromkeys(ids, 0)
    count = dict.fromkeys(ids, 0)
    byes = dict.fromkeys(ids, 0)
    met: dict[str, list[str]] = defaultdict(list)
    ahead: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # ahead[p][q]: p finished above q
    for o in played:
        winners = set(o.winners)
        for p in o.table.players:
            tp[p] += o.points[p]
            gp[p] += Fraction(o.table.result.game_points[p])
            wins[p] += p in winners
            count[p] += 1
            met[p] += [q for q in o.table.players if q != p]
            for q in o.table.players:
                if o.places[p] < o.places[q]:
                    ahead[p][q] += 1
    for rnd in event.rounds:
        for p in rnd.byes:
            byes[p] += 1
            tp[p] += Fraction(event.scoring.bye_points)
    opponents = {p: (sum((tp[q] for q in met[p]), Fraction(0)) / len(met[p])) if met[p] else Fraction(0) for p in ids}
    h2h: dict[str, int] = {}

    def value(criterion: str, group: list[str]) -> dict[str, Fraction | int]:
        if criterion == "game_points":
            return {p: gp[p] for p in group}
        if criterion == "wins":
            return {p: wins[p] for p in group}
        if criterion == "opponents":
            return {p: opponents[p] for p in group}
        members = set(group)
        scores = {p: sum(ahead[p][q] - ahead[q][p] for q in set(met[p]) & members) for p in group}
        h2h.update(scores)
        return scores

    groups = _split(ids, tp)
    for criterion in event.scoring.tiebreakers:
        groups = [sub for g in groups for sub in (_split(g, value(criterion, g)) if len(g) > 1 else [g])]
    rows, rank = [], 1
    by_id = {p.id: p for p in event.players}
    for g in groups:
        for p in g:
            rows.append(Standing(rank, by_id[p], tp[p], gp[p], wins[p], opponents[p], count[p], byes[p],
                                 h2h.get(p)))
        rank += len(g)
    return rows


def _split(group: list[str], key: dict) -> list[list[str]]:
    """Group ``group`` by equal ``key`` value, highest first; each part keeps the group's order."""
    return [[p for p in group if key[p] == v] for v in sorted({key[p] for p in group}, reverse=True)]


def rounds_played(event: Event) -> int:
    """Rounds with at least one result."""
    return sum(r.is_played for r in event.rounds)


def standings_json(event: Event) -> dict:
    """``standings --json`` (shared/contracts/tournament.md §standings --json)."""
    return {"event": event.name, "game": event.game, "rounds_played": rounds_played(event),
            "standings": [s.to_json() for s in standings(event)]}
