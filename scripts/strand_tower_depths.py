#!/usr/bin/env python3
"""Strand unter tower counts: how deep each dark minimum on a castle is, and which depth rule counts
value + 1 towers best, per lightness class (measuring only; the reader is not changed).

    .venv/bin/python scripts/strand_tower_depths.py FOLDER [FOLDER ...] [--dump rows.jsonl]
    .venv/bin/python scripts/strand_tower_depths.py --from rows.jsonl [rows.jsonl ...]

Every set-up of each FOLDER is calibrated and every scene read (:func:`strand_castle_value_misses.rows_of`);
for each castle read with a value whose player the truth has in its groove it keeps, besides that
row, every candidate minimum of :func:`vision.strand_unter.castle_cues.count_towers` before the depth
test (the 8-connected groups of pixels that are the minimum of their window, on the castle) with its
depth: the castle's median grey less the group's darkest (blurred) grey, and that median.

Printed per lightness class (the player's |L(castle) − L(sand)| below 30 or not, OpenCV 8-bit Lab)
and overall: for a depth threshold absolute (grey levels, the reader's ``tower_depth``) or relative to
the castle's median grey (Weber: a shadow takes a share of the light, so its depth grows with the
surface's brightness), or the reader's depth and a least inset into the coloured part (a light colour's
own shadow on its base, just outside it, is darker than the castle), the share of castles whose count
is value + 1, too many and too few.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vision.strand_unter.castles as castles_stage  # noqa: E402
from vision.strand_unter.castle_cues import tower_candidates  # noqa: E402
from vision.strand_unter.config import CASTLES  # noqa: E402

NEAR_DL = 30.0
ABSOLUTE = (3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0, 15.0)
SHARES = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
INSETS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
RELATIVE = (0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.10, 0.12)


def minima_depths(gray: np.ndarray, core: np.ndarray, cfg=CASTLES, bgr: np.ndarray | None = None,
                  sand_lab=None, player_lab=None) -> tuple[list, float]:
    """([depth, inset] of every candidate minimum; the castle's median grey) of one castle, as
    :func:`vision.strand_unter.castle_cues.count_towers` finds them before its depth test: the depth
    in grey levels below the median, the inset the group's largest distance (px) inside the coloured
    part (0: on the one-pixel ring around it).

    >>> g = np.full((15, 15), 100, np.uint8); g[7, 7] = 40
    >>> d, m = minima_depths(g, np.ones((15, 15), bool)); m, len(d), d[0][0] > 5, d[0][1] > 5
    (100.0, 1, True, True)
    """
    if not core.any():
        return [], 0.0
    g, candidates, med = tower_candidates(gray, core, cfg)
    med = float(med)
    inside = cv2.distanceTransform(np.pad(core, 1).astype(np.uint8), cv2.DIST_L2, 3)[1:-1, 1:-1]
    n, lab = cv2.connectedComponents(candidates.astype(np.uint8), connectivity=8)
    share = None
    if bgr is not None:
        share = _player_share(cv2.GaussianBlur(bgr, (0, 0), cfg.tower_sigma_px), sand_lab, player_lab)
    return [[round(med - float(g[lab == i].min()), 3), round(float(inside[lab == i].max()), 2)]
            + ([round(float(share[lab == i].mean()), 3)] if share is not None else [])
            for i in range(1, n)], round(med, 3)


def _player_share(bgr: np.ndarray, sand_lab, player_lab) -> np.ndarray:
    """Per pixel, the (a, b) chromaticity's projection on the sand → player direction (0 at the
    sand's, 1 at the player's colour; OpenCV 8-bit Lab): float (H, W)."""
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).astype(np.float32)[..., 1:]
    s, p = np.asarray(sand_lab, np.float32)[1:], np.asarray(player_lab, np.float32)[1:]
    d = p - s
    return ((lab - s) @ d) / max(float(d @ d), 1e-6)


def _hooked_measure(measure):
    def measure_with_depths(image, gray, fg, core, origin, *a, **k):
        out = measure(image, gray, fg, core, origin, *a, **k)
        rows, cols = slice(origin[0], origin[0] + core.shape[0]), slice(origin[1], origin[1] + core.shape[1])
        out["tower_depths"], out["gray_median"] = minima_depths(gray[rows, cols], core, CASTLES, image[rows, cols],
                                                               a[0], a[1])
        return out
    return measure_with_depths


def rows_with_depths(folder: str) -> list:
    """:func:`strand_castle_value_misses.rows_of` of ``folder`` with each castle's ``tower_depths``
    and ``gray_median``."""
    from strand_castle_value_misses import rows_of
    measure = castles_stage.measure
    castles_stage.measure = _hooked_measure(measure)
    try:
        return rows_of(folder, extra_cues=("tower_depths", "gray_median"))
    finally:
        castles_stage.measure = measure


def agreement(rows: list, count) -> tuple[float, float, float]:
    """(agree, too many, too few) shares of ``count(row)`` against value + 1."""
    d = np.array([count(r) - (int(r["true"]) + 1) for r in rows])
    return float(np.mean(d == 0)), float(np.mean(d > 0)), float(np.mean(d < 0))


def report(rows: list) -> None:
    groups = {"near": [r for r in rows if r["lightness_gap"] < NEAR_DL],
              "far": [r for r in rows if r["lightness_gap"] >= NEAR_DL], "all": rows}
    print(f"{len(rows)} castles: " + ", ".join(f"{k} {len(v)}" for k, v in groups.items()))
    for k, v in groups.items():
        print(f"  {k}: median grey {np.median([r['gray_median'] for r in v]):.1f}, the reader's count agrees "
              f"{agreement(v, lambda r: int(r['towers']))}")
    rules = [(f"absolute {d:g}", lambda r, d=d: sum(x[0] > d for x in r["tower_depths"])) for d in ABSOLUTE]
    rules += [(f"relative {k:g}", lambda r, k=k: sum(x[0] > k * r["gray_median"] for x in r["tower_depths"]))
              for k in RELATIVE]
    rules += [(f"6, inset > {t:g}", lambda r, t=t: sum(x > CASTLES.tower_depth and d[1] > t for x, *d in r["tower_depths"]))
              for t in INSETS]
    if rows and all(len(d) > 2 for r in rows for d in r["tower_depths"]):
        rules += [(f"6, share >= {t:g}", lambda r, t=t: sum(d[0] > CASTLES.tower_depth and d[2] >= t for d in r["tower_depths"]))
                  for t in SHARES]
    print("rule: agree / too many / too few, per class")
    for name, fn in rules:
        print(f"  {name:14s} " + " | ".join(f"{k} " + " / ".join(f"{x:.3f}" for x in agreement(v, fn))
                                             for k, v in groups.items()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--from", dest="sources", nargs="+", default=[])
    ap.add_argument("--dump")
    a = ap.parse_args(argv)
    rows = [json.loads(line) for path in a.sources for line in open(path) if line.strip()]
    for folder in a.folders:
        rows += rows_with_depths(folder)
    if a.dump:
        with open(a.dump, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    if not rows:
        print("no castles read", file=sys.stderr)
        return 1
    report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
