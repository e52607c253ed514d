"""The Sand Castles calibration sample check: a clear mislabel is refused, a sample the light may
disguise is kept and named (``vision.sand_castles.reader._check_samples``, ``calibration.light_check``).

The place features are made by hand so that the suspect's distance to the class it looks like is
known: classes one floor standard deviation wide, the suspect ``z`` standard deviations (RMS) from
the empty spaces' mean and far from the other waves.
"""

from __future__ import annotations

import numpy as np
import pytest

from beachscore.errors import BadInputError
from calibration.light_check import doubted_sample_pair
from vision.mats.config import SAND_CASTLES as CFG
from vision.places import COVARIANCE_FLOOR
import vision.sand_castles.reader as reader

SD = np.sqrt(COVARIANCE_FLOOR)
WAVE, SPACE, WALL = 20 * SD, np.zeros(10), -20 * SD
JITTER = np.array([[0.1, -0.1, 0.05, 0.0, 0.1, -0.05, 0.0, 0.1, -0.1, 0.05],
                   [-0.1, 0.05, -0.05, 0.1, 0.0, 0.05, -0.1, 0.0, 0.1, -0.05],
                   [0.0, 0.05, 0.0, -0.1, -0.1, 0.0, 0.1, -0.1, 0.0, 0.0]]) * SD


def _check(monkeypatch, z: float) -> list[dict]:
    """Run the check on three spaces, three walls, two waves and a wave sample ``z`` RMS z from the spaces."""
    feats = np.vstack([SPACE + JITTER, WALL + JITTER, WAVE + JITTER[:2], SPACE + z * SD])
    labels = ["space"] * 3 + ["wall"] * 3 + ["wave"] * 3
    samples = [(label, (10.0 * k, 5.0)) for k, label in enumerate(labels)]
    monkeypatch.setattr(reader, "place_features", lambda *a: feats.astype(np.float32))
    return reader._check_samples(None, samples, samples, 1.0, 10.0)


def test_a_wave_sample_amid_the_spaces_is_refused(monkeypatch):
    with pytest.raises(BadInputError) as e:
        _check(monkeypatch, CFG.bad_sample_clear_rms_z - 1.0)
    assert e.value.code == "bad-sample" and "'wave' at 80,5 mm looks like 'space'" in str(e.value)


def test_a_wave_sample_near_the_spaces_but_not_amid_them_is_kept_and_named(monkeypatch):
    z = (CFG.bad_sample_clear_rms_z + CFG.bad_sample_other_rms_z) / 2
    assert _check(monkeypatch, z) == [{"label": "wave", "board_mm": [80.0, 5.0], "looks_like": "space"}]


def test_a_sample_unlike_every_class_is_neither_refused_nor_named(monkeypatch):
    assert _check(monkeypatch, CFG.bad_sample_other_rms_z + 2.0) == []


def test_a_kept_sample_becomes_a_confusable_pair_that_names_it():
    pair = doubted_sample_pair("sand-castles", {"label": "wave", "board_mm": [195.0, 140.0], "looks_like": "space"})
    assert pair["classes"] == ["wave", "space"] and pair["sample_mm"] == [195.0, 140.0]
    assert "'wave' at 195,140 mm" in pair["advice"] and "waves and empty lane spaces look alike" in pair["advice"]
