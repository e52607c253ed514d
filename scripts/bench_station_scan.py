#!/usr/bin/env python3
"""Benchmark one station scan (camera frame → stored scan) at the camera sizes of a Pi.

    .venv/bin/python scripts/bench_station_scan.py [--repeat 15]

The set-up is the bundled Strand unter example (examples/strand-unter): calibrated once at its
own size (1920x1080) and once 4056 px wide like a Pi HQ camera still (9.3 MP at this 16:9 shot; the photos scaled up by the same factor,
corners scaled with them), scanned by a :class:`beachscore.station.Station` with a file camera
and the real pipeline, ``--repeat`` times each. Prints, per size, the median and max of the
stages the station times (``capture``, ``encode`` the stored JPEG, the pipeline's
``register``/``detect``/``score``, ``annotate`` = draw + encode the annotated picture)
and of the whole scan: request → the score stored and sent to the pages (``to score``, what a
player waits for) and request → idle again, the annotated picture stored too (``to idle``); and
the size of the annotated picture.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import cv2

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from beachscore.pipeline import calibrate  # noqa: E402
from beachscore.station import Station  # noqa: E402
from beachscore.station.store import Store  # noqa: E402
from hardware.file_camera import FileCamera  # noqa: E402

EXAMPLE = os.path.join(REPO, "examples", "strand-unter")
STAGES = ("capture", "encode", "register", "detect", "score", "annotate")


def scaled_example(folder: str, width_px: int | None) -> tuple[str, str]:
    """Copy the example into ``folder``, scaled to ``width_px`` (None: as shipped); → (calibration.json, scene)."""
    with open(os.path.join(EXAMPLE, "calibration.json")) as f:
        doc = json.load(f)
    shutil.copy(os.path.join(EXAMPLE, "profile.json"), folder)
    names = [doc["image"], doc.get("empty_image"), "scene_05.jpg"]
    k = 1.0
    for name in filter(None, names):
        img = cv2.imread(os.path.join(EXAMPLE, name))
        if width_px:
            k = width_px / img.shape[1]
            img = cv2.resize(img, (width_px, round(img.shape[0] * k)), interpolation=cv2.INTER_CUBIC)
        cv2.imwrite(os.path.join(folder, name), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if doc.get("corners_px"):
        doc["corners_px"] = [[x * k, y * k] for x, y in doc["corners_px"]]
    path = os.path.join(folder, "calibration.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path, os.path.join(folder, "scene_05.jpg")


def bench(width_px: int | None, repeat: int) -> None:
    tmp = tempfile.mkdtemp(prefix="bench-station-")
    try:
        request, scene = scaled_example(tmp, width_px)
        cal = calibrate(request, os.path.join(tmp, "cal"))
        station = Station(Store(os.path.join(tmp, "data")), camera=FileCamera(scene), calibration=cal)
        station.new_game("strand-unter", {})
        whole, to_score, stages, sizes = [], [], {s: [] for s in STAGES}, []
        events = station.events.subscribe()
        for i in range(repeat + 1):
            t = time.perf_counter()
            assert station.request_scan("bench").accepted
            while events.get(timeout=120)["kind"] != "scan":
                pass
            scored = (time.perf_counter() - t) * 1e3
            station.wait_idle(120)
            elapsed = (time.perf_counter() - t) * 1e3
            scan = station.store.latest_scan()
            if scan["status"] != "ok":
                raise SystemExit(f"scan failed: {scan['error']}")
            if i == 0:
                continue  # warm-up: imports, lookup tables
            whole.append(elapsed)
            to_score.append(scored)
            for s in STAGES:
                stages[s].append(scan["timing_ms"].get(s, 0.0))
            if scan["annotated_photo_id"]:
                path, media = station.store.photo_file(scan["annotated_photo_id"])
                sizes.append((os.path.getsize(path), media))
        station.close()
        w = width_px or cv2.imread(scene).shape[1]
        h = round(cv2.imread(scene).shape[0])
        print(f"{w}x{h} px ({w * h / 1e6:.1f} MP), {repeat} scans:")
        for s in STAGES:
            print(f"  {s:9s} median {statistics.median(stages[s]):7.1f} ms   max {max(stages[s]):7.1f} ms")
        print(f"  {'to score':9s} median {statistics.median(to_score):7.1f} ms   max {max(to_score):7.1f} ms")
        print(f"  {'to idle':9s} median {statistics.median(whole):7.1f} ms   max {max(whole):7.1f} ms")
        if sizes:
            print(f"  annotated picture: {sizes[-1][1]}, {sizes[-1][0] / 1e6:.2f} MB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15)
    a = ap.parse_args()
    bench(None, a.repeat)
    bench(4056, a.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
