"""Printed marks painted over with their cell's sand — and only the print: a token lying on the
only free cell of a mark is no witness of the mark's colour, so it is never painted away."""

from __future__ import annotations

import numpy as np

from vision.plazing.cells import Grid
from vision.plazing.prints import remove_marks

SAND = (150, 204, 238)
STICK = (60, 90, 120)  #: the crossed sticks' ink, darker along the sand's own hue
DISC = (175, 194, 214)  #: a flat grey-beige marker


def _board(cells: int):
    """``cells`` 30 px cells in a row, each with a printed cross (the 'x' mark)."""
    board = np.full((30, 30 * cells, 3), SAND, np.uint8)
    for k in range(cells):
        for t in range(6, 24):
            for w in (0, 1):
                board[t, 30 * k + t + w] = STICK
                board[t, 30 * k + 29 - t - w] = STICK
    return Grid((0.0, 0.0), 20.0, 1, cells), board


def _disc(board, k):
    """A flat marker on cell ``k`` and the thin shadow it casts on its lower right."""
    yy, xx = np.mgrid[0:30, 0:30]
    disc = (yy - 14.5) ** 2 + (xx - 14.5) ** 2 <= 9 ** 2
    shadow = ((yy - 16.5) ** 2 + (xx - 16.5) ** 2 <= 9 ** 2) & ~disc
    cell = board[:, 30 * k:30 * (k + 1)]
    cell[shadow] = (np.array(SAND) * 0.6).astype(np.uint8)
    cell[disc] = DISC
    return disc


def test_bare_marks_are_painted_over_with_sand():
    grid, board = _board(3)
    terrain = np.array([["x", "x", "x"]])
    cleaned, unseen = remove_marks(board, grid.boxes_px(1.5, 1.0), terrain, np.ones((1, 3), bool))
    assert sorted(cleaned) == [(0, 0), (0, 1), (0, 2)] and not unseen
    assert np.abs(board.astype(int) - SAND).max() < 40


def test_a_flat_token_on_the_only_free_mark_is_not_painted_away():
    grid, board = _board(1)
    disc = _disc(board, 0)
    before = board.copy()
    cleaned, unseen = remove_marks(board, grid.boxes_px(1.5, 1.0), np.array([["x"]]), np.ones((1, 1), bool))
    assert not cleaned and unseen == [(0, 0)]
    assert np.array_equal(board[disc], before[disc])


def test_a_token_on_one_mark_keeps_its_colour_when_other_marks_show_the_print():
    grid, board = _board(3)
    disc = _disc(board, 1)
    cleaned, _ = remove_marks(board, grid.boxes_px(1.5, 1.0), np.array([["x", "x", "x"]]), np.ones((1, 3), bool))
    assert (0, 0) in cleaned and (0, 2) in cleaned
    inner = disc.copy()
    inner[:, :8] = inner[:, 22:] = False  # the disc away from the sticks' ends
    kept = board[:, 30:60][inner].astype(int)
    assert np.median(np.abs(kept - DISC).max(axis=1)) < 10


def test_a_known_tokens_cell_is_painted_with_the_witnesses_ink_and_votes_on_nothing():
    grid, board = _board(3)
    disc = _disc(board, 1)
    ends = np.zeros((30, 30), bool)
    ends[6:9] = ends[21:24] = True  # the sticks' ends, beyond the marker's rim
    ends &= np.all(board[:, 30:60] == STICK, axis=2)
    assert ends.sum() >= 8
    witness = np.array([[True, False, True]])
    cleaned, _ = remove_marks(board, grid.boxes_px(1.5, 1.0), np.array([["x", "x", "x"]]), np.ones((1, 3), bool),
                              witness=witness)
    assert (0, 1) in cleaned  # the print around the token goes, as a scan paints it
    assert np.abs(board[:, 30:60][ends].astype(int) - SAND).max() < 40
    inner = disc.copy()
    inner[:, :8] = inner[:, 22:] = False
    assert np.median(np.abs(board[:, 30:60][inner].astype(int) - DISC).max(axis=1)) < 10


def test_a_mark_no_witness_shows_is_painted_nowhere():
    grid, board = _board(2)
    before = board.copy()
    cleaned, unseen = remove_marks(board, grid.boxes_px(1.5, 1.0), np.array([["x", "x"]]), np.ones((1, 2), bool),
                                   witness=np.zeros((1, 2), bool))
    assert not cleaned and sorted(unseen) == [(0, 0), (0, 1)]
    assert np.array_equal(board, before)
