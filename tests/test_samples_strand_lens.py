"""The shared Strand unter samples through a barrel lens (k1 = −0.12), skipped when they are absent.

Every photo of ``shared/samples/strand-unter`` is written again as that lens would have shot it
(``scripts/distort_samples.py``'s model: ``f`` = image width, centre = image centre, bilinear,
JPEG quality 95) and its ``corners_px`` mapped through the same distortion; then calibrated and
read as a user's would be. Asserts issue 11's "read as well as undistorted ones": every scene
fully right, none wrong at confidence ≥ 0.5, and at least 7 of 8 trusted (≥ 0.5; 8 of 8 measured,
docs/accuracy.md, "Strand unter", as undistorted).
"""
from __future__ import annotations

import glob
import json
import os
import shutil

import numpy as np
import pytest
from tests.sample_truth import strand_exact as _exact

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "samples", "strand-unter")
pytestmark = pytest.mark.skipif(not os.path.isdir(SAMPLES), reason="shared samples are absent")
K1 = -0.12


def _distorted_copy(dst: str) -> None:
    """``SAMPLES`` as the lens would have shot it, in ``dst`` (as ``scripts/distort_samples.py``)."""
    import cv2

    from vision.lens.model import Lens

    lenses: dict = {}

    def lens_for(size):
        return lenses.setdefault(size, Lens(K1, size=size, scale=1.0))

    for root, _, files in os.walk(SAMPLES):
        out_root = os.path.join(dst, os.path.relpath(root, SAMPLES))
        os.makedirs(out_root, exist_ok=True)
        for name in files:
            src, out = os.path.join(root, name), os.path.join(out_root, name)
            if name.lower().endswith(".jpg"):
                img = cv2.imread(src, cv2.IMREAD_COLOR)
                cv2.imwrite(out, lens_for((img.shape[1], img.shape[0])).distort_image(img),
                            [cv2.IMWRITE_JPEG_QUALITY, 95])
            else:
                shutil.copyfile(src, out)
    for path in glob.glob(os.path.join(dst, "**", "calibration.json"), recursive=True):
        doc = json.load(open(path))
        img = cv2.imread(os.path.join(os.path.dirname(path), doc["image"]), cv2.IMREAD_COLOR)
        size = (img.shape[1], img.shape[0])
        doc["corners_px"] = lens_for(size).distort_points(np.array(doc["corners_px"], float), *size).tolist()
        with open(path, "w") as f:
            json.dump(doc, f)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    from beachscore.errors import BeachscoreError
    from beachscore.pipeline import calibrate, scan_file

    folder = str(tmp_path_factory.mktemp("strand-k1"))
    _distorted_copy(folder)
    out = []
    for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
        cal = calibrate(os.path.join(setup, "calibration.json"), str(tmp_path_factory.mktemp("cal")))
        assert cal.lens is not None and cal.lens.k1 == pytest.approx(K1, abs=0.02)
        for t in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
            truth = json.load(open(t))
            try:
                out.append((truth, scan_file(t.replace(".truth.json", ".jpg"), cal)))
            except BeachscoreError as err:
                out.append((truth, err))
    return out


def test_through_the_lens_every_scene_is_right_and_trusted_as_undistorted(results):
    assert len(results) == 8
    refused = [str(r) for _, r in results if isinstance(r, Exception)]
    assert not refused
    assert all(_exact(t, r.state) for t, r in results)
    assert not [r.confidence for t, r in results if not _exact(t, r.state) and r.confidence >= 0.5]
    assert sum(r.confidence >= 0.5 for _, r in results) >= 7
