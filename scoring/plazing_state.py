"""Plażing: read and check a state (+ setup) into frozen dataclasses.

Shapes: ``shared/contracts/plazing.md`` (state, setup). Rules: ``shared/rules/plazing.md``.
Facts that both the state and the setup may give (``terrain``, ``weather``, ``players``,
``collected``, ``closings``, ``track``, ``expansions``, ``pieces`` catalogue) are taken from
the state when present, else from the setup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.checks import Problems, counts_dict, merged, show

Cell = tuple[int, int]

TERRAIN_CHARS = ".#+-x"
RESOURCE_KINDS = ("amber", "shell", "pebble")
COLLECTED_KINDS = RESOURCE_KINDS + ("trash",)
FACINGS = ("N", "S", "E", "W")
WEATHERS = ("sun", "rain", "wind-N", "wind-S", "wind-E", "wind-W")
DEFAULT_CATALOGUE: dict[str, list[list[Cell]]] = {
    "screen": [[(0, 0), (0, 1), (0, 2)]],
    "blanket": [[(0, 0), (0, 1), (1, 0), (1, 1)]],
    "gear": [[(0, 0)], [(0, 0), (0, 1)]],
}
NEUTRAL = "neutral"
# shared/rules/plazing.md §Pieces: 8 screens, 5 blankets, 6 gear per player. Gear is not
# bounded: the shared sample truths show up to 12 gear entries of one player (scene_07), so the
# rulebook's 6 and the samples disagree; the samples are what a reading must be able to score.
PIECES_PER_PLAYER = {"screen": 8, "blanket": 5}
MAX_PLAYERS = 4
MAX_GRID = 200  #: the most rows, and columns, a board may have
MAX_SQUARES = MAX_GRID * MAX_GRID  #: the most squares of any board (when the grid is not known)


@dataclass(frozen=True)
class Piece:
    """One physical element: ``index`` is its position in ``state["pieces"]``."""

    index: int
    player: str
    kind: str
    cells: tuple[Cell, ...]
    facing: str | None = None

    def describe(self) -> str:
        """Kind and cells for a player, e.g. ``"screen C4–C6"``.

        >>> Piece(0, "red", "screen", ((3, 2), (4, 2), (5, 2)), "W").describe()
        'screen C4–C6 facing W'
        """
        cells = sorted(self.cells)
        where = cell_name(cells[0]) if len(cells) == 1 else f"{cell_name(cells[0])}–{cell_name(cells[-1])}"
        facing = f" facing {self.facing}" if self.facing else ""
        return f"{self.kind} {where}{facing}"


@dataclass(frozen=True)
class Board:
    """Everything on the grid. ``terrain`` is None when no terrain was given (all sand)."""

    rows: int
    cols: int
    terrain: tuple[str, ...] | None
    pieces: tuple[Piece, ...]
    meeples: tuple[tuple[str, Cell], ...] = ()
    neutral: tuple[Cell, ...] = ()
    resources: tuple[tuple[str, Cell], ...] = ()
    trash: tuple[Cell, ...] = ()
    surprises: tuple[Cell, ...] = ()

    def terrain_at(self, cell: Cell) -> str:
        """Terrain character at ``cell`` (``"."`` when the terrain is unknown)."""
        return self.terrain[cell[0]][cell[1]] if self.terrain else "."

    def has_minus_squares(self) -> bool:
        """Are −1 squares in play (everybody then starts at 10)?"""
        return bool(self.terrain) and any("-" in row for row in self.terrain)


@dataclass(frozen=True)
class Facts:
    """Off-board facts; None = not known (figures that need them come out null)."""

    players: tuple[str, ...]
    players_given: bool
    weather: str | None
    collected: dict[str, dict[str, int]] | None
    closings: dict[str, int] | None
    track: dict[str, int] | None
    clean_beach: bool
    surprises: bool


def cell_name(cell: Cell) -> str:
    """Name of a cell for players: column letter(s) then row number from the sea (1-based).

    >>> cell_name((0, 0)), cell_name((11, 19)), cell_name((2, 27))
    ('A1', 'T12', 'AB3')
    """
    r, c = int(cell[0]), int(cell[1])
    letters = ""
    c += 1
    while c:
        c, rem = divmod(c - 1, 26)
        letters = chr(65 + rem) + letters
    return f"{letters}{r + 1}"


def normalise(cells: list[Cell] | tuple[Cell, ...]) -> tuple[Cell, ...]:
    """Translate cells so the smallest row and column are 0, sorted.

    >>> normalise([(3, 5), (3, 4)])
    ((0, 0), (0, 1))
    """
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def rotations(cells: list[Cell] | tuple[Cell, ...]) -> set[tuple[Cell, ...]]:
    """All four rotations of a shape, normalised (reflections are not included)."""
    out = set()
    cur = list(cells)
    for _ in range(4):
        out.add(normalise(cur))
        cur = [(c, -r) for r, c in cur]
    return out


def read_catalogue(p: Problems, raw: Any) -> dict[str, set[tuple[Cell, ...]]]:
    """Check a ``pieces`` catalogue (kind -> list of shapes) and expand every rotation."""
    if raw is None:
        raw = DEFAULT_CATALOGUE
    cat: dict[str, set[tuple[Cell, ...]]] = {}
    d = p.need_dict(raw, "pieces catalogue")
    for kind, shapes in (d or {}).items():
        cat[kind] = set()
        for i, shape in enumerate(p.need_list(shapes, f"pieces catalogue.{kind}") or []):
            where = f"pieces catalogue.{kind}[{i}]"
            cells = [p.need_cell(c, where, None, None) for c in (p.need_list(shape, where) or [])]
            if cells and None not in cells:
                cat[kind] |= rotations(cells)
    return cat


def read_facts(p: Problems, state: dict, setup: dict | None, seen_players: list[str],
               squares: int = MAX_SQUARES) -> Facts:
    """Check the off-board facts (setup fields, or the same fields in the state); ``squares``: the
    board's number of squares (at most that many tokens, and closed areas, fit on it)."""
    raw_players = merged("players", state, setup)
    players_given = raw_players is not None
    players: list[str] = []
    if players_given:
        for i, name in enumerate(p.need_list(raw_players, "players") or []):
            name = p.need_name(name, f"players[{i}]")
            if name is not None:
                if name in players:
                    p.add(f"players[{i}]: {show(name)} listed twice")
                else:
                    players.append(name)
    else:
        for key in ("collected", "closings", "track"):
            raw = merged(key, state, setup)
            if isinstance(raw, dict):
                seen_players = seen_players + [k for k in raw if isinstance(k, str)]
        players = sorted(set(seen_players))
    known = tuple(players)
    if players_given and isinstance(raw_players, (list, tuple)) and not raw_players:
        p.add("players: an empty list; a game has at least one player (leave 'players' out to take them "
              "from the board)")
    if len(known) > MAX_PLAYERS:
        p.add(f"players: {len(known)} players ({', '.join(show(x) for x in known[:8])}…); "
              f"the game is for at most {MAX_PLAYERS}")

    weather = merged("weather", state, setup)
    if weather is not None:
        weather = p.need_str(weather, "weather", WEATHERS)

    def per_player(key: str, reader) -> dict | None:
        raw = merged(key, state, setup)
        if raw is None:
            return None
        d = p.need_dict(raw, key)
        if d is None:
            return None
        out = {}
        for name, v in d.items():
            if not players_given and p.need_name(name, f"{key}[{show(name)}]") is None:
                continue
            if players_given and name not in known:
                p.add(f"{key}: unknown player {show(name)}; players are {', '.join(known)}")
                continue
            val = reader(v, f"{key}.{name}")
            if val is not None:
                out[name] = val
        return out

    collected = per_player("collected", lambda v, w: counts_dict(p, v, w, COLLECTED_KINDS))
    closings = per_player("closings", lambda v, w: p.need_int(v, w, lo=0))
    _check_box_counts(p, collected, closings, squares)
    track = per_player("track", lambda v, w: p.need_int(v, w))
    expansions = merged("expansions", state, setup)
    expansions = {} if expansions is None else (p.need_dict(expansions, "expansions") or {})
    flags = {}
    for key in ("clean_beach", "surprises"):
        v = expansions.get(key, False)
        flags[key] = bool(p.need_bool(v, f"expansions.{key}"))
    return Facts(known, players_given, weather, collected, closings, track,
                 flags["clean_beach"] or bool(state.get("trash")), flags["surprises"])


