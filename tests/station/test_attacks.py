"""The station under attack (issue 13's table): each test reproduces one attack on a station served
by the shipped waitress set-up (``beachscore.serving.create_server``) or on its parts, and asserts
what a user should get."""

from __future__ import annotations

import concurrent.futures
import errno
import json
import os
import resource
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from attack_helpers import Client, fill_disk, remount_read_only, served, small_tmpfs, webp_bomb
from beachscore.station import Station
from beachscore.station.store import Store, StoreError
from beachscore.station.testing import FakeCalibration, FakeScanner, FullDiskDatabase, fake_score, mock_pin_factory
from hardware.mock_camera import MockCamera

PIN = "2468"
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def make_station(data_dir, **parts) -> Station:
    return Station(Store(str(data_dir)), camera=parts.pop("camera", MockCamera(size=(80, 60))),
                   calibration=FakeCalibration(), scanner=parts.pop("scanner", FakeScanner()), scorer=fake_score, **parts)


def unlocked_client(port) -> Client:
    c = Client(port)
    c.open_page("/pin")
    status, _, body = c.post_json("/api/pin", {"pin": PIN, "pin2": PIN})
    assert status == 200 and body == {"unlocked": True}, body
    return c


def photo_files(station) -> list[str]:
    return sorted(os.listdir(station.store.photo_dir))


# ---- 1: PIN guesses in parallel ----------------------------------------------------------------

@pytest.mark.parametrize("parallel", [24, 60])
def test_parallel_pin_guesses_are_counted_atomically(tmp_path, monkeypatch, parallel):
    import web.security

    checked = []
    real_verify = web.security.verify_pin
    monkeypatch.setattr(web.security, "verify_pin", lambda pin, stored: checked.append(pin) or real_verify(pin, stored))
    station = make_station(tmp_path / "data")
    try:
        with served(station) as port:
            unlocked_client(port)  # the owner chose the PIN
            guessers = [Client(port) for _ in range(parallel)]
            for g in guessers:
                g.open_page("/pin")
            barrier = threading.Barrier(parallel)

            def guess(i):
                barrier.wait()
                return guessers[i].post_json("/api/pin", {"pin": f"{1000 + i}"})

            with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
                answers = list(pool.map(guess, range(parallel)))
            codes = [body["error"]["code"] for _, _, body in answers]
            assert codes.count("pin-wrong") <= 5 and len(checked) <= 5
            assert codes.count("pin-wrong") + codes.count("pin-locked-out") == parallel
            assert all(0 < int(h["Retry-After"]) <= 30 for s, h, _ in answers if s == 429)
            # the right PIN, right after the burst, is not even checked
            late = Client(port)
            late.open_page("/pin")
            status, _, body = late.post_json("/api/pin", {"pin": PIN})
            assert status == 429 and body["error"]["code"] == "pin-locked-out"
            assert len(checked) <= 5
    finally:
        station.close()


# ---- 2: idle and slow connections --------------------------------------------------------------

def _status_answers(port, timeout_s):
    c = Client(port)
    status, _, body = c.request("GET", "/api/status", timeout=timeout_s)
    return status == 200 and json.loads(body)["busy"] is False


def test_110_idle_connections_leave_the_page_reachable(tmp_path):
    station = make_station(tmp_path / "data")
    idle = []
    try:
        with served(station) as port:  # the shipped limits
            for _ in range(110):
                idle.append(socket.create_connection(("127.0.0.1", port)))
            t = time.monotonic()
            assert _status_answers(port, 5)
            assert time.monotonic() - t < 5
    finally:
        for s in idle:
            s.close()
        station.close()


