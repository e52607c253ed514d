"""The correction editor's API: rescore without saving, save as a revision, the reading stays."""

import copy

from beachscore.errors import UnreadableBoardError


def _scan(unlocked, station):
    unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {}})
    unlocked.post_json("/api/scan")
    station.wait_idle()
    return unlocked.get("/api/latest").get_json()["scan"]


def test_rescore_then_save_keeps_the_machine_reading(unlocked, station):
    scan = _scan(unlocked, station)
    fixed = copy.deepcopy(scan["state"])
    fixed["grooves"][1]["castles"][0]["value"] = 3
    preview = unlocked.post_json(f"/api/scans/{scan['id']}/rescore", {"state": fixed}).get_json()["score"]
    assert preview != scan["score"]
    assert station.store.count("revisions") == 0  # rescoring saves nothing
    r = unlocked.post_json(f"/api/scans/{scan['id']}/revisions", {"state": fixed, "note": "yellow is a 3"})
    assert r.status_code == 201 and r.get_json()["score"] == preview
    data = unlocked.get(f"/api/scans/{scan['id']}").get_json()["scan"]
    assert data["state"] == scan["state"] and data["score"] == scan["score"]
    assert data["current_state"] == fixed and data["revisions"][0]["note"] == "yellow is a 3"
    assert unlocked.get("/api/latest").get_json()["scan"]["corrected"] is True
    page = unlocked.get(f"/scans/{scan['id']}").get_data(as_text=True)
    assert "yellow is a 3" in page


def test_invalid_corrections_are_400(unlocked, station):
    scan = _scan(unlocked, station)
    assert unlocked.post_json(f"/api/scans/{scan['id']}/revisions", {"state": "nope"}).status_code == 400
    bad = unlocked.post_json(f"/api/scans/{scan['id']}/revisions", {"state": {"game": "plazing"}})
    assert bad.status_code == 400
    assert unlocked.post_json("/api/scans/999/revisions", {"state": {}}).status_code == 404


def test_rescore_refuses_what_saving_refuses(unlocked, station):
    scan = _scan(unlocked, station)
    plazing = {"game": "plazing", "rows": 12, "cols": 20}
    r = unlocked.post_json(f"/api/scans/{scan['id']}/rescore", {"state": plazing})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "invalid-state"
    assert "strand-unter" in r.get_json()["error"]["message"]
    station.scanner.error = UnreadableBoardError("occluded", "a hand is over the board")
    unlocked.post_json("/api/scan")
    station.wait_idle()
    failed = unlocked.get("/api/latest").get_json()["scan"]
    assert failed["status"] == "error"
    r = unlocked.post_json(f"/api/scans/{failed['id']}/rescore", {"state": scan["state"]})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "scan-failed"
    assert unlocked.post_json("/api/scans/999/rescore", {"state": {}}).status_code == 404


def test_game_over_from_the_page_is_recorded_as_from_the_page(unlocked, station):
    unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {}})
    assert unlocked.post_json("/api/game-over").status_code == 202
    station.wait_idle()
    assert unlocked.get("/api/latest").get_json()["scan"]["source"] == "web"