def _check_box_counts(p: Problems, collected: dict | None, closings: dict | None, squares: int) -> None:
    """Record counts no game can reach: every resource and trash token lies on a square of the board
    at the start, and every closed area holds a square of its own, so no count (one player's, or
    all players' together) exceeds the board's ``squares``."""
    for key, per_player in (("collected", collected), ("closings", closings)):
        if not per_player:
            continue
        kinds = COLLECTED_KINDS if key == "collected" else (None,)
        for kind in kinds:
            counts = {name: (v[kind] if kind else v) for name, v in per_player.items()}
            what = f"{key}.{{}}.{kind}" if kind else f"{key}.{{}}"
            over = [name for name, n in counts.items() if n > squares]
            for name in over:
                p.add(f"{what.format(name)}: {show(counts[name])} is more than the board holds ({squares} squares)")
            if not over and sum(counts.values()) > squares:
                p.add(f"{key}{'.*.' + kind if kind else ''}: {sum(counts.values())} in all players' counts, more "
                      f"than the board holds ({squares} squares)")


def read_terrain(p: Problems, raw: Any, rows: int | None, cols: int | None) -> tuple[str, ...] | None:
    """Check the terrain strings (one per row, one character per cell)."""
    if raw is None:
        return None
    lines = p.need_list(raw, "terrain")
    if lines is None:
        return None
    before = len(p.messages)
    if rows is not None and len(lines) != rows:
        p.add(f"terrain: {len(lines)} rows, the state has {rows}")
    for r, line in enumerate(lines):
        if not isinstance(line, str):
            p.add(f"terrain[{r}]: expected a string, got {show(line)}")
            continue
        if cols is not None and len(line) != cols:
            p.add(f"terrain[{r}]: {len(line)} characters, the state has {cols} columns")
        for c, ch in enumerate(line):
            if ch not in TERRAIN_CHARS:
                p.add(f"terrain[{r}]: unknown character {show(ch)} at [{r}, {c}]; expected one of {TERRAIN_CHARS}")
    return tuple(lines) if len(p.messages) == before else None


