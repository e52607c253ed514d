#!/usr/bin/env python3
"""Fit each Strand unter castle value's effective height z_v (mm) and measure the camera's height from the castles.

    .venv/bin/python scripts/fit_strand_castle_heights.py --fit FOLDER [FOLDER ...] [--check FOLDER ...]


Each FOLDER is a rendered development table (``profile.json``, ``setupN/calibration.json``). Every
set-up is calibrated with the current reader; its calibration castles' parallax k_v (the coloured
part's displacement from the labelled centre along the ray from the nadir, over the ray,
:func:`vision.strand_unter.calibrate.castle_value_ks`) times the homography's camera height Z gives
z_v = k_v·Z, a property of the piece. ``--fit`` folders (sharp 1080p copies, where the homography's
height is well conditioned) give z_v as the median over set-ups; the spread (median absolute
deviation, 10th–90th percentile) is printed per value.

Every set-up of ``--fit`` and ``--check`` is then listed with its homography height, the castles'
height (:func:`castle_camera_height` with the fitted z_v) and the true height: the homography's
height of its sharp twin (the folder name without ``-wide`` / ``-wideK``, whose clicks are the
renderer's exact corners), when that folder was also given; then the median and 90th percentile
of the relative errors, sharp copies and wide copies apart.

Measured, not adopted (docs/tuning.md, "The camera's height from the castles"): the calibration
does not use the castles' height, so nothing is written to fitted.json.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vision.strand_unter.calibrate as calibrate  # noqa: E402
from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402


def castle_camera_height(castles: dict, nadir_px, heights_mm: dict[str, float]) -> float | None:
    """The camera's height over the board (mm) measured by the calibration castles themselves.

    A castle of value v shows its coloured part displaced from its base by k_v = z_v / Z of its
    distance from the nadir (:func:`vision.strand_unter.calibrate.parallax_model`), and z_v
    (``heights_mm``) is a property of the piece, the same on every table; so 1/Z is the
    least-squares slope of the values' median k over their z: Z = Σ z_v² / Σ z_v·k_v.

    Args:
        castles: ``{player: {value: {"offset_px", "centre_px", …}}}`` (work px) of a calibration.
        nadir_px: (x, y) the camera's nadir in work px.
        heights_mm: ``{value: z_v}`` in mm.
    Returns:
        Z in mm, or None when no castle of a value in ``heights_mm`` stands far enough from the nadir
        or the castles show no displacement away from it (Σ z·k ≤ 0).

    >>> castles = {"red": {"0": {"centre_px": [297.0, 0.0], "offset_px": [-3.0, 0.0]},
    ...                    "1": {"centre_px": [0.0, 196.0], "offset_px": [0.0, -4.0]}}}
    >>> round(castle_camera_height(castles, (0.0, 0.0), {"0": 6.0, "1": 12.0}))
    600
    """
    kv = {v: float(np.median(k)) for v, k in calibrate.castle_value_ks(castles, nadir_px).items() if v in heights_mm}
    den = sum(heights_mm[v] * k for v, k in kv.items())
    return sum(heights_mm[v] ** 2 for v in kv) / den if kv and den > 0 else None


def setups(folder: str):
    """Yield (set-up name, {"castles", "nadir_px", "camera_mm" (the homography's, or None)}) of every
    set-up of ``folder`` that calibrates (the arguments the calibration hands :func:`parallax_model`)."""
    seen: dict = {}
    original, original_nadir = calibrate.parallax_model, calibrate.camera_nadir

    def spy(castles, nadir_px, camera_mm):
        seen.update(castles=castles, nadir_px=[float(x) for x in nadir_px])
        return original(castles, nadir_px, camera_mm)

    def spy_nadir(H, size):
        nadir, height = original_nadir(H, size)
        seen["camera_mm"] = height
        return nadir, height

    calibrate.parallax_model, calibrate.camera_nadir = spy, spy_nadir
    try:
        for sd in sorted(glob.glob(os.path.join(folder, "setup*"))):
            if not os.path.exists(os.path.join(sd, "calibration.json")):
                continue
            seen.clear()
            with tempfile.TemporaryDirectory() as out:
                try:
                    pipeline.calibrate(os.path.join(sd, "calibration.json"), out)
                except (UnreadableBoardError, BadInputError) as e:
                    print(f"{sd}: refused ({e})", file=sys.stderr)
                    continue
            yield os.path.basename(sd), dict(seen)
    finally:
        calibrate.parallax_model, calibrate.camera_nadir = original, original_nadir


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fit", nargs="+", required=True, help="folders whose homography heights fit z_v")
    ap.add_argument("--check", nargs="*", default=[], help="folders only listed (heights against their twins')")
    a = ap.parse_args()
    rows = {}
    for folder in a.fit + a.check:
        for name, s in setups(folder):
            rows[(os.path.basename(os.path.normpath(folder)), name)] = dict(s, fit=folder in a.fit)
    products: dict[str, list] = {}
    for s in rows.values():
        if s["fit"] and s["camera_mm"]:
            for v, k in calibrate.castle_value_ks(s["castles"], s["nadir_px"]).items():
                products.setdefault(v, []).append(float(np.median(k)) * s["camera_mm"])
    heights = {v: round(float(np.median(z)), 2) for v, z in sorted(products.items())}
    print("value  set-ups  z_v mm  MAD   p10–p90")
    for v, z in sorted(products.items()):
        z = np.asarray(z)
        print(f"{v:>5} {len(z):>8} {heights[v]:7.2f} {np.median(np.abs(z - heights[v])):5.2f}  "
              f"{np.percentile(z, 10):.2f}–{np.percentile(z, 90):.2f}")
    print("\nfolder set-up  homography  castles  true (sharp twin)")
    errors: dict[str, list] = {}
    for (f, name), s in rows.items():
        twin = rows.get((re.sub(r"-wideK?$", "", f), name), {}).get("camera_mm")
        zc = castle_camera_height(s["castles"], s["nadir_px"], heights)
        zh = s["camera_mm"]
        print(f"{f} {name} {zh and round(zh)} {zc and round(zc)} {twin and round(twin)}")
        if twin:
            kind = "wide" if f != re.sub(r"-wideK?$", "", f) else "sharp"
            e = errors.setdefault(kind, {"homography": [], "castles": [], "no homography height": 0})
            if zh:
                e["homography"].append(abs(zh / twin - 1))
            else:
                e["no homography height"] += 1
            if zc:
                e["castles"].append(abs(zc / twin - 1))
    for kind, e in errors.items():
        print(kind, {k: (f"n {len(x)}, median |rel. error| {np.median(x):.3f}, p90 {np.percentile(x, 90):.3f}"
                         if isinstance(x, list) and x else x) for k, x in e.items()})


if __name__ == "__main__":
    main()
