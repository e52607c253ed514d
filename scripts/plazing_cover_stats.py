#!/usr/bin/env python3
"""The cover share of every placeable cell of every scene the Plażing reader reads, against the
truth, kept on disk so that the cover threshold can be measured without reading again.

    .venv/bin/python scripts/plazing_cover_stats.py FOLDER [FOLDER ...] --cache DIR [--placed-mm MM]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders with truth. ``DIR/<folder's last two
path parts>.json`` (:func:`fit_plazing.cache_name`) holds one row per read scene: ``name``,
``px_per_mm`` (the photo's scale), ``placed_mm`` (how far the reader placed the board's corners
from the truth's ``corners_px``, the largest of the four, in board mm, the photo's lens taken out;
−1 without truth corners), ``occluded`` (a hand in the truth) and, per placeable cell (closing
terrain ``#`` left out), ``[row, col, top, second, best, truth, meeple]``:

- ``top``, ``second``: the largest and second largest share of the cell's ring in one player's
  colour (:func:`vision.plazing.cells.cover_shares`), ``best``: that player's index;
- ``truth``: the index of the player whose piece covers the cell in the truth, −1 none (−2: a
  player the calibration does not know);
- ``meeple``: the index of the player whose meeple stands on the cell, −1 none (−2 likewise).

The summary, over the scenes without a hand whose board was placed within ``--placed-mm`` (a board
placed off by a good part of a cell is the registration's failure, not the cover's), prints per
truth (covered by a piece, bare, a meeple on it) the top shares' quantiles and how many fall on the
wrong side of ``COVER.covered_share``, then the threshold that fewest cells fall on the wrong side
of and the logistic fit (slope, midpoint) of the cover posterior on the cells whose share lies in
0.1–0.6 (those beyond are sure either way). Pass development folders only. A folder already in
``DIR`` is not read again.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fit_plazing import cached_folder, calibrated_setups, scanned_scenes  # noqa: E402
from vision.plazing import view as view_module  # noqa: E402
from vision.plazing.cells import cover_shares  # noqa: E402
from vision.plazing.config import COVER  # noqa: E402
from vision.plazing.model import ReaderModel  # noqa: E402
from vision.board.geometry import board_corners_mm, project  # noqa: E402
from vision.plazing.rectify import DECODE_REDUCE, photo_px_per_mm  # noqa: E402


def read_folder(folder: str) -> list:
    """The rows of one folder (see the module docstring)."""
    seen = []
    real_init = view_module.View.__init__

    def spy(self, *a, **k):  # the scan's last view is the one whose cover is decided
        real_init(self, *a, **k)
        seen.append(cover_shares(self.player_blocks, self.cells))

    view_module.View.__init__ = spy
    rows = []
    try:
        for setup, cal in calibrated_setups(folder, prefix="plazing-cover-"):
            players = ReaderModel.of(cal).players
            for tpath, truth, setup_doc, res in scanned_scenes(setup, cal, seen):
                if seen:
                    rows.append(_scene_row(os.path.relpath(tpath, folder), seen[-1], truth, setup_doc, players, res,
                                           cal))
    finally:
        view_module.View.__init__ = real_init
    return rows


def _placed_mm(res, truth_doc: dict, cal) -> float:
    """The largest distance (board mm) between a board corner where the reader placed it and the
    truth's (full-size photo px, brought to the reader's decode at 1/``DECODE_REDUCE``), both in the
    reader's lens-free photo; −1 when the truth has no corners."""
    truth_px = truth_doc.get("corners_px")
    if not truth_px:
        return -1.0
    truth_px = np.asarray(truth_px, float) / DECODE_REDUCE
    if cal.lens is not None:
        h, w = res.photo.image.shape[:2]
        truth_px = cal.lens.undistort_points(truth_px, w, h)
    H = res.registration.H_px_from_mm
    corners_mm = board_corners_mm(cal.profile["board_mm"])
    read_px = project(H, corners_mm)
    ppm = photo_px_per_mm(H, corners_mm.mean(axis=0))
    return round(float(np.linalg.norm(read_px - truth_px, axis=1).max() / ppm), 2)


