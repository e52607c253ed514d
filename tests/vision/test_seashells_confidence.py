"""A Seashells towel cell's place confidence: its kind's fitted right share per band of posterior margin
(``vision.seashells.confidence``) and the fit that writes it (``scripts/fit_seashells_place_confidence.py``)."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from vision.mats.config import SEASHELLS as CFG
from vision.seashells import confidence

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "fit_seashells_place_confidence", os.path.join(HERE, "..", "..", "scripts", "fit_seashells_place_confidence.py"))
fit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit)

FITTED = {"place_confidence": {"edges": [0.5, 0.8, 0.9, 1.0], "pale empty": [0.8, 0.95, 0.999],
                               "vivid empty": [0.97, 0.98, 0.9999]},
          "glare": {"seen_share": 0.8, "right": 0.94}}


def conf(p, read, pale, glared=False, blown=0.0, fitted=FITTED):
    c, doubted = confidence.calibrated(np.array([p]), np.array([read]), np.array([pale]), np.array([glared]),
                                       np.array([blown]), fitted)
    return float(c[0]), bool(doubted[0])


def test_a_cell_is_as_sure_as_its_kinds_band():
    assert conf(0.15, False, pale=True) == (pytest.approx(0.95), False)      # pale, read empty, margin 0.85
    assert conf(0.25, False, pale=False) == (pytest.approx(0.97), False)     # vivid, read empty, margin 0.75
    assert conf(0.001, False, pale=False)[0] == pytest.approx(0.9999)
    assert conf(0.95, True, pale=True)[0] == pytest.approx(0.95)             # a kind not fitted keeps its margin


def test_without_fitted_constants_the_margin_is_kept_and_every_glared_cell_doubted():
    assert conf(0.15, False, pale=True, fitted={}) == (pytest.approx(0.85), False)
    assert conf(0.02, False, pale=True, glared=True, blown=0.3, fitted={}) == (pytest.approx(0.98), True)
    unshown = {"place_confidence": FITTED["place_confidence"], "glare": {"seen_share": 0.8, "right": None}}
    assert conf(0.02, False, pale=True, glared=True, blown=0.3, fitted=unshown)[1]


def test_a_glared_cell_is_trusted_only_clear_and_no_more_blown_out_than_a_shell_was_seen():
    assert conf(0.02, False, pale=True, glared=True, blown=0.5) == (pytest.approx(0.94), False)
    assert conf(0.02, False, pale=True, glared=True, blown=0.95)[1]          # beyond any seen shell: doubted
    assert conf(0.2, False, pale=True, glared=True, blown=0.3)[1]            # not clear: doubted


def test_the_shipped_fit_names_its_folders_and_never_trusts_a_lower_band_more():
    fitted = confidence.FITTED
    assert fitted["fitted_on"] and fitted["script"] == "scripts/fit_seashells_place_confidence.py"
    bands = fitted["place_confidence"]
    for name in confidence.KINDS:
        shares = bands[name]
        assert len(shares) == len(bands["edges"]) - 1
        assert shares == sorted(shares) and all(0 <= s < 1 for s in shares)
    assert fitted["glare"]["right"] is None or 0 < fitted["glare"]["right"] < 1
    assert CFG.glare_cell_share < fitted["glare"]["seen_share"] < 1


def row(p, read, true, pale=1, glared=0, blown=0.0, scene="s", setup="/x/tables/setup0"):
    return {"scene": scene, "setup": setup, "p_shell": p, "margin": max(p, 1 - p), "read": read, "true": true,
            "wrong": read != true, "pale": pale, "glared": glared, "covered": 0, "unlike": 0, "straddle": 0,
            "blown": blown, "item_conf": 1.0, "basket_right": 1}


def test_the_fit_takes_each_bands_right_share_made_non_decreasing():
    rows = ([row(0.001, 0, 0)] * 10 + [row(0.03, 0, 0)] * 5 + [row(0.08, 0, 0)] * 5 + [row(0.15, 0, 0)] * 8
            + [row(0.25, 0, 1)] + [row(0.25, 0, 0)] * 3)
    bands, counts = fit.fit_bands(rows)
    pale_empty = dict(zip(fit.EDGES, bands["pale empty"]))
    assert pale_empty[0.99] == pytest.approx(11 / 12, abs=1e-4)          # 10 right of 10 (shares kept to 4 places)
    assert pale_empty[0.95] == pytest.approx(6 / 7, abs=1e-4)            # 5 right of 5
    # 8 of 8 below 0.9 do not show a share of 0.9 at 95 %: the band keeps its lower bound, 0.05 ** (1 / 8)
    assert pale_empty[0.8] == pytest.approx(0.05 ** (1 / 8), abs=1e-4)
    assert pale_empty[0.7] == pytest.approx(fit.lower_bound(3, 4), abs=1e-4) and pale_empty[0.7] < 0.5
    assert pale_empty[0.6] == pytest.approx(pale_empty[0.7])             # no cells: 1/2, never above a band over it
    assert counts["pale empty"][fit.EDGES.index(0.7)] == [4, 1]
    assert bands["vivid shell"] == [0.5] * (len(fit.EDGES) - 1)           # a kind without cells: 1/2 everywhere


def test_a_doubt_is_lifted_only_by_enough_cells():
    assert fit.lower_bound(29, 29) == pytest.approx(0.05 ** (1 / 29), abs=1e-6)
    assert fit.lower_bound(29, 29) > CFG.unsure_cell_conf > fit.lower_bound(28, 28)
    assert fit.band_share(29, 0, lifts_doubt=True) == pytest.approx(30 / 31)
    assert fit.band_share(28, 0, lifts_doubt=True) == pytest.approx(fit.lower_bound(28, 28))
    assert fit.band_share(28, 0, lifts_doubt=False) == pytest.approx(29 / 30)
    assert fit.lower_bound(7, 10) == pytest.approx(0.3933, abs=1e-3)     # Clopper–Pearson, one-sided 95 %


def test_the_glare_fit_stops_at_the_most_blown_out_cell_a_pale_shell_was_found_in():
    rows = [row(0.99, 1, 1, blown=0.6), row(0.2, 0, 1, blown=0.9)] + [row(0.01, 0, 0, glared=1, blown=0.5)] * 30 \
        + [row(0.01, 0, 0, glared=1, blown=0.95)]
    glare = fit.fit_glare(rows)
    assert glare["seen_share"] == pytest.approx(0.6) and glare["cells"] == 30
    assert glare["right"] == pytest.approx(31 / 32, abs=1e-4)
    assert fit.fit_glare(rows[:-20])["right"] is None                     # 11 cells do not show it: glare stays doubted


def test_a_scene_is_recomputed_as_the_reader_caps_it():
    fitted = {"place_confidence": FITTED["place_confidence"], "glare": FITTED["glare"]}
    clear = [row(0.001, 0, 0, pale=0)] * 3
    assert fit.scene_confidence(clear, fitted) == pytest.approx(0.9999 ** 3)
    hard = clear + [row(0.4, 0, 0)]                                       # pale, read empty, 0.8 < 0.9: hard to read
    assert fit.scene_confidence(hard, fitted) == pytest.approx(0.9999 ** 3 * CFG.straddle_conf)
    assert fit.scores(hard, fitted) == (1, 1, 0, 0)
