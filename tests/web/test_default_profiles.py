"""Default board profiles (package data) in the calibration wizard, and the optional empty-board shot."""

import json
import os

import pytest

from beachscore.station.testing import FakeCalibration
from calibration.files import validate_profile
from calibration.profiles import GAMES, HERE, default_profile

SHARED = "/work/shared/samples"
CORNERS = [[0, 0], [70, 0], [70, 50], [0, 50]]


@pytest.mark.parametrize("game", GAMES)
def test_each_default_profile_is_valid_and_served(client, game):
    profile = default_profile(game)
    assert profile["game"] == game and validate_profile(profile, game)
    assert os.path.isfile(os.path.join(HERE, f"{game}.json"))
    r = client.get(f"/api/calibration/profiles/{game}")
    assert r.status_code == 200 and r.get_json() == profile
    if os.path.isdir(SHARED):  # the copy matches the shared sample it came from
        with open(os.path.join(SHARED, game, "profile.json")) as f:
            assert json.load(f) == profile


def test_package_data_covers_the_profiles():
    import tomllib

    with open(os.path.join(HERE, "..", "..", "pyproject.toml"), "rb") as f:
        patterns = tomllib.load(f)["tool"]["setuptools"]["package-data"]["*"]
    assert "*.json" in patterns and os.path.isfile(os.path.join(HERE, "__init__.py"))  # a package: *.json applies


def test_unknown_default_profile_is_404_and_400(unlocked):
    assert unlocked.get("/api/calibration/profiles/chess").status_code == 404
    shot = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    r = unlocked.post_json("/api/calibration", {"photo_id": shot, "corners_px": CORNERS, "default_profile": "chess",
                                                "samples": [{"label": "shell", "px": [10, 10]}]})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "unknown-game"
    r = unlocked.post_json("/api/calibration", {"photo_id": shot, "corners_px": CORNERS, "default_profile": "plazing",
                                                "profile": {"game": "plazing"}, "samples": []})
    assert r.status_code == 400 and "not both" in r.get_json()["error"]["message"]


def test_wizard_with_a_default_profile_and_an_empty_board_shot(unlocked, station):
    seen = {}

    def calibrator(request, out_dir):
        with open(request) as f:
            seen["doc"] = json.load(f)
        folder = os.path.dirname(request)
        with open(os.path.join(folder, seen["doc"]["profile"])) as f:
            seen["profile"] = json.load(f)
        seen["empty_exists"] = os.path.isfile(os.path.join(folder, seen["doc"].get("empty_image", "-")))
        return FakeCalibration(game="seashells", profile=seen["profile"], model={"classes": ["shell"]})

    station.calibrator = calibrator
    shot = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    empty = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    r = unlocked.post_json("/api/calibration", {"photo_id": shot, "empty_photo_id": empty, "corners_px": CORNERS,
                                                "default_profile": "seashells",
                                                "samples": [{"label": "shell", "px": [10, 10]}]})
    assert r.status_code == 201, r.get_json()
    assert seen["profile"] == default_profile("seashells") and seen["doc"]["game"] == "seashells"
    assert seen["doc"]["empty_image"].startswith("empty.") and seen["empty_exists"]
    assert station.calibration.game == "seashells"


@pytest.mark.parametrize("empty", [0, "3", 10 ** 30, 999])
def test_a_bad_empty_photo_id_is_refused(unlocked, station, empty):
    old = station.calibration
    shot = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    r = unlocked.post_json("/api/calibration", {"photo_id": shot, "empty_photo_id": empty, "corners_px": CORNERS,
                                                "default_profile": "seashells",
                                                "samples": [{"label": "shell", "px": [10, 10]}]})
    assert r.status_code in (400, 404) and station.calibration is old
