"""End to end on a synthetic set-up (tests/synthetic/strand_top.py): calibrate from drawn pieces, then scan.

Scans under another lighting colour/strength, noise, blur and a small bump of the board read the
exact state; a skin-coloured arm over the board is refused with exit 3 ``occluded``.
"""
from __future__ import annotations

import json
import os

import cv2
import pytest

from beachscore.cli import main
from tests.synthetic import strand_top as synthetic

PROFILE = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "strand-unter", "profile.json")))
SIZE, PPM = (1920, 1080), 2.4
PIECES = dict(shells=[("white", 100, 310), ("gray", 140, 310), ("brown", 200, 310), ("black", 260, 310)],
              castles=[("red", v, 80 + 60 * v, 250) for v in range(4)]
              + [("blue", v, 80 + 60 * v, 190) for v in range(4)],
              bird=(330, 340))


def _calibrate(d, colours=None, camera_mm=None, edit=lambda image: image, pieces=PIECES):
    """Calibrate the synthetic set-up into ``d / "cal"`` (``pieces`` drawn in ``colours``, seen from a
    camera ``camera_mm`` above the board, or straight down; both shots passed through ``edit``)."""
    calib = synthetic.scene(PROFILE, seed=1, sea_front=11, size_px=SIZE, ppm=PPM, colours=colours,
                            camera_mm=camera_mm, **pieces)
    empty = synthetic.scene(PROFILE, seed=2, sea_front=12, size_px=SIZE, ppm=PPM, colours=colours)
    cv2.imwrite(str(d / "calib.png"), edit(calib.image))
    cv2.imwrite(str(d / "empty.png"), edit(empty.image))
    json.dump(PROFILE, open(d / "profile.json", "w"))
    samples = calib.samples + [{"label": "sea", "board_mm": [220, 30]}]
    json.dump({"game": "strand-unter", "profile": "profile.json", "image": "calib.png", "empty_image": "empty.png",
               "corners_px": calib.corners_px.tolist(), "samples": samples}, open(d / "calibration.json", "w"))
    assert main(["calibrate", str(d / "calibration.json"), "--out", str(d / "cal")]) == 0
    return d


@pytest.fixture(scope="module")
def setup_dir(tmp_path_factory):
    return _calibrate(tmp_path_factory.mktemp("synth"))


#: castle bases lighter than the sand, so that a castle's whole footprint is foreground (as on the
#: sample board, where a castle's blob is ~480 mm², not just its towers)
LIGHT_BASE = {"base": (210, 133, 142)}


@pytest.fixture(scope="module")
def light_base_dir(tmp_path_factory):
    return _calibrate(tmp_path_factory.mktemp("synth_base"), LIGHT_BASE)


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


@pytest.mark.parametrize("blur", [3.0, 6.0])
def test_heavy_blur_is_refused(setup_dir, capsys, blur):
    sc = synthetic.scene(PROFILE, seed=5, size_px=SIZE, ppm=PPM, blur_sigma=blur, **SCENE)
    rc, doc = _scan(setup_dir, sc.image, capsys)
    assert rc == 3 and doc["error"]["code"] == "too-blurred", doc


def _normalised(state: dict) -> dict:
    """A state with each groove's castles in a fixed order (the contract leaves their order free)."""
    return {**state, "grooves": [{**g, "castles": sorted(g["castles"], key=lambda c: (c["player"], c["value"]))}
                                 for g in state["grooves"]]}


def test_touching_castles_are_not_an_occlusion(light_base_dir, capsys):
    """Six castles touching in a row in one groove (one blob of ~2.5% of the board) are read, not refused."""
    row = [("red", 0, 60.0), ("red", 1, 81.5), ("red", 2, 105.5), ("red", 3, 133.0), ("blue", 2, 160.5),
           ("blue", 3, 188.0)]
    sc = synthetic.scene(PROFILE, seed=6, size_px=SIZE, ppm=PPM, sea_front=9, colours=LIGHT_BASE,
                         castles=[(p, v, x, 220.0) for p, v, x in row], shells=[("black", 300.0, 220.0)])
    rc, doc = _scan(light_base_dir, sc.image, capsys)
    assert rc == 0, doc
    assert _normalised(doc["state"]) == _normalised(sc.state)


