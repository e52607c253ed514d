"""Seashells through the web API: set-up with secret cards and the Sun shell, "whose mat?" scans,
the combined score in ``/api/latest``."""

import pytest

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, MatScanner, score_with_rules
from hardware.mock_camera import MockCamera
from web import create_app

SETUP = {"players": ["red", "blue"], "scoring": "simple", "sun": {"shape": "cowrie", "colour": "pink"},
         "secrets": {"red": {"shapes": ["whelk"], "colours": []}, "blue": {"shapes": [], "colours": ["white"]}}}


@pytest.fixture
def sea(tmp_path, make_unlocked):
    cal = FakeCalibration(game="seashells", profile={"game": "seashells", "board_mm": [260, 310]})
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=cal,
                 scanner=MatScanner(), scorer=score_with_rules)
    client = make_unlocked(create_app({"TESTING": True}, station=st).test_client())
    yield st, client
    st.close()


def test_mats_by_player_and_the_combined_score(sea):
    st, client = sea
    r = client.post_json("/api/games", {"game": "seashells", "setup": SETUP})
    assert r.status_code == 201, r.get_json()
    latest = client.get("/api/latest").get_json()
    assert latest["seashells"]["missing"] == ["red", "blue"] and latest["seashells"]["next"] == "red"
    assert client.post_json("/api/scan", {"player": "blue"}).status_code == 202
    st.wait_idle()
    table = client.get("/api/latest").get_json()["seashells"]
    assert table["missing"] == ["red"] and set(table["mats"]) == {"blue"}
    assert client.client.post("/api/scan", headers={"X-CSRF-Token": client.csrf}).status_code == 202  # no body: next mat
    st.wait_idle()
    table = client.get("/api/latest").get_json()["seashells"]
    assert table["complete"] and [p["player"] for p in table["score"]["players"]] == ["red", "blue"]
    assert all(p["secrets_known"] for p in table["score"]["players"])
    refused = client.post_json("/api/scan")
    assert refused.status_code == 409 and "every player's mat" in refused.get_json()["error"]["message"]


@pytest.mark.parametrize("player", ["purple", 3, ""])
def test_scan_of_an_unknown_player_is_400(sea, player):
    st, client = sea
    client.post_json("/api/games", {"game": "seashells", "setup": SETUP})
    r = client.post_json("/api/scan", {"player": player})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "unknown-player"
    assert not st.busy and st.store.count("scans") == 0


@pytest.mark.parametrize("setup, words", [
    ({"players": ["red", "blue"], "secrets": {"green": {"shapes": ["conch"]}}}, "not one of the players"),
    ({"players": ["red", "red"]}, "listed twice"),
    ({"players": ["red"], "sun": {"shape": "conch"}}, "sun.colour"),
    ({"players": ["red"], "scoring": "expert"}, "scoring"),
    ({"players": ["red", "blue"], "secrets": {"red": {"colours": ["pink", "blue", "green"]}}}, "at most 2"),
])
def test_bad_seashells_set_up_is_400(sea, setup, words):
    st, client = sea
    r = client.post_json("/api/games", {"game": "seashells", "setup": setup})
    assert r.status_code == 400 and words in r.get_json()["error"]["message"], r.get_json()
    assert st.store.current_game() is None


def test_other_games_have_no_seashells_table(unlocked):
    unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {}})
    assert unlocked.get("/api/latest").get_json()["seashells"] is None
    assert unlocked.post_json("/api/scan", {"player": "red"}).status_code == 400
