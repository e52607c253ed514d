"""What a loaded calibration builds before the first scan (``pipeline.prepare_calibration``) is what
that scan would have built itself: the same Plażing registration reference (edges, mask, the
unmoved correlation, keypoints, half-size and normalised edges, the grown keypoint mask), the same
board-stage references, and the same reading of a bumped board's first photo. On
``../shared/samples-new-setups/plazing/setup0`` (its board was bumped after calibration, so the
first scan runs the whole motion search); and Strand unter's per-calibration assets on
``../shared/samples/strand-unter/setup0``. Skipped when absent.
"""

import json
import os

import numpy as np
import pytest

from beachscore import pipeline
from calibration import store
from vision.plazing.model import ReaderModel
import vision.strand_unter.assets as strand_assets

SETUP = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "samples-new-setups", "plazing", "setup0")
SCENE = os.path.join(SETUP, "scene_00.jpg")
STRAND = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "samples", "strand-unter", "setup0")


@pytest.fixture(scope="module")
def cal_dir(tmp_path_factory):
    if not os.path.isfile(SCENE):
        pytest.skip("shared Plażing new set-ups not present")
    out = str(tmp_path_factory.mktemp("plazing-prepare") / "cal")
    pipeline.calibrate(os.path.join(SETUP, "calibration.json"), out)
    return out


def _scan(cal):
    setup = json.load(open(os.path.splitext(SCENE)[0] + ".setup.json"))
    return pipeline.scan_file(SCENE, cal, setup)


def _same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    return a == b


def test_prepared_equals_built_by_the_first_scan(cal_dir):
    prepared = store.load(cal_dir)
    pipeline.prepare_calibration(prepared)
    ref = ReaderModel.of(prepared).registration_levels.get("reference")
    assert ref is not None and ref._keypoints is not None
    assert {"half", "normalised"} <= set(ref._derived) and any(isinstance(k, tuple) for k in ref._derived)
    assert {"identity", "outline"} <= set(prepared.cache)

    lazy = store.load(cal_dir)
    assert ReaderModel.of(lazy).registration_levels.get("reference") is None
    first = _scan(lazy)
    assert first.registration.source == "refined"  # the bumped board: the whole motion search ran
    built = ReaderModel.of(lazy).registration_levels["reference"]
    assert np.array_equal(ref.edges, built.edges) and np.array_equal(ref.mask, built.mask)
    assert ref.unmoved_ecc == built.unmoved_ecc
    assert all(np.array_equal(a, b) for a, b in zip(ref.nearby, built.nearby))
    assert np.array_equal(ref._keypoints[2], built._keypoints[2])
    assert [k.pt for k in ref._keypoints[1]] == [k.pt for k in built._keypoints[1]]
    assert set(built._derived) <= set(ref._derived)
    assert all(_same(ref._derived[k], built._derived[k]) for k in built._derived)

    again = _scan(prepared)
    assert again.to_json()["state"] == first.to_json()["state"]
    assert again.confidence == first.confidence and again.warnings == first.warnings
    assert np.array_equal(again.registration.H_px_from_mm, first.registration.H_px_from_mm)


def test_strand_assets_built_before_the_first_scan(tmp_path):
    if not os.path.isfile(os.path.join(STRAND, "calibration.json")):
        pytest.skip("shared Strand unter samples not present")
    out = str(tmp_path / "cal")
    made = pipeline.calibrate(os.path.join(STRAND, "calibration.json"), out)
    assert strand_assets._CACHE.get((out, id(made))) is not None
    loaded = store.load(out)
    assert (out, id(loaded)) not in strand_assets._CACHE
    pipeline.prepare_calibration(loaded)
    assert strand_assets._CACHE.get((out, id(loaded))) is strand_assets.assets(loaded)
