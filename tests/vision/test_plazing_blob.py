"""Plażing token features: a small bright blob on a darker printed spot is told from the bare spot."""

from __future__ import annotations

import numpy as np

from vision.plazing.blob import bare_blob_logl, blob_features, split_blob
from vision.plazing.cells import CellBlocks, Grid
from vision.plazing.config import TOKENS
from vision.plazing.tokens import cell_features

PPM = 1.5


def _spots():
    """A 1 × 3 grid of 20 mm sand cells: a bare printed spot (13 mm, darker than the sand), the same
    spot with a pale 5 mm shell on it whose mean over the spot barely differs, and plain sand."""
    grid = Grid((0.0, 0.0), 20.0, 1, 3)
    board = np.full((30, 90, 3), 196, np.uint8)
    yy, xx = np.mgrid[0:30, 0:30]
    spot = (yy - 14.5) ** 2 + (xx - 14.5) ** 2 <= (6.5 * PPM) ** 2
    shell = (yy - 14.5) ** 2 + (xx - 14.5) ** 2 <= (2.5 * PPM) ** 2
    for c in (0, 1):
        board[:, 30 * c:30 * c + 30][spot] = 184
    board[:, 30:60][shell] = 215
    return grid, board


def test_a_shell_on_a_spot_stands_out_where_the_bare_spot_does_not():
    grid, board = _spots()
    cells = CellBlocks(grid, PPM)
    blob = blob_features(cells.blocks(board.astype(np.float32)), cells)
    assert blob.shape == (1, 3, 1)
    bare_spot, shell_on_spot, sand = blob[0, :, 0]
    assert bare_spot < -2  # the spot is darker than the ring of sand around it
    assert abs(sand) < 1
    assert shell_on_spot > 0.5 * TOKENS.token_contrast_bgr  # its brightest 3 mm, not its mean over the spot
    assert shell_on_spot < TOKENS.token_contrast_bgr


def test_the_blob_is_one_of_the_token_features():
    grid, board = _spots()
    cells = CellBlocks(grid, PPM)
    gray = board[..., 0].copy()
    pb = np.zeros((cells.size[1], cells.size[0], 2), np.uint8)
    f = cell_features(board, gray, pb, cells)
    assert f.shape == (1, 3, 11 + 2)
    blob = blob_features(cells.blocks(board.astype(np.float32)), cells)
    base, last = split_blob(f)
    assert base.shape == (1, 3, 10 + 2)
    assert np.allclose(last, blob[..., 0])


def test_a_blob_brighter_than_the_nearest_bare_cells_counts_against_bare_sand_only():
    empty_blob = np.array([-5.0, 1.0])  # a bare printed spot, plain sand
    d_empties = np.array([[1.0, 9.0], [1.0, 9.0], [9.0, 1.0], [9.0, 1.0]])
    blob = np.array([4.0, -6.0, 1.5, 8.0])  # shell on the spot, bare spot, sand, shell on sand
    got = bare_blob_logl(blob, empty_blob, d_empties, 0.5)
    assert got.shape == (4,)
    assert got[1] == 0.0  # no brighter than its bare spot: read from its colour alone
    assert -1.0 < got[2] < 0.0  # within the noise of plain sand
    assert got[0] < -2.0 and got[3] < -2.0
    assert bare_blob_logl(None, empty_blob, d_empties, 0.5) == 0.0
