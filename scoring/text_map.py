"""Plain-text explanations: the Plażing text map and the per-area verdicts.

(Not named ``explain.py``: a submodule of that name would replace the package function
``scoring.explain`` as soon as it is imported.)

Used by ``beachscore score … --explain``. Cells are named like a chess board: column letter
(A = left edge) then row number counted from the sea (1 = sea row), e.g. ``C4``.
"""

from __future__ import annotations

from string import ascii_lowercase, digits

from scoring.plazing_areas import Area
from scoring.plazing_points import PlayerFigures
from scoring.plazing_state import NEUTRAL, Board, Facts, Piece, cell_name

AREA_LABELS = ascii_lowercase + digits


def player_symbols(players: tuple[str, ...] | list[str]) -> dict[str, str]:
    """One uppercase map symbol per player: first free letter of the name, else a free letter.

    >>> player_symbols(["red", "blue", "black", "brown"])
    {'red': 'R', 'blue': 'B', 'black': 'L', 'brown': 'O'}
    """
    used: set[str] = set()
    out = {}
    for name in players:
        options = [ch.upper() for ch in name if ch.isalpha()] + list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        symbol = next((ch for ch in options if ch not in used and ch not in "#"), "?")
        used.add(symbol)
        out[name] = symbol
    return out


def area_labels(areas: tuple[Area, ...]) -> dict[int, str]:
    """Map letters for the closed areas, in id order: a, b, …, z, 0, …, 9, then ``*``."""
    closed = [a for a in areas if a.closed]
    return {a.id: (AREA_LABELS[i] if i < len(AREA_LABELS) else "*") for i, a in enumerate(closed)}


def text_map(board: Board, areas: tuple[Area, ...], symbols: dict[str, str]) -> str:
    """The board as text: pieces by player symbol, closed areas by letter, ``#`` terrain.

    Open sand shows ``.`` (or ``+`` / ``-`` for ±1 squares); row 1 is the sea row.

    >>> from scoring.plazing_state import Board, Piece
    >>> from scoring.plazing_areas import find_areas
    >>> b = Board(3, 5, None, (Piece(0, "red", "screen", ((1, 1), (1, 2), (1, 3)), "S"),
    ...                        Piece(1, "blue", "gear", ((0, 0),)), Piece(2, "red", "gear", ((0, 4),))))
    >>> print(text_map(b, find_areas(b), {"red": "R", "blue": "B"}))
        A B C D E
        ~ ~ ~ ~ ~  sea
     1  B a a a R
     2  . R R R .
     3  . . . . .
        dunes
    """
    labels = area_labels(areas)
    where = {cell: labels[a.id] for a in areas if a.id in labels for cell in a.cells}
    owner_of = {cell: symbols[p.player] for p in board.pieces for cell in p.cells}
    header = "    " + " ".join(_column(c) for c in range(board.cols))
    lines = [header, "    " + " ".join("~" * len(_column(c)) for c in range(board.cols)) + "  sea"]
    for r in range(board.rows):
        row = []
        for c in range(board.cols):
            cell = (r, c)
            ch = owner_of.get(cell) or where.get(cell) or board.terrain_at(cell)
            row.append(ch.ljust(len(_column(c))))
        lines.append(f"{r + 1:>2}  " + " ".join(row))
    lines.append("    dunes")
    return "\n".join(lines)