def _scene_row(name: str, shares: np.ndarray, truth_doc: dict, setup_doc, players: list, res, cal) -> dict:
    truth = truth_doc["state"]
    terrain = (setup_doc or {}).get("terrain")
    index = {p: i for i, p in enumerate(players)}
    covered = {tuple(c): index.get(p["player"], -2) for p in truth["pieces"] for c in p["cells"]}
    meeples = {tuple(m["cell"]): index.get(m["player"], -2) for m in truth["meeples"]}
    order = np.sort(shares, axis=-1)
    cells = []
    for r in range(shares.shape[0]):
        for c in range(shares.shape[1]):
            if terrain is not None and terrain[r][c] == "#":
                continue
            cells.append([r, c, round(float(order[r, c, -1]), 4),
                          round(float(order[r, c, -2]), 4) if shares.shape[2] > 1 else 0.0,
                          int(shares[r, c].argmax()), covered.get((r, c), -1), meeples.get((r, c), -1)])
    grid = res.reading.details["grid"]
    centre = [o + 0.5 * n * grid.cell_mm for o, n in zip(grid.origin_mm, (grid.cols, grid.rows))]
    return {"name": name, "px_per_mm": round(photo_px_per_mm(res.registration.H_px_from_mm, centre), 4),
            "placed_mm": _placed_mm(res, truth_doc, cal), "occluded": bool(truth_doc.get("occluded")),
            "cells": cells}


def summary(data: dict, placed_mm: float) -> None:
    """Per truth kind, the shares' quantiles and the cells on the wrong side of the threshold; the
    threshold with the fewest on the wrong side; the cover posterior's logistic fit."""
    t = COVER.covered_share
    kinds = {"covered": [], "free": [], "meeple": []}
    worst = []
    left_out = 0
    for folder, rows in data.items():
        for row in rows:
            if row["occluded"]:
                continue
            if row["placed_mm"] > placed_mm:
                left_out += 1
                continue
            for r, c, top, _, best, truth, meeple in row["cells"]:
                kind = "covered" if truth >= 0 else ("meeple" if meeple >= 0 else "free")
                kinds[kind].append(top)
                if (kind == "covered") == (top < t):
                    worst.append((kind, top, folder, row["name"], r, c, row["px_per_mm"], row["placed_mm"]))
    print(f"scenes left out, board placed more than {placed_mm} mm off: {left_out}")
    for kind, v in kinds.items():
        v = np.array(v)
        if not len(v):
            continue
        q = np.quantile(v, [0.001, 0.01, 0.05, 0.5, 0.95, 0.99, 0.999])
        wrong = int(((v < t) if kind == "covered" else (v >= t)).sum())
        print(f"{kind:8s} n={len(v):6d} quantiles(.001 .01 .05 .5 .95 .99 .999)="
              f"{' '.join(f'{x:.3f}' for x in q)} wrong side of {t}: {wrong}")
    for w in sorted(worst, key=lambda w: w[1]):
        print("  ", *w)
    covered = np.array(kinds["covered"])
    bare = np.array(kinds["free"] + kinds["meeple"])
    ts = np.round(np.arange(0.15, 0.45, 0.005), 3)
    errors = [int((covered < x).sum() + (bare >= x).sum()) for x in ts]
    best = ts[int(np.argmin(errors))]
    print(f"fewest cells on the wrong side: {min(errors)} at {best} (at {t}: "
          f"{int((covered < t).sum() + (bare >= t).sum())})")
    slope, mid = logistic_fit(np.concatenate([covered, bare]),
                              np.concatenate([np.ones(len(covered)), np.zeros(len(bare))]))
    print(f"cover posterior, logistic on shares 0.1-0.6: slope {slope:.1f} per share, midpoint {mid:.3f}")


def logistic_fit(x: np.ndarray, y: np.ndarray, lo: float = 0.1, hi: float = 0.6) -> tuple[float, float]:
    """Maximum-likelihood ``(slope, midpoint)`` of P(y = 1 | x) = 1 / (1 + exp(−slope (x − midpoint)))
    over the samples with ``lo`` < x < ``hi`` (Newton's method). x, y: float (N,)."""
    keep = (x > lo) & (x < hi)
    x, y = x[keep], y[keep]
    a, b = 25.0, -25.0 * COVER.covered_share
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(a * x + b)))
        w = p * (1 - p)
        grad = np.array([((y - p) * x).sum(), (y - p).sum()])
        hess = np.array([[(w * x * x).sum(), (w * x).sum()], [(w * x).sum(), w.sum()]])
        step = np.linalg.solve(hess, grad)
        a, b = a + step[0], b + step[1]
        if np.abs(step).max() < 1e-9:
            break
    return float(a), float(-b / a)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--placed-mm", type=float, default=5.0,
                    help="leave out scenes whose board the reader placed farther off than this (mm)")
    args = ap.parse_args(argv)
    data = {f: cached_folder(f, args.cache, read_folder) for f in args.folders}
    summary(data, args.placed_mm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
