"""After the players named who closed every doubted area, what the live page is given to show
(``follow_view``) must not still say the photos cannot tell who closed it."""

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeScanner, score_with_rules
from hardware.mock_camera import MockCamera

from tests.station.test_followed_game import AMBER, GAME, SCREEN, SETUP, plazing, plazing_calibration, play, scan


def test_the_page_after_every_closer_was_named_shows_no_doubt(tmp_path):
    station = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)),
                      calibration=plazing_calibration(), scanner=FakeScanner(GAME[0], scorer=score_with_rules),
                      scorer=score_with_rules)
    try:
        game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
        play(station, [GAME[0], plazing([SCREEN], resources=[AMBER]), GAME[2], GAME[3]])
        final = scan(station, GAME[3], final=True)
        station.answer_questions(game_id, {"closer/1": "blue"})
        view = station.follow_view(station.store.game(game_id), final)
        assert all(isinstance(p["total"], int) for p in view["ending"]["score"]["players"])
        # follow.js factsHtml shows "N to M (the photos cannot tell who closed K)" for these
        assert view["timeline"]["doubted_closings"] == [], view["timeline"]["doubted_closings"]
        # follow.js totalsHtml shows "still not known: …" for these, under totals that are all known
        assert not view["ending"]["score"].get("missing"), view["ending"]["score"]["missing"]
    finally:
        station.close()
