"""Plażing areas: find every group of free squares and give its verdict.

Rules (``shared/rules/plazing.md`` §Areas):

- walls are squares covered by pieces and closing terrain ``#``; an area is a 4-connected
  group of the other squares (sand, ±, resource, surprise, trash squares);
- it is closed unless it reaches the left, right or dune (bottom) edge; the sea (top) closes;
- its ring is the pieces edge-adjacent to it after its holes are filled (a piece lying
  inside the area is surrounded, not part of the ring); a hole is a 4-connected group of
  non-area squares that reaches no board edge (this reading reproduces every area of the
  shared sample truths; 8-connected holes, or not counting the sea edge as outside, do not);
- owner = the player with most ring pieces (each piece counts 1), ``"neutral"`` on a tie;
- a closed group with no piece next to it (terrain and sea only) is not an area.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.plazing_state import NEUTRAL, Board, Cell, cell_name

_TERRAIN_WALL = -1
_FREE = -2
_N4 = ((-1, 0), (1, 0), (0, -1), (0, 1))


@dataclass(frozen=True)
class Area:
    """One area and its verdict (see module docstring for the rules).

    ``counts`` and ``resources`` are ``(name, n)`` pairs (kept hashable); ``edges`` are the
    open edges the area reaches (``"left"``, ``"right"``, ``"dunes"``), empty when closed.
    """

    id: int
    cells: tuple[Cell, ...]
    edges: tuple[str, ...]
    ring: tuple[int, ...]
    counts: tuple[tuple[str, int], ...]
    owner: str | None
    markers: tuple[str, ...]
    dispute: str | None
    fields: int
    resources: tuple[tuple[str, int], ...]
    trash: tuple[Cell, ...]
    surprises: int

    @property
    def closed(self) -> bool:
        """Is the area closed (reaches no open edge)?"""
        return not self.edges

    @property
    def size(self) -> int:
        """Number of ring pieces, all colours (the 'largest area' measure)."""
        return len(self.ring)

    @property
    def marked(self) -> str | None:
        """The marker standing in the area (first in row order), or None."""
        return self.markers[0] if self.markers else None

    def to_json(self) -> dict:
        """The contract's area object (plus ``edges``, ``trash``, ``surprises``)."""
        return {
            "id": self.id, "cells": [list(c) for c in self.cells], "closed": self.closed,
            "ring": list(self.ring), "counts": dict(self.counts), "size": self.size,
            "owner": self.owner, "marked": self.marked, "dispute": self.dispute,
            "fields": self.fields, "resources": dict(self.resources),
            "edges": list(self.edges), "trash": [list(c) for c in self.trash], "surprises": self.surprises,
        }


def wall_grid(board: Board) -> list[list[int]]:
    """rows×cols grid: piece index, ``-1`` closing terrain, ``-2`` free square."""
    grid = [[_FREE] * board.cols for _ in range(board.rows)]
    if board.terrain:
        for r, line in enumerate(board.terrain):
            for c, ch in enumerate(line):
                if ch == "#":
                    grid[r][c] = _TERRAIN_WALL
    for piece in board.pieces:
        for r, c in piece.cells:
            grid[r][c] = piece.index
    return grid


def find_areas(board: Board) -> tuple[Area, ...]:
    """Every area of the board with its verdict, ordered by its first square (row-major).

    Args:
        board: a checked board (``plazing_state.read_board``).
    Returns:
        Areas with ids 0, 1, … in that order. Open areas are listed too (owner None).
    Source: shared/rules/plazing.md §Areas.

    >>> from scoring.plazing_state import Board, Piece
    >>> pieces = (Piece(0, "red", "screen", ((1, 1), (1, 2), (1, 3)), "S"),
    ...           Piece(1, "blue", "gear", ((0, 0),)), Piece(2, "red", "gear", ((0, 4),)))
    >>> areas = find_areas(Board(3, 5, None, pieces))
    >>> [(a.cells, a.closed, a.ring, a.owner) for a in areas]
    [(((0, 1), (0, 2), (0, 3)), True, (0, 1, 2), 'red'), (((1, 0), (1, 4), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4)), False, (0, 1, 2), None)]
    """
    grid = wall_grid(board)
    rows, cols = board.rows, board.cols
    markers: dict[Cell, list[str]] = {}
    for player, cell in board.meeples:
        markers.setdefault(cell, []).append(player)
    for cell in board.neutral:
        markers.setdefault(cell, []).append(NEUTRAL)
    resources = dict((cell, kind) for kind, cell in board.resources)
    trash = set(board.trash)
    surprises = set(board.surprises)
    regions = _Regions(grid)
    areas: list[Area] = []
    for rid in regions.free:
        cells = regions.cells[rid]
        edges = _edges(cells, rows, cols)
        ring = regions.ring(rid, grid)
        if not ring and not edges:
            continue  # terrain-and-sea pocket: nobody closed it
        areas.append(_verdict(board, len(areas), cells, edges, ring, markers, resources, trash, surprises))
    return tuple(areas)


