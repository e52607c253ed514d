"""A push of the board further than the strips' search range, measured coarsely: phase correlation
of the edge images of the piece-free surround (photo against the calibration's reference).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.image.gradients import sobel_magnitude
from vision.strand_unter.reference_cache import cache_for


def coarse_translation(gray: np.ndarray, cal, ref: np.ndarray, board_mm, cloth_mm, cfg) -> tuple[float, float, float]:
    """The board's translation (mm) by phase correlation (Kuglin & Hines 1975) of edge images.

    Only the piece-free surround counts: the lower rails with the table beside them and the
    land-side edge with the table below (a soft mask; pieces and the cloth change between shots).
    Both gradient images are computed at ``cfg.coarse_ppm``; the reference's once per calibration.

    Args:
        gray: extended rectified photo (calibrated homography), grey uint8 (H, W).
        ref: the calibration's registration reference, same size.
        cloth_mm: (3,) lowest reach of the cloth (board mm, y) near the rails and anywhere.
    Returns:
        (dx, dy in board mm, phase-correlation response in [0, 1]).
    """
    w, h = board_mm
    top = min(max(0.5 * h, float(max(cloth_mm[0], cloth_mm[1])) + cfg.sea_dilate_mm), h - 4 * cfg.inner_band_mm)
    y0 = int((cfg.margin_mm + top) * cfg.ppm)
    key = ("coarse", cal.folder, id(cal), y0)
    cache = cache_for(cal)
    if key not in cache:
        a = _edge_image(ref[y0:], cfg)
        k = cfg.coarse_ppm
        mask = np.zeros(a.shape, np.float32)
        m, b = cfg.margin_mm, cfg.inner_band_mm
        mask[:, :int((m + 3 * b) * k)] = 1.0
        mask[:, int((m + w - 3 * b) * k):] = 1.0
        mask[max(int((m + h - 2.5 * b) * k) - int(y0 * k / cfg.ppm), 0):, :] = 1.0
        win = cv2.GaussianBlur(mask, (0, 0), 3.0) * cv2.createHanningWindow(a.shape[::-1], cv2.CV_32F)
        cache[key] = (a, win)
    a, win = cache[key]
    (dx, dy), response = cv2.phaseCorrelate(a, _edge_image(gray[y0:], cfg), win)
    scale = 1.0 / cfg.coarse_ppm
    return float(dx) * scale, float(dy) * scale, float(response)


def _edge_image(gray: np.ndarray, cfg) -> np.ndarray:
    """Gradient magnitude (float32) of a grey image, smoothed and resampled to ``cfg.coarse_ppm``."""
    k = cfg.coarse_ppm / cfg.ppm
    g = cv2.resize(cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 0.5 / k), None, fx=k, fy=k,
                   interpolation=cv2.INTER_AREA)
    return sobel_magnitude(g)
