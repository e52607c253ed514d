#!/usr/bin/env python3
"""How far the Plażing registration puts the board from where the truth says it is, with and without
``RegisterConfig.retry_motions``, on rendered tables with truth.

    .venv/bin/python scripts/plazing_registration_check.py FOLDER [FOLDER ...] [--setups setup0,…] [--all]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders whose ``scene_XX.truth.json`` give the
board's corners in the full-size photo (``corners_px``). Every scene goes through the board stage as a
scan does (decoded at the reader's size, lens, markers; from scratch: no earlier bump remembered) once with the retry off
and once on. A scene's error is the largest distance, in board mm, between the board's corners and
the truth's corners taken back through the registration's homography. Prints the scenes whose
registration differs (``--all``: every scene) and per folder: scenes, bumped scenes (truth),
refused (``registration-lost``) and those placed more than ``FAR_MM`` off, off → on.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import UnreadableBoardError  # noqa: E402
from beachscore.games import reader  # noqa: E402
from vision.board.geometry import project  # noqa: E402
from vision.board.stage import locate  # noqa: E402
from vision.plazing.config import REGISTER  # noqa: E402
from vision.plazing.model import ReaderModel  # noqa: E402
from scripts.setup_calibration import calibrate_setup  # noqa: E402

#: A board placed farther off than this (mm, at any corner) is misplaced: half a token's clearance.
FAR_MM = 2.0


def corner_error_mm(H_px_from_mm: np.ndarray, truth_px: np.ndarray, board_mm, px_scale: float) -> float:
    """The largest distance (board mm) between the board's corners and the truth's.

    Args:
        H_px_from_mm: 3×3, board mm → photo px at the decoded size.
        truth_px: float (4, 2), the corners in the full-size photo (TL, TR, BR, BL).
        board_mm: (width, height) of the board, mm.
        px_scale: full-size px per decoded px.
    Returns:
        float, mm.
    """
    w, h = board_mm
    corners = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
    back = project(np.linalg.inv(H_px_from_mm), np.asarray(truth_px, float) / px_scale)
    return float(np.linalg.norm(back - corners, axis=1).max())


def register_both(image: np.ndarray, cal) -> dict:
    """``{"off": H or error code, "on": …}``: the board stage of a scan (:func:`vision.board.stage.locate`:
    lens, markers, the reader's own registration, board in view) without and with the retry, each
    from scratch (no earlier bump remembered). ``image``: BGR uint8 at the reader's scale."""
    register = sys.modules["vision.plazing.register"].register
    keep = register.__defaults__
    out = {}
    try:
        for name, on in (("off", False), ("on", True)):
            register.__defaults__ = (dataclasses.replace(REGISTER, retry_motions=on),)
            ReaderModel.of(cal).last_refined.clear()
            try:
                out[name] = locate(image, cal, reader(cal.game)).registration.H_px_from_mm
            except UnreadableBoardError as err:
                out[name] = err.code
    finally:
        register.__defaults__ = keep
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--setups", help="comma-separated set-up folder names (default: all)")
    ap.add_argument("--all", action="store_true", help="print every scene, not only those that differ")
    a = ap.parse_args()
    import vision.plazing.register  # noqa: F401  (the module, not the function the package exports)
    setups = set(a.setups.split(",")) if a.setups else None
    for folder in a.folders:
        tally = {k: [0, 0] for k in ("lost", "far")}
        n = bumped = 0
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            if setups and os.path.basename(setup) not in setups:
                continue
            cal = calibrate_setup(setup, "plazing-reg-")
            if cal is None:
                continue
            for tpath in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
                truth = json.load(open(tpath))
                if "corners_px" not in truth:
                    continue
                img_path = tpath.replace(".truth.json", ".jpg")
                image = pipeline.at_reader_scale(pipeline.read_image(img_path, reduce=pipeline._decode_reduce(cal)),
                                                 cal, reader(cal.game))
                scale = cal.image_size[0] / image.shape[1]
                truth_px = np.asarray(truth["corners_px"], float)
                if cal.lens is not None:  # the homography holds in the undistorted photo
                    truth_px = cal.lens.undistort_points(truth_px, *cal.image_size)
                got = register_both(image, cal)
                row = {}
                for k, H in got.items():
                    if isinstance(H, str):
                        row[k] = H
                        tally["lost"][k == "on"] += 1
                    else:
                        e = corner_error_mm(H, truth_px, cal.profile["board_mm"], scale)
                        row[k] = round(e, 2)
                        tally["far"][k == "on"] += e > FAR_MM
                n += 1
                bumped += bool(truth.get("bumped"))
                if a.all or row["off"] != row["on"]:
                    print(f"  {os.path.relpath(img_path, folder)}: bumped {bool(truth.get('bumped'))}, "
                          f"hand {bool(truth.get('occluded'))}, error mm off {row['off']} → on {row['on']}")
        print(f"{folder}: {n} scenes, {bumped} bumped; lost {tally['lost'][0]} → {tally['lost'][1]}, "
              f"off by > {FAR_MM} mm {tally['far'][0]} → {tally['far'][1]}", flush=True)


if __name__ == "__main__":
    main()
