"""Inputs an adversarial tester handed in: each is refused or reported once, with what is wrong."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

GOMRADE = "/work/shared/real/go-gomrade/setup0/calibration.json"


def test_learned_classes_lists_each_grid_class_once_as_labelled():
    """The grid model's bare names (``black``) are its ``cell/black`` labels: one list."""
    if not os.path.isfile(GOMRADE):
        pytest.skip("shared go-gomrade calibration not present")
    from beachscore.pipeline import learned_classes

    cal = SimpleNamespace(model={"classes": {"black": 4, "empty": 9, "white": 4}})
    assert learned_classes(cal, GOMRADE) == ["cell/black", "cell/empty", "cell/white"]
    extra = SimpleNamespace(model={"classes": {"black": 4, "screen/red/N": 1}})
    assert learned_classes(extra, GOMRADE) == ["cell/black", "cell/empty", "cell/white", "screen/red/N"]


def test_scan_previous_with_a_piece_of_a_colour_not_playing_is_refused(tmp_path, capsys):
    """``--previous`` holding a purple piece when the calibration learned red and yellow: exit 2
    ``invalid-previous`` naming the player, not a game followed from an impossible prior."""
    import json

    from beachscore.cli import main

    setup_dir = "/work/renders/dev/plazing-games-dev-10003/setup0"
    if not os.path.isdir(setup_dir):
        pytest.skip("development renders not present")
    cal = tmp_path / "cal"
    assert main(["calibrate", f"{setup_dir}/calibration.json", "--out", str(cal)]) == 0
    truth = json.load(open(f"{setup_dir}/scene_01.truth.json"))
    state = truth.get("state", truth)
    assert state["pieces"], "the scene needs a piece"
    state["pieces"][0]["player"] = "purple"
    prev = tmp_path / "prev.json"
    prev.write_text(json.dumps(state))
    capsys.readouterr()
    rc = main(["scan", f"{setup_dir}/scene_02.jpg", "--calibration", str(cal), "--previous", str(prev), "--json"])
    err = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["error"]
    assert rc == 2 and err["code"] == "invalid-previous" and "'purple'" in err["message"]


@pytest.mark.parametrize("level, code", [(255, "glare"), (0, "too-dark")])
def test_calibrate_refuses_a_blank_shot(tmp_path, capsys, level, code):
    """An all-white or all-black calib.jpg: exit 3 at calibrate time, not a calibration that
    every scan then refuses."""
    import json
    import shutil

    import cv2

    from beachscore.cli import main

    setup_dir = "/work/renders/dev/plazing-games-dev-10003/setup0"
    if not os.path.isdir(setup_dir):
        pytest.skip("development renders not present")
    shot = cv2.imread(f"{setup_dir}/calib.jpg")
    shot[:] = level
    cv2.imwrite(str(tmp_path / "calib.jpg"), shot)
    shutil.copy(f"{setup_dir}/calib.setup.json", tmp_path / "calib.setup.json")
    request = json.load(open(f"{setup_dir}/calibration.json"))
    request["profile"] = os.path.join(setup_dir, request["profile"])
    (tmp_path / "calibration.json").write_text(json.dumps(request))
    capsys.readouterr()
    rc = main(["calibrate", str(tmp_path / "calibration.json"), "--out", str(tmp_path / "cal"), "--json"])
    err = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["error"]
    assert rc == 3 and err["code"] == code and "calibration shot" in err["message"]
    assert not os.path.exists(tmp_path / "cal" / "calibration.json")
