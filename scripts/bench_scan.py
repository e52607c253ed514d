#!/usr/bin/env python3
"""Benchmark ``beachscore scan`` on a game's sample photos (generic over games).

    .venv/bin/python scripts/bench_scan.py ../shared/samples/strand-unter [--repeat 5]

For every set-up folder (calibration.json + scene_*.jpg) it calibrates once into a temporary
folder, then per photo prints the median scan time split decode/register/detect/score, the whole
scan as a ratio to a bare ``cv2.imdecode`` of the same file, and at the end the peak memory:
tracemalloc (Python + numpy allocations) in this process, and the peak RSS (VmHWM on Linux) of a
fresh process running one ``beachscore scan``.

With a calibration that carries a lens (a folder written by ``scripts/distort_samples.py``, or a
real wide lens) it also prints ``undistort``: the lens correction of each scan. Design note, why
the photo is undistorted rather than only points: the homography of every stage after it
(registration, the four readers, which rectify, warp and sample the photo in many places, two
of them being rewritten in parallel) holds unchanged in the undistorted photo, so the correction
lives in one place (``pipeline.scan_image``) instead of in every reader. Its cost is one
``cv2.remap`` of the reader-scale photo (960×540 for the half-size games) with CV_16SC2 maps built
once per calibration and photo size: about 1.5–3 ms here, a fifth to a third of a bare decode of
the full-size JPEG, well inside the 4× budget. Undistorting points only would save that but would
need every reader to map each point it samples through the lens.
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
import tracemalloc

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore.pipeline import calibrate, scan_file  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    ratios, peaks, one = [], [], None
    for setup in sorted(glob.glob(os.path.join(a.folder, "setup*"))) or [a.folder]:
        cal_dir = tempfile.mkdtemp(prefix="bench-cal-")
        cal = calibrate(os.path.join(setup, "calibration.json"), cal_dir)
        for img in sorted(glob.glob(os.path.join(setup, "scene_*.jpg"))):
            setup_json = os.path.splitext(img)[0] + ".setup.json"  # per-game facts (e.g. Plażing terrain)
            game_setup = json.load(open(setup_json)) if os.path.isfile(setup_json) else None
            one = one or (img, cal_dir, setup_json if game_setup is not None else None)
            data = np.frombuffer(open(img, "rb").read(), np.uint8)
            bare, parts, whole = [], [], []
            for _ in range(a.repeat):
                t = time.perf_counter()
                cv2.imdecode(data, cv2.IMREAD_COLOR)
                bare.append(time.perf_counter() - t)
                t = time.perf_counter()
                try:
                    r = scan_file(img, cal, game_setup)
                except Exception as err:  # noqa: BLE001 - a refused photo still has a time
                    r = None
                    print(f"  {os.path.basename(img)}: {err}")
                whole.append(time.perf_counter() - t)
                if r is not None:
                    parts.append(r.timing_ms)
            tracemalloc.start()
            try:
                scan_file(img, cal, game_setup)
            except Exception:  # noqa: BLE001
                pass
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
            med = lambda k: statistics.median(p.get(k, 0.0) for p in parts) if parts else float("nan")  # noqa: E731
            ratio = statistics.median(whole) / statistics.median(bare)
            ratios.append(ratio)
            lens = f"undistort {med('undistort'):4.1f} " if cal.lens is not None else ""
            print(f"{os.path.relpath(img, a.folder):<26} decode {med('decode'):5.1f} {lens}register {med('register'):5.1f} "
                  f"detect {med('detect'):5.1f} score {med('score'):4.1f} ms | scan {1e3 * statistics.median(whole):5.1f} ms"
                  f" = {ratio:4.2f}x bare imdecode ({1e3 * statistics.median(bare):4.1f} ms)")
    if not ratios:
        print("no photos found")
        return 1
    print(f"ratio to bare decode: median {statistics.median(ratios):.2f}x, max {max(ratios):.2f}x")
    print(f"tracemalloc peak per scan: max {max(peaks) / 2**20:.1f} MB")
    img, cal_dir, setup_json = one
    # the peak RSS of the scan process itself: VmHWM (reset when the process execs), not ru_maxrss,
    # which on Linux keeps the peak of the fork before exec — this benchmark's own, much bigger, RSS
    code = ("import resource, sys; from beachscore.cli import main; main(['scan', sys.argv[1], '--calibration', "
            "sys.argv[2], '--json'] + sys.argv[3:]); "
            "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')] "
            "if sys.platform.startswith('linux') else []; "
            "print(hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", code, img, cal_dir] + (["--setup", setup_json] if setup_json else []),
                       capture_output=True, text=True)
    rss_kb = int(p.stderr.strip().splitlines()[-1])
    print(f"fresh process peak RSS (VmHWM, one scan): {rss_kb / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
