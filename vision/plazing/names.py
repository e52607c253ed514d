"""Cell names in the reader's messages, the way the text map of ``beachscore score --explain`` writes
them: column letter(s) from the left edge, then the row counted from the sea (``A1`` is the cell in
the sea-side corner on the left; ``[row, col]`` [1, 8] is ``I2``).

Input: (row, col) cells. Output: short strings for warnings and refusals.
"""

from __future__ import annotations

from scoring.plazing_state import cell_name  # one naming for the text map and the reader's messages

__all__ = ["cell_name", "cells_text"]


def cells_text(cells, most: int = 6) -> str:
    """A few cells by name, sorted row by row, with how many more there are.

    >>> cells_text([(1, 8), (0, 0)])
    'A1, I2'
    >>> cells_text([(0, c) for c in range(9)], most=3)
    'A1, B1, C1 and 6 more'
    """
    cells = sorted({(int(r), int(c)) for r, c in cells})
    shown = ", ".join(cell_name(c) for c in cells[:most])
    return shown + (f" and {len(cells) - most} more" if len(cells) > most else "")
