"""A printed mark the painting left reads like no token: its cell's own print was nearly one flat
ink (a seam or the board's edge inside a cell placed a millimetre off keeps it under
``PRINTS.flat_print_share``), and where a token is most probable there bare sand is read, the token
its runner-up."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from vision.plazing.cells import Grid
from vision.plazing.config import PRINTS
from vision.plazing.ledger import Ledger
from vision.plazing.prints import remove_marks
from vision.plazing.read_tokens import (PRINT_LEFT_AREA, PRINT_LEFT_BARE_POSTERIOR, PRINT_LEFT_SHARE,
                                         PRINT_ON_TOKEN_POSTERIOR, _decide_cells, print_leftover_cells)
from vision.plazing.tokens import EMPTY

SAND = (150, 204, 238)
INK = (90, 190, 80)  #: a green '+' disc
SEAM = (60, 70, 80)  #: a tile seam's dark line


def _board(cells: int, seam_in: int | None = None):
    """``cells`` 30 px cells in a row, each with a printed disc; a seam 2 px wide runs down inside
    cell ``seam_in`` (as when the cell's box lies a millimetre off the seam)."""
    board = np.full((30, 30 * cells, 3), SAND, np.uint8)
    yy, xx = np.mgrid[0:30, 0:30]
    disc = (yy - 14.5) ** 2 + (xx - 14.5) ** 2 <= 7 ** 2
    for k in range(cells):
        board[:, 30 * k:30 * (k + 1)][disc] = INK
    if seam_in is not None:
        board[:, 30 * seam_in + 25] = SEAM
    return Grid((0.0, 0.0), 20.0, 1, cells), board


def test_remove_marks_reports_each_mark_cells_flat_share_before_painting():
    grid, board = _board(3, seam_in=2)
    shares: dict = {}
    remove_marks(board, grid.boxes_px(1.5, 1.0), np.array([["+", "+", "+"]]), np.ones((1, 3), bool), shares=shares)
    assert sorted(shares) == [(0, 0), (0, 1), (0, 2)]
    assert shares[(0, 0)] >= PRINTS.flat_print_share and shares[(0, 1)] >= PRINTS.flat_print_share
    assert PRINT_LEFT_SHARE <= shares[(0, 2)] < PRINTS.flat_print_share


def _post(rows, names):
    p = np.array(rows, float)
    return SimpleNamespace(post=np.column_stack([p, np.zeros(len(p))]), names_all=names + ["unknown"])


def _decide(post, free, left):
    ledger, tokens = Ledger((1, len(free))), {}
    prep = SimpleNamespace(clipped=None, at_top=None, white=None)
    out = _decide_cells(free, post, prep, None, None, [], ledger, tokens, left)
    return out, ledger, tokens


def test_a_token_on_a_left_print_reads_as_bare_sand_with_the_token_the_runner_up():
    names = [EMPTY, "resource/shell", "neutral"]
    free = [(0, 0), (0, 1), (0, 2)]
    post = _post([[0.02, 0.98, 0.0], [0.02, 0.98, 0.0], [0.02, 0.0, 0.98]], names)
    (_, _, left), ledger, tokens = _decide(post, free, {(0, 1), (0, 2)})
    assert tokens == {(0, 0): "resource/shell", (0, 1): EMPTY, (0, 2): "neutral"}
    assert left == [(0, 1)]  # a neutral marker is as flat as a print: kept
    doubted = [d for d in ledger.decisions if d.cells == [(0, 1)]]
    assert len(doubted) == 1 and doubted[0].p == PRINT_LEFT_BARE_POSTERIOR
    assert doubted[0].alt_p == 1.0 - PRINT_LEFT_BARE_POSTERIOR and "shell" in doubted[0].words()[1]


def test_no_left_print_leaves_the_decisions_as_they_were():
    names = [EMPTY, "resource/shell"]
    free = [(0, 0), (0, 1)]
    post = _post([[0.02, 0.98], [0.99, 0.01]], names)
    (_, _, left), ledger, tokens = _decide(post, free, frozenset())
    assert left == [] and tokens == {(0, 0): "resource/shell", (0, 1): EMPTY}
    assert ledger.confidence() > 0.5


def test_remove_marks_measures_each_mark_cells_area_against_the_bare_prints():
    grid, board = _board(4)
    yy, xx = np.mgrid[0:30, 0:30]
    figure = (yy - 14.5) ** 2 / 10 ** 2 + (xx - 14.5) ** 2 / 7 ** 2 <= 1  # 13 × 9 mm, over the disc
    board[:, 90:120][figure] = (40, 120, 30)  # a green meeple on cell 3, much the print's ink
    areas: dict = {}
    remove_marks(board, grid.boxes_px(1.5, 1.0), np.array([["+"] * 4]), np.ones((1, 4), bool), areas=areas)
    assert sorted(areas) == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert all(abs(areas[(0, k)] - 1.0) < 0.05 for k in range(3))
    assert areas[(0, 3)] > PRINT_LEFT_AREA


def test_a_token_on_a_print_is_kept_but_doubted_with_bare_sand_the_runner_up():
    names = [EMPTY, "meeple/green", "resource/shell"]
    free = [(0, 0), (0, 1)]
    post = _post([[0.02, 0.97, 0.01], [0.02, 0.97, 0.01]], names)
    ledger, tokens = Ledger((1, 2)), {}
    prep = SimpleNamespace(clipped=None, at_top=None, white=None)
    _decide_cells(free, post, prep, None, None, [], ledger, tokens, frozenset({(0, 0)}), frozenset({(0, 1)}))
    assert tokens == {(0, 0): EMPTY, (0, 1): "meeple/green"}
    on = [d for d in ledger.decisions if d.cells == [(0, 1)]]
    assert len(on) == 1 and on[0].p == PRINT_ON_TOKEN_POSTERIOR and on[0].words()[1].find("sand") >= 0


def test_a_flagged_mark_cell_is_the_prints_leftovers_unless_more_than_its_area_deviates():
    terrain = np.array([["+", "-", "+", ".", "+"]])
    free = [(0, k) for k in range(5)]
    odd = [True, True, True, True, False]
    flat = {(0, 0): 0.85, (0, 1): 0.85, (0, 2): 0.85, (0, 4): 0.85}
    area = {(0, 0): 1.1, (0, 1): PRINT_LEFT_AREA + 0.2}  # (0, 2): a mark no cell agreed on, unmeasured
    left, on = print_leftover_cells(free, odd, terrain, flat, area)
    assert left == {(0, 0), (0, 2)} and on == {(0, 1)}  # (0, 3) bears no mark, (0, 4) looks learned
    flat[(0, 0)] = PRINT_LEFT_SHARE - 0.01  # a shaded, solid token: no print left
    assert print_leftover_cells(free, odd, terrain, flat, area)[0] == {(0, 2)}
