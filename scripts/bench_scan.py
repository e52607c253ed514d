#!/usr/bin/env python3
"""Benchmark ``beachscore scan`` against the speed budget, per game.

    .venv/bin/python scripts/bench_scan.py [FOLDER ...] [--repeat 5]

Without folders it times ``../shared/samples/*`` and ``../shared/samples-new-setups/*``. Each
FOLDER holds ``profile.json`` and ``setupN/`` folders (calibration.json + scene_*.jpg) or is one
set-up. Every set-up is calibrated once into a temporary folder; then every photo is scanned
``--repeat`` times in this warm process. Per photo it prints the median scan time split
decode/register/detect/score and the whole scan as a ratio to a bare ``cv2.imdecode`` of the
same file. Per game, over its 1920×1080 photos (others are listed but not counted), it prints
and judges against the absolute budget (``docs/speed.md``):

- the median and the maximum of every timed scan: ≤ :data:`BUDGET_MEDIAN_MS` and
  ≤ :data:`BUDGET_MAX_MS` (about 0.2–0.3 s on a Pi 4);
- the peak RSS (VmHWM on Linux) of a fresh process running one ``beachscore scan`` of the game's
  first photo: ≤ :data:`BUDGET_RSS_MB`;
- the ratio to a bare decode (median and maximum over the photos), printed for comparison only,
- the scans' CPU time (median and maximum, the process's threads together), for comparison only:
  on a loaded machine the wall time includes other processes' turns on the cores,

with PASS or FAIL per figure. The machine's load changes the times: note it with the figures.

With a calibration that carries a lens (a folder written by ``scripts/distort_samples.py``, or a
real wide lens) it also prints ``undistort``: the lens correction of each scan. Design note, why
the photo is undistorted rather than only points: the homography of every stage after it
(registration, the four readers, which rectify, warp and sample the photo in many places) holds
unchanged in the undistorted photo, so the correction lives in one place
(``pipeline.scan_image``) instead of in every reader. Its cost is one ``cv2.remap`` of the
reader-scale photo with CV_16SC2 maps built once per calibration and photo size: about 1.5–3 ms.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore.pipeline import calibrate, scan_file  # noqa: E402

#: The budget of a 1920×1080 scan on the development machine (issue 20).
BUDGET_MEDIAN_MS, BUDGET_MAX_MS, BUDGET_RSS_MB = 40.0, 80.0, 150.0
BUDGET_SIZE = (1920, 1080)
HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "shared"))


def default_folders() -> list[str]:
    """The shared samples' game folders."""
    return sorted(glob.glob(os.path.join(SHARED, "samples", "*"))) + \
        sorted(glob.glob(os.path.join(SHARED, "samples-new-setups", "*")))


def game_of(folder: str) -> str:
    """The game named by the folder's profile.json (or its parent's, for one set-up)."""
    for where in (folder, os.path.dirname(folder)):
        path = os.path.join(where, "profile.json")
        if os.path.isfile(path):
            return json.load(open(path))["game"]
    return os.path.basename(os.path.normpath(folder))


def time_photo(img: str, cal, game_setup, repeat: int) -> tuple[list[float], list[float], list[dict], list[float]]:
    """Bare decodes (s), whole scans (s), the scans' ``timing_ms`` and the scans' CPU time (s, this
    process's threads together) of ``repeat`` runs."""
    data = np.frombuffer(open(img, "rb").read(), np.uint8)
    bare, whole, parts, cpu = [], [], [], []
    for _ in range(repeat):
        t = time.perf_counter()
        cv2.imdecode(data, cv2.IMREAD_COLOR)
        bare.append(time.perf_counter() - t)
        t, c = time.perf_counter(), time.process_time()
        try:
            r = scan_file(img, cal, game_setup)
        except Exception as err:  # noqa: BLE001 - a refused photo still has a time
            r = None
            print(f"  {os.path.basename(img)}: {err}")
        whole.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        if r is not None:
            parts.append(r.timing_ms)
    return bare, whole, parts, cpu


def peak_rss_mb(img: str, cal_dir: str, setup_json: str | None) -> float:
    """Peak RSS (MB) of a fresh process running one ``beachscore scan``: VmHWM (reset when the
    process execs), not ru_maxrss, which on Linux keeps the peak of the fork before exec."""
    code = ("import resource, sys; from beachscore.cli import main; main(['scan', sys.argv[1], '--calibration', "
            "sys.argv[2], '--json'] + sys.argv[3:]); "
            "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')] "
            "if sys.platform.startswith('linux') else []; "
            "print(hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", code, img, cal_dir] + (["--setup", setup_json] if setup_json else []),
                       capture_output=True, text=True)
    return int(p.stderr.strip().splitlines()[-1]) / 1024


