"""Pages render, the live data, scan now, photos by id, uploads, the event stream."""

import io

import cv2
import numpy as np
import pytest


@pytest.mark.parametrize("url", ["/", "/game", "/history", "/calibrate", "/pin"])
def test_pages_render(client, url):
    r = client.get(url)
    assert r.status_code == 200 and b"beachscore" in r.data


def test_missing_camera_is_said_on_the_page(app, station):
    station.camera, station.camera_problem = None, "no camera found (picamera2: not installed)"
    data = app.test_client().get("/api/latest").get_json()
    assert data["status"]["camera"] == {"ok": False, "name": None, "problem": "no camera found (picamera2: not installed)"}


def test_scan_now_then_latest_history_and_detail(unlocked, station):
    game = unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {},
                                             "display": {"names": {"red": "Ana"}}}).get_json()["game_id"]
    assert unlocked.post_json("/api/scan").status_code == 202
    station.wait_idle()
    latest = unlocked.get("/api/latest").get_json()
    scan = latest["scan"]
    assert scan["game_id"] == game and latest["status"]["game"]["display"]["names"] == {"red": "Ana"}
    assert scan["current_score"]["players"]
    for url in ("/history", f"/history?game={game}", f"/scans/{scan['id']}", f"/scans/{scan['id']}/correct"):
        assert unlocked.get(url).status_code == 200, url
    photo = unlocked.get(f"/photos/{scan['photo_id']}")
    assert photo.status_code == 200 and photo.mimetype == "image/jpeg" and photo.data[:2] == b"\xff\xd8"
    assert unlocked.get(f"/photos/{scan['annotated_photo_id']}").mimetype == "image/jpeg"  # small and fast to encode


@pytest.mark.parametrize("url", ["/photos/999", "/photos/..%2F..%2Fetc%2Fpasswd", "/photos/-1", "/scans/77",
                                 "/api/scans/77"])
def test_unknown_ids_are_404(client, url):
    assert client.get(url).status_code == 404


def test_scan_refused_when_busy_or_without_camera(unlocked, station):
    station.camera = None
    r = unlocked.post_json("/api/scan")
    assert r.status_code == 409 and "camera" in r.get_json()["error"]["message"]


def test_new_game_checks_the_setup(unlocked):
    bad = unlocked.post_json("/api/games", {"game": "plazing", "setup": {"terrain": ["..", "..."]}})
    assert bad.status_code == 400 and bad.get_json()["error"]["code"] == "invalid-setup"
    assert unlocked.post_json("/api/games", {"game": "chess"}).get_json()["error"]["code"] == "unknown-game"
    terrain = ["#" * 20, "..+-x" + "." * 15] + ["." * 20] * 10  # the 12x20 board (no Plażing calibration)
    ok = unlocked.post_json("/api/games", {"game": "plazing", "setup": {"terrain": terrain, "weather": "sun"}})
    assert ok.status_code == 201, ok.get_json()


def test_uploads_are_size_limited(app, unlocked):
    app.config["MAX_CONTENT_LENGTH"] = 1000
    r = unlocked.client.post("/api/calibration/upload", headers={"X-CSRF-Token": unlocked.csrf},
                             data={"photo": (io.BytesIO(b"x" * 5000), "big.jpg")})
    assert r.status_code == 413


def test_upload_a_calibration_shot(unlocked, station):
    ok, buf = cv2.imencode(".png", np.zeros((90, 120, 3), np.uint8))
    r = unlocked.client.post("/api/calibration/upload", headers={"X-CSRF-Token": unlocked.csrf},
                             data={"photo": (io.BytesIO(buf.tobytes()), "shot.png")})
    assert r.status_code == 201
    got = unlocked.get(f"/photos/{r.get_json()['photo_id']}")
    assert got.mimetype == "image/png" and got.data == buf.tobytes()  # kept byte for byte
    bad = unlocked.client.post("/api/calibration/upload", headers={"X-CSRF-Token": unlocked.csrf},
                               data={"photo": (io.BytesIO(b"not an image"), "x.jpg")})
    assert bad.status_code == 400


def test_event_stream_delivers_scan_events(app, station):
    r = app.test_client().get("/events", buffered=False)
    assert r.mimetype == "text/event-stream"
    chunks = iter(r.response)
    assert b"event: hello" in next(chunks)
    station.events.publish("scan", {"scan_id": 5})
    got = b""
    for _ in range(5):
        got += next(chunks)
        if b"event: scan" in got:
            break
    assert b'data: {"scan_id": 5}' in got
    r.close()
    assert station.events.subscriber_count == 0


def test_keepalive_comments(app):
    r = app.test_client().get("/events", buffered=False)
    chunks = iter(r.response)
    next(chunks)
    assert next(chunks).startswith(b": keep-alive")
    r.close()


def test_new_game_setup_is_checked_by_the_rules_engine(unlocked, station):
    bad = unlocked.post_json("/api/games", {"game": "plazing", "setup": {"terrain": ["###"]}})
    assert bad.status_code == 400
    err = bad.get_json()["error"]
    assert err["code"] == "invalid-setup" and "12x20" in err["message"]
    assert "terrain: 1 rows" in err["message"] and "terrain[0]: 3 characters" in err["message"]
    bad = unlocked.post_json("/api/games", {"game": "strand-unter",
                                            "setup": {"players": {"red": {"bucket": {"white": "lots"}}}}})
    assert bad.status_code == 400 and "bucket.white" in bad.get_json()["error"]["message"]
    assert station.store.count("games") == 0


def test_plazing_setup_is_checked_against_the_calibrated_grid(unlocked, station):
    from beachscore.station.testing import FakeCalibration

    station.calibration = FakeCalibration(game="plazing", profile={"game": "plazing", "board_mm": [460, 300],
                                                                   "grid": {"rows": 3, "cols": 4, "cell_mm": 20}})
    assert unlocked.post_json("/api/games", {"game": "plazing", "setup": {"terrain": ["#..+"] * 3}}).status_code == 201
    bad = unlocked.post_json("/api/games", {"game": "plazing", "setup": {"terrain": ["." * 20] * 12}})
    assert bad.status_code == 400 and "3x4" in bad.get_json()["error"]["message"]


def test_game_page_ignores_an_absurd_calibrated_grid(client, station):
    from beachscore.station.testing import FakeCalibration

    station.calibration = FakeCalibration(game="plazing", profile={
        "game": "plazing", "board_mm": [460, 300], "grid": {"rows": 100_000_000, "cols": 100_000_000}})
    html = client.get("/game").get_data(as_text=True)
    assert 'data-rows="12" data-cols="20"' in html
