#!/usr/bin/env python3
"""Print how long the pure scoring core takes per game (median and worst of many runs, ms).

    .venv/bin/python scripts/bench_scoring.py [--runs 200]

Plażing is timed on a full 20×12 board: the densest shared sample scene when the shared
samples are present, and a synthetic board packed with pieces (many small closed areas).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import scoring  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[1] / "../shared/samples"


def timed(state: dict, setup: dict | None, runs: int) -> tuple[float, float]:
    """Median and max wall time of ``scoring.score`` in milliseconds."""
    scoring.score(state, setup)  # warm the imports
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        scoring.score(state, setup)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), max(times)


def packed_plazing(seed: int = 1) -> tuple[dict, dict]:
    """A 20×12 board with pieces placed at random wherever they fit (seeded)."""
    rng = random.Random(seed)
    shapes = [("screen", [(0, 0), (0, 1), (0, 2)], "N"), ("screen", [(0, 0), (1, 0), (2, 0)], "E"),
              ("blanket", [(0, 0), (0, 1), (1, 0), (1, 1)], None), ("gear", [(0, 0)], None),
              ("gear", [(0, 0), (0, 1)], None)]
    players = ["red", "yellow", "green", "blue"]
    taken, pieces = set(), []
    for _ in range(400):
        kind, shape, facing = rng.choice(shapes)
        r, c = rng.randrange(12), rng.randrange(20)
        cells = [(r + dr, c + dc) for dr, dc in shape]
        if any(not (0 <= y < 12 and 0 <= x < 20) or (y, x) in taken for y, x in cells):
            continue
        if rng.random() < 0.5 and len(pieces) > 60:
            break
        taken.update(cells)
        p = {"player": rng.choice(players), "kind": kind, "cells": [list(x) for x in cells]}
        if facing:
            p["facing"] = facing
        pieces.append(p)
    state = {"game": "plazing", "rows": 12, "cols": 20, "pieces": pieces}
    return state, {"terrain": ["." * 20] * 12, "players": players, "weather": "sun"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    runs = ap.parse_args().runs
    cases: list[tuple[str, dict, dict | None]] = []
    truths = sorted((SAMPLES / "plazing").glob("setup*/scene_*.truth.json"))
    if truths:
        path = max(truths, key=lambda p: len(json.loads(p.read_text())["state"]["pieces"]))
        setup = path.with_name(path.name.replace(".truth.json", ".setup.json"))
        cases.append((f"plazing sample {path.stem} (20×12)", json.loads(path.read_text())["state"],
                      json.loads(setup.read_text()) if setup.exists() else None))
    state, setup = packed_plazing()
    cases.append((f"plazing packed 20×12, {len(state['pieces'])} pieces", state, setup))
    for game in ("strand-unter", "seashells", "sand-castles"):
        found = sorted((SAMPLES / game).glob("setup*/scene_*.truth.json"))
        if found:
            cases.append((f"{game} sample {found[-1].stem}", json.loads(found[-1].read_text())["state"], None))
    print(f"scoring.score, {runs} runs each (ms)")
    for name, state, setup in cases:
        med, worst = timed(state, setup, runs)
        out = scoring.score(state, setup)
        extra = f", {len(out['areas'])} areas" if "areas" in out else ""
        print(f"  {name:<45} median {med:7.3f}  max {worst:7.3f}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
