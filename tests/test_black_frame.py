"""A photo with almost no light (the lens cap on) is ``too-dark`` in every game, before any other check."""

from __future__ import annotations

import json
import os

import cv2
import numpy as np
import pytest

from beachscore.cli import main

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "samples")
SETUPS = {"strand-unter": os.path.join(HERE, "data", "games", "strand-unter", "setup0"),
          "seashells": os.path.join(HERE, "data", "games", "seashells", "setup0"),
          "sand-castles": os.path.join(HERE, "data", "games", "sand-castles", "setup0"),
          "plazing": os.path.join(SHARED, "plazing", "setup0")}


@pytest.fixture(scope="module", params=sorted(SETUPS))
def game_cal(request, tmp_path_factory):
    """(calibration folder, scene photo) of one game."""
    setup = SETUPS[request.param]
    if not os.path.isfile(os.path.join(setup, "calibration.json")):
        pytest.skip(f"{request.param} samples absent")
    out = str(tmp_path_factory.mktemp(request.param))
    assert main(["calibrate", os.path.join(setup, "calibration.json"), "--out", out]) == 0
    return out, os.path.join(setup, "scene_00.jpg")


@pytest.mark.parametrize("noise", [0, 6])
def test_a_black_frame_is_too_dark(game_cal, tmp_path, capsys, noise):
    cal, scene = game_cal
    shape = cv2.imread(scene).shape
    black = np.random.default_rng(3).integers(0, noise + 1, shape).astype(np.uint8)
    cv2.imwrite(str(tmp_path / "black.jpg"), black)
    capsys.readouterr()
    rc = main(["scan", str(tmp_path / "black.jpg"), "--calibration", cal, "--json"])
    out, err = capsys.readouterr()
    assert rc == 3 and json.loads(out)["error"]["code"] == "too-dark", out
    assert len(err.strip().splitlines()) == 1 and err.strip().endswith("[too-dark]")


def test_a_lit_scene_has_light(game_cal):
    from vision.image.quality import QUALITY, check_light

    assert check_light(cv2.imread(game_cal[1])) > 20 * QUALITY.min_lit_share
