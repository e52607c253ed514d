"""Build CalibrationShot / Photo objects around synthetic scenes (no files needed).

:func:`photo` hands the reader what the pipeline would: the photo shrunk by the reader's
``DECODE_REDUCE`` (a JPEG decoded reduced) and the homography scaled to it.
"""

from __future__ import annotations

from beachscore.games import reader
from calibration.files import CalibrationRequest
from calibration.store import Calibration
from vision.mats.checks import as_scanned
from vision.types import Registration
from tests.synthetic.mats import scale_homography
from vision.types import CalibrationShot, Photo


def shot(game, profile, image, samples):
    req = CalibrationRequest(game=game, profile=profile, image_path="", empty_image_path=None, corners_px=None,
                             samples=[(lab, (float(x), float(y))) for lab, (x, y) in samples])
    return CalibrationShot(request=req, image=image, empty_image=None, H_px_from_mm=scale_homography())


def calibration(game, profile, model, image_size):
    """A loaded-calibration stand-in for a synthetic full-size shot of ``image_size`` (w, h) px."""
    return Calibration(game=game, profile=profile, image_size=image_size, H_px_from_mm=scale_homography(),
                       model=model)


def photo(game, profile, model, image, setup=None):
    cal = calibration(game, profile, model, (image.shape[1], image.shape[0]))
    small, H = as_scanned(image, scale_homography(), reader(game).decode_reduce)
    return Photo(image=small, registration=Registration(H, "corners"), calibration=cal, setup=setup)


def write_calibration(folder, game, profile, image, samples, px_per_mm=None) -> str:
    """Write a synthetic calibration set-up (photo PNG, profile, calibration.json) into ``folder``.

    Returns:
        the path of calibration.json, ready for ``beachscore calibrate``.
    """
    import json
    import os

    from calibration.store import atomic_write_image
    from tests.synthetic.mats import PX_PER_MM

    s = px_per_mm or PX_PER_MM
    w, h = profile["board_mm"]
    atomic_write_image(os.path.join(folder, "calib.png"), image)
    with open(os.path.join(folder, "profile.json"), "w") as f:
        json.dump(profile, f)
    doc = {"game": game, "profile": "profile.json", "image": "calib.png",
           "corners_px": [[0, 0], [w * s, 0], [w * s, h * s], [0, h * s]],
           "samples": [{"label": lab, "board_mm": [float(x), float(y)]} for lab, (x, y) in samples]}
    path = os.path.join(folder, "calibration.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def box_outline_px(box_mm, px_per_mm: float, inset_mm: float = 3.0, n: int = 40):
    """Points (n·4, 2) along a board-mm box shrunk by ``inset_mm``, in px of a synthetic photo."""
    import numpy as np

    x0, y0, x1, y1 = np.asarray(box_mm, float) + [inset_mm, inset_mm, -inset_mm, -inset_mm]
    t = np.linspace(0.1, 0.9, n)
    pts = [np.stack([x0 + t * (x1 - x0), np.full(n, y0)], 1), np.stack([x0 + t * (x1 - x0), np.full(n, y1)], 1),
           np.stack([np.full(n, x0), y0 + t * (y1 - y0)], 1), np.stack([np.full(n, x1), y0 + t * (y1 - y0)], 1)]
    return np.concatenate(pts) * px_per_mm


def circle_px(centre_mm, radius_px: float, px_per_mm: float, n: int = 40):
    """Points (n, 2) on a circle of ``radius_px`` around a board-mm point, in px of a synthetic photo."""
    import numpy as np

    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([centre_mm[0] * px_per_mm + radius_px * np.cos(a), centre_mm[1] * px_per_mm + radius_px * np.sin(a)], 1)


def difference(annotated, photo_bgr):
    """Per-pixel largest channel difference of two BGR uint8 pictures of one size, uint8 (H, W)."""
    import cv2

    return cv2.absdiff(annotated, photo_bgr).max(axis=2)


def marked_share(diff, points_px, min_diff: int = 60) -> float:
    """Share of ``points_px`` (N, 2) near which (±2 px) ``diff`` (from :func:`difference`) exceeds ``min_diff``."""
    import numpy as np

    h, w = diff.shape
    hits = [diff[max(int(v) - 2, 0):min(int(v) + 3, h), max(int(u) - 2, 0):min(int(u) + 3, w)].max() > min_diff
            for u, v in np.asarray(points_px)]
    return float(np.mean(hits))
