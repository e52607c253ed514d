#!/usr/bin/env python3
"""The shadow-band break test on Strand unter development tables: do phantom shells come out trusted?

    .venv/bin/python scripts/strand_band_check.py FOLDER [FOLDER ...] [--band LO HI GAIN ...]

Every scene of every set-up of each FOLDER (``setupN/`` with ``calibration.json``, ``scene_XX.jpg``
and ``scene_XX.truth.json``) is read with a shadow band (the photo's columns LO–HI, fractions of its
width, × GAIN; default 0.4 0.6 0.75 and 0.35 0.55 0.75) and counted as: *phantom trusted* (more
shells of some colour than the truth and confidence ≥ ½), *phantom doubted* (the same below ½),
*refused*, or *no phantom*. ``BEACHSCORE_ROOT`` (default: this checkout) names the reader measured.
"""

from __future__ import annotations

import argparse
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.environ.get("BEACHSCORE_ROOT", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")))

from beachscore import pipeline  # noqa: E402
from strand_scenes import calibrated_scenes  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402


def shadow_band(image: np.ndarray, lo: float, hi: float, gain: float) -> np.ndarray:
    """A copy of a BGR uint8 (H, W, 3) photo with columns lo–hi (fractions of W) × gain."""
    out = image.copy()
    w = image.shape[1]
    a, b = int(lo * w), int(hi * w)
    out[:, a:b] = np.clip(out[:, a:b].astype(np.float32) * gain, 0, 255).astype(np.uint8)
    return out


def totals(state: dict) -> dict:
    """Shells per colour over every groove of a state."""
    return {c: sum(g["shells"][c] for g in state["grooves"]) for c in state["grooves"][0]["shells"]}


def check(folder: str, bands: list) -> dict:
    """{"phantom trusted", "phantom doubted", "refused", "no phantom": count, "trusted": [scene names]}."""
    out = {"phantom trusted": 0, "phantom doubted": 0, "refused": 0, "no phantom": 0, "trusted": []}
    for img, state, cal in calibrated_scenes(folder):
        true = totals(state)
        photo = cv2.imread(img)
        for lo, hi, gain in bands:
            try:
                res = pipeline.scan_image(shadow_band(photo, lo, hi, gain), cal)
            except (UnreadableBoardError, BadInputError):
                out["refused"] += 1
                continue
            read = totals(res.state)
            if any(read[c] > true[c] for c in read):
                kind = "phantom trusted" if res.confidence >= 0.5 else "phantom doubted"
                out[kind] += 1
                if res.confidence >= 0.5:
                    out["trusted"].append(f"{os.path.relpath(img, folder)} {lo}-{hi} {res.confidence:.2f}")
            else:
                out["no phantom"] += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--band", nargs=3, type=float, action="append", metavar=("LO", "HI", "GAIN"))
    args = ap.parse_args()
    bands = args.band or [(0.4, 0.6, 0.75), (0.35, 0.55, 0.75)]
    for folder in args.folders:
        r = check(folder, bands)
        print(f"{os.path.basename(os.path.normpath(folder))}: phantom trusted {r['phantom trusted']}, doubted "
              f"{r['phantom doubted']}, refused {r['refused']}, none {r['no phantom']}  {r['trusted']}", flush=True)


if __name__ == "__main__":
    main()
