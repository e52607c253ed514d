"""A hand over pieces: the free cells it covers are faintly odd, something spans their edges (their
outer band is no sand), and they touch only at corners where pieces lie between them
(``QualityConfig.faint_span_bgr``, ``read_tokens._spanned``). Rendered judging batch 20290 set-up 1
scene 2 (now a development table): read with five false shells without the rule, refused with it."""

import dataclasses
import json
import os

import pytest

from vision.plazing.checks import largest_blob, largest_blob_cells

SETUP = os.path.join(os.environ.get("BEACHSCORE_PLAZING_JUDGE2", "/work/renders/judge2"), "plazing-1080-20290", "setup1")


def test_blobs_touching_at_corners():
    diagonal = [(0, 0), (1, 1), (2, 2), (2, 3), (5, 5)]
    assert largest_blob(diagonal, (6, 6)) == 2
    assert largest_blob(diagonal, (6, 6), 8) == 4
    assert largest_blob_cells(diagonal, (6, 6)) == [(0, 0), (1, 1), (2, 2), (2, 3)]
    assert largest_blob_cells(diagonal, (6, 6), 4) in ([(2, 2), (2, 3)],)
    assert largest_blob_cells([], (6, 6)) == []


@pytest.mark.skipif(not os.path.isdir(SETUP), reason="rendered batch 20290 not present")
def test_a_hand_over_pieces_is_refused(tmp_path, monkeypatch):
    from beachscore import pipeline
    from beachscore.errors import UnreadableBoardError
    from calibration import store
    from vision.plazing import read_tokens

    truth = json.load(open(os.path.join(SETUP, "scene_02.truth.json")))
    assert truth["occluded"]
    cal = store.load(pipeline.calibrate(os.path.join(SETUP, "calibration.json"), str(tmp_path / "cal")).folder)
    setup = json.load(open(os.path.join(SETUP, "scene_02.setup.json")))
    photo = os.path.join(SETUP, "scene_02.jpg")
    with pytest.raises(UnreadableBoardError) as err:
        pipeline.scan_file(photo, cal, setup)
    assert err.value.code == "occluded"
    monkeypatch.setattr(read_tokens, "QUALITY", dataclasses.replace(read_tokens.QUALITY, faint_span_on=False))
    pipeline.scan_file(photo, cal, setup)  # read (with false shells) without the rule
