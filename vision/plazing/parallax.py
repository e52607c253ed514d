"""Plażing: a standing meeple told from a flat resource by its parallax.

Input: windows of the rectified, light-normalised board centred on cells, each cell's direction
from the camera's nadir and its distance from it. Output: per cell how far the token's colour
lies from the cell's centre along the ray from the nadir, in mm and per mm of distance from the
nadir (:func:`radial_offsets`).

Idea: the rectified board is the photo brought onto the table's plane. A point at height z over
board point p is seen there at N + (p − N)·Z / (Z − z) (N the camera's nadir, Z its height):
a meeple's body and head, standing, are seen displaced away from the nadir by z / (Z − z) of the
cell's distance from it, a flat amber is not. The colour blob's centroid (pixels whose
chromaticity differs from the sand around, so that a shadow, darker sand, weighs nothing) is
compared with the cell's centre.
"""

from __future__ import annotations

import cv2
import numpy as np


def radial_offsets(windows: np.ndarray, rays: np.ndarray, px_per_mm: float, radius_mm: float,
                   chroma_floor: float) -> np.ndarray:
    """Where each window's coloured blob lies against its centre, along and across the nadir's ray.

    Args:
        windows: BGR uint8 (n, S, S, 3), the light-normalised rectified board centred on each cell
            (the cell's centre at pixel ((S − 1)/2, (S − 1)/2)); its outer 2 px ring is taken for sand.
        rays: float (n, 2), board mm (x, y) from the camera's nadir to each cell's centre.
        px_per_mm: the windows' scale; radius_mm: only pixels this near the centre count (a
            neighbour's token stays out).
        chroma_floor: Lab chroma distance (a, b in OpenCV's 8-bit Lab) from the sand below which a
            pixel weighs nothing; above it the pixel weighs the excess.
    Returns:
        float64 (n, 4): the blob centroid's offset along the ray (mm, away from the nadir
        positive), across it (mm), the along offset per mm of distance from the nadir (0 where the
        distance is 0), and the blob's weight (the mean excess chroma over the disc; 0: nothing coloured,
        then the offsets are 0).
    """
    w = np.asarray(windows)
    n, s = w.shape[0], w.shape[1]
    out = np.zeros((n, 4), np.float64)
    if n == 0:
        return out
    lab = cv2.cvtColor(w.reshape(n * s, s, 3), cv2.COLOR_BGR2LAB).reshape(n, s, s, 3).astype(np.float32)
    ring = np.ones((s, s), bool)
    ring[2:-2, 2:-2] = False
    sand = np.median(lab[:, ring, 1:], axis=1)                              # (n, 2)
    chroma = np.linalg.norm(lab[..., 1:] - sand[:, None, None, :], axis=-1)
    c = (s - 1) / 2.0
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float64)
    dx, dy = (xx - c) / px_per_mm, (yy - c) / px_per_mm
    inside = dx ** 2 + dy ** 2 <= radius_mm ** 2
    wt = np.where(inside[None], np.maximum(chroma - chroma_floor, 0.0), 0.0)
    tot = wt.sum(axis=(1, 2))
    ok = tot > 0
    mx = np.where(ok, (wt * dx).sum(axis=(1, 2)) / np.maximum(tot, 1e-12), 0.0)
    my = np.where(ok, (wt * dy).sum(axis=(1, 2)) / np.maximum(tot, 1e-12), 0.0)
    ray = np.asarray(rays, np.float64).reshape(n, 2)
    r = np.linalg.norm(ray, axis=1)
    u = np.where(r[:, None] > 0, ray / np.maximum(r, 1e-12)[:, None], 0.0)
    out[:, 0] = mx * u[:, 0] + my * u[:, 1]
    out[:, 1] = -mx * u[:, 1] + my * u[:, 0]
    out[:, 2] = np.where(r > 0, out[:, 0] / np.maximum(r, 1e-12), 0.0)
    out[:, 3] = tot / max(float(inside.sum()), 1.0)
    return out
