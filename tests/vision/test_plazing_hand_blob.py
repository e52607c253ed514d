"""A blurred hand over a Plażing board: its faintly odd heart grown through the touching cells that
are a little odd (``vision.plazing.checks.grown_blob``), unless those cells are brighter than the
rest of the board, as a lamp's hot spot is (``vision.plazing.read_tokens``)."""

from __future__ import annotations

import numpy as np

from vision.plazing.checks import grown_blob
from vision.plazing.read_tokens import _brighter_than_the_rest


def test_weak_cells_join_the_blob_only_through_a_seed():
    seeds = [(2, 2)]
    weak = [(2, 2), (2, 3), (3, 3), (4, 3),      # touching the seed, one after another
            (0, 7), (0, 8), (1, 8)]              # weak cells alone: no blob of their own
    assert grown_blob(seeds, weak, (6, 10)) == [(2, 2), (2, 3), (3, 3), (4, 3)]


def test_a_diagonal_neighbour_does_not_join():
    assert grown_blob([(1, 1)], [(1, 1), (2, 2)], (4, 4)) == [(1, 1)]


def test_the_largest_seeded_blob_is_kept_and_no_seed_gives_none():
    weak = [(0, 0), (0, 1), (3, 3), (3, 4), (4, 4), (5, 4)]
    assert grown_blob([(0, 0), (5, 4)], weak, (6, 6)) == [(3, 3), (3, 4), (4, 4), (5, 4)]
    assert grown_blob([], weak, (6, 6)) == []


def _looks(bright: np.ndarray) -> np.ndarray:
    looks = np.zeros(bright.shape + (12,))
    looks[..., 0] = bright
    return looks


def test_a_hot_spot_is_brighter_than_the_rest_and_a_hand_is_not():
    free = [(r, c) for r in range(4) for c in range(5)]
    patch = [(1, 1), (1, 2), (2, 1), (2, 2)]
    lit, shaded = np.full((4, 5), 100.0), np.full((4, 5), 100.0)
    for rc in patch:
        lit[rc], shaded[rc] = 130.0, 90.0
    assert _brighter_than_the_rest(patch, free, _looks(lit))
    assert not _brighter_than_the_rest(patch, free, _looks(shaded))
    assert _brighter_than_the_rest(patch, free, None)          # nothing to tell by: no refusal on it


def _board_scene(cover: dict):
    """A 3 × 6 grid of 20 mm cells on sand, each cell in ``cover`` painted: ``"token"`` a blurred disc
    in its middle, ``"hand"`` the whole cell skin-coloured; and the objects the band check reads."""
    from types import SimpleNamespace

    import cv2

    from vision.plazing.cells import Grid
    from vision.plazing.config import RECTIFY
    from vision.plazing.tokens import EMPTY

    ppm = RECTIFY.px_per_mm
    grid = Grid((0.0, 0.0), 20.0, 3, 6)
    board = np.full((int(60 * ppm), int(120 * ppm), 3), (150, 200, 235), np.uint8)
    boxes = grid.boxes_px(ppm, 1.0)
    for (r, c), what in cover.items():
        u0, v0, u1, v1 = boxes[r, c]
        if what == "hand":
            board[v0:v1, u0:u1] = (120, 150, 205)
        else:
            cv2.circle(board, ((u0 + u1) // 2, (v0 + v1) // 2), int(6 * ppm), (215, 215, 245), -1)
    board = cv2.GaussianBlur(board, (0, 0), 1.2 * ppm)  # out of focus
    free = [(r, c) for r in range(3) for c in range(6)]
    names = [EMPTY, "resource/shell", "unknown"]
    post = np.array([[0.0, 1.0, 0.0] if rc in cover else [1.0, 0.0, 0.0] for rc in free])
    return (free, SimpleNamespace(post=post, names_all=names), SimpleNamespace(rect=SimpleNamespace(local=grid)),
            SimpleNamespace(board=board))


def test_tokens_in_a_row_have_sand_around_them_and_a_hand_does_not():
    from vision.plazing.read_tokens import _unlike_sand_around

    row = [(1, c) for c in range(6)]
    free, post, prep, view = _board_scene({rc: "token" for rc in row})
    assert _unlike_sand_around(row, free, post, prep, view) == []
    free, post, prep, view = _board_scene({rc: "hand" for rc in row})
    assert _unlike_sand_around(row, free, post, prep, view) == row
