"""The event: players, rounds, tables and results, read from (and written back to) EVENT.json.

Shape: shared/contracts/tournament.md §EVENT.json. Everything here is plain data: frozen
dataclasses built by :meth:`Event.from_json`, which checks the whole file and reports every
problem at once (:class:`~tournament.errors.InvalidEventError`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from numbers import Real

from tournament import games
from tournament.errors import InvalidEventError

#: Tiebreakers in their default order (shared/contracts/tournament.md §Tiebreakers).
TIEBREAKERS = ("game_points", "wins", "opponents", "head_to_head")
#: How seating handles a player count that does not fill tables of ``table_size``.
UNEVEN = ("smaller-tables", "byes")


def default_placement_points(n: int) -> tuple[int, ...]:
    """Tournament points for ranks 1…n at a table of n: n for the winner, then n−2, n−3, …, 0.

    This is the contract's default (2: 2/0, 3: 3/1/0, 4: 4/2/1/0) carried on to any n.

    >>> default_placement_points(4), default_placement_points(2), default_placement_points(5)
    ((4, 2, 1, 0), (2, 0), (5, 3, 2, 1, 0))
    """
    return (n,) + tuple(range(n - 2, -1, -1)) if n > 0 else ()


@dataclass(frozen=True)
class Player:
    """A player of the event; ``id`` is what tables and results name them by (the name when the file gives none)."""

    id: str
    name: str
    club: str | None = None
    dropped: bool = False

    def to_json(self) -> dict:
        out = {"id": self.id, "name": self.name}
        if self.club:
            out["club"] = self.club
        if self.dropped:
            out["dropped"] = True
        return out


@dataclass(frozen=True)
class Result:
    """A played table: each player's game points and rank (1 = best; equal ranks are shared places).

    ``ranks`` may be None for a co-operative table: its rank among the round's tables then
    follows from its points (:func:`tournament.standings.team_ranks`).
    """

    game_points: dict[str, Real]
    ranks: dict[str, int] | None

    def to_json(self) -> dict:
        out: dict = {"game_points": dict(self.game_points)}
        if self.ranks is not None:
            out["ranks"] = dict(self.ranks)
        return out


@dataclass(frozen=True)
class Table:
    """One table of a round: its number, its players (ids, seat order) and its result once played."""

    number: int
    players: tuple[str, ...]
    result: Result | None = None

    @property
    def is_played(self) -> bool:
        return self.result is not None

    def to_json(self) -> dict:
        out: dict = {"table": self.number, "players": list(self.players)}
        if self.result is not None:
            out["result"] = self.result.to_json()
        return out


#: A round's ``status`` as the hall's export writes it (an extra field of EVENT.json).
ROUND_STATUSES = ("open", "closed")


@dataclass(frozen=True)
class Round:
    """A round: its number (1, 2, …), its tables and the players who sat it out (``byes``).

    ``status`` is the hall's ``open``/``closed`` when the file says it, else None.
    """

    number: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...] = ()
    status: str | None = None

    @property
    def waiting(self) -> tuple[int, ...]:
        """The numbers of its tables without a result."""
        return tuple(t.number for t in self.tables if not t.is_played)

    @property
    def is_open(self) -> bool:
        """Still being played: marked ``open``, or (unmarked) some table has no result yet.

        >>> t = Table(1, ("a", "b"))
        >>> Round(1, (t,)).is_open, Round(1, (t,), status="closed").is_open
        (True, False)
        """
        return self.status == "open" or (self.status is None and bool(self.waiting))

    @property
    def is_played(self) -> bool:
        """True when at least one table of the round has a result."""
        return any(t.is_played for t in self.tables)

    @property
    def is_complete(self) -> bool:
        return bool(self.tables) and all(t.is_played for t in self.tables)

    def to_json(self) -> dict:
        out: dict = {"number": self.number, "tables": [t.to_json() for t in self.tables]}
        if self.byes:
            out["byes"] = list(self.byes)
        if self.status is not None:
            out["status"] = self.status
        return out


@dataclass(frozen=True)
class Scoring:
    """How standings are computed: placement points per table size, tiebreakers in order, points for a bye."""

    placement_points: dict[int, tuple[Real, ...]] = field(default_factory=dict)
    tiebreakers: tuple[str, ...] = TIEBREAKERS
    bye_points: Real = 0

    def placement(self, n: int) -> tuple[Real, ...]:
        """Points for ranks 1…n among n competitors (the event's, else :func:`default_placement_points`)."""
        return self.placement_points.get(n) or default_placement_points(n)

    def to_json(self) -> dict:
        points = {str(n): list(v) for n, v in sorted(self.placement_points.items())}
        for n in (2, 3, 4):
            points.setdefault(str(n), list(default_placement_points(n)))
        out = {"placement_points": dict(sorted(points.items(), key=lambda kv: int(kv[0]))),
               "tiebreakers": list(self.tiebreakers)}
        if self.bye_points:
            out["bye_points"] = self.bye_points
        return out


@dataclass(frozen=True)
class Seating:
    """How the next round is seated: the table size aimed for and what to do with the players left over."""

    table_size: int
    uneven: str = "smaller-tables"

    def to_json(self) -> dict:
        return {"table_size": self.table_size, "uneven": self.uneven}


@dataclass(frozen=True)
class Event:
    """A whole event, as EVENT.json describes it."""

    name: str
    game: str
    players: tuple[Player, ...]
    rounds: tuple[Round, ...] = ()
    scoring: Scoring = field(default_factory=Scoring)
    seating: Seating | None = None

    @property
    def co_op(self) -> bool:
        return games.is_co_op(self.game)

    @property
    def player_range(self) -> tuple[int, int]:
        return games.player_range(self.game)

    @property
    def seating_rules(self) -> Seating:
        """The event's seating rules; else tables as big as the last round's biggest (the game's largest
        up to 4 before any round), with smaller tables for the players left over."""
        if self.seating is not None:
            return self.seating
        low, high = self.player_range
        last = [len(t.players) for r in self.rounds for t in r.tables if r.number == self.rounds[-1].number]
        size = max(last) if last else games.DEFAULT_TABLE_SIZE
        return Seating(max(low, min(size, high)))

    def player(self, pid: str) -> Player:
        for p in self.players:
            if p.id == pid:
                return p
        raise KeyError(pid)

    @property
    def active_players(self) -> tuple[Player, ...]:
        """Players who have not dropped, in file order."""
        return tuple(p for p in self.players if not p.dropped)

    def with_round(self, rnd: Round) -> Event:
        """A copy with ``rnd`` added (or replacing the round of the same number)."""
        rounds = [r for r in self.rounds if r.number != rnd.number] + [rnd]
        return replace(self, rounds=tuple(sorted(rounds, key=lambda r: r.number)))

    def to_json(self) -> dict:
        out = {"event": self.name, "game": self.game, "players": [p.to_json() for p in self.players],
               "scoring": self.scoring.to_json(), "rounds": [r.to_json() for r in self.rounds]}
        if self.seating is not None:
            out["seating"] = self.seating.to_json()
        return out

    @classmethod
    def from_json(cls, doc: dict) -> Event:
        """Read and check an EVENT.json object.

        Raises:
            InvalidEventError: listing every problem (unknown game, a player seated twice in a
                round, a result that does not name the table's players, a table too big for the
                game, unknown tiebreakers …).

        >>> ev = Event.from_json({"event": "Club night", "game": "strand-unter",
        ...     "players": [{"id": "p1", "name": "Ana"}, {"id": "p2", "name": "Bo"}],
        ...     "rounds": [{"number": 1, "tables": [{"table": 1, "players": ["p1", "p2"],
        ...         "result": {"game_points": {"p1": 20, "p2": 14}, "ranks": {"p1": 1, "p2": 2}}}]}]})
        >>> ev.rounds[0].tables[0].result.ranks
        {'p1': 1, 'p2': 2}
        >>> Event.from_json({"game": "chess", "players": []})
        Traceback (most recent call last):
        ...
        tournament.errors.InvalidEventError: invalid event: game: unknown game 'chess'; expected one of strand-unter, plazing, seashells, sand-castles
        """
        return _Reader().event(doc)


#: Largest game or tournament points accepted (in size): sums over any event stay exact and printable.
MAX_POINTS = 10 ** 12


def _number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and value == value and abs(value) <= MAX_POINTS


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Reader:
    """Collects every problem of an event file, then raises them together."""

    def __init__(self):
        self.problems: list[str] = []

    def bad(self, message: str) -> None:
        self.problems.append(message)

    def event(self, doc) -> Event:
        if not isinstance(doc, dict):
            raise InvalidEventError(f"expected a JSON object, got {type(doc).__name__}")
        name = doc.get("event", "")
        if not isinstance(name, str):
            self.bad(f"event: expected a name, got {_show(name)}")
            name = ""
        game = doc.get("game")
        if game not in games.PLAYERS:
            what = "missing" if game is None else f"unknown game {_show(game)}"
            raise InvalidEventError(f"game: {what}; expected one of {', '.join(games.PLAYERS)}")
        players = self.players(doc.get("players"))
        scoring = self.scoring(doc.get("scoring"))
        seating = self.seating(doc.get("seating"), game)
        known = {p.id for p in players}
        rounds = self.rounds(doc.get("rounds", []), known, game)
        if self.problems:
            raise InvalidEventError(self.problems)
        return Event(name=name, game=game, players=players, rounds=rounds, scoring=scoring, seating=seating)

    def players(self, raw) -> tuple[Player, ...]:
        if not isinstance(raw, list):
            self.bad(f"players: expected a list, got {_show(raw)}")
            return ()
        out, seen = [], set()
        for i, p in enumerate(raw):
            where = f"players[{i}]"
            if not isinstance(p, dict):
                self.bad(f"{where}: expected an object, got {_show(p)}")
                continue
            name, pid, club = p.get("name"), p.get("id", p.get("name")), p.get("club")
            if not isinstance(name, str) or not name.strip():
                self.bad(f"{where}.name: expected a name, got {_show(name)}")
                continue
            if not isinstance(pid, str) or not pid:
                self.bad(f"{where}.id: expected a string, got {_show(pid)}")
                continue
            if club is not None and not isinstance(club, str):
                self.bad(f"{where}.club: expected a string, got {_show(club)}")
                club = None
            if pid in seen:
                self.bad(f"{where}.id: {pid!r} is used by another player")
                continue
            dropped = p.get("dropped", False)
            if not isinstance(dropped, bool):
                self.bad(f"{where}.dropped: expected true or false, got {_show(dropped)}")
                dropped = False
            seen.add(pid)
            out.append(Player(pid, name, club or None, dropped))
        return tuple(out)

    def scoring(self, raw) -> Scoring:
        if raw is None:
            return Scoring()
        if not isinstance(raw, dict):
            self.bad(f"scoring: expected an object, got {_show(raw)}")
            return Scoring()
        points: dict[int, tuple] = {}
        table = raw.get("placement_points", {})
        if not isinstance(table, dict):
            self.bad(f"scoring.placement_points: expected an object, got {_show(table)}")
            table = {}
        for key, values in table.items():
            where = f"scoring.placement_points[{key!r}]"
            n = int(key) if isinstance(key, str) and key.isdigit() else None
            if not n:
                self.bad(f"{where}: the key must be a table size (\"2\", \"3\" …)")
            elif not isinstance(values, list) or len(values) != n or not all(_number(v) for v in values):
                self.bad(f"{where}: expected {n} numbers (points for ranks 1…{n}, each at most {MAX_POINTS:.0e} "
                         f"in size), got {_show(values)}")
            else:
                points[n] = tuple(values)
        tiebreakers = raw.get("tiebreakers", list(TIEBREAKERS))
        if not isinstance(tiebreakers, list) or not all(isinstance(t, str) for t in tiebreakers):
            self.bad(f"scoring.tiebreakers: expected a list of names, got {_show(tiebreakers)}")
            tiebreakers = list(TIEBREAKERS)
        for t in tiebreakers:
            if t not in TIEBREAKERS:
                self.bad(f"scoring.tiebreakers: unknown tiebreaker {t!r}; expected some of {', '.join(TIEBREAKERS)}")
        if len(set(tiebreakers)) != len(tiebreakers):
            self.bad("scoring.tiebreakers: a tiebreaker is listed twice")
        bye = raw.get("bye_points", 0)
        if not _number(bye):
            self.bad(f"scoring.bye_points: expected a number (at most {MAX_POINTS:.0e} in size), got {_show(bye)}")
            bye = 0
        return Scoring(points, tuple(t for t in tiebreakers if t in TIEBREAKERS), bye)

    def seating(self, raw, game: str) -> Seating | None:
        if raw is None:
            return None
        low, high = games.player_range(game)
        if not isinstance(raw, dict):
            self.bad(f"seating: expected an object, got {_show(raw)}")
            return None
        size = raw.get("table_size", min(games.DEFAULT_TABLE_SIZE, high))
        uneven = raw.get("uneven", "smaller-tables")
        if not _int(size) or not low <= size <= high:
            self.bad(f"seating.table_size: {game} seats {low} to {high} players at a table, got {_show(size)}")
            size = min(games.DEFAULT_TABLE_SIZE, high)
        if uneven not in UNEVEN:
            self.bad(f"seating.uneven: expected one of {', '.join(UNEVEN)}, got {_show(uneven)}")
            uneven = UNEVEN[0]
        return Seating(size, uneven)

    def rounds(self, raw, known: set[str], game: str) -> tuple[Round, ...]:
        if not isinstance(raw, list):
            self.bad(f"rounds: expected a list, got {_show(raw)}")
            return ()
        out, numbers_seen = [], set()
        for i, r in enumerate(raw):
            where = f"rounds[{i}]"
            if not isinstance(r, dict):
                self.bad(f"{where}: expected an object, got {_show(r)}")
                continue
            number = r.get("number", i + 1)
            if not _int(number) or number < 1 or number in numbers_seen:
                self.bad(f"{where}.number: expected a round number from 1 used once, got {_show(number)}")
                number = max(numbers_seen, default=0) + 1
            numbers_seen.add(number)
            tables_raw = r.get("tables", [])
            if not isinstance(tables_raw, list):
                self.bad(f"{where}.tables: expected a list, got {_show(tables_raw)}")
                tables_raw = []
            seated: set[str] = set()
            tables, numbers = [], set()
            for j, t in enumerate(tables_raw):
                table = self.table(t, f"{where}.tables[{j}]", known, seated, game)
                if table is None:
                    continue
                if table.number in numbers:
                    self.bad(f"{where}.tables[{j}].table: table {table.number} appears twice in the round")
                numbers.add(table.number)
                tables.append(table)
            byes = r.get("byes", [])
            if not isinstance(byes, list) or not all(isinstance(b, str) for b in byes):
                self.bad(f"{where}.byes: expected a list of player ids, got {_show(byes)}")
                byes = []
            for b in byes:
                if b not in known:
                    self.bad(f"{where}.byes: unknown player {b!r}")
                elif b in seated:
                    self.bad(f"{where}.byes: {b!r} also sits at a table")
                seated.add(b)
            if game in games.CO_OP:
                self.co_op_ranks(tables, where)
            status = r.get("status")
            if status is not None and status not in ROUND_STATUSES:
                self.bad(f"{where}.status: expected one of {', '.join(ROUND_STATUSES)} (or none), got {_show(status)}")
                status = None
            out.append(Round(number, tuple(tables), tuple(byes), status))
        return tuple(sorted(out, key=lambda r: r.number))

    def table(self, t, where: str, known: set[str], seated: set[str], game: str) -> Table | None:
        if not isinstance(t, dict):
            self.bad(f"{where}: expected an object, got {_show(t)}")
            return None
        number, players = t.get("table"), t.get("players")
        if not _int(number) or number < 1:
            self.bad(f"{where}.table: expected a table number from 1, got {_show(number)}")
            return None
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            self.bad(f"{where}.players: expected a list of player ids, got {_show(players)}")
            return None
        low, high = games.player_range(game)
        if not low <= len(players) <= high:
            self.bad(f"{where}.players: {game} seats {low} to {high} players at a table, got {len(players)}")
        for p in players:
            if p not in known:
                self.bad(f"{where}.players: unknown player {p!r}")
            elif p in seated:
                self.bad(f"{where}.players: {p!r} is seated twice in this round")
            seated.add(p)
        result = None
        if t.get("result") is not None:
            result = self.result(t["result"], f"{where}.result", players, game in games.CO_OP)
        return Table(number, tuple(players), result)

    def result(self, raw, where: str, players: list[str], co_op: bool) -> Result | None:
        try:
            return read_result(raw, players, co_op=co_op, where=where)
        except InvalidEventError as err:
            self.problems.extend(err.problems)
            return None

    def co_op_ranks(self, tables: list[Table], where: str) -> None:
        played = [t for t in tables if t.result is not None]
        given = [t.result.ranks is not None for t in played]
        if any(given) and not all(given):
            self.bad(f"{where}: give ranks for every played table of a co-operative round, or for none")


def read_result(raw, players, *, co_op: bool = False, where: str = "result") -> Result:
    """Check a table result against the table's players.

    ``game_points`` name every player of the table; ``ranks`` (integers from 1) too, and when they
    are left out the ranks follow from the game points (more is better, equal points share a
    rank). A co-operative table may give one ``points`` value for the whole team; every player of
    it has the same points and the same rank.

    Raises:
        InvalidEventError: a player missing or unknown, a rank that is not a positive integer,
            points that are not numbers, a co-operative team whose players differ.

    >>> read_result({"game_points": {"a": 3, "b": 7}}, ["a", "b"]).ranks
    {'a': 2, 'b': 1}
    >>> read_result({"points": 9}, ["a", "b"], co_op=True)
    Result(game_points={'a': 9, 'b': 9}, ranks=None)
    """
    problems: list[str] = []
    players = list(players)
    if not isinstance(raw, dict):
        raise InvalidEventError(f"{where}: expected an object, got {_show(raw)}")
    points = raw.get("game_points")
    if points is None and co_op and "points" in raw:
        points = {p: raw["points"] for p in players}
    ranks = raw.get("ranks")
    if co_op and ranks is None and _int(raw.get("rank")):
        ranks = {p: raw["rank"] for p in players}
    if points is None and ranks is None:
        raise InvalidEventError(f"{where}: give game_points (and ranks) for the table's players")
    if points is None:
        points = {p: 0 for p in players}
    for name, mapping, check, what in (("game_points", points, _number, f"a number (at most {MAX_POINTS:.0e} in size)"),
                                       ("ranks", ranks, lambda v: _int(v) and v >= 1, "an integer from 1")):
        if mapping is None:
            continue
        if not isinstance(mapping, dict):
            problems.append(f"{where}.{name}: expected an object {{player: value}}, got {_show(mapping)}")
            continue
        missing = [p for p in players if p not in mapping]
        extra = [p for p in mapping if p not in players]
        if missing:
            problems.append(f"{where}.{name}: no value for {', '.join(map(repr, missing))}")
        if extra:
            problems.append(f"{where}.{name}: {', '.join(map(repr, extra))} did not sit at this table")
        for p, v in mapping.items():
            if not check(v):
                problems.append(f"{where}.{name}[{p!r}]: expected {what}, got {_show(v)}")
    if problems:
        raise InvalidEventError(problems)
    points = {p: points[p] for p in players}
    if co_op:
        if len({Fraction(v) for v in points.values()}) > 1:
            raise InvalidEventError(f"{where}.game_points: a co-operative table is one team; its players "
                                    f"score the same, got {_show(points)}")
        if ranks is not None and len(set(ranks.values())) > 1:
            raise InvalidEventError(f"{where}.ranks: a co-operative table is one team; its players share "
                                    f"one rank, got {_show(ranks)}")
        return Result(points, None if ranks is None else {p: ranks[p] for p in players})
    if ranks is None:
        ranks = ranks_from_points(points)
    return Result(points, {p: ranks[p] for p in players})


def ranks_from_points(points: dict[str, Real]) -> dict[str, int]:
    """Competition ranks by points, higher first; equal points share a rank (1, 1, 3).

    >>> ranks_from_points({"a": 5, "b": 9, "c": 5, "d": 1})
    {'a': 2, 'b': 1, 'c': 2, 'd': 4}
    """
    ordered = sorted(points.values(), reverse=True)
    return {p: 1 + ordered.index(v) for p, v in points.items()}
