"""What a fresh user found on the server-rendered pages (Flask test client): a Sand Castles scan is
summed up in words on History and its scan page, not left blank."""

from beachscore.station.testing import score_with_rules
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
