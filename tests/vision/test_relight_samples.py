"""``scripts/relight_samples.py``: the light the relit scenes are measured under (Planckian gains
against the calibration's light, a vignette) is what its name says."""

from __future__ import annotations

import importlib.util
import os

import numpy as np

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "relight_samples.py")
_spec = importlib.util.spec_from_file_location("relight_samples", _PATH)
relight_samples = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(relight_samples)


def test_the_planckian_locus_passes_near_d65_and_illuminant_a():
    assert np.allclose(relight_samples.planckian_xy(6504), (0.3135, 0.3237), atol=0.003)  # D65 lies just off it
    assert np.allclose(relight_samples.planckian_xy(2856), (0.4476, 0.4074), atol=0.002)  # CIE illuminant A


def test_gains_are_one_in_the_reference_light_warm_below_it_cool_above():
    assert np.allclose(relight_samples.gains_bgr(3900, 3900), 1.0)
    b, g, r = relight_samples.gains_bgr(3000, 3900)
    assert g == 1.0 and r > 1.0 > b
    b, g, r = relight_samples.gains_bgr(5600, 3900)
    assert g == 1.0 and b > 1.0 > r


def test_a_vignette_darkens_the_corners_not_the_centre():
    img = np.full((101, 201, 3), 200, np.uint8)
    out = relight_samples.relight(img, np.ones(3, np.float32), 0.35)
    assert abs(int(out[50, 100, 0]) - 200) <= 1
    lin = relight_samples._to_linear(np.uint8([[[200, 200, 200]]]))[0, 0, 0]
    corner = relight_samples._to_srgb(np.array([[[lin * (1 - 0.35)] * 3]]))[0, 0, 0]
    assert abs(int(out[0, 0, 0]) - int(corner)) <= 2
