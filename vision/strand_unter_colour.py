"""Colour models of Strand unter: Gaussian classes in Lab, lighting correction, sea/sand split.

- Each labelled class (shell colour, player colour, sea, sand, sandpiper) is a Gaussian in
  8-bit OpenCV Lab (mean (3,), covariance (3, 3)); pixels are assigned by Mahalanobis distance
  (Mahalanobis 1936), the nearest class winning.
- Lighting colour/strength changes between the calibration and a scan are undone with a
  diagonal (von Kries) gain per BGR channel, measured on parts of the scene that never change
  (the table around the board and the bare sand), as in grey-world/white-patch balancing.
- Sea vs sand is a 1-D Fisher linear discriminant (Fisher 1936) on Lab: one ``cv2.transform``.
"""

from __future__ import annotations

import numpy as np
import cv2


def lab(image_bgr: np.ndarray) -> np.ndarray:
    """BGR uint8 (H, W, 3) → Lab float32 (H, W, 3) in 8-bit OpenCV units (L, a, b in 0–255)."""
    if image_bgr.dtype != np.uint8 or image_bgr.ndim != 3:
        raise ValueError("expected a BGR uint8 image")
    return cv2.cvtColor(image_bgr, cv2.COLOR_BGR2Lab).astype(np.float32)


def gaussian(pixels_lab: np.ndarray, min_cov: float) -> dict:
    """Fit a Lab Gaussian to pixels (N, 3) float; returns JSON ``{"mean", "cov", "n"}``.

    Raises:
        ValueError: fewer than 3 pixels.
    """
    x = np.asarray(pixels_lab, dtype=np.float64).reshape(-1, 3)
    if len(x) < 3:
        raise ValueError("too few pixels")
    mean = np.median(x, axis=0)
    cov = np.cov(x, rowvar=False) + np.eye(3) * min_cov
    return {"mean": mean.round(3).tolist(), "cov": cov.round(4).tolist(), "n": int(len(x))}


class ClassSet:
    """Several Lab Gaussians, to classify pixels by the nearest Mahalanobis distance.

    Args:
        models: ``{name: {"mean": [3], "cov": [[3]*3]}}``.
    """

    def __init__(self, models: dict[str, dict]):
        self.names = list(models)
        self.means = np.array([models[n]["mean"] for n in self.names], dtype=np.float32)
        self.inv = np.array([np.linalg.inv(np.asarray(models[n]["cov"], dtype=np.float64))
                             for n in self.names], dtype=np.float32)

    def distances(self, pixels_lab: np.ndarray) -> np.ndarray:
        """Mahalanobis distances float32 (N, K) of pixels (N, 3) to every class."""
        x = np.asarray(pixels_lab, dtype=np.float32).reshape(-1, 3)
        out = np.empty((len(x), len(self.names)), np.float32)
        for k in range(len(self.names)):
            d = x - self.means[k]
            out[:, k] = np.sqrt(np.einsum("ni,ij,nj->n", d, self.inv[k], d))
        return out

    def classify(self, pixels_lab: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Nearest class per pixel.

        Returns:
            (index int (N,), distance float32 (N,), margin float32 (N,) = second − best distance).
        """
        d = self.distances(pixels_lab)
        if d.shape[1] == 1:
            return np.zeros(len(d), int), d[:, 0], np.full(len(d), np.inf, np.float32)
        part = np.partition(d, 1, axis=1)
        return np.argmin(d, axis=1), part[:, 0], part[:, 1] - part[:, 0]


def fisher_direction(a_lab: np.ndarray, b_lab: np.ndarray) -> dict:
    """1-D Fisher discriminant between two pixel sets (N, 3): ``score = w·lab + c``, −1 at a, +1 at b.

    Returns:
        JSON ``{"w": [3], "c": float}``.
    """
    a = np.asarray(a_lab, np.float64).reshape(-1, 3)
    b = np.asarray(b_lab, np.float64).reshape(-1, 3)
    S = np.cov(a, rowvar=False) + np.cov(b, rowvar=False) + np.eye(3)
    w = np.linalg.solve(S, b.mean(0) - a.mean(0))
    pa, pb = float(np.median(a @ w)), float(np.median(b @ w))
    scale = 2.0 / (pb - pa)
    w = w * scale
    c = -1.0 - pa * scale
    return {"w": w.tolist(), "c": float(c)}


def fisher_score(image_lab: np.ndarray, fisher: dict) -> np.ndarray:
    """Apply :func:`fisher_direction`'s result to a Lab image (H, W, 3) → float32 (H, W)."""
    m = np.array([list(fisher["w"]) + [fisher["c"]]], dtype=np.float32)
    h, w = image_lab.shape[:2]
    ones = np.ones((h, w, 1), np.float32)
    return cv2.transform(np.concatenate([image_lab, ones], axis=2), m).reshape(h, w)


def channel_gains(now_bgr: np.ndarray, ref_bgr: np.ndarray) -> np.ndarray:
    """Per-channel gains (B, G, R) float (3,) mapping ``now`` colours onto ``ref`` colours (von Kries).

    Args:
        now_bgr: pixels (N, 3) of the scan, uint8 or float.
        ref_bgr: the same scene parts in the calibration, (3,) median BGR.
    """
    now = np.median(np.asarray(now_bgr, np.float64).reshape(-1, 3), axis=0)
    return np.asarray(ref_bgr, np.float64) / np.maximum(now, 1.0)


def apply_gains(image_bgr: np.ndarray, gains) -> np.ndarray:
    """Multiply BGR channels by ``gains`` (3,), saturating to uint8."""
    return cv2.transform(image_bgr, np.diag(np.asarray(gains, np.float32)))


def cloth_region(sea_px: np.ndarray, window_px: int) -> np.ndarray:
    """The cloth as one region hanging from the sea side: bool (H, W) from per-pixel sea bool (H, W).

    Per column, the cloth reaches down to the first non-sea row (after closing small holes); the
    edge is then median-filtered across ``window_px`` columns so that a blue piece just
    under the cloth (or isolated blue pixels elsewhere) is not taken for sea.
    """
    h, w = sea_px.shape
    m = cv2.morphologyEx(sea_px.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 1), np.uint8))
    m = np.vstack([m, np.zeros((1, w), np.uint8)])
    edge = np.argmin(m, axis=0).astype(np.float32)
    win = max(3, int(window_px) | 1)
    padded = np.pad(edge, win // 2, mode="edge")
    smooth = np.median(np.lib.stride_tricks.sliding_window_view(padded, win), axis=1)
    return np.arange(h)[:, None] < smooth[None, :]
