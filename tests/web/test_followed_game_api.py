"""The live page's data of a followed game (``/api/latest``'s ``follow``) and Game over's answers
(``POST /api/game-answers``): what changed, the questions, their errors, the final score."""

import copy

import pytest

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeScanner, score_with_rules
from hardware.mock_camera import MockCamera
from tests.station.test_followed_game import GAME, SETUP, plazing_calibration
from web import create_app


@pytest.fixture
def plazing_station(tmp_path):
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=plazing_calibration(),
                 scanner=FakeScanner(GAME[0], scorer=score_with_rules), scorer=score_with_rules)
    yield st
    st.close()


def test_the_live_data_and_the_answers_end_the_game(plazing_station, make_unlocked):
    st = plazing_station
    page = make_unlocked(create_app({"TESTING": True}, station=st).test_client())
    assert page.post_json("/api/game-answers", {"answers": {}}).status_code == 409  # no game
    st.new_game("plazing", SETUP)
    for state in GAME:
        st.scanner.state = copy.deepcopy(state)
        assert page.post_json("/api/scan").status_code == 202 and st.wait_idle(20)
    follow = page.get("/api/latest").get_json()["follow"]
    assert [c["kind"] for c in follow["step"]["changes"]] == ["collected", "marked"]
    assert follow["timeline"]["closings"] == {"red": 0, "blue": 1} and follow["ending"] is None
    assert page.post_json("/api/game-answers", {"answers": {}}).get_json()["error"]["code"] == "no-questions"
    assert page.post_json("/api/game-over").status_code == 202 and st.wait_idle(20)
    data = page.get("/api/latest").get_json()
    assert data["status"]["game"]["ended_at"] is None
    assert [q["key"] for q in data["follow"]["ending"]["questions"]] == ["weather"]
    bad = page.post_json("/api/game-answers", {"answers": {"weather": "hail"}})
    assert bad.status_code == 400 and bad.get_json()["error"]["code"] == "invalid-answers"
    bad = page.post_json("/api/game-answers", {"answers": {"red/amber": 3}})
    assert bad.status_code == 400 and "was not asked" in bad.get_json()["error"]["message"]
    ok = page.post_json("/api/game-answers", {"answers": {"weather": "wind-S"}})
    assert ok.status_code == 200
    data = page.get("/api/latest").get_json()
    assert data["status"]["game"]["ended_at"]
    assert data["scan"]["current_score"] == ok.get_json()["score"]  # the final score is the one shown
    assert all(isinstance(p["total"], int) for p in data["scan"]["current_score"]["players"])
