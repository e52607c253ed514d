#!/usr/bin/env python3
"""Print what the still-board check costs per 640×360 preview frame (median, 95th percentile and
worst, ms) and its ratio to the budget (5 ms: a Raspberry Pi 4 keeps up with ten frames a second
at about four times this machine's time).

    .venv/bin/python scripts/bench_preview.py [--frames 600] [--budget-ms 5]

The frames are made from the example table photo and, when present, the shared samples'
(tests/vision/still_frames.py): a still board with sensor noise, a piece moved, an arm with its
hand over the board, and the board again; as BGR frames and as Y planes (picamera2's ``lores``).
The noise is drawn before the clock starts: only ``StillBoard.update`` is timed, in wall time and
in the thread's own CPU time (what other processes on a shared machine do not inflate).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "vision"))

from still_frames import EXAMPLE, FPS, SAMPLES, Table  # noqa: E402

from vision.preview.stillness import StillBoard, grey_of  # noqa: E402


def sequence(table: Table, n: int) -> list[np.ndarray]:
    """``n`` noisy frames: a quarter still, a quarter changing, a quarter with a hand, a quarter settled."""
    moved = table.move_piece(table.frame)
    q = n // 4
    frames = [table.frame] * q + [table.move_piece(moved) if i % 3 else moved for i in range(q)]
    frames += [table.arm(moved, (200, 150), 1.0) for _ in range(q)] + [moved] * (n - 3 * q)
    return [table.noisy(f) for f in frames]


def time_frames(table: Table, frames: list[np.ndarray]) -> tuple[list[float], list[float]]:
    """Wall and thread-CPU milliseconds of each frame's check."""
    check = StillBoard(table.geometry)
    check.update(frames[0], 0.0)  # the region's masks are built once per preview size
    wall, cpu = [], []
    for i, f in enumerate(frames):
        t, c = time.perf_counter(), time.thread_time()
        check.update(f, (i + 1) / FPS)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.thread_time() - c) * 1000)
    return wall, cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=600, help="frames per table and kind")
    ap.add_argument("--budget-ms", type=float, default=5.0)
    a = ap.parse_args(argv)
    tables = [("example", EXAMPLE, "scene_05.jpg")] + [
        (game, os.path.join(SAMPLES, game, "setup0"), "scene_00.jpg") for game in ("plazing", "strand-unter")]
    every, every_cpu = [], []
    print(f"still-board check per 640x360 preview frame ({a.frames} frames per row), ms (wall | thread CPU)")
    for name, folder, photo in tables:
        if not os.path.exists(os.path.join(folder, photo)):
            continue
        table = Table(folder, photo, seed=11)
        bgr = sequence(table, a.frames)
        for kind, frames in (("BGR", bgr), ("Y plane", [grey_of(f) for f in bgr])):
            times, cpu = time_frames(table, frames)
            every += times
            every_cpu += cpu
            print(f"  {name:13s} {kind:8s} median {statistics.median(times):5.2f} | {statistics.median(cpu):5.2f}  "
                  f"p95 {np.percentile(times, 95):5.2f} | {np.percentile(cpu, 95):5.2f}  "
                  f"max {max(times):6.2f} | {max(cpu):6.2f}")
    for what, vals in (("wall", every), ("thread CPU", every_cpu)):
        median, worst = statistics.median(vals), max(vals)
        print(f"all, {what}: median {median:.2f} ms, p95 {np.percentile(vals, 95):.2f} ms, max {worst:.2f} ms; "
              f"median / budget {median / a.budget_ms:.2f}, max / budget {worst / a.budget_ms:.2f} "
              f"(budget {a.budget_ms:g} ms)")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
