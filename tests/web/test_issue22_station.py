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


def _plazing_messages():
    """What the Plażing reader says, as it says it on the command line."""
    import numpy as np

    from vision.plazing.checks import terrain_warning, unlike_message

    terrain = np.full((12, 20), ".")
    refusal = unlike_message([(2, 5), (2, 6), (3, 5)], 3, None, terrain, True, None, [1.0, 1.0, 1.0], darker=0.3)
    warning = terrain_warning(terrain, np.ones((12, 20)), ["#", "."])
    return refusal, warning


def test_station_messages_never_name_a_command_line_flag(tmp_path):
    """The reader's refusal at Game over named ``--setup``; the page says what to do on the page."""
    from beachscore.errors import UnreadableBoardError
    from beachscore.station import Station
    from beachscore.station.store import Store
    from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score
    from hardware.mock_camera import MockCamera
    from web import create_app

    refusal, warning = _plazing_messages()
    assert "--setup" in refusal and "--setup" in warning  # as the command line says it
    scanner = FakeScanner(error=UnreadableBoardError("occluded", refusal))
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                 scanner=scanner, scorer=fake_score)
    try:
        q = st.events.subscribe()
        game = st.new_game("strand-unter")
        assert st.end_game().accepted and st.wait_idle()
        said = []
        while not q.empty():
            said.append(q.get_nowait()["data"].get("message"))
        failed = next(m for m in said if m and m.startswith("the game is still open"))
        stored = st.store.latest_scan()["error"]["message"]
        for text in (failed, stored):
            assert "--" not in text and "Game page" in text, text
        assert st.store.game(game)["ended_at"] is None

        scanner.error = None  # a reading's warnings too

        def with_warning(image, cal, setup):
            result = scanner(image, cal, setup)
            result.warnings = [warning]
            return result
        st.scanner = with_warning
        assert st.request_scan("web").accepted and st.wait_idle()
        (shown,) = st.store.latest_scan()["warnings"]
        assert "--" not in shown and "Game page" in shown, shown

        client = create_app({"TESTING": True}, station=st).test_client()
        st.calibration, st.calibration_problem = None, "--calibration /x: that is the input file"
        assert "--" not in client.get("/api/status").get_json()["calibration"]["problem"]
    finally:
        st.close()


def test_plazing_without_terrain_needs_a_calibration_that_reads_it(station, unlocked):
    from beachscore.station.testing import FakeCalibration

    players = {"players": ["red", "blue"], "weather": "sun"}
    station.calibration = FakeCalibration(game="plazing", profile={"game": "plazing", "board_mm": [460, 300]},
                                          model={"terrain": {"feats": [], "labels": "", "scale": [], "known": False},
                                                 "players": ["red", "blue"]})
    assert 'data-reads-terrain="no"' in unlocked.get("/game").get_data(as_text=True)
    r = unlocked.post_json("/api/games", {"game": "plazing", "setup": players})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "terrain-missing"
    assert "terrain grid" in r.get_json()["error"]["message"] and "--" not in r.get_json()["error"]["message"]
    station.calibration.model["terrain"]["known"] = True  # it learned the terrain's look: read from the photos
    assert 'data-reads-terrain="yes"' in unlocked.get("/game").get_data(as_text=True)
    r = unlocked.post_json("/api/games", {"game": "plazing", "setup": players})
    assert r.status_code == 201, r.get_json()
    assert "terrain" not in station.store.current_game()["setup"]


def test_plazing_calibration_that_never_saw_a_mark_bare_asks_for_the_terrain(station, unlocked):
    from beachscore.station.testing import FakeCalibration

    station.calibration = FakeCalibration(game="plazing", profile={"game": "plazing", "board_mm": [460, 300]},
                                          model={"terrain": {"feats": [], "labels": "", "scale": [], "known": True,
                                                             "unseen": "-"}, "players": ["red", "blue"]})
    assert 'data-reads-terrain="no"' in unlocked.get("/game").get_data(as_text=True)
    r = unlocked.post_json("/api/games", {"game": "plazing", "setup": {"players": ["red", "blue"], "weather": "sun"}})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "terrain-missing"
