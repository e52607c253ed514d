"""Accuracy over the new Strand unter set-ups (``shared/samples-new-setups/strand-unter``, skipped when absent).

Four set-ups (other camera heights and tilts, warm and cold light, a lamp, hands, bumped boards),
each calibrated from its own calibration shot. Asserts issue 9's "Done when" (docs/accuracy.md, "Strand
unter on other tables", gives the figures reached: 20/20 right, 19/20 trusted): at least 19 of 20
scenes right (95%; a hand over the board refused as ``occluded`` counts as right), at least 18 of
20 trusted (90%: right at confidence ≥ 0.5), no wrong reading at ≥ 0.5, no clean scene refused,
every hand refused as ``occluded``, and the registration: every bumped board found again to
≤ 0.6 full-size px, no unmoved board reported as moved.
"""
from __future__ import annotations

import glob
import json
import os

import numpy as np
import pytest
from tests.sample_truth import strand_exact as _exact

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "samples-new-setups",
                       "strand-unter")
pytestmark = pytest.mark.skipif(not os.path.isdir(SAMPLES), reason="shared new set-ups are absent")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """``[(set-up name, truth, result or refusal, calibration)]`` over every scene."""
    from beachscore.errors import BeachscoreError
    from beachscore.pipeline import calibrate, scan_file

    out = []
    for setup in sorted(glob.glob(os.path.join(SAMPLES, "setup*"))):
        cal = calibrate(os.path.join(setup, "calibration.json"), str(tmp_path_factory.mktemp("cal")))
        for t in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
            truth = json.load(open(t))
            try:
                r = scan_file(t.replace(".truth.json", ".jpg"), cal)
            except BeachscoreError as err:
                r = err
            out.append((os.path.basename(setup), truth, r, cal))
    return out




def _right(truth, r) -> bool:
    if isinstance(r, Exception):
        return bool(truth.get("occluded")) and getattr(r, "code", None) == "occluded"
    return _exact(truth, r.state)


def test_right_trusted_and_never_silently_wrong(results):
    assert len(results) == 20
    right = [(s, t, r) for s, t, r, _ in results if _right(t, r)]
    trusted = [1 for _, t, r in right if isinstance(r, Exception) or r.confidence >= 0.5]
    silent = [(s, t.get("occluded")) for s, t, r, _ in results
              if not isinstance(r, Exception) and not _exact(t, r.state) and r.confidence >= 0.5]
    assert len(right) >= 19
    assert len(trusted) >= 18
    assert not silent


def test_every_set_up_is_mostly_right(results):
    for name in sorted({s for s, *_ in results}):
        mine = [(t, r) for s, t, r, _ in results if s == name]
        assert sum(_right(t, r) for t, r in mine) >= len(mine) - 1, name


def test_hands_are_refused_and_clean_scenes_are_not(results):
    for s, truth, r, _ in results:
        if truth.get("occluded"):
            assert isinstance(r, Exception) and r.code == "occluded", (s, r)
        else:
            assert not isinstance(r, Exception), (s, r)


def test_registration_finds_bumps_and_invents_none(results):
    from vision.board.geometry import board_corners_mm, project
    from vision.strand_unter.geometry import enlarge_homography

    for s, truth, r, cal in results:
        if isinstance(r, Exception):
            continue
        assert (r.registration.source == "refined") == bool(truth.get("bumped")), (s, truth.get("bumped"))
        H = enlarge_homography(r.registration.H_px_from_mm, 2)
        err = np.abs(project(H, board_corners_mm(cal.profile["board_mm"])) - np.array(truth["corners_px"])).max()
        assert err <= 0.6, (s, err)