def test_idle_and_slow_connections_time_out_and_free_their_slots(tmp_path):
    from beachscore.serving import WAITRESS

    assert WAITRESS["channel_timeout"] <= 15 and WAITRESS["cleanup_interval"] <= 5  # sized for a Pi: short
    station = make_station(tmp_path / "data")
    sockets = []
    try:
        # the same server with a small connection limit and a 1 s timeout, so the test is quick
        with served(station, connection_limit=10, channel_timeout=1, cleanup_interval=0.5) as port:
            for i in range(12):
                s = socket.create_connection(("127.0.0.1", port))
                if i % 2:
                    s.sendall(b"GET /api/status HTTP/1.1\r\nHost: x\r\n")  # slow: the headers never end
                sockets.append(s)
            assert _status_answers(port, 10)  # answered once the idle ones were closed
            closed = 0  # the server closed the idle and the slow ones (recv sees the end)
            for s in sockets:
                s.settimeout(5)
                try:
                    closed += s.recv(65536) == b""
                except (ConnectionResetError, socket.timeout):
                    closed += 1
            assert closed >= 10
    finally:
        for s in sockets:
            s.close()
        station.close()


# ---- 3: NaN and Infinity -----------------------------------------------------------------------

@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_nan_and_infinity_are_refused_and_nothing_is_stored(tmp_path, number):
    station = make_station(tmp_path / "data")
    try:
        with served(station) as port:
            c = unlocked_client(port)
            raw = ('{"game": "strand-unter", "setup": {"players": {"red": {"bucket": {"white": %s}}}}}' % number).encode()
            status, _, body = c.post_json("/api/games", raw=raw)
            assert status == 400 and body["error"]["code"] == "invalid-json"
            assert station.store.count("games") == 0
            game_id = station.new_game("strand-unter")
            assert station.request_scan("test").accepted and station.wait_idle()
            scan_id = station.store.latest_scan()["id"]
            raw = ('{"state": {"game": "strand-unter", "sea_front": %s, "grooves": []}}' % number).encode()
            for url in (f"/api/scans/{scan_id}/revisions", f"/api/scans/{scan_id}/rescore"):
                status, _, body = c.post_json(url, raw=raw)
                assert status == 400 and body["error"]["code"] == "invalid-json", url
            assert station.store.count("revisions") == 0
            status, _, page = Client(port).request("GET", "/api/latest")
            json.loads(page, parse_constant=lambda name: pytest.fail(f"{name} in the page's JSON"))
            assert status == 200 and station.store.current_game()["id"] == game_id
    finally:
        station.close()


def test_the_store_refuses_nan_too(tmp_path):
    store = Store(str(tmp_path / "data"))
    with pytest.raises(ValueError):
        store.new_game("strand-unter", {"x": float("nan")})
    assert store.count("games") == 0
    store.close()


# ---- 4: decompression bombs --------------------------------------------------------------------

def test_the_webp_bomb_is_real():
    import cv2
    import numpy as np

    small = cv2.imdecode(np.frombuffer(webp_bomb(300, 200), np.uint8), cv2.IMREAD_COLOR)
    assert small.shape == (200, 300, 3) and tuple(small[100, 150]) == (40, 120, 200)


@pytest.mark.parametrize("data", [webp_bomb(16383, 16383),
                                  b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0\xfe\x3f\0\xfe\x3f\0",
                                  b"II*\0\x08\0\0\0\x02\0\x00\x01\x04\0\x01\0\0\0\xa0\x86\x01\0"
                                  b"\x01\x01\x04\0\x01\0\0\0\xa0\x86\x01\0\0\0\0\0"],
                         ids=["webp-vp8l", "webp-vp8x", "tiff"])
