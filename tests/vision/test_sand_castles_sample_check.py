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
import vision.sand_castles.sample_check as reader

SD = np.sqrt(COVARIANCE_FLOOR)
WAVE, SPACE, WALL = 20 * SD, np.zeros(10), -20 * SD
JITTER = np.array([[0.1, -0.1, 0.05, 0.0, 0.1, -0.05, 0.0, 0.1, -0.1, 0.05],
                   [-0.1, 0.05, -0.05, 0.1, 0.0, 0.05, -0.1, 0.0, 0.1, -0.05],
                   [0.0, 0.05, 0.0, -0.1, -0.1, 0.0, 0.1, -0.1, 0.0, 0.0]]) * SD


def _check(monkeypatch, z: float, lane_z: float | None = None) -> list[dict]:
    """Run the check on three spaces, three walls, two waves and a wave sample ``z`` RMS z from the
    spaces; with ``lane_z``, the other sea spaces of that sample's lane: plain empty spaces and one
    ``lane_z`` RMS z from the spaces."""
    feats = np.vstack([SPACE + JITTER, WALL + JITTER, WAVE + JITTER[:2], SPACE + z * SD])
    labels = ["space"] * 3 + ["wall"] * 3 + ["wave"] * 3
    samples = [(label, (10.0 * k, 5.0)) for k, label in enumerate(labels)]
    lane = np.vstack([SPACE + JITTER, SPACE + (lane_z or 0.0) * SD])
    seas = [None] * (len(samples) - 1) + [np.zeros((len(lane), 2))] if lane_z is not None else None
    monkeypatch.setattr(reader, "place_features",
                        lambda board, centres, *a: (lane if len(centres) == len(lane) else feats).astype(np.float32))
    return reader.check_samples(None, samples, samples, 1.0, 10.0, seas)


def test_a_wave_sample_amid_the_spaces_is_refused(monkeypatch):
    with pytest.raises(BadInputError) as e:
        _check(monkeypatch, CFG.bad_sample_clear_rms_z - 1.0)
    assert e.value.code == "bad-sample" and "'wave' at 80,5 mm looks like 'space'" in str(e.value)


def test_a_wave_sample_near_the_spaces_but_not_amid_them_is_kept_and_named(monkeypatch):
    z = (CFG.bad_sample_clear_rms_z + CFG.bad_sample_other_rms_z) / 2
    assert _check(monkeypatch, z) == [{"label": "wave", "board_mm": [80.0, 5.0], "looks_like": "space"}]


def test_a_wave_sample_amid_the_spaces_is_kept_when_it_is_its_lanes_least_space_like_space(monkeypatch):
    # each lane has one wave: the sea space least like an empty space is it, whatever the light
    kept = _check(monkeypatch, CFG.bad_sample_clear_rms_z - 1.0, lane_z=0.5)
    assert kept == [{"label": "wave", "board_mm": [80.0, 5.0], "looks_like": "space"}]


def test_a_wave_sample_is_refused_when_another_space_of_its_lane_is_less_space_like(monkeypatch):
    z = (CFG.bad_sample_clear_rms_z + CFG.bad_sample_other_rms_z) / 2
    with pytest.raises(BadInputError) as e:
        _check(monkeypatch, z, lane_z=z + 3.0)
    assert e.value.code == "bad-sample" and "'wave' at 80,5 mm" in str(e.value)


def test_a_sample_unlike_every_class_is_neither_refused_nor_named(monkeypatch):
    assert _check(monkeypatch, CFG.bad_sample_other_rms_z + 2.0) == []


def test_a_kept_sample_becomes_a_confusable_pair_that_names_it():
    pair = doubted_sample_pair("sand-castles", {"label": "wave", "board_mm": [195.0, 140.0], "looks_like": "space"})
    assert pair["classes"] == ["wave", "space"] and pair["sample_mm"] == [195.0, 140.0]
    assert "'wave' at 195,140 mm" in pair["advice"] and "waves and empty lane spaces look alike" in pair["advice"]
