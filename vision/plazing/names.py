"""Cell names in the reader's messages, the way the text map of ``beachscore score --explain`` writes
them: column letter(s) from the left edge, then the row counted from the sea (``A1`` is the cell in
the sea-side corner on the left; ``[row, col]`` [1, 8] is ``I2``).

Input: (row, col) cells. Output: short strings for warnings and refusals.
"""

from __future__ import annotations


def cell_name(cell) -> str:
    """Name of a cell for players.

    >>> cell_name((0, 0)), cell_name((1, 8)), cell_name((11, 19)), cell_name((2, 27))
    ('A1', 'I2', 'T12', 'AB3')
    """
    r, c = int(cell[0]), int(cell[1])
    letters = ""
    c += 1
    while c:
        c, rem = divmod(c - 1, 26)
        letters = chr(65 + rem) + letters
    return f"{letters}{r + 1}"


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
