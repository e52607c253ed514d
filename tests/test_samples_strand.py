"""Accuracy over the shared Strand unter sample photos (skipped when the folder is absent).

Asserts the figures reached:
- registration: unmoved scenes stay put, bumped scenes are recovered to ≤ 0.6 px (full-size px);
- every scene fully right (8/8) and no silent wrong reading (wrong state with confidence ≥ 0.5);
- confidence is useful: at least 6 of the 8 (right) readings are ≥ 0.7.
"""
from __future__ import annotations

import glob
import json
import os

import numpy as np
import pytest

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "samples", "strand-unter")
pytestmark = pytest.mark.skipif(not os.path.isdir(SAMPLES), reason="shared samples are absent")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    from beachscore.errors import BeachscoreError
    from beachscore.pipeline import calibrate, scan_file

    out = []
    for setup in sorted(glob.glob(os.path.join(SAMPLES, "setup*"))):
        cal = calibrate(os.path.join(setup, "calibration.json"), str(tmp_path_factory.mktemp("cal")))
        for t in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
            truth = json.load(open(t))
            try:
                out.append((truth, scan_file(t.replace(".truth.json", ".jpg"), cal), cal))
            except BeachscoreError as err:
                out.append((truth, err, cal))
    return out


def _exact(truth, state):
    def norm(s):
        return (s["sea_front"], s["sandpiper"], [(g["number"], g["shells"], sorted((c["player"], c["value"])
                for c in g["castles"])) for g in s["grooves"]])
    return norm(truth["state"]) == norm(state)


def test_registration_corners(results):
    from vision.registration import board_corners_mm, project
    from vision.strand_unter_geometry import enlarge_homography

    for truth, r, cal in results:
        assert not isinstance(r, Exception), r
        H = enlarge_homography(r.registration.H_px_from_mm, 2)
        err = np.abs(project(H, board_corners_mm(cal.profile["board_mm"])) - np.array(truth["corners_px"])).max()
        assert err <= 0.6, (truth.get("bumped"), err)
        assert (r.registration.source == "refined") == bool(truth.get("bumped"))


def test_no_silent_wrong_and_exact_count(results):
    read = [(t, r) for t, r, _ in results if not isinstance(r, Exception)]
    silent = [t for t, r in read if not _exact(t, r.state) and r.confidence >= 0.5]
    exact = sum(_exact(t, r.state) for t, r in read)
    assert not silent
    assert exact == len(results) == 8


def test_confidence_is_useful(results):
    confident = [r.confidence for _, r, _ in results if not isinstance(r, Exception) and r.confidence >= 0.7]
    assert len(confident) >= 6
