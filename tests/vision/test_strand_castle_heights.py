"""The calibration castles' parallax per value and the camera's height measured from them
(``scripts/fit_strand_castle_heights.py``; measured, not adopted: docs/tuning.md)."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))

from fit_strand_castle_heights import castle_camera_height  # noqa: E402
from vision.strand_unter.calibrate import castle_value_ks, parallax_model  # noqa: E402

HEIGHTS = {"0": 7.3, "1": 8.3, "2": 9.3, "3": 8.5}


def _castles(camera_mm, nadir, rng, noise_px=0.0):
    """Four players' castles of every value seen from a camera ``camera_mm`` over ``nadir`` (work px = mm):
    the coloured part displaced from the base by k = z / Z of its distance from the nadir."""
    out = {}
    for p in ("red", "yellow", "green", "blue"):
        out[p] = {}
        for v, z in HEIGHTS.items():
            base = rng.uniform([20, 20], [380, 320])
            core = nadir + (base - nadir) / (1 - z / camera_mm) + rng.normal(0, noise_px, 2)
            out[p][v] = {"centre_px": base.tolist(), "offset_px": (base - core).tolist()}
    return out


def test_value_ks_are_the_parallax_models_and_skip_castles_at_the_nadir():
    rng = np.random.default_rng(3)
    nadir = np.array([200.0, 150.0])
    castles = _castles(650.0, nadir, rng)
    castles["red"]["0"] = {"centre_px": [201.0, 151.0], "offset_px": [0.2, 0.1]}  # under the camera: no lever
    ks = castle_value_ks(castles, nadir)
    assert len(ks["0"]) == 3 and all(len(ks[v]) == 4 for v in "123")
    for v, z in HEIGHTS.items():
        assert np.allclose(ks[v], z / 650.0, rtol=1e-9)   # exact: k of the coloured part over the camera
    par = parallax_model(castles, nadir, 650.0)
    assert par["k"] == {v: round(float(np.median(k)), 5) for v, k in ks.items()}


@pytest.mark.parametrize("camera_mm", [450.0, 650.0, 1200.0])
def test_castles_measure_the_cameras_height(camera_mm):
    rng = np.random.default_rng(int(camera_mm))
    nadir = np.array([180.0, -40.0])
    exact = castle_camera_height(_castles(camera_mm, nadir, rng), nadir, HEIGHTS)
    assert exact == pytest.approx(camera_mm, rel=1e-6)
    noisy = castle_camera_height(_castles(camera_mm, nadir, rng, noise_px=0.3), nadir, HEIGHTS)
    assert noisy == pytest.approx(camera_mm, rel=0.25)


def test_no_height_without_displacement_away_from_the_nadir():
    nadir = np.array([200.0, 150.0])
    inward = {"red": {"1": {"centre_px": [300.0, 150.0], "offset_px": [2.0, 0.0]}}}     # colour nearer the nadir
    assert castle_camera_height(inward, nadir, HEIGHTS) is None
    assert castle_camera_height({"red": {"1": {"centre_px": [205.0, 150.0], "offset_px": [-1.0, 0.0]}}},
                                nadir, HEIGHTS) is None                                  # too near the nadir
    assert castle_camera_height(_castles(600.0, nadir, np.random.default_rng(1)), nadir, {}) is None