def test_image_bombs_are_sized_from_their_header_before_decoding(tmp_path, monkeypatch, data):
    import vision.image.decode

    def never(*args):
        raise AssertionError("decoded a file whose header claims too many pixels")

    monkeypatch.setattr(vision.image.decode.cv2, "imdecode", never)
    station = make_station(tmp_path / "data")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        with served(station) as port:
            c = unlocked_client(port)
            boundary = "xyz"
            body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"b.webp\"\r\n"
                    f"Content-Type: image/webp\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()

            def upload(_):
                return c.request("POST", "/api/calibration/upload", body,
                                 {"Content-Type": f"multipart/form-data; boundary={boundary}", "X-CSRF-Token": c.csrf})

            with concurrent.futures.ThreadPoolExecutor(8) as pool:  # 8 in parallel
                answers = list(pool.map(upload, range(8)))
            for status, _, out in answers:
                assert status == 400 and json.loads(out)["error"]["code"] == "image-too-large"
            assert station.store.count("photos") == 0
    finally:
        station.close()
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 100


def test_opencv_pixel_limit_is_set_before_cv2_loads():
    """The second net: any decode through OpenCV is capped by OPENCV_IO_MAX_IMAGE_PIXELS, which
    beachscore sets before cv2 loads (a 9000² WebP, 81 Mpx, is refused by OpenCV itself)."""
    code = ("import sys; sys.path.insert(0, %r); import beachscore, cv2, numpy as np, resource\n"
            "from attack_helpers import webp_bomb\n"
            "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "try:\n    out = cv2.imdecode(np.frombuffer(webp_bomb(9000, 9000), np.uint8), cv2.IMREAD_COLOR)\n"
            "except cv2.error:\n    out = None\n"
            "print(out is None, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)"
            % os.path.dirname(os.path.abspath(__file__)))
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_IO_MAX_IMAGE_PIXELS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
    refused, grown_mb = out.stdout.split()
    assert refused == "True" and int(grown_mb) < 100, out.stderr  # decoding it would take 243 MB


# ---- 5: next= to another site ------------------------------------------------------------------

@pytest.mark.parametrize("target", ["/%09/evil.example", "//evil.example", "/%5Cevil.example", "https://evil.example",
                                    "/%2F%2Fevil.example", "/%0d%0aLocation:%20//evil.example", "%2F%09%2Fevil"])
def test_next_after_unlocking_is_a_local_path_only(tmp_path, target):
    station = make_station(tmp_path / "data")
    try:
        with served(station) as port:
            unlocked_client(port)
            c = Client(port)
            c.open_page("/pin")
            status, headers, _ = c.request("POST", f"/pin?next={target}", f"pin={PIN}&csrf_token={c.csrf}".encode(),
                                           {"Content-Type": "application/x-www-form-urlencoded"})
            assert status == 302 and headers["Location"] == "/"
            c2 = Client(port)
            c2.open_page("/pin")
            status, headers, _ = c2.request("POST", "/pin?next=/calibrate", f"pin={PIN}&csrf_token={c2.csrf}".encode(),
                                            {"Content-Type": "application/x-www-form-urlencoded"})
            assert status == 302 and headers["Location"] == "/calibrate"
    finally:
        station.close()


# ---- 6: disk full ------------------------------------------------------------------------------

def _fill_sqlite(store):
    """The store's connection as SQLite answers on a full disk (the real thing: test_a_real_full_disk)."""
    store._db = FullDiskDatabase(store._db)


def _events(station):
    q = station.events.subscribe()

    def drain():
        out = []
        while not q.empty():
            out.append(q.get_nowait())
        return out
    return drain


@pytest.mark.parametrize("where", ["photo-file", "database"])
def test_a_scan_on_a_full_disk_reaches_the_page_and_the_led_and_leaves_no_file(tmp_path, monkeypatch, where):
    from beachscore.station.store import photos
    from hardware.led import StatusLight

    with mock_pin_factory():
        station = make_station(tmp_path / "data", light=StatusLight(27))
        try:
            game = station.new_game("strand-unter")
            drain = _events(station)
            if where == "photo-file":
                def full(folder, data, ext):
                    raise OSError(errno.ENOSPC, "No space left on device")
                monkeypatch.setattr(photos, "write_atomic", full)
            else:
                _fill_sqlite(station.store)
            assert station.request_scan("web").accepted and station.wait_idle()
            scan_events = [e for e in drain() if e["kind"] == "scan"]
            assert scan_events and scan_events[-1]["data"]["status"] == "error"
            assert scan_events[-1]["data"]["error"] == "disk-full" and "disk is full" in scan_events[-1]["data"]["message"]
            assert station.light.mode == "disk-full" and station.light.error_code == "disk-full"
            assert photo_files(station) == []  # no orphan photo
            status = station.status()
            assert status["store"]["code"] == "disk-full" and not status["busy"]
            # game over on a full disk: the final scan fails, the page hears why, the game stays open
            drain()
            assert station.end_game().accepted and station.wait_idle()
            kinds = [e["kind"] for e in drain()]
            assert "game-over-failed" in kinds and "game-over" not in kinds
            assert station.store.game(game)["ended_at"] is None
        finally:
            station.close()


