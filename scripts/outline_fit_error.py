"""The outline fit's error against exact corners, per set-up and stage (shot as taken, undistorted).

For a folder of set-ups whose calibration.json corners are off (``-wide``) and a twin folder with the
exact corners of the same photos (``-wideK``), or one folder alone (its own clicks taken as exact):
per set-up, the corners :func:`vision.board.outline_fit.fit_outline` finds (its keep threshold off,
so the raw fit is shown) are compared with the exact ones:

- ``taken``: the fit in the shot as taken, from the clicks;
- ``undist``: the fit in the undistorted shot (the lens found around the exact corners), from the
  clicks carried into it; the exact corners carried by the same lens;
- ``final``: what :func:`beachscore.pipeline._shot_geometry` ends with (back in the shot as taken),
  including the keep threshold.

Columns: the largest corner error in px and board mm; ``in`` the mean inward offset of each side
(top, right, bottom, left; board mm, + = inside the board) from the corners' errors in board mm
(the exact homography); ``moved`` whether the pipeline moved the clicks.

Usage: python scripts/outline_fit_error.py CLICK_FOLDER [EXACT_FOLDER] [--window-mm 5] ...
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from beachscore import pipeline  # noqa: E402
from calibration.files import load_calibration_request  # noqa: E402
from vision.board import outline_fit as of  # noqa: E402
from vision.board.geometry import board_corners_mm, board_px_per_mm, homography_from_corners, project  # noqa: E402
from vision.board.undistort import find_lens  # noqa: E402
from vision.image.decode import read_image  # noqa: E402


def inward_mm(fitted_px, exact_px, board):
    """Per side (top, right, bottom, left) the mean inward offset (board mm) of the fitted corners."""
    H = homography_from_corners(exact_px, board)
    mm = project(np.linalg.inv(H), np.asarray(fitted_px, np.float64))
    w, h = board
    tl, tr, br, bl = mm
    return [(tl[1] + tr[1]) / 2, w - (tr[0] + br[0]) / 2, h - (br[1] + bl[1]) / 2, (tl[0] + bl[0]) / 2]


def row(name, fitted, exact, board):
    if fitted is None:
        return f"{name:7s} (no fit)"
    ppm = board_px_per_mm(homography_from_corners(exact, board), board)
    err = np.linalg.norm(np.asarray(fitted) - exact, axis=1)
    ins = inward_mm(fitted, exact, board)
    return (f"{name:7s} err {err.max():5.2f} px {err.max() / ppm:5.2f} mm  in T/R/B/L "
            + " ".join(f"{v:+5.2f}" for v in ins))


def raw_fit(image, corners, board, cfg):
    fit = of.fit_outline(image, corners, board, dataclasses.replace(cfg, keep_clicked_mm=0.0))
    return fit.corners_px if fit.moved else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clicks")
    ap.add_argument("exact", nargs="?")
    ap.add_argument("--no-final", action="store_true", help="skip the pipeline's own pass (faster)")
    args = ap.parse_args(argv)
    cfg = of.OUTLINE_FIT
    summary = []
    for cal in sorted(glob.glob(os.path.join(args.clicks, "setup*", "calibration.json"))):
        setup = os.path.basename(os.path.dirname(cal))
        exact_cal = os.path.join(args.exact, setup, "calibration.json") if args.exact else cal
        req = load_calibration_request(cal)
        with open(exact_cal) as f:
            exact = np.asarray(json.load(f)["corners_px"], np.float64)
        board = tuple(float(v) for v in req.profile["board_mm"])
        image = read_image(req.image_path)
        clicked = np.asarray(req.corners_px, np.float64)
        ppm = board_px_per_mm(homography_from_corners(exact, board), board)
        print(f"{os.path.basename(os.path.normpath(args.clicks))} {setup}: {ppm:.2f} px/mm, clicks off "
              f"{np.linalg.norm(clicked - exact, axis=1).max() / ppm:.2f} mm")
        print("  " + row("clicked", clicked, exact, board))
        taken = raw_fit(image, clicked, board, cfg)
        print("  " + row("taken", taken, exact, board))
        lens = find_lens(req, image, exact)
        if lens is not None:
            lens.keep_in_view(project(homography_from_corners(exact, board),
                                      pipeline.view_outline_mm(board)))
            shot = lens.undistort_image(image)
            ex_u = lens.undistort_points(exact, *lens.size)
            cl_u = lens.undistort_points(clicked, *lens.size)
            print(f"  lens k1 {lens.k1:+.3f} k2 {lens.k2:+.3f}")
            print("  " + row("undist", raw_fit(shot, cl_u, board, cfg), ex_u, board))
            print("  " + row("undistX", raw_fit(shot, ex_u, board, cfg), ex_u, board) + "  (from exact)")
        else:
            print("  (no lens)")
        final_err = None
        if not args.no_final:
            H = homography_from_corners(clicked, board)
            lens2, _, _, H2, moved = pipeline._shot_geometry(req, image, None, H, True)
            final = project(H2, board_corners_mm(board))
            if lens2 is not None:
                final = lens2.distort_points(final, *lens2.size)
            print("  " + row("final", final, exact, board) + f"  moved {moved is not None}"
                  + (f" {moved:.2f} mm" if moved is not None else ""))
            final_err = float(np.linalg.norm(final - exact, axis=1).max() / ppm)
        summary.append((setup, final_err))
        sys.stdout.flush()
    if not args.no_final:
        print("final error, mm: " + ", ".join(f"{s} {e:.2f}" for s, e in summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
