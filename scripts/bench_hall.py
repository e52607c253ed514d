"""Load benchmark of the hall on loopback: 100 stations report at once while 50 viewers watch the standings.

For each database (SQLite file; PostgreSQL in a throwaway cluster, see hall/pgcluster.py):

1. seed an event with one table of 4 players per station, round 1 seated, and start
   ``beachscore hall`` in its own process on 127.0.0.1;
2. pair every station over HTTP (not timed);
3. start 50 viewers that poll the standings JSON like the big-screen page does (If-None-Match),
   but every ``--viewer-period`` seconds instead of 3;
4. release the 100 stations at once: each queues its final result (with a ~58 kB annotated PNG)
   in its own outbox (the station's SQLite) and its sender delivers it — result POST, then the
   photo PUT, retried with back-off until acknowledged (viewers run in a process of their own);
5. then every station sends its result once more, as after a lost acknowledgement;
6. count: lost = results not in the hall's database, duplicated = result rows beyond one per
   station; latencies of each station's report (queued → result acknowledged by the hall), of
   each result POST, and of every viewer request (200 or 304).

Usage: python scripts/bench_hall.py [--stations 100] [--viewers 50] [--db sqlite,postgresql]
"""

from __future__ import annotations

import argparse
import http.client
import os
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore.station.outbox import HallClient, Outbox, Sender  # noqa: E402
from hall.db import open_engine  # noqa: E402
from hall.store import HallStore  # noqa: E402
from hall.testing import HallProcess, report_for, seed_event  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def photo_png(i: int) -> bytes:
    import cv2

    rng = np.random.default_rng(i)
    img = (rng.integers(0, 255, (120, 160, 3))).astype(np.uint8)
    return cv2.imencode(".png", img)[1].tobytes()


class TimedClient(HallClient):
    """A HallClient that records how long each result POST took (the hall's answer time as a station sees it)."""

    posts: list[float] = []

    def request(self, method, path, **kw):
        t0 = time.perf_counter()
        try:
            return super().request(method, path, **kw)
        finally:
            if path == "/api/station/results":
                TimedClient.posts.append(time.perf_counter() - t0)


def viewer(port: int, event_id: int, stop: threading.Event, period_s: float, out: list, errors: list) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    etag = None
    while not stop.is_set():
        t0 = time.perf_counter()
        try:
            conn.request("GET", f"/api/events/{event_id}/standings", headers={"If-None-Match": etag} if etag else {})
            r = conn.getresponse()
            r.read()
            if r.status == 200:
                etag = r.getheader("ETag")
            elif r.status != 304:
                errors.append(r.status)
            out.append(time.perf_counter() - t0)
        except OSError as err:
            errors.append(str(err))
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        stop.wait(period_s)
    conn.close()


def viewers_process(port: int, event_id: int, n: int, period_s: float, ready, stop, results) -> None:
    """Run ``n`` viewers in this (separate) process until ``stop`` is set; put (latencies, errors) on ``results``."""
    halt = threading.Event()
    views: list[float] = []
    errors: list = []
    threads = [threading.Thread(target=viewer, args=(port, event_id, halt, period_s, views, errors)) for _ in range(n)]
    for t in threads:
        t.start()
    while len(views) < n:  # every viewer has its first answer
        time.sleep(0.05)
    ready.set()
    stop.wait()
    halt.set()
    for t in threads:
        t.join()
    results.put((views, [str(e) for e in errors]))


