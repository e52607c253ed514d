"""A followed Plażing game reaches the hall with every player's total (no typing at the hall)."""

from __future__ import annotations

import pytest
from test_followed_game import GAME, SETUP, plazing_calibration, scan, play
from test_hall_link import seated_hall, wait_for

from beachscore.station import Station
from beachscore.station.hall_link import HallLink
from beachscore.station.store import Store
from beachscore.station.testing import FakeScanner, score_with_rules
from hardware.mock_camera import MockCamera


@pytest.fixture
def plazing_hall(tmp_path):
    h = seated_hall(tmp_path, "plazing", "Beach night")
    yield h
    h.stop()
    h.store.close()


def test_the_hall_gets_every_total_after_the_weather_is_answered(plazing_hall, tmp_path):
    hall = plazing_hall
    station = Station(Store(str(tmp_path / "st")), camera=MockCamera(size=(80, 60)),
                      calibration=plazing_calibration(), scanner=FakeScanner(GAME[0], scorer=score_with_rules),
                      scorer=score_with_rules)
    link = HallLink(station, backoff_s=(0.05, 0.3)).start()
    try:
        link.pair(hall.url, hall.store.new_pairing_code(hall.event_id, 1))
        game_id = station.new_game("plazing", SETUP, {"names": {"red": "Ana", "blue": "Bo"}})
        play(station)
        scan(station, GAME[3], final=True)
        assert link.outbox.counts() == {}  # nothing sent while the weather is asked
        out = station.answer_questions(game_id, {"weather": "sun"})
        assert wait_for(lambda: link.outbox.counts() == {"sent": 1}), link.status()["reports"]
        table = hall.store.table(hall.event_id, 1, 1)
        names = {p["id"]: p["name"] for p in table["players"]}
        got = {names[p]: v for p, v in table["current"]["game_points"].items()}
        want = {p["player"]: p["total"] for p in out["score"]["players"]}
        assert got == {"Ana": want["red"], "Bo": want["blue"]}
        assert all(isinstance(v, int) for v in got.values())
    finally:
        link.close()
        station.close()
