"""Kill the server (SIGKILL) in the middle of a scan; after a restart the store is intact and complete."""

import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from beachscore.station.store import Store

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTO = os.path.join(HERE, "..", "..", "examples", "strand-unter", "scene_05.jpg")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """A tiny browser: cookies, the page's CSRF token, JSON requests."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.csrf = None

    def get(self, path):
        with self.opener.open(self.base + path, timeout=10) as r:
            body = r.read().decode()
        m = re.search(r'name="csrf-token" content="([^"]+)"', body)
        if m:
            self.csrf = m.group(1)
        return body

    def post(self, path, data=None, form=None):
        if form is not None:
            payload, ctype = urllib.parse.urlencode({**form, "csrf_token": self.csrf}).encode(), \
                "application/x-www-form-urlencoded"
        else:
            payload, ctype = json.dumps(data or {}).encode(), "application/json"
        req = urllib.request.Request(self.base + path, data=payload, method="POST",
                                     headers={"Content-Type": ctype, "X-CSRF-Token": self.csrf or ""})
        with self.opener.open(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if ctype == "application/json" and body else body

    def json(self, path):
        with self.opener.open(self.base + path, timeout=10) as r:
            return json.loads(r.read())


def start(data, port, delays):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.join(HERE, "..", ".."), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "crash_server.py"), data, str(port), PHOTO, delays],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(proc.stderr.read().decode())
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


def wait_for(predicate, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_during_a_scan_loses_nothing_saved_before(tmp_path):
    data, port = str(tmp_path / "data"), free_port()
    proc = start(data, port, "0.05,0.05,30")
    try:
        c = Client(f"http://127.0.0.1:{port}")
        c.get("/pin")
        c.post("/pin", form={"pin": "2468", "pin2": "2468"})
        c.get("/")
        game = c.post("/api/games", {"game": "strand-unter", "setup": {}})["game_id"]
        for _ in range(2):
            c.post("/api/scan")
            assert wait_for(lambda: not c.json("/api/status")["busy"])
        first = c.json("/api/latest")["scan"]
        state = json.loads(json.dumps(first["state"]))
        state["grooves"][0]["castles"][0]["value"] = 3
        rev = c.post(f"/api/scans/{first['id']}/revisions", {"state": state, "note": "fix"})["revision_id"]
        c.post("/api/scan")  # the third scan takes 30 s
        assert wait_for(lambda: c.json("/api/status")["busy"])
        time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert proc.returncode == -signal.SIGKILL

    store = Store(data)  # what a restart opens
    assert store.integrity_check() == "ok"
    assert store.count("scans") == 2  # the killed scan left nothing behind
    scans = store.scans(game_id=game)
    assert [s["status"] for s in scans] == ["ok", "ok"]
    for s in scans:  # every saved scan still has its photos
        assert os.path.getsize(store.photo_file(s["photo_id"])[0]) > 1000
        store.photo_file(s["annotated_photo_id"])
    assert store.scan(first["id"])["revisions"][0]["id"] == rev
    assert store.scan(first["id"])["state"] == first["state"]  # the machine reading is kept
    assert not [f for f in os.listdir(store.photo_dir) if f.startswith(".tmp-")]
    assert store.get_setting("pin_hash")
    store.close()

    proc = start(data, port, "0.05")  # the restarted server works on the same data
    try:
        c = Client(f"http://127.0.0.1:{port}")
        assert c.json("/api/latest")["scan"]["id"] == scans[0]["id"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