def run(backend: str, url: str, n_stations: int, n_viewers: int, period_s: float, root: str) -> dict:
    store = HallStore(open_engine(url), photo_dir=os.path.join(root, "photos"))
    event_id, codes = seed_event(store, n_stations, per_table=4)
    hall = HallProcess(data_dir=root, db_url=url).start()
    boxes, senders, photos = [], [], []
    try:
        for i, code in enumerate(codes):
            box = Outbox(os.path.join(root, f"station-{i}.sqlite3"))
            client = HallClient(hall.url)
            status, answer = client.request("POST", "/api/pair", body={"code": code, "name": f"station {i + 1}"})
            assert status == 201, answer
            box.set_link(hall.url, answer)
            box.set_assignment(client.request("GET", "/api/station/assignment", token=answer["token"])[1])
            path = os.path.join(root, f"photo-{i}.png")
            with open(path, "wb") as f:
                f.write(photo_png(i))
            boxes.append(box)
            photos.append(path)
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        ready, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
        watchers = ctx.Process(target=viewers_process, args=(hall.port, event_id, n_viewers, period_s, ready, stop,
                                                             out))
        watchers.start()
        ready.wait(60)
        time.sleep(1.0)
        delivered: dict[int, float] = {}
        start = threading.Barrier(n_stations + 1)
        sent_at: dict[int, float] = {}

        def station(i: int) -> None:
            box = boxes[i]
            done = threading.Event()

            def on_result(entry):
                if not done.is_set():
                    delivered[i] = time.perf_counter() - sent_at[i]
                    done.set()

            sender = Sender(box, base_s=0.2, cap_s=2.0, on_result=on_result, client_for=TimedClient)
            senders.append(sender)
            link = box.link()
            start.wait()
            sent_at[i] = time.perf_counter()
            box.enqueue(link["id"], f"{link['id']}:{i}:0", report_for(link["assignment"], 10_000 + i), photos[i])
            sender.start()
            done.wait(60)
            deadline = time.monotonic() + 60
            while box.counts().get("pending") and time.monotonic() < deadline:  # its photo too
                time.sleep(0.05)

        threads = [threading.Thread(target=station, args=(i,)) for i in range(n_stations)]
        for t in threads:
            t.start()
        t0 = time.perf_counter()
        start.wait()
        for t in threads:
            t.join()
        wave_s = time.perf_counter() - t0
        # every result once more, as when an acknowledgement was lost on the way back
        again = []
        for i, box in enumerate(boxes):
            link = box.link()
            status, answer = HallClient(hall.url).request("POST", "/api/station/results", token=link["token"],
                                                          body=report_for(link["assignment"], 10_000 + i))
            again.append(status == 200 and answer.get("duplicate") is True)
        time.sleep(1.0)
        stop.set()
        views, view_errors = out.get(timeout=60)
        watchers.join(30)
    finally:
        for s in senders:
            s.close()
        hall.stop()
    rows = store.count_results(event_id).get("station", 0)
    doc = store.event_doc(event_id)
    with_result = sum("result" in t for t in doc["rounds"][0]["tables"])
    store.close()
    for box in boxes:
        box.close()
    lat = sorted(delivered.values())
    posts = list(TimedClient.posts)
    TimedClient.posts.clear()
    return {"backend": backend, "stations": n_stations, "viewers": n_viewers, "wave_s": wave_s,
            "delivered": len(lat), "lost": n_stations - with_result, "duplicated": rows - with_result,
            "resend_dup_ack": sum(again), "report_p50_ms": 1e3 * percentile(lat, 50),
            "report_p99_ms": 1e3 * percentile(lat, 99), "view_requests": len(views),
            "post_p50_ms": 1e3 * percentile(posts, 50), "post_p99_ms": 1e3 * percentile(posts, 99),
            "view_p50_ms": 1e3 * percentile(views, 50), "view_p99_ms": 1e3 * percentile(views, 99),
            "view_errors": len(view_errors)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stations", type=int, default=100)
    p.add_argument("--viewers", type=int, default=50)
    p.add_argument("--viewer-period", type=float, default=1.0, help="seconds between a viewer's requests")
    p.add_argument("--db", default="sqlite,postgresql")
    args = p.parse_args(argv)
    results = []
    for backend in args.db.split(","):
        with tempfile.TemporaryDirectory(prefix=f"bench-hall-{backend}-") as root:
            if backend == "sqlite":
                results.append(run(backend, "sqlite:///" + os.path.join(root, "hall.sqlite3"), args.stations,
                                   args.viewers, args.viewer_period, root))
            else:
                from hall.pgcluster import PgCluster

                with PgCluster() as pg:
                    results.append(run(backend, pg.url, args.stations, args.viewers, args.viewer_period, root))
    print(f"{'database':<11} {'stations':>8} {'viewers':>7} {'lost':>4} {'dup':>4} {'resent=dup':>10} "
          f"{'report p50':>10} {'report p99':>10} {'POST p50':>9} {'POST p99':>9} {'view p50':>9} {'view p99':>9} "
          f"{'views':>6} {'errors':>6}")
    for r in results:
        print(f"{r['backend']:<11} {r['stations']:>8} {r['viewers']:>7} {r['lost']:>4} {r['duplicated']:>4} "
              f"{r['resend_dup_ack']:>10} {r['report_p50_ms']:>8.0f}ms {r['report_p99_ms']:>8.0f}ms "
              f"{r['post_p50_ms']:>7.0f}ms {r['post_p99_ms']:>7.0f}ms "
              f"{r['view_p50_ms']:>7.0f}ms {r['view_p99_ms']:>7.0f}ms {r['view_requests']:>6} {r['view_errors']:>6}")
    print("report = from queueing in the station's outbox (an fsynced SQLite write) to the hall's acknowledgement of "
          "the result; POST = one result request; view = one standings request (200 or 304).")
    worst = max(max(r["report_p99_ms"], r["view_p99_ms"]) for r in results)
    return 0 if all(r["lost"] == 0 and r["duplicated"] == 0 for r in results) and worst < 1000 else 1


if __name__ == "__main__":
    sys.exit(main())