def read_board(state: dict, setup: dict | None = None) -> tuple[Board, Facts]:
    """Check a Plażing state and setup; return the board and the off-board facts.

    Raises:
        InvalidStateError: listing every problem (field, cell and bad value).
    """
    p = Problems()
    rows = p.need_int(state.get("rows"), "rows", lo=1, hi=MAX_GRID)
    cols = p.need_int(state.get("cols"), "cols", lo=1, hi=MAX_GRID)
    terrain = read_terrain(p, merged("terrain", state, setup), rows, cols)
    catalogue = read_catalogue(p, (setup or {}).get("pieces"))
    raw_pieces = p.need_list(state.get("pieces", []), "pieces") or []
    raw_meeples = state.get("meeples") if isinstance(state.get("meeples"), list) else []
    seen_players = [x.get("player") for x in raw_pieces + raw_meeples
                    if isinstance(x, dict) and isinstance(x.get("player"), str)]
    facts = read_facts(p, state, setup, seen_players,
                       rows * cols if rows is not None and cols is not None else MAX_SQUARES)
    grid_ok = rows is not None and cols is not None
    size = (rows, cols) if grid_ok else (None, None)
    occupied: dict[Cell, int] = {}
    pieces = []
    for i, raw in enumerate(raw_pieces):
        piece = _read_piece(p, i, raw, *size, catalogue, facts, terrain, occupied)
        if piece is not None:
            pieces.append(piece)
    _check_piece_counts(p, pieces)

    def free_cell(value: Any, where: str) -> Cell | None:
        cell = p.need_cell(value, where, rows, cols) if grid_ok else None
        if cell is None:
            return None
        if cell in occupied:
            p.add(f"{where}: cell {list(cell)} is covered by pieces[{occupied[cell]}]")
        elif terrain and terrain[cell[0]][cell[1]] == "#":
            p.add(f"{where}: cell {list(cell)} is closing terrain '#'")
        return cell

    meeples = []
    for i, m in enumerate(p.need_list(state.get("meeples", []), "meeples") or []):
        if p.need_dict(m, f"meeples[{i}]") is None:
            continue
        who = p.need_name(m.get("player"), f"meeples[{i}].player")
        if who is not None and facts.players_given and who not in facts.players:
            p.add(f"meeples[{i}].player: unknown player {show(who)}; players are {', '.join(facts.players)}")
        cell = free_cell(m.get("cell"), f"meeples[{i}].cell")
        if who is not None and cell is not None:
            meeples.append((who, cell))
    neutral = [c for i, v in enumerate(p.need_list(state.get("neutral", []), "neutral") or [])
               if (c := free_cell(v, f"neutral[{i}]")) is not None]
    resources = []
    tokens: dict[Cell, str] = {}
    for i, res in enumerate(p.need_list(state.get("resources", []), "resources") or []):
        if p.need_dict(res, f"resources[{i}]") is None:
            continue
        kind = p.need_str(res.get("kind"), f"resources[{i}].kind", RESOURCE_KINDS)
        cell = free_cell(res.get("cell"), f"resources[{i}].cell")
        if kind is not None and cell is not None:
            _one_token(p, tokens, cell, f"resources[{i}]")
            resources.append((kind, cell))
    lists = {}
    for key in ("trash", "surprises"):
        lists[key] = []
        for i, v in enumerate(p.need_list(state.get(key, []), key) or []):
            cell = free_cell(v, f"{key}[{i}]")
            if cell is not None:
                _one_token(p, tokens, cell, f"{key}[{i}]")
                lists[key].append(cell)
    p.raise_if_any()
    board = Board(rows, cols, terrain, tuple(pieces), tuple(meeples), tuple(neutral), tuple(resources),
                  tuple(lists["trash"]), tuple(lists["surprises"]))
    return board, facts


