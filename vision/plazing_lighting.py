"""Plażing lighting and sharpness, measured on the board's printed frame.

Idea: the frame (sea, dunes, score track: the board outside the grid) is printed artwork that no
game changes, so it is the reference for the lighting change since calibration and for the
photo's sharpness, whatever lies on the grid.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import quality
from vision.plazing_cells import Grid
from vision.plazing_config import QUALITY


def frame_mask(shape, grid: Grid, scale_px_per_mm: float) -> np.ndarray:
    """bool (H, W): the board outside the grid (frame, sea, dunes) — the same in every game, so its
    sharpness does not depend on how many pieces lie on the board."""
    m = np.ones(shape[:2], bool)
    x0, y0 = (int(v * scale_px_per_mm) for v in grid.origin_mm)
    x1 = int((grid.origin_mm[0] + grid.cols * grid.cell_mm) * scale_px_per_mm)
    y1 = int((grid.origin_mm[1] + grid.rows * grid.cell_mm) * scale_px_per_mm)
    m[y0:y1, x0:x1] = False
    return m


def frame_sharpness(gray: np.ndarray, grid: Grid) -> float:
    """Variance of the Laplacian of the small rectified grey board (uint8, ``QUALITY.px_per_mm``)
    over the frame outside the grid."""
    return quality.sharpness(gray, frame_mask(gray.shape, grid, QUALITY.px_per_mm))


def median_bgr(small: np.ndarray) -> np.ndarray:
    """Median B, G, R of the small whole-board view (BGR uint8), float32 (3,): the lighting
    reference (from each channel's histogram: no sort)."""
    n = small.shape[0] * small.shape[1]
    out = []
    for c in range(3):
        cum = cv2.calcHist([small], [c], None, [256], [0, 256]).ravel().cumsum()
        out.append(float(np.searchsorted(cum, n / 2.0)))
    return np.array(out, np.float32)


def lighting_gains(small: np.ndarray, reference: np.ndarray | None, frame: np.ndarray, fallback_median=None):
    """Per-channel gains that bring this photo's lighting to the calibration's.

    The board's frame (sea, dunes, score track: outside the grid) is printed artwork that no game
    changes, so the median ratio of the calibration's frame to this photo's, pixel by pixel, is
    the lighting change whatever lies on the grid (grey world restricted to the frame).

    Args:
        small: this photo's small whole-board view, BGR uint8 (h, w, 3).
        reference: the calibration's, same shape, or None (then the ratio of whole-board medians).
        frame: bool (h, w), the frame.
        fallback_median: (3,) the calibration's whole-board median BGR (used without reference).
    Returns:
        float32 (3,) gains, clipped to [0.25, 4].
    """
    if reference is None or reference.shape != small.shape:
        gains = np.asarray(fallback_median, np.float32) / np.maximum(median_bgr(small), 1.0)
        return np.clip(gains, 0.25, 4.0).astype(np.float32)
    idx = np.flatnonzero(frame.ravel())[::QUALITY.lighting_stride]
    a = reference.reshape(-1, 3)[idx].astype(np.float32)
    b = small.reshape(-1, 3)[idx].astype(np.float32)
    ok = (a.min(axis=1) > 15) & (a.max(axis=1) < 245) & (b.min(axis=1) > 5) & (b.max(axis=1) < 250)
    if ok.sum() < 50:
        ok[:] = True
    gains = np.median(a[ok] / np.maximum(b[ok], 1.0), axis=0)
    return np.clip(gains, 0.25, 4.0).astype(np.float32)
