#!/usr/bin/env python3
"""Fit the Strand unter castles' "piece or shadow" model on rendered development tables (and only those).

    .venv/bin/python scripts/fit_strand_shadow.py FOLDER [FOLDER ...] [--write vision/strand_unter/fitted.json]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders with ``calibration.json`` and
``scene_XX.jpg`` + ``scene_XX.truth.json``. Every set-up is calibrated and every scene read with
the model switched off; every player-coloured part the castle stage looked at is labelled from
the truth:

- a castle: read with a value that its player has in that groove;
- not a piece: its player has no castle in that groove and it was not read as a tinted shell (a
  castle's shadow on warm sand, a hand, taking the player's colour);
- the rest (a value its player does not have there, a part left out) is not labelled.

Each kind's contrast share (:func:`vision.strand_unter.castle_cues.contrast_share`) is fitted as a
Gaussian by maximum likelihood (mean, standard deviation), and the prior of "not a piece" is its
share of the labelled parts: ``CastleConfig.contrast_castle``, ``contrast_other``,
``contrast_other_prior`` (``fitted.json`` ``castle_contrast``, with the folders' names).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from fit_strand import scanned_scenes  # noqa: E402
from strand_scenes import write_fitted_part  # noqa: E402
import vision.strand_unter.castles as castles_stage  # noqa: E402
import vision.strand_unter.reading as reading  # noqa: E402


def _capture() -> dict:
    """Read with the model switched off and keep every castle candidate of the last scan."""
    seen: dict = {}
    find = reading.find_castles

    def castles(*a, **k):
        out = find(*a, **k)
        seen["castles"] = out[0]
        return out
    reading.find_castles = castles
    castles_stage.castle_posterior = lambda share, cfg=None: 1.0
    return seen


def label(c, truth: dict) -> bool | None:
    """True: a castle; False: not a piece; None: not labelled (see the module docstring)."""
    g = truth.get(c.groove)
    if g is None:
        return None
    mine = [t["value"] for t in g["castles"] if t["player"] == c.player]
    if c.value is not None and c.value in mine:
        return True
    if not mine and c.shell is None:
        return False
    return None


def collect(folder: str, seen: dict) -> list[tuple[float, bool, str]]:
    """[(contrast share, is a castle, scene)] of one folder's labelled candidates."""
    out = []
    for img, state in scanned_scenes(folder, seen):
        truth = {g["number"]: g for g in state["grooves"]}
        for c in seen.get("castles", []):
            y = label(c, truth)
            if y is not None:
                out.append((float(c.cues["contrast_share"]), y, os.path.relpath(img, folder)))
    return out


def fit(rows: list) -> dict:
    """Gaussian (mean, std) per kind by maximum likelihood and the prior of "not a piece"."""
    real = np.array([s for s, y, _ in rows if y])
    other = np.array([s for s, y, _ in rows if not y])
    return {"castle": [round(float(real.mean()), 4), round(float(real.std()), 4)],
            "other": [round(float(other.mean()), 4), round(float(other.std()), 4)],
            "other_prior": round(len(other) / (len(real) + len(other)), 5),
            "parts": {"castle": len(real), "other": len(other)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--write", help="put the fitted model into this JSON file (key castle_contrast), keeping the rest")
    args = ap.parse_args()
    seen = _capture()
    rows = []
    for folder in args.folders:
        r = collect(folder, seen)
        print(f"{folder}: {sum(y for _, y, _ in r)} castles, {sum(not y for _, y, _ in r)} not pieces")
        rows += [(s, y, f"{os.path.basename(os.path.normpath(folder))}/{n}") for s, y, n in r]
    part = fit(rows)
    for s, y, n in sorted(rows)[:12]:
        print(f"  {s:.3f} {'castle' if y else 'not a piece'} {n}")
    print(json.dumps(part))
    if args.write:
        write_fitted_part(args.write, "castle_contrast", part, args.folders)


if __name__ == "__main__":
    main()
