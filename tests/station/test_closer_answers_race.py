"""Two pages answering Game over's "who closed this area?" at once: one answer is kept, so only one
page may be told the game ended with its answers; the other must be refused (``no-questions``)."""

import threading

from beachscore.errors import BadInputError
from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeScanner, score_with_rules
from hardware.mock_camera import MockCamera

from tests.station.test_followed_game import AMBER, GAME, SCREEN, SETUP, plazing, plazing_calibration, play, scan


def test_two_pages_answering_at_once_are_not_both_told_their_answers_were_kept(tmp_path):
    both_scoring = threading.Barrier(2, timeout=3)

    def scorer(state, setup):
        if setup and "track" not in setup:  # the final score with the answers: wait for the other page
            try:
                both_scoring.wait()
            except threading.BrokenBarrierError:
                pass  # the other page was refused before scoring: as it should be
        return score_with_rules(state, setup)

    station = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)),
                      calibration=plazing_calibration(), scanner=FakeScanner(GAME[0], scorer=score_with_rules),
                      scorer=scorer)
    try:
        game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
        play(station, [GAME[0], plazing([SCREEN], resources=[AMBER]), GAME[2], GAME[3]])
        scan(station, GAME[3], final=True)
        told = {}

        def page(who):
            try:
                told[who] = station.answer_questions(game_id, {"closer/1": who})["score"]
            except BadInputError as err:
                told[who] = err.code

        pages = [threading.Thread(target=page, args=(who,)) for who in ("red", "blue")]
        for p in pages:
            p.start()
        for p in pages:
            p.join()
        kept = station.game_ending(game_id)["answers"]["closer/1"]
        ok = [who for who, got in told.items() if isinstance(got, dict)]
        assert ok == [kept], f"told ok: {ok}, kept: {kept}"
    finally:
        station.close()
