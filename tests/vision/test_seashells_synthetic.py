"""Seashells mat reader on synthetic mats: towel places, white shells, basket blobs, errors."""

import json

import numpy as np
import pytest

from beachscore.errors import BadInputError
from scoring.seashells_mats import merge_mats
from vision import seashells
from vision.synthetic_boards import SEASHELLS_PROFILE as PROFILE, seashells_mat

from .mats_helpers import photo, shot

CAL_SHELLS = [(0, 0, 0, 0), (1, 3, 0, 0), (2, 6, 0, 0), (4, 5, 0, 0), (5, 1, 0, 0)]
CAL_ITEMS = [("fossil/head", 40, 272, 0), ("fossil/tail", 90, 272, 30), ("sand_dollar", 140, 272, 0),
             ("bottle", 195, 272, -20)]


def cell_mm(r, c):
    return 18 + 32 * c + 16, 18 + 32 * r + 16


@pytest.fixture(scope="module")
def model():
    img = seashells_mat(CAL_SHELLS, CAL_ITEMS, seed=1)
    samples = [("shell", cell_mm(r, c)) for r, c, _, _ in CAL_SHELLS]
    samples += [("empty", cell_mm(r, c)) for r, c in [(0, 2), (1, 1), (3, 3), (3, 5), (6, 6), (2, 0), (5, 4)]]
    samples += [(k, (x, y)) for k, x, y, _ in CAL_ITEMS]
    m = seashells.learn(shot("seashells", PROFILE, img, samples))
    json.dumps(m)  # the model must be JSON
    return m


def read(model, shells, items, seed, setup=None):
    return seashells.read(photo("seashells", PROFILE, model, seashells_mat(shells, items, seed=seed), setup))


def test_reads_towel_and_basket(model):
    shells = [(0, 1, 3, -2), (2, 2, -4, 3), (3, 5, 2, 2), (6, 0, 0, 0), (4, 4, -3, 0), (5, 5, 0, -3)]
    items = [("sand_dollar", 60, 268, 0), ("sand_dollar", 120, 280, 0), ("fossil/tail", 170, 265, 80),
             ("bottle", 215, 275, 45), ("fossil/head", 30, 282, 0)]
    r = read(model, shells, items, seed=2, setup={"player": "ana"})
    p = r.state["players"][0]
    rows, cols = PROFILE["towel"]["rows"], PROFILE["towel"]["cols"]
    assert sorted(map(tuple, p["shells"])) == sorted((rows[a], cols[b]) for a, b, _, _ in shells)
    assert (p["fossil_heads"], p["fossil_tails"], p["sand_dollars"], p["bottles"]) == (1, 1, 2, 1)
    assert p["player"] == "ana"
    assert r.confidence > 0.9


def test_small_white_shell_on_white_column_is_found(model):
    r = read(model, [(1, 5, 0, 0)], [], seed=3)
    # a smaller white shell (7 mm radius against 9) on the white column: weak contrast, still a shell
    small = seashells.read(photo("seashells", PROFILE, model,
                                 seashells_mat([(2, 5, 0, 0)], [], seed=4, shell_radius_mm=7.0)))
    assert r.state["players"][0]["shells"] == [["conch", "white"]]
    assert small.state["players"][0]["shells"] == [["whelk", "white"]]


def test_empty_mat_reads_empty(model):
    r = read(model, [], [], seed=5)
    p = r.state["players"][0]
    assert p["shells"] == [] and p["sand_dollars"] == 0 and p["player"] == "mat"


def test_touching_items_lower_confidence(model):
    r = read(model, [], [("sand_dollar", 100, 272, 0), ("sand_dollar", 119, 272, 0)], seed=6)
    assert r.state["players"][0]["sand_dollars"] == 2
    assert r.confidence < 0.5 and r.warnings


def test_unknown_label_is_bad_input():
    img = seashells_mat(CAL_SHELLS, CAL_ITEMS, seed=1)
    with pytest.raises(BadInputError) as e:
        seashells.learn(shot("seashells", PROFILE, img, [("shell", cell_mm(0, 0)), ("empty", cell_mm(0, 2)),
                                                         ("starfish", cell_mm(1, 1))]))
    assert e.value.code == "unknown-label"


def test_basket_label_off_basket_is_bad_input():
    img = seashells_mat(CAL_SHELLS, CAL_ITEMS, seed=1)
    with pytest.raises(BadInputError) as e:
        seashells.learn(shot("seashells", PROFILE, img, [("shell", cell_mm(0, 0)), ("empty", cell_mm(0, 2)),
                                                         ("bottle", cell_mm(1, 1))]))
    assert e.value.code == "sample-off-place"


def test_merge_mats_names_and_refuses_duplicates():
    a = {"game": "seashells", "shapes": ["s"], "colours": ["c"], "players": [{"player": "mat", "shells": []}]}
    b = {"game": "seashells", "players": [{"player": "mat", "shells": [["s", "c"]]}]}
    m = merge_mats([a, b], {"players": ["ana", "ben"], "scoring": "advanced"})
    assert [p["player"] for p in m["players"]] == ["ana", "ben"] and m["scoring"] == "advanced"
    assert m["shapes"] == ["s"]
    with pytest.raises(ValueError):
        merge_mats([a, a])
