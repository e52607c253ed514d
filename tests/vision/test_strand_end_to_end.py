"""End to end on a synthetic set-up (vision/synthetic.py): calibrate from drawn pieces, then scan.

Scans under another lighting colour/strength, noise, blur and a small bump of the board read the
exact state; a skin-coloured arm over the board is refused with exit 3 ``occluded``.
"""
from __future__ import annotations

import json
import os

import cv2
import pytest

from beachscore.cli import main
from vision import synthetic

PROFILE = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "strand-unter", "profile.json")))
SIZE, PPM = (1920, 1080), 2.4
PIECES = dict(shells=[("white", 100, 310), ("gray", 140, 310), ("brown", 200, 310), ("black", 260, 310)],
              castles=[("red", v, 80 + 60 * v, 250) for v in range(4)]
              + [("blue", v, 80 + 60 * v, 190) for v in range(4)],
              bird=(330, 340))


@pytest.fixture(scope="module")
def setup_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("synth")
    calib = synthetic.scene(PROFILE, seed=1, sea_front=11, size_px=SIZE, ppm=PPM, **PIECES)
    empty = synthetic.scene(PROFILE, seed=2, sea_front=12, size_px=SIZE, ppm=PPM)
    cv2.imwrite(str(d / "calib.png"), calib.image)
    cv2.imwrite(str(d / "empty.png"), empty.image)
    json.dump(PROFILE, open(d / "profile.json", "w"))
    samples = calib.samples + [{"label": "sea", "board_mm": [220, 30]}]
    json.dump({"game": "strand-unter", "profile": "profile.json", "image": "calib.png", "empty_image": "empty.png",
               "corners_px": calib.corners_px.tolist(), "samples": samples}, open(d / "calibration.json", "w"))
    assert main(["calibrate", str(d / "calibration.json"), "--out", str(d / "cal")]) == 0
    return d


def _scan(d, image, capsys):
    cv2.imwrite(str(d / "scan.png"), image)
    rc = main(["scan", str(d / "scan.png"), "--calibration", str(d / "cal"), "--json"])
    return rc, json.loads(capsys.readouterr().out.strip().splitlines()[-1])


SCENE = dict(sea_front=8, shells=[("black", 200, 310), ("white", 120, 280), ("gray", 300, 250)],
             castles=[("red", 2, 150, 220), ("blue", 0, 330, 190), ("red", 3, 260, 160)], bird=(90, 340))


@pytest.mark.parametrize("light,noise,blur,shift", [((1, 1, 1), 2, 0, (0, 0)),
                                                    ((1.1, 1.0, 0.85), 3, 0, (0, 0)),
                                                    ((0.85, 0.85, 0.85), 2, 0.7, (0, 0)),
                                                    ((1, 1, 1), 2, 0, (2.0, -1.5))])
def test_scene_is_read_exactly(setup_dir, capsys, light, noise, blur, shift):
    sc = synthetic.scene(PROFILE, seed=5, size_px=SIZE, ppm=PPM, light_bgr=light, noise_sigma=noise,
                         blur_sigma=blur, shift_mm=shift, **SCENE)
    rc, doc = _scan(setup_dir, sc.image, capsys)
    assert rc == 0, doc
    assert doc["state"] == sc.state
    if light == (1, 1, 1) and shift == (0, 0):
        assert doc["confidence"] >= 0.5


def test_arm_over_the_board_is_occluded(setup_dir, capsys):
    sc = synthetic.scene(PROFILE, seed=3, sea_front=9, size_px=SIZE, ppm=PPM, shells=[("black", 200, 310)])
    img = sc.image.copy()
    skin = synthetic._bgr((170, 145, 150))            # a skin tone, Lab
    cv2.line(img, (1000, 1080), (900, 600), skin, 110)   # forearm from the players' side
    cv2.ellipse(img, (900, 590), (80, 60), 0, 0, 360, skin, -1)
    rc, doc = _scan(setup_dir, img, capsys)
    assert rc == 3 and doc["error"]["code"] == "occluded", doc