class _Regions:
    """The board cut into 4-connected regions: free groups (areas) and wall groups.

    Holes of an area are then found on the small graph of regions instead of the grid: the
    complement of an area is the union of all other regions, and a region is outside the
    area when it is linked to a border region without passing through the area.
    """

    def __init__(self, grid: list[list[int]]) -> None:
        rows, cols = len(grid), len(grid[0])
        label = [[-1] * cols for _ in range(rows)]
        self.cells: list[tuple[Cell, ...]] = []
        self.free: list[int] = []  # region ids of free groups, in row-major order of first cell
        for r0 in range(rows):
            for c0 in range(cols):
                if label[r0][c0] < 0:
                    rid = len(self.cells)
                    self.cells.append(_flood(grid, label, r0, c0, rid))
                    if grid[r0][c0] == _FREE:
                        self.free.append(rid)
        self.links: list[set[int]] = [set() for _ in self.cells]
        for r in range(rows):
            for c in range(cols):
                a = label[r][c]
                for b in (label[r][c + 1] if c + 1 < cols else a, label[r + 1][c] if r + 1 < rows else a):
                    if a != b:
                        self.links[a].add(b)
                        self.links[b].add(a)
        self.border = [rid for rid, cells in enumerate(self.cells)
                       if any(r in (0, rows - 1) or c in (0, cols - 1) for r, c in cells)]
        self.label = label

    def outside(self, rid: int) -> set[int]:
        """Regions linked to a board edge without passing through region ``rid``."""
        reached = {x for x in self.border if x != rid}
        stack = list(reached)
        while stack:
            for nb in self.links[stack.pop()]:
                if nb != rid and nb not in reached:
                    reached.add(nb)
                    stack.append(nb)
        return reached

    def ring(self, rid: int, grid: list[list[int]]) -> tuple[int, ...]:
        """Pieces edge-adjacent to free region ``rid``, leaving out pieces in its holes."""
        if not self.links[rid]:
            return ()
        outside = self.outside(rid)
        rows, cols = len(grid), len(grid[0])
        ring = set()
        for r, c in self.cells[rid]:
            for dr, dc in _N4:
                rr, cc = r + dr, c + dc
                if 0 <= rr < rows and 0 <= cc < cols and grid[rr][cc] >= 0 and self.label[rr][cc] in outside:
                    ring.add(grid[rr][cc])
        return tuple(sorted(ring))


def _flood(grid: list[list[int]], label: list[list[int]], r0: int, c0: int, rid: int) -> tuple[Cell, ...]:
    """Label the 4-connected group of (r0, c0): free squares together, wall squares together."""
    rows, cols = len(grid), len(grid[0])
    free = grid[r0][c0] == _FREE
    label[r0][c0] = rid
    stack = [(r0, c0)]
    out = []
    while stack:
        r, c = stack.pop()
        out.append((r, c))
        for dr, dc in _N4:
            rr, cc = r + dr, c + dc
            if 0 <= rr < rows and 0 <= cc < cols and label[rr][cc] < 0 and (grid[rr][cc] == _FREE) == free:
                label[rr][cc] = rid
                stack.append((rr, cc))
    return tuple(sorted(out))


def _edges(cells: tuple[Cell, ...], rows: int, cols: int) -> tuple[str, ...]:
    edges = []
    if any(c == 0 for _, c in cells):
        edges.append("left")
    if any(c == cols - 1 for _, c in cells):
        edges.append("right")
    if any(r == rows - 1 for r, _ in cells):
        edges.append("dunes")
    return tuple(edges)


def _verdict(board: Board, ident: int, cells: tuple[Cell, ...], edges: tuple[str, ...], ring: tuple[int, ...],
             markers: dict, resources: dict, trash: set, surprises: set) -> Area:
    counts: dict[str, int] = {}
    for i in ring:
        who = board.pieces[i].player
        counts[who] = counts.get(who, 0) + 1
    owner = None
    if not edges:
        best = max(counts.values())
        leaders = [p for p, n in counts.items() if n == best]
        owner = leaders[0] if len(leaders) == 1 else NEUTRAL
    found = tuple(m for cell in cells for m in markers.get(cell, ()))
    res: dict[str, int] = {}
    for cell in cells:
        if cell in resources:
            res[resources[cell]] = res.get(resources[cell], 0) + 1
    fields = sum({"+": 1, "-": -1}.get(board.terrain_at(cell), 0) for cell in cells)
    area_trash = tuple(cell for cell in cells if cell in trash)
    dispute = _dispute(owner, edges, found, area_trash)
    return Area(ident, cells, edges, ring, tuple(counts.items()), owner, found, dispute, fields,
                tuple(res.items()), area_trash, sum(1 for cell in cells if cell in surprises))


def _dispute(owner: str | None, edges: tuple[str, ...], found: tuple[str, ...], trash: tuple[Cell, ...]) -> str | None:
    """Sentence when the markers found disagree with the verdict, or trash lies in a closed area."""
    why = []
    kinds = list(dict.fromkeys(found))
    if len(kinds) > 1:
        why.append(f"several markers: {', '.join(kinds)}")
    elif kinds and owner is None:
        why.append(f"marked {kinds[0]}, but the area is open (reaches the {', '.join(edges)} edge)")
    elif kinds and kinds[0] != owner:
        why.append(f"marked {kinds[0]}, rules give {owner}")
    if trash and owner is not None:
        why.append(f"holds trash at {', '.join(cell_name(c) for c in trash)}: an area with trash cannot be closed")
    return "; ".join(why) or None
