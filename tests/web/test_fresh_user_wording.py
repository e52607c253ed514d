"""What a fresh user found on the server-rendered pages (Flask test client): a Sand Castles scan is
summed up in words on History and its scan page, not left blank."""

import re

from beachscore.station.testing import score_with_rules
from web import local_time
from tests.web.fresh_user_data import SAND_STATE


def test_history_sums_up_a_sand_castles_scan(unlocked, station):
    unlocked.post_json("/api/games", {"game": "sand-castles", "setup": {}})
    scan_id = station.store.add_scan(game_id=station.store.current_game()["id"], source="test", photo_jpeg=None,
                                     result={"game": "sand-castles", "state": SAND_STATE,
                                             "score": score_with_rules(SAND_STATE), "confidence": 0.9})
    page = unlocked.get("/history").get_data(as_text=True)
    assert '<span class="chip together">castles 6 of 15 points · a castle flooded, play on</span>' in page
    assert unlocked.get(f"/scans/{scan_id}").status_code == 200
    assert unlocked.get(f"/api/scans/{scan_id}").get_json()["scan"]["score"]["points"] == 6  # JSON unchanged


NAMES = {"strand-unter": "Strand unter", "plazing": "Plażing", "seashells": "Seashells", "sand-castles": "Sand Castles"}


def test_pages_name_games_by_their_own_names_and_keep_the_ids_as_values(unlocked, station):
    game_page = unlocked.get("/game").get_data(as_text=True)
    for game, name in NAMES.items():
        assert f'<option value="{game}"' in game_page and f">{name}</option>" in game_page
        assert f">{game}</option>" not in game_page
    unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {}})
    assert unlocked.post_json("/api/scan").status_code == 202
    station.wait_idle()
    scan = unlocked.get("/api/scans").get_json()["scans"][0]
    assert scan["game"] == "strand-unter"  # the JSON keeps the id
    assert "(Strand unter), started" in unlocked.get("/game").get_data(as_text=True)
    history = unlocked.get("/history").get_data(as_text=True)
    assert "Strand unter" in history and " strand-unter " not in history
    assert "· Strand unter</small>" in unlocked.get(f"/scans/{scan['id']}").get_data(as_text=True)
    assert '<small class="muted">Strand unter</small>' in unlocked.get(f"/scans/{scan['id']}/correct").get_data(as_text=True)
    calibrate = unlocked.get("/calibrate").get_data(as_text=True)
    assert 'value="default:sand-castles"' in calibrate and "the boxed Sand Castles board" in calibrate
    assert "the boxed sand-castles board" not in calibrate


def test_server_pages_say_times_on_a_24_hour_clock_without_today_s_date(unlocked, station):
    unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {}})
    assert unlocked.post_json("/api/scan").status_code == 202
    station.wait_idle()
    scan = unlocked.get("/api/scans").get_json()["scans"][0]
    for page in ("/history", f"/scans/{scan['id']}"):
        shown = re.findall(r'<time class="local" datetime="([^"]+)" data-seconds="yes">([^<]*)</time>',
                           unlocked.get(page).get_data(as_text=True))
        assert (scan["created_at"], local_time(scan["created_at"])) in shown, page
    assert re.fullmatch(r"\d\d:\d\d:\d\d", local_time(scan["created_at"]))  # today: no date


def test_the_wizard_lists_what_was_labelled_and_what_it_found_in_words(unlocked, station):
    from beachscore.station.testing import FakeCalibration

    station.calibrator = lambda request, out_dir: FakeCalibration(model={"classes": ["castle/blue", "sea", "stick"]})
    shot = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    samples = [{"label": f"castle/blue/{v}", "px": [10 + 10 * v, 10]} for v in range(4)] + [
        {"label": "sea", "px": [60, 40]}]
    r = unlocked.post_json("/api/calibration", {"photo_id": shot, "corners_px": [[0, 0], [70, 0], [70, 50], [0, 50]],
                                                "samples": samples})
    assert r.status_code == 201, r.get_json()
    out = r.get_json()
    assert out["classes"] == ["castle/blue", "castle/blue/0", "castle/blue/1", "castle/blue/2", "castle/blue/3",
                              "sea", "stick"]  # the JSON keeps its list
    said = [(e["words"], e["detail"], e["labelled"]) for e in out["classes_in_words"]]
    assert said[:2] == [("blue castles", "values 0, 1, 2, 3", True), ("the sea cloth", "", True)]
    assert said[2][0] == "the sea's stick" and not said[2][2] and "nothing there counts as a piece" in said[2][1]
    page = unlocked.get("/calibrate").get_data(as_text=True)
    assert '"castle/red/2": "red castle, value 2"' in page and '"shell/white": "white shells"' in page
