"""Is something standing on a place? Contrast of a place's core against its own background ring.

A towel cell or a lane space is a rectangle of board whose empty look is unknown in general (a
towel column has the colour of its shells; a wall space is sand, the others sea). What every
empty place shares is that it looks like its own border: the median colour of a thin band inside
the place's edge is the place's background, measured in the same photo, under the same light.
A piece on the place makes the core differ from that ring — even a white shell on a light towel
differs by its shading and its slightly different white.

Features per place (all logs of 1 + value, so a piece's strength spreads evenly):
0. mean ΔE (CIE76, Lab) of core pixels from the ring's median colour;
1. 90th percentile of that ΔE (a small piece still lights up the top decile);
2. log ratio of the core's mean gradient magnitude to the ring's (shading, outlines).

Classes are modelled by :class:`GaussianClasses`, a quadratic discriminant with diagonal
covariance floored per feature (Hastie, Tibshirani & Friedman, *Elements of Statistical Learning*
§4.3): empties are tight and pieces diverse, so each class keeps its own spread.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

FEATURE_NAMES = ("log_mean_dE", "log_p90_dE", "log_texture_ratio")


def board_lab(board_bgr: np.ndarray) -> np.ndarray:
    """CIE Lab of a BGR uint8 board as float32 (H, W, 3): L in 0–100, a and b centred on 0."""
    if board_bgr.dtype != np.uint8 or board_bgr.ndim != 3 or board_bgr.shape[2] != 3:
        raise ValueError("expected a BGR uint8 image of shape (H, W, 3)")
    lab = cv2.cvtColor(board_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    return cv2.transform(lab, _LAB_FROM_U8)


#: Affine map of OpenCV's 8-bit Lab (L·255/100, a+128, b+128) to CIE Lab units.
_LAB_FROM_U8 = np.float32([[100 / 255, 0, 0, 0], [0, 1, 0, -128], [0, 0, 1, -128]])


def gradient_magnitude(L: np.ndarray) -> np.ndarray:
    """Sobel gradient magnitude of a float32 (H, W) lightness image, float32 (H, W)."""
    return cv2.magnitude(cv2.Sobel(L, cv2.CV_32F, 1, 0), cv2.Sobel(L, cv2.CV_32F, 0, 1))


def normalised_lab(board_bgr: np.ndarray, reference_median_bgr=None) -> np.ndarray:
    """Illumination-normalised CIE Lab of a rectified board, float32 (H, W, 3).

    Same grey-world correction as :func:`vision.places.normalise_illumination` (channel gains so
    the board's median B, G, R match the calibration's), applied through a lookup table (fast).

    Args:
        board_bgr: rectified board, BGR uint8 (H, W, 3).
        reference_median_bgr: (3,) calibration board median BGR, or None for no correction.
    """
    if board_bgr.dtype != np.uint8 or board_bgr.ndim != 3 or board_bgr.shape[2] != 3:
        raise ValueError("expected a BGR uint8 image of shape (H, W, 3)")
    if reference_median_bgr is not None:
        board_bgr = normalised_bgr(board_bgr, reference_median_bgr)
    return board_lab(board_bgr)


def normalised_bgr(board_bgr: np.ndarray, reference_median_bgr) -> np.ndarray:
    """:func:`vision.places.normalise_illumination` through a lookup table: BGR uint8 (H, W, 3)."""
    from vision.places import board_median_bgr
    gain = np.clip(np.asarray(reference_median_bgr, np.float32) / np.maximum(board_median_bgr(board_bgr), 1.0),
                   0.25, 4.0)
    lut = np.clip(np.round(np.arange(256, dtype=np.float32)[:, None] * gain[None]), 0, 255).astype(np.uint8)
    return cv2.LUT(board_bgr, lut.reshape(256, 1, 3))


def _crops(img: np.ndarray, u0: np.ndarray, v0: np.ndarray, h: int, w: int) -> np.ndarray:
    """Stack of equally sized crops img[v0:v0+h, u0:u0+w] for every (u0, v0), shape (N, h, w, ...)."""
    yy = v0[:, None, None] + np.arange(h)[None, :, None]
    xx = u0[:, None, None] + np.arange(w)[None, None, :]
    return img[np.clip(yy, 0, img.shape[0] - 1), np.clip(xx, 0, img.shape[1] - 1)]


def ring_contrast_features(lab: np.ndarray, boxes_mm, px_per_mm: float, core_inset_mm: float,
                           ring_mm: tuple[float, float], grad: np.ndarray | None = None) -> np.ndarray:
    """Contrast features of rectangular places against their own ring.

    Args:
        lab: rectified board in Lab, float32 (H, W, 3) from :func:`board_lab`; pixel (u, v) is at
            ((u + 0.5)/px_per_mm, (v + 0.5)/px_per_mm) mm.
        boxes_mm: (N, 4) places as x0, y0, x1, y1 in board mm (places partly off the board
            repeat its edge pixels).
        px_per_mm: resolution of ``lab``.
        core_inset_mm: core = pixels at least this far inside the box edge.
        ring_mm: (inner, outer) distance inside the box edge of the background ring, mm.
        grad: optional precomputed :func:`gradient_magnitude` of ``lab[..., 0]``.
    Returns:
        float64 (N, 3), columns :data:`FEATURE_NAMES`.
    Raises:
        ValueError: a box is too small to hold both a ring and a core at this resolution.
    """
    if grad is None:
        grad = gradient_magnitude(np.ascontiguousarray(lab[..., 0]))
    boxes = np.asarray(boxes_mm, np.float64).reshape(-1, 4)
    out = np.zeros((len(boxes), len(FEATURE_NAMES)))
    if len(boxes) == 0:
        return out
    u0 = np.round(boxes[:, 0] * px_per_mm).astype(int)
    v0 = np.round(boxes[:, 1] * px_per_mm).astype(int)
    ws = np.round(boxes[:, 2] * px_per_mm).astype(int) - u0
    hs = np.round(boxes[:, 3] * px_per_mm).astype(int) - v0
    for h, w in sorted(set(zip(hs.tolist(), ws.tolist()))):  # same-sized places are done together
        idx = np.flatnonzero((hs == h) & (ws == w))
        yy, xx = np.mgrid[0:h, 0:w] + 0.5
        inset = np.minimum(np.minimum(xx, w - xx), np.minimum(yy, h - yy)) / px_per_mm
        core, ring = inset >= core_inset_mm, (inset >= ring_mm[0]) & (inset < ring_mm[1])
        if core.sum() < 4 or ring.sum() < 8:
            raise ValueError(f"place of {w}x{h} px is too small for a core and a ring")
        cells = _crops(lab, u0[idx], v0[idx], h, w)          # (n, h, w, 3)
        g = _crops(grad, u0[idx], v0[idx], h, w)             # (n, h, w)
        bg = np.median(cells[:, ring], axis=1)               # (n, 3)
        de = np.sqrt(((cells[:, core] - bg[:, None]) ** 2).sum(axis=2))  # (n, n_core)
        out[idx, 0] = np.log1p(de.mean(axis=1))
        out[idx, 1] = np.log1p(np.percentile(de, 90, axis=1))
        out[idx, 2] = np.log1p(g[:, core].mean(axis=1)) - np.log1p(np.median(g[:, ring], axis=1))
    return out


@dataclass
class GaussianClasses:
    """Per-class Gaussian with diagonal covariance (a floored quadratic discriminant).

    Attributes:
        classes: class names, length K.
        means: float64 (K, F).
        variances: float64 (K, F), each at least the floor given to :meth:`fit`.
    """

    classes: list[str]
    means: np.ndarray
    variances: np.ndarray

    @classmethod
    def fit(cls, features, labels, var_floor) -> "GaussianClasses":
        """Learn one Gaussian per label.

        Args:
            features: (N, F) feature rows.
            labels: N class names.
            var_floor: (F,) smallest variance per feature (a class with one sample gets the floor).
        Raises:
            ValueError: no samples, or feature/label counts differ.
        """
        X = np.asarray(features, np.float64)
        labels = list(labels)
        if len(X) == 0 or len(X) != len(labels):
            raise ValueError("need as many feature rows as labels, at least one")
        floor = np.broadcast_to(np.asarray(var_floor, np.float64), X.shape[1:])
        classes = sorted(set(labels))
        lab = np.array(labels)
        means = np.stack([X[lab == c].mean(axis=0) for c in classes])
        variances = np.stack([np.maximum(X[lab == c].var(axis=0), floor) for c in classes])
        return cls(classes, means, variances)

    def broadened(self, cls: str, toward: str) -> "GaussianClasses":
        """A copy whose class ``cls`` spreads at least as far as class ``toward``'s mean.

        For a diverse class seen in few samples (shells: vivid ones and faint white ones): its
        variance per feature becomes ``max(var, (mean_cls - mean_toward)²)``, so a weak example
        of it is judged by how far it is from ``toward`` rather than from the vivid samples.
        """
        i, j = self.classes.index(cls), self.classes.index(toward)
        variances = self.variances.copy()
        variances[i] = np.maximum(variances[i], (self.means[i] - self.means[j]) ** 2)
        return GaussianClasses(list(self.classes), self.means.copy(), variances)

    def clip_below(self, features, cls: str) -> np.ndarray:
        """Raise every feature to at least class ``cls``'s mean, float64 (N, F).

        Contrast features are one-sided: a place *more* uniform than a typical empty place is
        more surely empty, never a piece, so its features are clipped to the empty mean.
        """
        return np.maximum(np.asarray(features, np.float64), self.means[self.classes.index(cls)])

    def distances2(self, features) -> np.ndarray:
        """Squared Mahalanobis distance of every row to every class, float64 (N, K)."""
        X = np.asarray(features, np.float64)
        return (((X[:, None, :] - self.means[None]) ** 2) / self.variances[None]).sum(axis=2)

    def log_likelihood(self, features) -> np.ndarray:
        """Gaussian log density of every row under every class (up to a shared constant), (N, K)."""
        return -0.5 * (self.distances2(features) + np.log(self.variances).sum(axis=1)[None])

    def posterior(self, features) -> np.ndarray:
        """Class posterior with equal priors, float64 (N, K), rows sum to 1."""
        ll = self.log_likelihood(features)
        p = np.exp(ll - ll.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    def to_json(self) -> dict:
        return {"classes": self.classes, "means": self.means.tolist(), "variances": self.variances.tolist()}

    @classmethod
    def from_json(cls, d: dict) -> "GaussianClasses":
        return cls(list(d["classes"]), np.array(d["means"], np.float64), np.array(d["variances"], np.float64))
