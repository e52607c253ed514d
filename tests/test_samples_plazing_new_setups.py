"""The Plażing reader on set-ups it was not built on: ``../shared/samples-new-setups/plazing``
(four set-ups, five path-traced scenes each, other cameras and light, hands and bumps; skipped when
absent). Counted as ``evaluate.py`` counts them: a scene is right when it is read exactly (pieces
with kinds, cells and facings; meeples; resources; neutral markers) or, with a hand over the
board, refused as ``occluded``; trusted when right at confidence ≥ 0.5 (or refused with a hand).

Set-ups 0 and 1 were used for development; 2 and 3 were held out until the reader was finished.
Their first evaluation (the transfer figure): 8/10 right and trusted, one wrong reading at
confidence ≥ 0.5 (set-up 2 scene 0). Two fixes it showed followed (a small bump in set-up 3 scene
0 went unnoticed: the keypoint tolerance was computed wrong; two gears pressed together, offset by
a step, read as one: the outline's jog is now evidence), so these figures are no longer blind.

A second pass (all four set-ups seen by then) fixed set-up 2 scene 0's shell, whose lamp's shadow
made it look like a pebble: the calibration now also pastes every labelled token with a cast shadow.

Asserted: ≥ 19/20 right, ≥ 18/20 trusted, no clean scene refused, every closed area's verdict right
in the scenes read right, and no wrong reading at confidence ≥ 0.5.
"""

import glob
import json
import os

import pytest
from tests.sample_truth import plazing_exact as _exact

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "samples-new-setups", "plazing")




@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """(set-up, scene, truth, scan result or the refusal) for every scene."""
    setups = sorted(glob.glob(os.path.join(SAMPLES, "setup*")))
    if not setups:
        pytest.skip("shared Plażing new set-ups not present")
    from beachscore import pipeline
    from beachscore.errors import UnreadableBoardError
    from calibration import store

    rows = []
    for setup in setups:
        out = str(tmp_path_factory.mktemp(os.path.basename(setup)))
        pipeline.calibrate(os.path.join(setup, "calibration.json"), out)
        cal = store.load(out)
        for tpath in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
            truth = json.load(open(tpath))
            setup_doc = json.load(open(tpath.replace(".truth.json", ".setup.json")))
            try:
                res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
            except UnreadableBoardError as err:
                res = err
            rows.append((os.path.basename(setup), os.path.basename(tpath)[:8], truth, res))
    return rows


def _right(truth, res) -> bool:
    if isinstance(res, Exception):
        return bool(truth.get("occluded")) and res.code == "occluded"
    return _exact(truth, res.state)


def test_new_setups_right_and_trusted(outcomes):
    right = [(s, n) for s, n, t, r in outcomes if _right(t, r)]
    trusted = [(s, n) for s, n, t, r in outcomes
               if _right(t, r) and (isinstance(r, Exception) or r.confidence >= 0.5)]
    assert len(outcomes) == 20
    assert len(right) >= 19, sorted({(s, n) for s, n, _, _ in outcomes} - set(right))
    assert len(trusted) >= 18, sorted({(s, n) for s, n, _, _ in outcomes} - set(trusted))


def test_new_setups_silent_wrong_and_no_clean_scene_refused(outcomes):
    silent = []
    for s, n, truth, res in outcomes:
        if isinstance(res, Exception):
            assert truth.get("occluded"), f"{s}/{n}: a clean scene refused ({res.code}: {res})"
        elif not _exact(truth, res.state) and res.confidence >= 0.5:
            silent.append((s, n, round(res.confidence, 2)))
    assert not silent, silent


def test_new_setups_area_verdicts(outcomes):
    for s, n, truth, res in outcomes:
        if isinstance(res, Exception) or not _exact(truth, res.state):
            continue
        want = {tuple(sorted(map(tuple, a["cells"]))): a["owner"] for a in truth["areas"] if a["closed"]}
        got = {tuple(sorted(map(tuple, a["cells"]))): a["owner"] for a in res.score["areas"] if a["closed"]}
        assert got == want, f"{s}/{n}"
