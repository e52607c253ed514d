"""The footprint learned per set-up from the calibration shot (:mod:`vision.plazing.footprint`)."""

import dataclasses

import numpy as np

from tests.vision.test_plazing_parallax import NAMES, _board, _cfg, _post


def _setup_cfg(spread=0.3, cap=10.0):
    return dataclasses.replace(_cfg(), setup_spread={"meeple/": spread, "resource/": spread}, setup_cap=cap)


def test_learn_footprint_keeps_meeples_and_resources_per_class():
    from vision.plazing.footprint import learn_footprint
    out = learn_footprint([("meeple/yellow", 5.0), ("resource/amber", 3.0), ("resource/amber", 4.0),
                           ("neutral", 2.0), ("resource/shell", float("nan"))])
    assert out == {"meeple/yellow": [5.0, 0.0, 1], "resource/amber": [3.5, 0.5, 2]}


def test_calibration_footprint_measures_the_labelled_cells():
    from vision.plazing.footprint import calibration_footprint
    board, boxes = _board(6)
    out = calibration_footprint(board, boxes, [("resource/amber", (0, 0)), ("sand", (0, 0))], 1.5, _cfg())
    assert list(out) == ["resource/amber"] and 3.0 < out["resource/amber"][0] < 4.5


def test_pair_stats_uses_the_setup_when_it_learned_both_else_the_global_fit():
    from vision.plazing.footprint import pair_stats
    learned = {"meeple/yellow": [4.8, 0.0, 1], "resource/amber": [4.0, 0.4, 2]}
    a, b, cap = pair_stats("meeple/yellow", "resource/amber", learned, _setup_cfg(0.3, 10.0))
    assert a == (4.8, 0.3) and abs(b[1] - 0.5) < 1e-9 and cap == 10.0
    g = pair_stats("meeple/yellow", "resource/pebble", learned, _setup_cfg())
    assert g[2] == _cfg().cap                        # the pebble not learned: the global fit
    assert pair_stats("meeple/yellow", "resource/amber", None, _setup_cfg())[2] == _cfg().cap


def test_a_lump_far_below_the_setups_meeple_overturns_a_sure_meeple():
    from vision.plazing.footprint import cell_windows, coloured_area, weigh_footprint
    board, boxes = _board(6)
    x = float(np.log1p(coloured_area(cell_windows(board, boxes, [(0, 0)], 1.6), 1.5, 14.0, 15.0, 4.0)[0]))
    learned = {"meeple/yellow": [x + 1.3, 0.0, 1], "resource/amber": [x, 0.0, 1]}
    post = _post(0.999, 0.001)
    weigh_footprint(post, NAMES, [(0, 0)], board, boxes, 1.5, learned, _setup_cfg(0.3, 10.0))
    assert post[0, 2] > post[0, 1]
    post = _post(0.999, 0.001)                       # the global fit, capped at 3, leaves it a meeple
    weigh_footprint(post, NAMES, [(0, 0)], board, boxes, 1.5, learned, _cfg())
    assert post[0, 1] > post[0, 2]
