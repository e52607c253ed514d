"""The hall under idle connections: N sockets held open (re-opened as the hall closes them) while
the room's screens poll and stations report, for S seconds; prints the latency of every
ordinary request and whether the hall is still running.

Loopback only; bounded (at most 5,000 sockets and 600 s). Runs ``beachscore hall`` in a
subprocess on a temporary SQLite data folder::

    python scripts/bench_hall_idle.py --sockets 2000 --seconds 60
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import selectors
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from hall.db import default_url, open_engine
from hall.store import HallStore
from hall.testing import HallProcess, report_for, seed_event

MAX_SOCKETS = 5000
MAX_SECONDS = 600


def hold_idle(port: int, count: int, stop: threading.Event, counters: dict) -> None:
    """Keep ``count`` idle connections open to ``port``, opening a new one for each the hall closes."""
    sel = selectors.DefaultSelector()

    def open_one():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            counters["refused"] += 1
            return
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        counters["opened"] += 1

    for _ in range(count):
        open_one()
    while not stop.is_set():
        for key, _ in sel.select(timeout=0.5):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                sel.unregister(s)
                s.close()
                counters["closed_by_hall"] += 1
                open_one()
    for key in list(sel.get_map().values()):
        key.fileobj.close()


def timed(request: urllib.request.Request | str) -> tuple[float, int]:
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as err:
        status = err.code
    except OSError:
        status = 0
    return time.perf_counter() - started, status


def viewer(base: str, eid: int, stop: threading.Event, out: list) -> None:
    while not stop.is_set():
        for path in (f"/api/events/{eid}/standings", f"/api/events/{eid}/seating", f"/events/{eid}/standings"):
            out.append(timed(base + path))
        stop.wait(0.2)


def reporter(base: str, token: str, stop: threading.Event, out: list) -> None:
    auth = {"Authorization": "Bearer " + token}
    with urllib.request.urlopen(urllib.request.Request(base + "/api/station/assignment", headers=auth),
                                timeout=30) as r:
        assignment = json.load(r)
    scan = 0
    while not stop.is_set():
        scan += 1
        body = json.dumps(report_for(assignment, scan_id=scan)).encode()
        out.append(timed(urllib.request.Request(base + "/api/station/results", data=body,
                                                headers={**auth, "Content-Type": "application/json"})))
        stop.wait(1.0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sockets", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args(argv)
    sockets, seconds = min(max(args.sockets, 0), MAX_SOCKETS), min(max(args.seconds, 1.0), MAX_SECONDS)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory(prefix="bench-hall-idle-") as data:
        store = HallStore(open_engine(default_url(data)), photo_dir=os.path.join(data, "photos"))
        eid, codes = seed_event(store, tables=4)
        store.close()
        hall = HallProcess(data_dir=data).start()
        base = hall.url
        tokens = []
        for code in codes:
            req = urllib.request.Request(base + "/api/pair", data=json.dumps({"code": code, "name": "bench"}).encode(),
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as r:
                tokens.append(json.load(r)["token"])
        stop = threading.Event()
        counters = {"opened": 0, "refused": 0, "closed_by_hall": 0}
        views, reports = [], []
        threads = [threading.Thread(target=hold_idle, args=(hall.port, sockets, stop, counters), daemon=True)]
        threads += [threading.Thread(target=viewer, args=(base, eid, stop, views), daemon=True) for _ in range(4)]
        threads += [threading.Thread(target=reporter, args=(base, t, stop, reports), daemon=True) for t in tokens]
        for t in threads:
            t.start()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and hall.proc.poll() is None:
            time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(60)
        alive = hall.proc.poll() is None
        hall.stop()
    print(f"{sockets} idle sockets for {seconds:.0f} s: opened {counters['opened']}, refused {counters['refused']}, "
          f"closed by the hall {counters['closed_by_hall']}; hall {'still running' if alive else 'EXITED'}")
    for name, rows in (("room pages", views), ("station reports", reports)):
        times = sorted(t for t, _ in rows)
        ok = sum(1 for _, s in rows if s in (200, 201))
        if not times:
            print(f"{name}: none")
            continue
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"{name}: {len(rows)} requests, {ok} answered 200/201, median {statistics.median(times) * 1000:.0f} ms, "
              f"p95 {p95 * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms, over 1 s: {sum(t > 1 for t in times)}")
    return 0 if alive else 1


if __name__ == "__main__":
    sys.exit(main())
