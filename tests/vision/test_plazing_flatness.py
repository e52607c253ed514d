"""Plażing: a neutral marker told from a resource by how flat its centre is (:mod:`vision.plazing.flatness`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.plazing import config
from vision.plazing.cells import Grid
from vision.plazing.config import FlatnessConfig
from vision.plazing.flatness import centre_spread, learn_flatness, torn_cells, weigh_flatness

PPM = 1.5
SAND = (150, 200, 230)
NAMES = ["empty", "neutral", "resource/amber", "resource/shell", "unknown"]


def _board():
    """A 1 × 2 grid of 30 px sand cells: a flat grey 13 mm disc (a neutral marker) in the first, a
    5 mm white blob with a shaded rim (a shell) in the second. Returns (boxes, board)."""
    grid = Grid((0.0, 0.0), 20.0, 1, 2)
    board = np.full((30, 60, 3), SAND, np.uint8)
    yy, xx = np.mgrid[0:30, 0:30]
    r = np.hypot(yy - 14.5, xx - 14.5) / PPM
    board[:, :30][r <= 6.5] = (170, 170, 170)
    shell = board[:, 30:]
    shell[r <= 3.5] = (120, 150, 170)
    shell[r <= 2.5] = (250, 250, 252)
    return grid.boxes_px(PPM, 1.0), board


def test_a_flat_disc_spreads_less_than_a_shell_whatever_their_colours():
    boxes, board = _board()
    flat, shell = centre_spread(board, boxes, [(0, 0), (0, 1)], 0.3)
    assert flat < 0.5 < 1.5 < shell


def test_learned_per_bare_sand_neutral_and_resource_class_only():
    model = learn_flatness([("neutral", 0.5), ("neutral", 1.5), ("resource/shell", 2.0), ("meeple/red", 3.0),
                            ("empty", 0.4)])
    assert model == {"empty": [0.4, 0.0, 1], "neutral": [1.0, 0.5, 2], "resource/shell": [2.0, 0.0, 1]}


def test_cells_read_as_sand_a_marker_or_a_resource_are_weighed_against_their_likeliest_resource():
    names = ["empty", "neutral", "resource/amber", "resource/shell", "meeple/red", "unknown"]
    post = np.array([[0.02, 0.05, 0.9, 0.03, 0.0, 0.0],    # an amber
                     [0.01, 0.2, 0.09, 0.7, 0.0, 0.0],     # a shell, its neutral runner-up
                     [0.9, 0.05, 0.02, 0.03, 0.0, 0.0],    # bare sand, against the shell
                     [0.05, 0.02, 0.02, 0.01, 0.9, 0.0]])  # a meeple: not weighed
    model = {"empty": [0.6, 0.2, 9], "neutral": [0.9, 0.3, 3], "resource/amber": [2.0, 0.3, 3],
             "resource/shell": [2.3, 0.3, 3]}
    assert torn_cells(post, names, model) == [(0, 2), (1, 3), (2, 3)]
    assert torn_cells(post, names, {"neutral": [0.9, 0.3, 3]}) == []


def _model(boxes, board):
    """Bare sand, the marker and the shell of :func:`_board` as three calibration cells show each."""
    sand = np.full_like(board, SAND)
    spreads = [("empty", x) for x in centre_spread(sand, boxes, [(0, 0)] * 3, 0.3)] \
        + [("neutral", x) for x in centre_spread(board, boxes, [(0, 0)] * 3, 0.3)] \
        + [("resource/shell", x) for x in centre_spread(board, boxes, [(0, 1)] * 3, 0.3)]
    return {k: [m, 0.3, n] for k, (m, _, n) in learn_flatness(spreads).items()}


@pytest.mark.parametrize("cell, wins", [((0, 0), "neutral"), ((0, 1), "resource/shell")])
def test_the_centre_decides_between_a_marker_and_a_shell_and_keeps_their_joint_mass(cell, wins):
    boxes, board = _board()
    post = np.array([[0.05, 0.45, 0.0, 0.5, 0.0]]) if wins == "neutral" else np.array([[0.05, 0.5, 0.0, 0.45, 0.0]])
    before = post.copy()
    weighed = weigh_flatness(post, NAMES, [cell], board, boxes, _model(boxes, board), 0.3,
                             FlatnessConfig(floors={"neutral": 0.1}))
    assert [c for c, _ in weighed] == [cell]
    assert NAMES[int(np.argmax(post[0, :-1]))] == wins
    assert post[0, NAMES.index(wins)] > 0.9  # of the pair's 0.95
    assert post[0, 1] + post[0, 3] == pytest.approx(before[0, 1] + before[0, 3])
    assert post[0, 0] == before[0, 0]


def test_a_shell_read_as_bare_sand_is_found_and_a_marker_is_never_weighed_against_sand():
    boxes, board = _board()
    cfg = FlatnessConfig(floors={"neutral": 0.1, "empty": 0.3})
    post = np.array([[0.8, 0.0, 0.0, 0.2, 0.0]])
    weigh_flatness(post, NAMES, [(0, 1)], board, boxes, _model(boxes, board), 0.3, cfg)
    assert post[0, 3] > 0.9 and post[0, 0] + post[0, 3] == pytest.approx(1.0)
    post = np.array([[0.6, 0.4, 0.0, 0.0, 0.0]])   # flat: sand or a marker, the spread cannot say
    weigh_flatness(post, NAMES, [(0, 0)], board, boxes, _model(boxes, board), 0.3, cfg)
    assert post[0, :2].tolist() == pytest.approx([0.6, 0.4], abs=1e-6)


def test_nothing_weighed_without_a_floor_or_a_learned_model():
    boxes, board = _board()
    post = np.array([[0.05, 0.45, 0.0, 0.5, 0.0]])
    model = {"neutral": [0.2, 0.3, 3], "resource/shell": [2.3, 0.3, 3]}
    assert weigh_flatness(post, NAMES, [(0, 0)], board, boxes, model, 0.3, FlatnessConfig(floors={})) == []
    assert weigh_flatness(post, NAMES, [(0, 0)], board, boxes, None, 0.3,
                          FlatnessConfig(floors={"neutral": 0.1})) == []
    assert post.tolist() == [[0.05, 0.45, 0.0, 0.5, 0.0]]


def test_the_floors_are_the_fitted_ones_and_name_what_they_were_fitted_on():
    doc = json.loads(config.FITTED_FILE.read_text(encoding="utf-8"))["flatness"]
    assert {k: v.hex() for k, v in config.FLATNESS.floors.items()} == \
        {k: float(v).hex() for k, v in doc["floors"].items()} == {"neutral": (0.0924).hex(), "empty": (0.3873).hex()}
    assert doc["fitted_on"]["script"] == "scripts/fit_plazing_flatness.py"
    assert all(":" in s for s in doc["fitted_on"]["sets"])