def _check_piece_counts(p: Problems, pieces: list[Piece]) -> None:
    """Each player has 8 screens and 5 blankets: a board cannot show more (gear: see above)."""
    counts: dict[tuple[str, str], int] = {}
    for piece in pieces:
        counts[(piece.player, piece.kind)] = counts.get((piece.player, piece.kind), 0) + 1
    for (player, kind), n in counts.items():
        most = PIECES_PER_PLAYER.get(kind)
        if most is not None and n > most:
            p.add(f"pieces: {player} has {n} {kind}s on the board; a player has {most}")


def _one_token(p: Problems, tokens: dict[Cell, str], cell: Cell, where: str) -> None:
    if cell in tokens:
        p.add(f"{where}: cell {list(cell)} already holds {tokens[cell]}")
    else:
        tokens[cell] = where


def _read_piece(p: Problems, i: int, raw: Any, rows: int | None, cols: int | None,
                catalogue: dict, facts: Facts, terrain: tuple[str, ...] | None,
                occupied: dict[Cell, int]) -> Piece | None:
    where = f"pieces[{i}]"
    if p.need_dict(raw, where) is None:
        return None
    before = len(p.messages)
    player = p.need_name(raw.get("player"), f"{where}.player")
    if player is not None and facts.players_given and player not in facts.players:
        p.add(f"{where}.player: unknown player {show(player)}; players are {', '.join(facts.players)}")
    kind = p.need_str(raw.get("kind"), f"{where}.kind", tuple(catalogue) or None)
    raw_cells = p.need_list(raw.get("cells"), f"{where}.cells")
    cells: list[Cell] = []
    if raw_cells is not None:
        if not raw_cells:
            p.add(f"{where}.cells: a piece covers at least one cell")
        for j, v in enumerate(raw_cells):
            cell = p.need_cell(v, f"{where}.cells[{j}]", rows, cols)
            if cell is None:
                continue
            if cell in cells:
                p.add(f"{where}.cells[{j}]: cell {list(cell)} listed twice")
                continue
            cells.append(cell)
            if cell in occupied:
                p.add(f"{where} overlaps pieces[{occupied[cell]}] at {list(cell)}")
            else:
                occupied[cell] = i
            if terrain and 0 <= cell[0] < len(terrain) and 0 <= cell[1] < len(terrain[cell[0]]) \
                    and terrain[cell[0]][cell[1]] == "#":
                p.add(f"{where} covers closing terrain '#' at {list(cell)}")
    if kind is not None and cells and len(p.messages) == before:
        if normalise(cells) not in catalogue.get(kind, set()):
            p.add(f"{where}: cells {[list(c) for c in cells]} are not a {kind} shape of the catalogue (any rotation)")
    facing = raw.get("facing")
    if kind == "screen" and facing is not None:
        facing = p.need_str(facing, f"{where}.facing", FACINGS)
        if facing is not None and cells and len({r for r, _ in cells}) != len({c for _, c in cells}):
            along_row = len({r for r, _ in cells}) == 1
            if along_row and facing in ("E", "W") or not along_row and facing in ("N", "S"):
                p.add(f"{where}.facing: {show(facing)} points along the screen at {[list(c) for c in cells]}; "
                      f"its outer side faces {'N or S' if along_row else 'E or W'}")
    elif kind != "screen":
        facing = None
    if len(p.messages) != before:
        return None
    return Piece(i, player, kind, tuple(cells), facing)
