"""Plażing: how much of a cell a token's colour covers, seen from above (a lead, not read).

Input: windows of the rectified, light-normalised board centred on cells. Output: per cell the
area (mm²) near its centre whose chromaticity differs from the sand around (:func:`coloured_area`).

Idea: a meeple, arms spread and standing, covers most of its 20 mm cell seen from above (its
parallax stretches it further away from the camera's nadir); an amber is a pebble-sized lump. The
area of the cell's colour that is not the sand's (a shadow, darker sand of the same chromaticity,
does not count) tells them apart where their colours meet.
"""

from __future__ import annotations

import cv2
import numpy as np


def chroma_from_sand(windows: np.ndarray) -> np.ndarray:
    """float32 (n, S, S): each pixel's Lab chroma distance (a, b of OpenCV's 8-bit Lab) from the
    median a, b of its window's outer 2 px ring (the sand around the cell).

    Args:
        windows: BGR uint8 (n, S, S, 3), S > 4.
    """
    w = np.asarray(windows)
    n, s = w.shape[0], w.shape[1]
    if n == 0:
        return np.zeros((0, s, s), np.float32)
    lab = cv2.cvtColor(w.reshape(n * s, s, 3), cv2.COLOR_BGR2LAB).reshape(n, s, s, 3).astype(np.float32)
    ring = np.ones((s, s), bool)
    ring[2:-2, 2:-2] = False
    sand = np.median(lab[:, ring, 1:], axis=1)
    return np.linalg.norm(lab[..., 1:] - sand[:, None, None, :], axis=-1)


def disc(side: int, px_per_mm: float, radius_mm: float) -> np.ndarray:
    """bool (side, side): the pixels within ``radius_mm`` of the window's centre ((side − 1)/2 px)."""
    c = (side - 1) / 2.0
    yy, xx = np.mgrid[0:side, 0:side]
    return ((xx - c) ** 2 + (yy - c) ** 2) <= (radius_mm * px_per_mm) ** 2


def coloured_area(windows: np.ndarray, px_per_mm: float, radius_mm: float, chroma_floor: float) -> np.ndarray:
    """float64 (n,): the area, mm², within ``radius_mm`` of each window's centre whose chroma
    distance from the sand around (:func:`chroma_from_sand`) exceeds ``chroma_floor``.

    Args:
        windows: BGR uint8 (n, S, S, 3) centred on the cells; px_per_mm: their scale.
    """
    ch = chroma_from_sand(windows)
    if not len(ch):
        return np.zeros(0, np.float64)
    inside = disc(ch.shape[1], px_per_mm, radius_mm)
    return ((ch > chroma_floor) & inside[None]).sum(axis=(1, 2)).astype(np.float64) / px_per_mm ** 2
