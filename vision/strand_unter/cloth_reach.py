"""How far down the board the sea cloth reaches in a photo: the strips across the rails that the
cloth may cover are not used by the registration, nor its surround detail.

Input: the extended rectified photo (or, straight from the photo, the half-size view of its board
columns: :func:`cloth_inner`), the lighting gains and the learned class table. Output: the cloth's
lowest reach (board mm, y) near the left rail, near the right rail and anywhere.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.strand_unter import colour as colour
from vision.strand_unter.config import READING, REGISTRATION
from vision.strand_unter.geometry import mm_to_work


def cloth_edge_mm(ext_bgr: np.ndarray, gains, lut: np.ndarray, sea_index: int, bits: int, board_mm,
                  cfg=REGISTRATION) -> tuple[float, float, float]:
    """Lowest reach of the cloth (board mm, y) near the left rail, near the right rail, and anywhere.

    Only the board's interior columns are looked at (the rails are blue too); the cloth hangs
    from the sea side, so everything above this line may be cloth in the rail strips.

    Args:
        ext_bgr: extended rectified photo (board + ``cfg.margin_mm``), BGR uint8.
        gains: lighting gains (3,) onto the calibration's.
        lut, sea_index, bits: the learned class lookup table and the sea's class index.
    """
    w, h = board_mm
    m, ppm = cfg.margin_mm, cfg.ppm
    # every other row and column: only the strips next to the cloth are left out by it (± 2 mm is plenty)
    crop = ext_bgr[:, int(m * ppm):int((m + w) * ppm)]
    ch, cw = crop.shape[:2]
    # (crop[::2, ::2]: for even sizes a nearest-neighbour halving picks exactly those pixels, without a strided copy)
    inner = cv2.resize(crop, (cw // 2, ch // 2), interpolation=cv2.INTER_NEAREST) if ch % 2 == 0 and cw % 2 == 0 \
        else crop[::2, ::2]
    return cloth_edge_inner(inner, gains, lut, sea_index, bits, board_mm, cfg)


def cloth_inner(image: np.ndarray, H_px_from_mm: np.ndarray, board_mm, cfg=REGISTRATION) -> np.ndarray:
    """What :func:`cloth_edge_mm` looks at, straight from the photo: the extended image's board columns
    at every other row and column (its pixels (2i, m·ppm + 2j)), warped alone (a quarter of the pixels)."""
    w, h = board_mm
    m, ppm = cfg.margin_mm, cfg.ppm
    W, Hh = int(round((w + 2 * m) * ppm)), int(round((h + 2 * m) * ppm))
    x0, x1 = int(m * ppm), int((m + w) * ppm)
    size = ((min(x1, W) - x0 + 1) // 2, (Hh + 1) // 2)
    S = np.array([[2.0, 0.0, float(x0)], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]])     # half-size px → extended px
    M = np.asarray(H_px_from_mm, np.float64) @ np.linalg.inv(mm_to_work(ppm, m)) @ S
    return cv2.warpPerspective(image, M, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def cloth_edge_inner(inner: np.ndarray, gains, lut: np.ndarray, sea_index: int, bits: int, board_mm,
                      cfg=REGISTRATION) -> tuple[float, float, float]:
    """:func:`cloth_edge_mm` of its half-size view of the board's columns (:func:`cloth_inner`)."""
    w, h = board_mm
    m, ppm = cfg.margin_mm, cfg.ppm
    sea = colour.sea_pixels(colour.apply_gains(inner, gains), lut, bits, sea_index, READING.sea_smooth_px // 2 + 1)
    edge = 2.0 * colour.cloth_edge(sea, READING.cloth_edge_window_px // 2)
    depth = np.repeat(np.minimum(edge, 2 * sea.shape[0]), 2)[:int(w * ppm)] / ppm - m   # cloth edge per column, mm
    b = int(cfg.inner_band_mm * ppm)
    return float(depth[b:4 * b].max()), float(depth[-4 * b:-b].max()), float(depth[b:-b].max())
