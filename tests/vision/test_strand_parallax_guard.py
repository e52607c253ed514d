"""A castle value's parallax k = z / Z must be physical (0 ≤ k ≤ tallest part / lowest camera): a
value fitted outside, as misplaced calibration corners give, keeps its fixed offset
(:func:`vision.strand_unter.calibrate.parallax_model`, docs/tuning.md)."""

import numpy as np
import pytest

from vision.strand_unter.calibrate import parallax_model
from vision.strand_unter.castles import castle_base
from vision.strand_unter.config import APPEARANCE

K_MAX = APPEARANCE.castle_height_max_mm / APPEARANCE.camera_height_min_mm


def _castles(ks: dict[str, float], nadir, offsets=None):
    """Two players' castles per value, the coloured part seen k·(base − nadir)/(1 − k) from the base
    (``offsets``: a fixed extra shift of every value's part, px, as misplaced corners move them)."""
    rng = np.random.default_rng(7)
    out = {}
    for p in ("red", "blue"):
        out[p] = {}
        for v, k in ks.items():
            base = rng.uniform([40, 40], [400, 340])
            core = nadir + (base - nadir) / (1 - k) + np.asarray((offsets or {}).get(v, (0.0, 0.0)))
            out[p][v] = {"centre_px": base.tolist(), "offset_px": (base - core).tolist()}
    return out


def test_physical_ks_are_kept():
    nadir = np.array([220.0, 500.0])
    ks = {"0": 0.011, "1": 0.013, "2": 0.0, "3": 0.9 * K_MAX}
    par = parallax_model(_castles(ks, nadir), nadir, 650.0)
    assert par["k"] == pytest.approx(ks, abs=1e-5)
    assert par["k_refused"] == {} and par["base_rms_px"] < 1e-3


@pytest.mark.parametrize("camera_mm", [None, 650.0])
@pytest.mark.parametrize("bad", [-0.026, 0.062, 1.2 * K_MAX])
def test_a_k_outside_its_physical_range_falls_back_to_the_fixed_offset(camera_mm, bad):
    nadir = np.array([220.0, 500.0])
    castles = _castles({"0": 0.012, "2": bad}, nadir)
    par = parallax_model(castles, nadir, camera_mm)
    assert set(par["k"]) == {"0"} and par["k_refused"] == {"2": pytest.approx(bad, abs=1e-5)}
    offsets = np.array([c["2"]["offset_px"] for c in castles.values()])
    model = {"parallax": par, "castle_model": {"offset_px": {"2": np.median(offsets, axis=0).tolist()}}}
    base = castle_base(100.0, 80.0, "2", model, nadir)
    assert base == pytest.approx((100.0 + np.median(offsets[:, 0]), 80.0 + np.median(offsets[:, 1])))
    # the base error is the fixed offset's for the refused value, not the wild k's
    assert par["base_rms_px"] == pytest.approx(
        np.sqrt(np.mean(np.square(np.concatenate([offsets - np.median(offsets, axis=0), np.zeros((2, 2))])))),
        abs=2e-3)
