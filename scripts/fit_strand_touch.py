#!/usr/bin/env python3
"""Fit the Strand unter sandpiper's blob area, alone and with a shell touching it, on rendered development tables.

    .venv/bin/python scripts/fit_strand_touch.py FOLDER [FOLDER ...] [--write vision/strand_unter/fitted.json]

Each FOLDER holds ``setupN/`` folders with ``calibration.json`` and ``scene_XX.jpg`` +
``scene_XX.truth.json``. Every set-up is calibrated and every scene read
(:func:`strand_shell_misses.scenes`); each photo where the sandpiper was found is labelled from the
truth: *touched* when its groove holds more shells in the truth than were read (the shell that
merged into the bird's blob went uncounted), else *alone*.

- ``alone_log_area``, ``alone_sigma``, ``alone_dof`` (:class:`~vision.strand_unter.config.BirdConfig`):
  the Student t of log (blob area / the calibration bird's) of the alone blobs, by maximum
  likelihood on a grid;
- ``touch_prior``: the touched share, with one pseudo-count each way ((touched + 1) / (n + 2)).

With ``--write`` they go to ``fitted.json``'s ``sandpiper_area`` (``mu``, ``sigma``, ``dof``,
``touch_prior``) with the folders' names; the file's other keys are kept. Never pass judging tables.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from strand_scenes import write_fitted_part  # noqa: E402
from strand_shell_misses import _capture, groove_rows, scenes  # noqa: E402
from vision.strand_unter.castle_values import student_t_logpdf  # noqa: E402

MUS = np.round(np.arange(-0.15, 0.1001, 0.005), 3)
SIGMAS = np.round(np.arange(0.03, 0.2001, 0.005), 3)
DOFS = (1.5, 2.0, 3.0, 4.0, 6.0, 10.0, 30.0)


def collect(folder: str, seen: dict) -> list[dict]:
    """[{"scene", "log_ratio", "touched"}] of the photos of ``folder`` where the bird was found."""
    out = []
    for img, state, res in scenes(folder, seen):
        if "bird" not in seen:
            continue
        b = seen["bird"]
        read = {g["number"]: g for g in res.state["grooves"]}
        rows = groove_rows(seen["parts"].parts, state, read, res.confidence, img)
        missed = sum(max(r["truth"] - r["read"], 0) for r in rows if r["groove"] == b["groove"])
        out.append({"scene": os.path.relpath(img, folder), "log_ratio": b["log_ratio"], "touched": missed > 0})
    return out


def fit(rows: list) -> dict:
    """The alone blobs' Student t (mu, sigma, dof) by maximum likelihood and the touched share."""
    r = np.array([x["log_ratio"] for x in rows if not x["touched"]])
    best = None
    for dof in DOFS:
        for mu in MUS:
            ll = student_t_logpdf((r[None, :] - mu) / SIGMAS[:, None], dof).sum(axis=1) - len(r) * np.log(SIGMAS)
            j = int(np.argmax(ll))
            if best is None or ll[j] > best[0]:
                best = (float(ll[j]), dof, float(mu), float(SIGMAS[j]))
    touched = sum(x["touched"] for x in rows)
    return {"mu": best[2], "sigma": best[3], "dof": best[1], "touch_prior": round((touched + 1) / (len(rows) + 2), 4),
            "blobs": len(rows), "touched": touched, "log_likelihood": round(best[0], 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--write", help="put the fitted model into this JSON file (key sandpiper_area), keeping the rest")
    args = ap.parse_args()
    seen = _capture()
    rows = []
    for folder in args.folders:
        r = collect(folder, seen)
        name = os.path.basename(os.path.normpath(folder))
        print(f"{folder}: {len(r)} sandpipers, {sum(x['touched'] for x in r)} touched")
        rows += [dict(x, scene=f"{name}/{x['scene']}") for x in r]
    part = fit(rows)
    for x in sorted(rows, key=lambda x: -x["log_ratio"])[:12]:
        print(f"  {x['log_ratio']:.3f} {'touched' if x['touched'] else 'alone'} {x['scene']}")
    print(json.dumps(part))
    if args.write:
        write_fitted_part(args.write, "sandpiper_area", part, args.folders, script="scripts/fit_strand_touch.py")


if __name__ == "__main__":
    main()
