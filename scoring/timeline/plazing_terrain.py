"""Plażing: a game's terrain read from its photos, remembered square by square.

Without a terrain in the setup the reader reads it from each photo, and a ±1 mark under a piece
(or a meeple, a marker, a token) cannot be seen: it is taken as sand. The terrain does not change
during a game, so each square keeps what the first accepted photo that showed it uncovered read.
"""

from __future__ import annotations

Cell = tuple[int, int]


def covered_cells(state: dict) -> set[Cell]:
    """The squares of a Plażing state that something lies on: pieces, meeples, neutral markers,
    resources, trash and surprise tokens."""
    out = {tuple(c) for p in state.get("pieces") or [] for c in p.get("cells") or []}
    out |= {tuple(m["cell"]) for m in state.get("meeples") or []}
    out |= {tuple(c) for c in state.get("neutral") or []}
    for key in ("resources", "trash", "surprises"):
        out |= {tuple(t["cell"]) for t in state.get(key) or [] if isinstance(t, dict) and "cell" in t}
    return out


class TerrainMemory:
    """What a game's photos showed of each square's terrain when it was uncovered.

    >>> memory = TerrainMemory()
    >>> empty = {"terrain": ["+.", ".."], "pieces": []}
    >>> memory.remember(empty)
    >>> later = {"terrain": ["..", ".."], "pieces": [{"cells": [[0, 0]]}]}
    >>> memory.fill(later)["terrain"]
    ['+.', '..']
    """

    def __init__(self) -> None:
        self.seen: dict[Cell, str] = {}

    def remember(self, state: dict) -> None:
        """Keep the terrain ``state`` (an accepted reading) shows on its uncovered squares not seen before."""
        terrain = state.get("terrain")
        if not terrain:
            return
        hidden = covered_cells(state)
        for r, row in enumerate(terrain):
            for c, ch in enumerate(row):
                if (r, c) not in hidden:
                    self.seen.setdefault((r, c), ch)

    def fill(self, state: dict) -> dict:
        """``state`` (a copy when anything changes) with its covered squares' terrain as remembered."""
        terrain = state.get("terrain")
        if not terrain or not self.seen:
            return state
        rows = [list(row) for row in terrain]
        changed = False
        for r, c in covered_cells(state):
            ch = self.seen.get((r, c))
            if ch is not None and 0 <= r < len(rows) and 0 <= c < len(rows[r]) and rows[r][c] != ch:
                rows[r][c] = ch
                changed = True
        return dict(state, terrain=["".join(row) for row in rows]) if changed else state
