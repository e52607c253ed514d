#!/usr/bin/env python3
"""Fit the Strand unter shells' "shell or shadow" model on rendered development tables (and only those).

    .venv/bin/python scripts/fit_strand_shell_shadow.py FOLDER [FOLDER ...] [--write vision/strand_unter/fitted.json]

Each FOLDER holds ``setupN/`` folders with ``calibration.json`` and ``scene_XX.jpg`` +
``scene_XX.truth.json``. Every set-up is calibrated and every scene read twice with the model
switched off: as rendered, and with a shadow band (:func:`shadow_band`: the photo's columns
``BAND`` × ``BAND_GAIN``, a person between the lamp and the table). Every part read as shells is
labelled from the truth:

- a shell (photos as rendered only): its groove's count of its colour was read right;
- not a piece: the truth has no shell of its colour in its groove (a shadow's edge, sand the light
  correction brightened);
- the rest is not labelled.

Each shell colour's contrast share (:func:`vision.strand_unter.castle_cues.contrast_share` against
that colour's learned contrast with the sand) is fitted as a Gaussian by maximum likelihood; the
"not a piece" kind's, pooled over colours (a shadow shows no colour whatever the piece), likewise;
its prior is its share of the labelled parts in the photos as rendered, with one pseudo-count
(the bands make the kind, not its frequency): ``ShellConfig.contrast_shell``, ``contrast_other``,
``contrast_other_prior`` (``fitted.json`` ``shell_contrast``, with the folders' names).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from strand_shell_misses import _capture, groove_rows  # noqa: E402
from beachscore import pipeline  # noqa: E402
from strand_scenes import calibrated_scenes, write_fitted_part  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
import vision.strand_unter.shells as shells_stage  # noqa: E402

BAND = (0.4, 0.6)          # the shadow band's columns, as fractions of the photo's width
BAND_GAIN = 0.75           # the light left in the band


def shadow_band(image: np.ndarray, band=BAND, gain: float = BAND_GAIN) -> np.ndarray:
    """A copy of a BGR uint8 (H, W, 3) photo with columns ``band`` (fractions of W) × ``gain``."""
    out = image.copy()
    w = image.shape[1]
    a, b = int(band[0] * w), int(band[1] * w)
    out[:, a:b] = np.clip(out[:, a:b].astype(np.float32) * gain, 0, 255).astype(np.uint8)
    return out


def collect(folder: str, seen: dict) -> list[tuple[float, str, bool, bool, str]]:
    """[(contrast share, colour, is a shell, banded?, scene)] of one folder's labelled parts."""
    out = []
    for img, state, cal in calibrated_scenes(folder):
        photo = cv2.imread(img)
        for banded in (False, True):
            seen.clear()
            try:
                res = pipeline.scan_image(shadow_band(photo) if banded else photo, cal)
            except (UnreadableBoardError, BadInputError):
                continue
            read = {g["number"]: g for g in res.state["grooves"]}
            for r in groove_rows(seen["parts"].parts, state, read, res.confidence, img):
                right, none = r["truth"] == r["read"], r["truth"] == 0
                for p in r["parts"]:
                    if none or (right and not banded):
                        out.append((float(p["share"]), r["colour"], not none, banded, os.path.relpath(img, folder)))
    return out


def fit(rows: list) -> dict:
    """Gaussian (mean, std) per shell colour and for "not a piece", and the latter's prior."""
    colours = sorted({c for _, c, y, _, _ in rows if y})
    shell = {c: np.array([s for s, cc, y, _, _ in rows if y and cc == c]) for c in colours}
    other = np.array([s for s, _, y, _, _ in rows if not y])
    plain = [y for _, _, y, banded, _ in rows if not banded]
    n_other = sum(not y for y in plain)
    return {"shell": {c: [round(float(v.mean()), 4), round(float(v.std()), 4)] for c, v in shell.items()},
            "other": [round(float(other.mean()), 4), round(float(other.std()), 4)],
            "other_prior": round((n_other + 1) / (len(plain) + 2), 5),
            "parts": {"shell": int(sum(len(v) for v in shell.values())), "other": len(other),
                      "other_unbanded": n_other}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--write", help="put the fitted model into this JSON file (key shell_contrast), keeping the rest")
    args = ap.parse_args()
    seen = _capture()
    shells_stage.shell_posterior = lambda share, colour, cfg=None: 1.0
    rows = []
    for folder in args.folders:
        r = collect(folder, seen)
        print(f"{folder}: {sum(y for _, _, y, _, _ in r)} shells, {sum(not y for _, _, y, _, _ in r)} not pieces")
        rows += [(s, c, y, b, f"{os.path.basename(os.path.normpath(folder))}/{n}") for s, c, y, b, n in r]
    part = fit(rows)
    for s, c, y, b, n in sorted(rows)[:8]:
        print(f"  {s:.3f} {c} {'shell' if y else 'not a piece'}{' (band)' if b else ''} {n}")
    print(json.dumps(part))
    if args.write:
        write_fitted_part(args.write, "shell_contrast", part, args.folders,
                          band={"columns": list(BAND), "gain": BAND_GAIN})


if __name__ == "__main__":
    main()