def bench_folder(folder: str, repeat: int, games: dict) -> None:
    """Time every photo of a folder; add its figures to ``games[game]``."""
    g = games.setdefault(game_of(folder), {"scans_ms": [], "cpu_ms": [], "ratios": [], "first": None, "other_sizes": 0})
    for setup in sorted(glob.glob(os.path.join(folder, "setup*"))) or [folder]:
        cal_dir = tempfile.mkdtemp(prefix="bench-cal-")
        cal = calibrate(os.path.join(setup, "calibration.json"), cal_dir)
        for img in sorted(glob.glob(os.path.join(setup, "scene_*.jpg"))):
            setup_json = os.path.splitext(img)[0] + ".setup.json"  # per-game facts (e.g. Plażing terrain)
            game_setup = json.load(open(setup_json)) if os.path.isfile(setup_json) else None
            h, w = cv2.imread(img, cv2.IMREAD_GRAYSCALE).shape[:2]
            full = (w, h) == BUDGET_SIZE
            bare, whole, parts, cpu = time_photo(img, cal, game_setup, repeat)
            med = lambda k: statistics.median(p.get(k, 0.0) for p in parts) if parts else float("nan")  # noqa: E731
            ratio = statistics.median(whole) / statistics.median(bare)
            if full:
                g["scans_ms"] += [1e3 * t for t in whole]
                g["cpu_ms"] += [1e3 * t for t in cpu]
                k = int(np.argmax(cpu))
                if 1e3 * cpu[k] >= max(g["cpu_ms"]):
                    g["slowest_cpu"] = f"{os.path.relpath(img, os.path.dirname(os.path.dirname(folder)))}, run {k + 1}"
                k = int(np.argmax(whole))
                if 1e3 * whole[k] >= max(g["scans_ms"]):
                    g["slowest"] = f"{os.path.relpath(img, os.path.dirname(os.path.dirname(folder)))}, run {k + 1} of {len(whole)}"
                g["ratios"].append(ratio)
                g["first"] = g["first"] or (img, cal_dir, setup_json if game_setup is not None else None)
            else:
                g["other_sizes"] += 1
            lens = f"undistort {med('undistort'):4.1f} " if cal.lens is not None else ""
            print(f"{os.path.relpath(img, folder):<26} decode {med('decode'):5.1f} {lens}register {med('register'):5.1f} "
                  f"detect {med('detect'):5.1f} score {med('score'):4.1f} ms | scan {1e3 * statistics.median(whole):5.1f} ms"
                  f" = {ratio:4.2f}x bare imdecode ({1e3 * statistics.median(bare):4.1f} ms)"
                  f"{'' if full else '  (not 1920x1080: not counted)'}", flush=True)


def verdict(value: float, limit: float) -> str:
    """``PASS`` when ``value`` ≤ ``limit``."""
    return "PASS" if value <= limit else "FAIL"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    games: dict = {}
    for folder in a.folders or default_folders():
        bench_folder(folder, a.repeat, games)
    load = os.getloadavg()
    print(f"\nbudget per 1920x1080 scan: median <= {BUDGET_MEDIAN_MS:g} ms, max <= {BUDGET_MAX_MS:g} ms, "
          f"fresh-process peak RSS <= {BUDGET_RSS_MB:g} MB (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
    failed = False
    for game, g in sorted(games.items()):
        if not g["scans_ms"]:
            print(f"{game}: no 1920x1080 photos")
            continue
        med, top = statistics.median(g["scans_ms"]), max(g["scans_ms"])
        rss = peak_rss_mb(*g["first"])
        figures = [verdict(med, BUDGET_MEDIAN_MS), verdict(top, BUDGET_MAX_MS), verdict(rss, BUDGET_RSS_MB)]
        failed |= "FAIL" in figures
        print(f"{game:<13} {len(g['scans_ms'])} scans of {len(g['ratios'])} photos: median {med:5.1f} ms {figures[0]}, "
              f"max {top:5.1f} ms {figures[1]} ({g['slowest']}), peak RSS {rss:4.0f} MB {figures[2]} | ratio to bare decode: "
              f"median {statistics.median(g['ratios']):.2f}x, max {max(g['ratios']):.2f}x"
              + (f" ({g['other_sizes']} photos of other sizes not counted)" if g["other_sizes"] else ""))
        print(f"{'':<13} CPU time per scan (all threads; not the budget, steadier under load): median "
              f"{statistics.median(g['cpu_ms']):5.1f} ms, max {max(g['cpu_ms']):5.1f} ms ({g['slowest_cpu']})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
