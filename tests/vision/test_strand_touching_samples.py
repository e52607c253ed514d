"""Calibration samples whose pieces touch (one foreground blob holds two labelled pieces): each
sample learns from its own part of the blob, so a small castle beside a large one of another
colour is not learned in that colour (rendered set-up 20242 set-up 0 was refused as ``bad-sample``
for it)."""
from __future__ import annotations

import json

import pytest

from tests.synthetic import strand_top as synthetic
from tests.vision.test_strand_end_to_end import PIECES, PPM, PROFILE, SCENE, SIZE, _calibrate, _scan

#: the blue castles moved up against the red ones: each pair's bases touch, one blob (the reader
#: before this rule refused it: "castle/red/0: no red colour found")
TOUCHING = {**PIECES, "castles": [("red", v, 80 + 60 * v, 250) for v in range(4)]
            + [("blue", v, 80 + 60 * v, 250 - 20 - 2 * v) for v in range(4)]}


@pytest.fixture(scope="module")
def touching_dir(tmp_path_factory):
    return _calibrate(tmp_path_factory.mktemp("synth_touching"), pieces=TOUCHING)


def test_a_calibration_with_touching_castles_learns_each_colour(touching_dir, capsys):
    model = json.load(open(touching_dir / "cal" / "calibration.json"))["model"]
    assert set(model["castle_model"]["towers_seen"]) == {"red", "blue"}
    sc = synthetic.scene(PROFILE, seed=5, size_px=SIZE, ppm=PPM, **SCENE)
    rc, doc = _scan(touching_dir, sc.image, capsys)
    assert rc == 0, doc
    assert doc["state"] == sc.state