def test_a_full_disk_after_the_reading_keeps_the_scan_without_its_picture(tmp_path, monkeypatch):
    from beachscore.station.store import photos

    station = make_station(tmp_path / "data")
    try:
        real, written = photos.write_atomic, []

        def full(folder, data, ext):  # the photo fits, the annotated picture does not
            if written:
                raise OSError(errno.ENOSPC, "No space left on device")
            written.append(real(folder, data, ext))
            return written[-1]
        monkeypatch.setattr(photos, "write_atomic", full)
        assert station.request_scan("web").accepted and station.wait_idle()
        scan = station.store.latest_scan()
        assert scan["status"] == "ok" and scan["annotated_photo_id"] is None
        assert photo_files(station) == written  # the photo, no orphan picture
        assert station.status()["store"]["code"] == "disk-full"
    finally:
        station.close()


def test_an_upload_on_a_full_disk_is_507_and_leaves_no_file(tmp_path):
    import cv2
    import numpy as np

    station = make_station(tmp_path / "data")
    try:
        with served(station) as port:
            c = unlocked_client(port)
            _fill_sqlite(station.store)
            jpeg = cv2.imencode(".jpg", np.full((120, 160, 3), 128, np.uint8))[1].tobytes()
            body = (b"--b\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"x.jpg\"\r\n"
                    b"Content-Type: image/jpeg\r\n\r\n" + jpeg + b"\r\n--b--\r\n")
            status, _, out = c.request("POST", "/api/calibration/upload", body,
                                       {"Content-Type": "multipart/form-data; boundary=b", "X-CSRF-Token": c.csrf})
            err = json.loads(out)["error"]
            assert status == 507 and err["code"] == "disk-full" and "free some space" in err["message"]
            assert photo_files(station) == []
            status, _, out = Client(port).request("GET", "/api/status")
            assert json.loads(out)["store"]["code"] == "disk-full"
    finally:
        station.close()


def test_a_real_full_disk(tmp_path):
    with small_tmpfs("3m") as disk:
        if disk is None:
            pytest.skip("cannot mount a small tmpfs here (needs root)")
        station = make_station(os.path.join(disk, "data"), camera=MockCamera(size=(640, 480)))
        try:
            station.new_game("strand-unter")
            filler = fill_disk(disk)
            drain = _events(station)
            assert station.request_scan("web").accepted and station.wait_idle()
            last = [e for e in drain() if e["kind"] == "scan"][-1]["data"]
            assert last["status"] == "error" and last["error"] == "disk-full"
            assert photo_files(station) == []
            os.unlink(filler)  # space again: scanning works again and the page's warning goes
            assert station.request_scan("web").accepted and station.wait_idle()
            assert station.store.latest_scan()["status"] == "ok" and station.status()["store"]["ok"]
        finally:
            station.close()


