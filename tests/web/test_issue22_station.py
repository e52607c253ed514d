"""Issue 22 at the station's pages (Flask client, fake pipeline): a finished game takes no more
scans and shows its final score; one rounding rule for the confidence (a whole percent, never
rounded up) on every page and in the command line's text."""

import re

from beachscore.report import scan_text


def _scan(station, game_id, confidence=0.5, total=10):
    result = {"game": "strand-unter", "state": {"game": "strand-unter", "grooves": []},
              "score": {"players": [{"player": "red", "total": total}]}, "confidence": confidence}
    return station.store.add_scan(game_id=game_id, source="test", photo_jpeg=None, result=result)


def test_scan_now_after_game_over_is_refused_and_the_final_score_stays(station, unlocked):
    game = station.new_game("strand-unter")
    assert unlocked.post_json("/api/scan").status_code == 202
    assert station.wait_idle()
    assert unlocked.post_json("/api/game-over").status_code == 202
    assert station.wait_idle()
    final = station.store.game(game)["final_scan_id"]
    assert final is not None and station.store.game(game)["ended_at"]
    scans = station.store.count("scans")

    r = unlocked.post_json("/api/scan")  # the page's "Scan now"
    assert r.status_code == 409
    message = r.get_json()["error"]["message"]
    assert f"game {game} is over" in message and "new game" in message
    assert unlocked.post_json("/api/game-over").status_code == 409  # a second Game over too
    assert not station.request_scan("button").accepted  # and the button
    assert station.wait_idle() and station.store.count("scans") == scans
    assert unlocked.get("/api/latest").get_json()["scan"]["id"] == final

    # a scan added to the finished game before this fix: the page still shows the final score
    _scan(station, game, total=99)
    assert unlocked.get("/api/latest").get_json()["scan"]["id"] == final

    station.new_game("strand-unter")  # a new game scans again
    assert station.request_scan("web").accepted and station.wait_idle()
    assert station.store.count("scans") == scans + 2


def test_confidence_is_cut_to_a_whole_percent_everywhere(station, unlocked):
    game = station.new_game("strand-unter")
    scan_id = _scan(station, game, confidence=0.992)
    assert unlocked.get("/api/latest").get_json()["scan"]["confidence_percent"] == 99
    history = unlocked.get("/history").get_data(as_text=True)
    assert re.search(r"confidence 99%", history) and "confidence 100%" not in history
    page = unlocked.get(f"/scans/{scan_id}").get_data(as_text=True)
    assert "confidence 99%" in page and "confidence 100%" not in page

    class Result:  # what the command line's text prints for the same figure
        game, confidence, warnings, score, state, photo = "grid", 0.992, [], {}, {}, None
    assert scan_text("photo.jpg", Result()) == "photo.jpg: grid, confidence 99%"
    Result.confidence = 1.0
    assert "confidence 100%" in scan_text("photo.jpg", Result())