def join_words(words: tuple[str, ...] | list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> join_words(["left", "right", "dunes"])
    'left, right and dunes'
    """
    words = list(words)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _column(c: int) -> str:
    return cell_name((0, c))[:-1]


def describe_area(area: Area, label: str | None, pieces: tuple[Piece, ...]) -> str:
    """One paragraph: which pieces close the area, counted per colour, and the verdict.

    >>> from scoring.plazing_state import Board, Piece
    >>> from scoring.plazing_areas import find_areas
    >>> b = Board(2, 4, None, (Piece(0, "red", "gear", ((0, 0), (1, 0))), Piece(1, "blue", "gear", ((1, 1),)),
    ...                        Piece(2, "blue", "gear", ((0, 2),))))
    >>> print(describe_area(find_areas(b)[0], "a", b.pieces))
    a: closed, 1 square (B1); closed by 3 pieces: red 1 (gear A1–A2), blue 2 (gear B2, gear C1) → blue (most ring pieces). No marker yet
    >>> b = Board(2, 3, None, (Piece(0, "red", "gear", ((0, 0),)), Piece(1, "blue", "gear", ((0, 2),)),
    ...                        Piece(2, "green", "gear", ((1, 1),))))
    >>> print(describe_area(find_areas(b)[0], "a", b.pieces))
    a: closed, 1 square (B1); closed by 3 pieces: red 1 (gear A1), blue 1 (gear C1), green 1 (gear B2) → neutral (tie for most: red 1, blue 1, green 1; a neutral marker goes in, its resources leave the game). No marker yet
    """
    n = len(area.cells)
    squares = f"{n} square{'s' if n != 1 else ''}"
    span = cell_name(area.cells[0]) if n == 1 else f"{cell_name(area.cells[0])}…{cell_name(area.cells[-1])}"
    if not area.closed:
        return (f"open area, {squares} ({span}): reaches the {join_words(area.edges)} edge, so nobody owns it; "
                f"{area.size} pieces touch it")
    by_player: dict[str, list[str]] = {}
    for i in area.ring:
        by_player.setdefault(pieces[i].player, []).append(pieces[i].describe())
    counted = ", ".join(f"{p} {len(d)} ({', '.join(d)})" for p, d in by_player.items())
    counts = dict(area.counts)
    if area.owner == NEUTRAL:
        best = max(counts.values())
        tied = ", ".join(f"{p} {k}" for p, k in counts.items() if k == best)
        verdict = f"neutral (tie for most: {tied}; a neutral marker goes in, its resources leave the game)"
    else:
        verdict = f"{area.owner} (most ring pieces)"
    text = f"{label or area.id}: closed, {squares} ({span}); closed by {area.size} pieces: {counted} → {verdict}"
    extras = []
    if area.fields:
        extras.append(f"±1 squares inside: {area.fields:+d}")
    if area.resources:
        extras.append("resources inside: " + ", ".join(f"{k} {v}" for k, v in area.resources))
    if area.marked:
        extras.append(f"marked {area.marked}")
    else:
        extras.append("no marker yet")
    if area.dispute:
        extras.append(f"DISPUTE: {area.dispute}")
    tail = "; ".join(extras)
    return f"{text}. {tail[0].upper()}{tail[1:]}"


def describe_player(f: PlayerFigures) -> str:
    """One line of a player's figures; ``?`` marks a figure that needs a missing fact."""

    def show(v: int | None) -> str:
        return "?" if v is None else str(v)

    parts = [f"areas {f.areas} → {f.most_areas_points}", f"largest area {f.largest_area} pieces → {f.largest_area_points}",
             f"weather {show(f.weather_points)}", f"fields {show(f.field_points)}", f"resources {show(f.resource_points)}"]
    if f.trash_points is not None:
        parts.append(f"trash {f.trash_points}")
    if f.track is not None:
        parts.append(f"track {f.track}")
    else:
        parts += [f"start {show(f.start)}", f"closings {show(f.closing_points)}"]
    return f"{f.player}: " + ", ".join(parts) + f"; total {show(f.total)}"


def plazing_text(board: Board, facts: Facts, areas: tuple[Area, ...], figures: list[PlayerFigures],
                 missing: list[str]) -> str:
    """The whole Plażing explanation: legend, map, areas, players."""
    symbols = player_symbols(list(facts.players) + sorted({p.player for p in board.pieces} - set(facts.players)))
    labels = area_labels(areas)
    legend = ", ".join(f"{s} {p}" for p, s in symbols.items())
    out = [f"Plażing board, {board.rows}×{board.cols} squares. Pieces: {legend}; letters a, b, …: closed areas; "
           "'.' open sand; '#' closing terrain; '+'/'-' ±1 squares.", text_map(board, areas, symbols)]
    owners = [f"{labels[a.id]} {a.owner}" + (" (dispute)" if a.dispute else "") for a in areas if a.id in labels]
    out += ["Owners: " + (", ".join(owners) or "no closed area yet"), "", "Areas:"]
    closed = [a for a in areas if a.closed]
    out += [describe_area(a, labels[a.id], board.pieces) for a in closed] or ["(no closed area)"]
    out += [describe_area(a, None, board.pieces) for a in areas if not a.closed]
    out += ["", "Players:"] + [describe_player(f) for f in figures]
    if missing:
        out.append(f"Unknown (not in the setup): {', '.join(missing)} — figures that need them show '?'.")
    return "\n".join(out)