def test_starting_on_a_full_disk_says_so_and_opens_for_viewing(tmp_path, monkeypatch, caplog):
    import beachscore.station.store.db as db
    from beachscore import serving

    Store(str(tmp_path / "data")).close()

    def full(self):
        raise sqlite3.OperationalError("database or disk is full")
    monkeypatch.setattr(db.Store, "_open_writable", full)
    with caplog.at_level("WARNING"):
        station = serving.build_station(str(tmp_path / "data"), camera="mock", button="none")
    try:
        assert station.store.read_only and "is full: free some space" in station.store.read_only
        assert any("viewing only" in r.message and "is full" in r.message for r in caplog.records)
        assert station.status()["store"]["viewing_only"]
    finally:
        station.close()


def test_a_data_folder_that_cannot_be_opened_is_one_line_and_exit_1(tmp_path, capsys):
    from beachscore.cli import main

    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    assert main(["serve", "--data", str(not_a_folder), "--camera", "mock", "--button", "none", "--port", "0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("beachscore: error: serve: cannot create the data folder")
    assert "Traceback" not in err[0]


# ---- 7: the data folder deleted while running --------------------------------------------------

@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_deleted_data_folder_is_detected_and_nothing_is_written_to_it(tmp_path, how):
    data = tmp_path / "data"
    station = make_station(data)
    try:
        with served(station) as port:
            c = unlocked_client(port)
            shutil.rmtree(data)
            if how == "replaced":
                data.mkdir()
            status, _, body = c.post_json("/api/games", {"game": "strand-unter", "setup": {}})
            assert status == 503 and body["error"]["code"] == "data-folder-missing"
            assert "restart the station" in body["error"]["message"]
            status, _, body = c.post_json("/api/scan")
            assert status in (409, 503) and "deleted or replaced" in body["error"]["message"]
            status, _, page = Client(port).request("GET", "/")
            assert status == 200 and b"deleted or replaced" in page  # every page says so
    finally:
        station.close()
    again = Store(str(data))  # the restart: a new, empty store; nothing went into the deleted file
    assert again.count("games") == 0
    again.close()


# ---- 8: Lock, then a cookie copied before -------------------------------------------------------

def test_lock_revokes_every_session_and_copied_cookies(tmp_path):
    station = make_station(tmp_path / "data")
    try:
        with served(station) as port:
            owner = unlocked_client(port)
            phone = Client(port)
            phone.open_page("/pin")
            assert phone.post_json("/api/pin", {"pin": PIN})[0] == 200
            copy = Client(port)  # the attacker copied the owner's cookie before the lock
            copy.cookie, copy.csrf = owner.cookie, owner.csrf
            assert copy.post_json("/api/games", {"game": "strand-unter"})[0] == 201
            assert owner.post_json("/api/pin", {"action": "lock"})[0] == 200
            for client in (copy, phone, owner):
                status, _, body = client.post_json("/api/games", {"game": "strand-unter"})
                assert status == 403 and body["error"]["code"] == "pin-required"
            assert station.store.count("games") == 1
    finally:
        station.close()
    # … and after a restart, too
    restarted = make_station(tmp_path / "data")
    try:
        with served(restarted) as port:
            copy2 = Client(port)
            copy2.cookie, copy2.csrf = copy.cookie, copy.csrf
            assert copy2.post_json("/api/games", {"game": "strand-unter"})[0] == 403
    finally:
        restarted.close()


# ---- 9: memory ---------------------------------------------------------------------------------

def test_scans_reuse_one_thread(tmp_path):
    station = make_station(tmp_path / "data")
    try:
        station.request_scan("test")
        station.wait_idle()
        worker, threads = station._worker, threading.active_count()
        for _ in range(30):
            assert station.request_scan("test").accepted and station.wait_idle()
        assert station._worker is worker and threading.active_count() == threads
        assert station.store.count("scans") == 31
    finally:
        station.close()
    assert not worker.is_alive()


def test_pin_checks_run_one_at_a_time(monkeypatch):
    import hashlib

    import web.security

    now, peak, lock = [0], [0], threading.Lock()
    real = hashlib.scrypt

    def counting(*args, **kwargs):
        with lock:
            now[0] += 1
            peak[0] = max(peak[0], now[0])
        try:
            time.sleep(0.01)
            return real(*args, **kwargs)
        finally:
            with lock:
                now[0] -= 1
    monkeypatch.setattr(web.security.hashlib, "scrypt", counting)
    stored = web.security.hash_pin("2468")
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert not any(pool.map(lambda i: web.security.verify_pin(f"{i:04d}", stored), range(16)))
    assert peak[0] == 1  # each scrypt takes 16 MB: never 24 at once


def test_serve_caps_glibc_malloc_arenas():
    code = "from beachscore.serving import limit_malloc_arenas; print(limit_malloc_arenas())"
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
    if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
        pytest.skip("not glibc")
    assert out.stdout.strip() == "True", out.stderr
    with open(os.path.join(REPO, "deploy", "beachscore.service")) as f:
        assert "MALLOC_ARENA_MAX=2" in f.read()


# ---- 10: a read-only database ------------------------------------------------------------------

def _read_only_data(monkeypatch, data):
    import beachscore.station.store.db as db

    real_access = os.access
    monkeypatch.setattr(db.os, "access", lambda path, mode: False if mode == os.W_OK and
                        str(path).startswith(str(data)) else real_access(path, mode))


def test_a_read_only_database_starts_for_viewing_with_a_clear_message(tmp_path, monkeypatch):
    from beachscore import serving

    data = tmp_path / "data"
    from web.security import PIN_SETTING, hash_pin

    first = make_station(data)
    first.store.set_setting(PIN_SETTING, hash_pin(PIN))
    game = first.new_game("strand-unter")
    first.request_scan("test")
    first.wait_idle()
    first.close()
    _read_only_data(monkeypatch, data)  # chmod a-w as the station's user would (root ignores modes)
    station = serving.build_station(str(data), camera="mock", button="none", scanner=FakeScanner(), scorer=fake_score)
    try:
        assert station.store.read_only and "read-only" in station.store.read_only
        with served(station) as port:
            viewer = Client(port)
            status, _, page = viewer.request("GET", "/history")
            assert status == 200 and b"viewing mode" in page and b"Scan 1" in page
            status, _, body = viewer.request("GET", "/api/latest")
            assert json.loads(body)["status"]["game"]["id"] == game
            viewer.open_page("/pin")
            assert viewer.post_json("/api/pin", {"pin": PIN})[0] == 200  # unlocking needs no write
            for url, body in (("/api/games", {"game": "strand-unter"}), ("/api/scan", None)):
                status, _, out = viewer.post_json(url, body)
                assert status == 503 and out["error"]["code"] == "read-only", url
                assert "viewing mode" in out["error"]["message"]
        assert station.store.count("games") == 1 and station.store.count("scans") == 1
    finally:
        station.close()


def test_a_database_made_read_only_while_running_refuses_writes(tmp_path, monkeypatch):
    station = make_station(tmp_path / "data")
    try:
        station.new_game("strand-unter")
        _read_only_data(monkeypatch, tmp_path / "data")
        with pytest.raises(StoreError) as err:
            station.new_game("strand-unter")
        assert err.value.code == "read-only" and "made read-only" in err.value.message
        assert not station.request_scan("web").accepted
    finally:
        station.close()
    assert Store(str(tmp_path / "data"), read_only=True).count("games") == 1


def test_a_really_read_only_disk(tmp_path):
    with small_tmpfs("4m") as disk:
        if disk is None:
            pytest.skip("cannot mount a small tmpfs here (needs root)")
        data = os.path.join(disk, "data")
        first = make_station(data)
        first.new_game("strand-unter")
        first.close()
        assert remount_read_only(disk)
        station = make_station(data)
        try:
            assert station.store.read_only and "read-only" in station.store.read_only
            assert station.store.current_game()["game"] == "strand-unter"
            with pytest.raises(StoreError) as err:
                station.new_game("plazing")
            assert err.value.code == "read-only"
        finally:
            station.close()
