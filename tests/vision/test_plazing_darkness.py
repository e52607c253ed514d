"""vision.plazing.darkness: a resource's centre darkness against the sand, learned per class at
calibration, weighs the two resources it tells apart best."""

import dataclasses

import numpy as np
import pytest

from vision.plazing.config import DARKNESS
from vision.plazing.darkness import dark_ratio, farthest_pair, learn_darkness, resource_pairs, sand_grey, weigh_darkness

CELL = 30  # px per cell


def _board(rows=2, cols=3, sand=200):
    """A sand board (BGR uint8) and its boxes: int (rows, cols, 4) px."""
    board = np.full((rows * CELL, cols * CELL, 3), sand, np.uint8)
    boxes = np.array([[[c * CELL, r * CELL, (c + 1) * CELL, (r + 1) * CELL] for c in range(cols)]
                      for r in range(rows)], int)
    return board, boxes


def _disc(board, r, c, grey, radius=7):
    yy, xx = np.mgrid[:CELL, :CELL]
    inside = (yy - CELL / 2 + 0.5) ** 2 + (xx - CELL / 2 + 0.5) ** 2 <= radius ** 2
    board[r * CELL:(r + 1) * CELL, c * CELL:(c + 1) * CELL][inside] = grey


def test_dark_ratio_is_the_token_shade_over_the_sand():
    board, boxes = _board()
    _disc(board, 0, 0, 100)  # a dark stone
    _disc(board, 0, 1, 190)  # a pale token
    sand = sand_grey(board, boxes, [(1, 0), (1, 1), (1, 2)])
    assert sand == pytest.approx(200.0)
    x = dark_ratio(board, boxes, [(0, 0), (0, 1), (0, 2)], sand)
    assert x[0] == pytest.approx(0.5, abs=0.01) and x[1] == pytest.approx(0.95, abs=0.01) and x[2] == pytest.approx(1.0)
    # the same board in half the light: the same ratios
    dim = (board // 2).astype(np.uint8)
    assert np.allclose(dark_ratio(dim, boxes, [(0, 0), (0, 1)], sand_grey(dim, boxes, [(1, 0)])), x[:2], atol=0.01)
    assert np.isnan(dark_ratio(board, boxes, [(0, 0)], float("nan"))).all()


def test_learn_darkness_keeps_resources_only():
    got = learn_darkness([("resource/pebble", 0.5), ("resource/pebble", 0.6), ("resource/shell", 0.9),
                          ("neutral", 0.8), ("meeple/red", 0.3), ("resource/amber", float("nan"))])
    assert set(got) == {"resource/pebble", "resource/shell"}
    assert got["resource/pebble"] == pytest.approx([0.55, 0.05, 2])
    assert got["resource/shell"] == pytest.approx([0.9, 0.0, 1])


MODEL = {"resource/amber": [0.7, 0.01, 2], "resource/pebble": [0.55, 0.01, 2], "resource/shell": [0.9, 0.01, 2]}
NAMES = ["empty", "meeple/red", "resource/amber", "resource/pebble", "resource/shell", "unknown"]


def test_farthest_pair():
    assert set(farthest_pair(MODEL)) == {"resource/pebble", "resource/shell"}
    assert farthest_pair({"resource/shell": [0.9, 0.0, 1]}) is None


def test_resource_pairs_only_the_farthest_pair():
    post = np.array([[0.0, 0.0, 0.1, 0.3, 0.6, 0.0],    # shell over pebble: weighed against pebble
                     [0.0, 0.0, 0.6, 0.1, 0.3, 0.0],    # amber: not of the pair
                     [0.9, 0.0, 0.0, 0.05, 0.05, 0.0],  # bare sand
                     [0.0, 0.0, 0.0, 0.7, 0.3, 0.0]])   # pebble over shell
    assert resource_pairs(post, NAMES, MODEL) == [(0, 4, 3), (3, 3, 4)]


def test_weigh_darkness_moves_mass_within_the_pair():
    board, boxes = _board()
    _disc(board, 0, 0, 110)  # a dark stone read as a shell
    _disc(board, 0, 1, 185)  # a pale shell read as a shell
    free = [(0, 0), (0, 1), (1, 0), (1, 1)]
    post = np.array([[0.0, 0.0, 0.05, 0.35, 0.6, 0.0],
                     [0.0, 0.0, 0.05, 0.35, 0.6, 0.0],
                     [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                     [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
    before = post.copy()
    cfg = dataclasses.replace(DARKNESS, floor=0.05)
    got = weigh_darkness(post, NAMES, free, board, boxes, MODEL, cfg)
    assert [c for c, _ in got] == [(0, 0), (0, 1)]
    assert post[0, 3] > 0.9 and post[1, 4] > 0.9  # the stone now a pebble, the shell surer
    assert np.allclose(post.sum(axis=1), before.sum(axis=1))
    assert np.allclose(post[:, [0, 1, 2, 5]], before[:, [0, 1, 2, 5]])  # other classes untouched
    unchanged = before.copy()
    assert weigh_darkness(unchanged, NAMES, free, board, boxes, MODEL, dataclasses.replace(DARKNESS, floor=0.0)) == []
    assert np.array_equal(unchanged, before)
    assert weigh_darkness(unchanged, NAMES, free, board, boxes, None, cfg) == []


def test_heavy_tails_bound_one_cells_odds():
    from vision.plazing.darkness import log_likelihood, weigh_two

    shell, pebble = [0.9, 0.01, 2], [0.55, 0.01, 2]
    far = 0.3  # darker than any pebble: both classes far
    gauss = float(log_likelihood(far, pebble, 0.05, float("inf")) - log_likelihood(far, shell, 0.05, float("inf")))
    heavy = float(log_likelihood(far, pebble, 0.05, 4.0) - log_likelihood(far, shell, 0.05, 4.0))
    assert gauss > heavy > 0  # both say pebble, the t far less surely
    p, q = weigh_two(0.6, 0.3, 0.55, pebble, shell, 0.05, float("inf"))
    assert p + q == pytest.approx(0.9) and p > 0.89


def test_sand_and_darkness_are_each_cells_own_whatever_the_boxes_shapes():
    rng = np.random.default_rng(0)
    board = rng.integers(0, 255, (120, 150, 3), dtype=np.uint8)
    boxes = np.array([[[c * 30 + (c > 1), r * 29 + (r > 0), c * 30 + 30, r * 29 + 29] for c in range(5)]
                      for r in range(4)])
    cells = [(r, c) for r in range(4) for c in range(5)]
    one = [sand_grey(board, boxes, [rc]) for rc in cells]
    assert sand_grey(board, boxes, cells) == float(np.median(one))
    each = np.array([dark_ratio(board, boxes, [rc], 100.0)[0] for rc in cells])
    assert np.array_equal(dark_ratio(board, boxes, cells, 100.0), each)
