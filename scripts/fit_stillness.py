"""Fit the still-board check's thresholds (vision.preview.stillness.StillnessConfig) on development tables.

For every set-up of the rendered development tables (default /work/renders/dev: seeds 10001-10006)
and of the shared samples, its photos are shrunk to the 640×360 preview and measured three ways,
for each pixel threshold ``noise_k`` tried:

- **still**: one photo repeated with fresh sensor noise (σ 1, 2 and 3 grey levels) and, half-way,
  a darker or brighter light (gain 0.9–1.05, offset ±4): the largest area the check then calls
  changed or moving (mm²; should stay far below ``min_change_mm2``);
- **one piece**: the same photo with one square of ``--piece-mm`` copied onto another place of the
  board (tests/vision/still_frames.py): the changed area (mm², must stay above ``min_change_mm2``);
- **hand**: an arm held still over the board's middle for 3 s (σ 2): the share of frames called
  ``hand`` (must be 1);
- **game steps** (the ``*games*`` sets: consecutive photos of one game, light jittered between them
  by the renderer): the changed area between two photos with no hand and no bump;
- **piece scanned**, **step scanned**: whether the changed board, held still, is scanned exactly once.

Prints a table per ``noise_k``: percentiles of each. ``--json`` prints the rows.

    .venv/bin/python scripts/fit_stillness.py [--dev /work/renders/dev] [--samples ../shared/samples]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vision"))

from still_frames import FPS, Table  # noqa: E402

from vision.preview.stillness import StillBoard, StillnessConfig  # noqa: E402


def setups(roots: list[str]) -> list[str]:
    found = []
    for root in roots:
        found += sorted(d for d in glob.glob(os.path.join(root, "*", "setup*")) + glob.glob(os.path.join(root, "setup*"))
                        if os.path.exists(os.path.join(d, "calibration.json")))
    return found


def photos(folder: str) -> list[str]:
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(folder, "scene_*.jpg")))


def still_areas(table: Table, config: StillnessConfig, rng: np.random.Generator) -> list[tuple[float, str]]:
    """Largest changed-or-moving area (mm²) over a still sequence with noise and one light change,
    with what made it (noise σ, light gain and offset)."""
    out = []
    for sigma in (1.0, 2.0, 3.0):
        gain, offset = rng.uniform(0.9, 1.05), rng.uniform(-4, 4)
        lit = np.clip(table.frame.astype(np.float32) * gain + offset, 0, 255).astype(np.uint8)
        det = StillBoard(table.geometry, config)
        worst = 0.0
        for i, f in enumerate([table.frame] * 15 + [lit] * 15):
            p = det.update(table.noisy(f, sigma), i / FPS)
            if i >= 3 and i not in (15,):  # the frame the light changes at is a motion, rightly
                worst = max(worst, p.changed_mm2, p.moving_mm2)
        out.append((worst, f"sigma {sigma:g}, gain {gain:.3f}, offset {offset:+.1f}"))
    return out


def hand_states(table: Table, config: StillnessConfig) -> float:
    """Share of frames called ``hand`` while an arm holds still over the board for 3 s."""
    det = StillBoard(table.geometry, config)
    frames = [table.frame] * 5 + [table.arm(table.frame, (table.board_mm[0] / 2, table.board_mm[1] / 2))] * 30
    states = [det.update(table.noisy(f, 2.0), i / FPS).state for i, f in enumerate(frames)]
    return states[5:].count("hand") / 30


def change_area(table: Table, config: StillnessConfig, before: np.ndarray, after: np.ndarray) -> tuple[float, bool]:
    """(changed area mm² when the board changes, whether it is scanned once it settled)."""
    det = StillBoard(table.geometry, config)
    for i in range(5):
        det.update(table.noisy(before, 1.0), i / FPS)
    area = det.update(table.noisy(after, 1.0), 0.5).changed_mm2
    states = [det.update(table.noisy(after, 1.0), 0.6 + i / FPS).state for i in range(12)]
    return area, states.count("scan") == 1


def measure(folder: str, config: StillnessConfig, piece_mm: float, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    rows = {"still": [], "piece": [], "step": [], "hand": [], "piece scanned": [], "step scanned": [], "misses": []}
    names = photos(folder)
    games = "games" in folder
    previous = None
    for name in names:
        table = Table(folder, name, seed=seed)
        if not games or name == names[0]:
            rows["still"] += [(area, f"{folder} {name} {how}") for area, how in still_areas(table, config, rng)]
            rows["hand"].append(hand_states(table, config))
            if rows["hand"][-1] < 1:
                rows["misses"].append(f"held arm not always a hand ({rows['hand'][-1]:.2f}): {folder} {name}")
            area, scanned = change_area(table, config, table.frame, table.move_piece(table.frame, piece_mm))
            rows["piece"].append(area)
            rows["piece scanned"].append(float(scanned))
            if not scanned:
                rows["misses"].append(f"moved piece not scanned once: {folder} {name}")
        with open(os.path.join(folder, name.replace(".jpg", ".truth.json")), encoding="utf-8") as f:
            truth = json.load(f)
        clean = not truth.get("occluded") and not truth.get("bumped")
        if games and previous is not None and clean and previous[1]:
            area, scanned = change_area(table, config, previous[0], table.frame)
            rows["step"].append(area)
            rows["step scanned"].append(float(scanned))
            if not scanned:
                rows["misses"].append(f"game step not scanned once: {folder} {name}")
        previous = (table.frame, clean)
        if not games and len(rows["piece"]) >= 3:
            break  # three photos of a set-up of still scenes are enough
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dev", default="/work/renders/dev")
    ap.add_argument("--samples", default=os.path.join(HERE, "..", "..", "shared", "samples"))
    ap.add_argument("--k", default="4,5,6,8", help="noise_k values to try")
    ap.add_argument("--piece-mm", type=float, default=10.0, help="side of the moved square, mm")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    folders = setups([a.dev, a.samples])
    results = []
    for k in (float(x) for x in a.k.split(",")):
        config = StillnessConfig(noise_k=k)
        rows = {"still": [], "piece": [], "step": [], "hand": [], "piece scanned": [], "step scanned": [], "misses": []}
        for i, folder in enumerate(folders):
            for key, vals in measure(folder, config, a.piece_mm, seed=1000 + i).items():
                rows[key] += vals
        misses = rows.pop("misses")
        worst_still = max(rows["still"])
        rows["still"] = [area for area, _ in rows["still"]]
        summary = {"noise_k": k, "setups": len(folders), "worst_still": worst_still[1], "misses": misses,
                   "still_would_scan": float(np.mean(np.asarray(rows["still"]) > config.min_change_mm2))}
        for key, vals in rows.items():
            v = np.asarray(vals) if vals else np.zeros(1)
            summary[key] = {"n": len(vals), "min": round(float(v.min()), 3), "p5": round(float(np.percentile(v, 5)), 3),
                            "p50": round(float(np.median(v)), 3), "p95": round(float(np.percentile(v, 95)), 3),
                            "max": round(float(v.max()), 3)}
        results.append(summary)
        if not a.json:
            print(f"noise_k {k:g} ({len(folders)} set-ups)")
            for key in ("still", "piece", "step", "hand", "piece scanned", "step scanned"):
                s = summary[key]
                unit = {"hand": "share of frames"}.get(key, "1 = scanned once" if "scanned" in key else "mm²")
                print(f"  {key:13s} n={s['n']:4d}  min {s['min']:8.1f}  p5 {s['p5']:8.1f}  median {s['p50']:8.1f}  "
                      f"p95 {s['p95']:8.1f}  max {s['max']:8.1f}  {unit}")
            print(f"  worst still: {worst_still[1]}; still sequences above min_change_mm2 "
                  f"({config.min_change_mm2:g} mm²): {summary['still_would_scan']:.3f}")
            for miss in misses:
                print(f"  {miss}")
    if a.json:
        print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