def test_arm_is_occluded_with_light_castle_bases(light_base_dir, capsys):
    sc = synthetic.scene(PROFILE, seed=3, sea_front=9, size_px=SIZE, ppm=PPM, colours=LIGHT_BASE,
                         castles=[("red", 2, 200.0, 250.0)])
    img = sc.image.copy()
    skin = synthetic._bgr((170, 145, 150))
    cv2.line(img, (1000, 1080), (900, 600), skin, 110)
    cv2.ellipse(img, (900, 590), (80, 60), 0, 0, 360, skin, -1)
    rc, doc = _scan(light_base_dir, img, capsys)
    assert rc == 3 and doc["error"]["code"] == "occluded", doc


def test_fold_of_the_cloth_is_not_an_occlusion(setup_dir, capsys):
    """A narrow fold of the cloth hanging 11 cm over empty sand (a cloth-coloured blob of ~2.6% of the
    board, narrower than the cloth-edge filter) is cloth, not a hand: the board is read."""
    import numpy as np

    from vision.board.geometry import homography_from_corners, project

    sc = synthetic.scene(PROFILE, seed=7, size_px=SIZE, ppm=PPM, sea_front=8,
                         shells=[("white", 100, 310), ("black", 200, 250)], castles=[("red", 1, 120, 190)])
    img = sc.image.copy()
    H = homography_from_corners(sc.corners_px, PROFILE["board_mm"])
    fold = project(H, [[300, 140], [330, 140], [330, 255], [300, 255]])
    cv2.fillPoly(img, [np.round(fold).astype(np.int32)], synthetic._bgr(synthetic.DEFAULT_LAB["sea"]))
    rc, doc = _scan(setup_dir, img, capsys)
    assert rc == 0, doc
    assert _normalised(doc["state"]) == _normalised(sc.state)


#: a low camera (40 cm over the board's centre, the lowest the calibration takes for physical,
#: ``AppearanceConfig.camera_height_min_mm``) makes the towers' parallax large
CAMERA_MM = 400.0
#: the coloured parts' heights per value, as tall as the calibration takes for physical
#: (``AppearanceConfig.castle_height_max_mm``; the rendered pieces' effective heights are 7–9 mm)
TOPS_MM = (8.0, 9.0, 10.0, 11.0)


@pytest.fixture(scope="module")
def parallax_dir(tmp_path_factory):
    return _calibrate(tmp_path_factory.mktemp("synth_parallax"), camera_mm=CAMERA_MM,
                      pieces={**PIECES, "castle_top_mm": TOPS_MM})


def test_castle_near_the_far_edge_keeps_its_groove(parallax_dir, capsys):
    """Towers seen further out at the far edge than the base: the camera geometry puts the base back
    into its groove (a fixed offset learned near the nadir would move it towards the next one)."""
    sc = synthetic.scene(PROFILE, seed=8, size_px=SIZE, ppm=PPM, camera_mm=CAMERA_MM, sea_front=12,
                         castle_top_mm=TOPS_MM,
                         castles=[("red", 3, 230.0, 90.0), ("blue", 1, 120.0, 300.0)],
                         shells=[("white", 330.0, 200.0)])
    rc, doc = _scan(parallax_dir, sc.image, capsys)
    assert rc == 0, doc
    assert _normalised(doc["state"]) == _normalised(sc.state)


def test_a_calibration_learned_before_the_model_format_changed_asks_to_recalibrate(setup_dir, tmp_path, capsys):
    """Folders calibrated with an older model format (stored as version 1, the default) are refused, exit 2."""
    import shutil

    import vision.strand_unter as strand
    from calibration.store import checksum

    assert strand.MODEL_VERSION == 4
    old = tmp_path / "old"
    shutil.copytree(setup_dir / "cal", old)
    doc = json.loads((old / "calibration.json").read_text())
    doc["model_version"] = 1
    doc["checksum"] = checksum(doc)  # as the older product wrote it
    (old / "calibration.json").write_text(json.dumps(doc))
    sc = synthetic.scene(PROFILE, seed=5, size_px=SIZE, ppm=PPM, **SCENE)
    cv2.imwrite(str(tmp_path / "scan.png"), sc.image)
    rc = main(["scan", str(tmp_path / "scan.png"), "--calibration", str(old), "--json"])
    err = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["error"]
    assert rc == 2 and err["code"] == "calibration-outdated" and "recalibrate" in err["message"], err
