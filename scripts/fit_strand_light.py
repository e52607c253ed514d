#!/usr/bin/env python3
"""Fit the Strand unter "light" decision on rendered development tables (and only those).

    .venv/bin/python scripts/fit_strand_light.py FOLDER [FOLDER ...] [--rows rows.json]
        [--hold-out NAME ...]

The "light" decision says how sure a reading can be once the light's colour has changed since
calibration: the piece-free surround's colour error after the scan's correction, ``residual_ab``
(Lab units), turns into the posterior ``exp(-(residual_ab / light_sigma_ab)² / 2)``
(:class:`~vision.strand_unter.config.ConfidenceConfig` ``light_sigma_ab``); the fit also tries a
floor, an error up to which would cost nothing.

Every set-up of every FOLDER (the layout of ``../shared/render`` output) is calibrated and every
scene read in this process; for each reading it records whether the state is right
(``../shared/tools/evaluate.py``'s comparison), ``residual_ab``, the product of the reading's other
decisions and its cap. It then chooses the pair (sigma, floor) on a grid that maximises the
likelihood of the readings' rightness given their confidence (log c when right, log (1 − c) when
wrong) and prints, for each grid point, that log likelihood and the scenes trusted (right at
confidence ≥ 0.5) and silently wrong (wrong at ≥ 0.5). ``--hold-out`` names folders that are
left out of the fit and counted apart. ``--rows`` caches the readings (read when it exists).

It prints and writes nothing to the reader: ``docs/tuning.md`` ("The light decision's width") says
why the width was kept. Never pass judging tables.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
import vision.strand_unter.reading as reading  # noqa: E402
from vision.strand_unter.confidence import Decisions  # noqa: E402
from strand_scenes import calibrated_truths, compare_strand  # noqa: E402

SIGMAS = (4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 12.0, 14.0, 16.0, 20.0, 25.0, 30.0, 1e9)
FLOORS = (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
TRUST = 0.5


class _Seen(Decisions):
    """The reader's decisions, kept for a look after the reading."""

    last = None

    def result(self, *a, **k):
        _Seen.last = self
        return super().result(*a, **k)


def collect(folder: str, compare) -> list[dict]:
    """One row per scene read: folder, scene, right, residual_ab, other (the product of every
    decision but "light"), cap."""
    rows = []
    reading.Decisions = _Seen
    for img, truth, cal in calibrated_truths(folder, skip_refused=True):
        _Seen.last = None
        try:
            res = pipeline.scan_file(img, cal)
        except (UnreadableBoardError, BadInputError):
            continue
        d = _Seen.last
        other = math.prod(q for what, q, _ in d.items if what != "light")
        errs, _ = compare(truth, res.state)
        rows.append({"folder": os.path.basename(os.path.normpath(folder)),
                     "scene": os.path.relpath(img, folder), "right": not errs, "errors": errs,
                     "occluded": bool(truth.get("occluded")),
                     "residual_ab": float(res.reading.details["residual_ab"]),
                     "other": other, "cap": d.cap, "confidence": res.confidence,
                     "weak": [(what, round(q, 3)) for what, q, _ in d.items if q < 0.9]})
    return rows


def light_posterior(residual_ab: np.ndarray, sigma: float, floor: float) -> np.ndarray:
    """The "light" posterior of colour errors ``residual_ab`` (Lab units), as the reader takes it."""
    excess = np.maximum(np.asarray(residual_ab, np.float64) - floor, 0.0)
    return np.exp(-0.5 * (excess / sigma) ** 2)


def score(rows: list[dict], sigma: float, floor: float) -> tuple[float, int, int, int]:
    """(log likelihood of the rightness, right, trusted, silent wrong) of ``rows`` under (sigma, floor)."""
    if not rows:
        return 0.0, 0, 0, 0
    r = np.array([x["residual_ab"] for x in rows])
    conf = np.minimum(np.array([x["other"] for x in rows]) * light_posterior(r, sigma, floor),
                      np.array([x["cap"] for x in rows]))
    right = np.array([x["right"] for x in rows])
    c = np.clip(conf, 1e-6, 1 - 1e-6)
    ll = float(np.sum(np.where(right, np.log(c), np.log(1 - c))))
    return ll, int(right.sum()), int(np.sum(right & (conf >= TRUST))), int(np.sum(~right & (conf >= TRUST)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--rows", help="cache of the readings (JSON), read when it exists")
    ap.add_argument("--hold-out", nargs="*", default=[], help="folder names counted apart, not fitted on")
    args = ap.parse_args()
    if args.rows and os.path.exists(args.rows):
        with open(args.rows) as f:
            rows = json.load(f)
    else:
        compare, rows = compare_strand(), []
        for folder in args.folders:
            rows += collect(folder, compare)
            print(f"{folder}: {sum(r['folder'] == os.path.basename(os.path.normpath(folder)) for r in rows)} readings",
                  flush=True)
        if args.rows:
            with open(args.rows, "w") as f:
                json.dump(rows, f)
    fit = [r for r in rows if r["folder"] not in args.hold_out]
    held = [r for r in rows if r["folder"] in args.hold_out]
    grid = [(s, fl) + score(fit, s, fl) + score(held, s, fl) for s in SIGMAS for fl in FLOORS]
    print(f"{len(fit)} readings fitted on ({sum(not r['right'] for r in fit)} wrong), {len(held)} held out")
    print("sigma floor | fit: log L, right, trusted, silent | held out: log L, right, trusted, silent")
    for g in grid:
        print(f"{g[0]:6g} {g[1]:4g} | {g[2]:8.2f} {g[3]:4d} {g[4]:4d} {g[5]:3d} | {g[6]:8.2f} {g[7]:4d} {g[8]:4d} {g[9]:3d}")
    best = max(grid, key=lambda g: g[2])
    print(f"best: width {best[0]:g}, floor {best[1]:g} (Lab units)")


if __name__ == "__main__":
    main()
