"""Reader of labelled places: boards whose places each hold at most one thing.

A place is a point on the board (mm) with a patch around it. From the calibration shot, the
user labels a few places of each class (``cell/empty``, ``shell``, ``wave`` …); every place of a
later photo is then given the class whose appearance it is closest to, with a confidence.

Features per place (on the rectified, illumination-normalised board): mean and spread of
CIE Lab over the patch, the mean gradient magnitude (texture), and the mean Lab of the patch's
centre disc (a small token on a plain place). Classification is a Gaussian classifier with a
pooled, regularised covariance (linear discriminant analysis; Hastie, Tibshirani & Friedman,
*The Elements of Statistical Learning* §4.3), which stays well-posed with one sample per class.

Lighting: :func:`normalise_illumination` rescales B, G, R so the board's median colour matches
the calibration shot's (a grey-world correction restricted to the board), before features.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.image.gradients import sobel_magnitude
from vision.image.quality import median_u8

FEATURE_NAMES = ("L", "a", "b", "sd_L", "sd_a", "sd_b", "texture", "core_L", "core_a", "core_b")
#: Share of the patch radius that the centre disc covers.
CORE_SHARE = 0.45
#: Floor added to the pooled covariance's diagonal, per feature (Lab units).
COVARIANCE_FLOOR = np.array([9.0, 4.0, 4.0, 4.0, 2.0, 2.0, 4.0, 9.0, 4.0, 4.0])


def board_median_bgr(board_bgr: np.ndarray) -> np.ndarray:
    """Median B, G, R of a rectified board, float32 (3,), computed on a 1/4 subsample (speed; bytes
    from their histograms, :func:`vision.image.quality.median_u8`: the same medians)."""
    sub = board_bgr[::4, ::4]
    if sub.dtype == np.uint8 and sub.ndim == 3 and sub.shape[2] == 3:
        return np.array([median_u8(c) for c in cv2.split(np.ascontiguousarray(sub))], np.float32)
    return np.median(sub.reshape(-1, 3), axis=0).astype(np.float32)


def normalise_illumination(board_bgr: np.ndarray, reference_median_bgr) -> np.ndarray:
    """Rescale channels so the board's median colour equals the calibration's.

    Args:
        board_bgr: rectified board, BGR uint8 (H, W, 3).
        reference_median_bgr: (3,) median BGR of the calibration shot's board.
    Returns:
        BGR uint8 (H, W, 3).
    """
    return apply_gains(board_bgr, illumination_gains(board_bgr, reference_median_bgr))


def illumination_gains(board_bgr: np.ndarray, reference_median_bgr) -> np.ndarray:
    """The channel gains of :func:`normalise_illumination`, float32 (3,)."""
    gain = np.asarray(reference_median_bgr, np.float32) / np.maximum(board_median_bgr(board_bgr), 1.0)
    return np.clip(gain, 0.25, 4.0)


def gain_table(gains) -> np.ndarray:
    """The lookup table of :func:`apply_gains`: uint8 (256, 3), byte v of channel c → round(v · gains[c]) clipped."""
    gains = np.asarray(gains, np.float32)
    return np.clip(np.round(np.arange(256, dtype=np.float32)[:, None] * gains[None]), 0, 255).astype(np.uint8)


def apply_gains(image_bgr: np.ndarray, gains) -> np.ndarray:
    """Multiply B, G, R by ``gains`` (3,) through a lookup table, rounding and clipping: BGR uint8."""
    return cv2.LUT(image_bgr, gain_table(gains).reshape(256, 1, 3))


def bgr_to_lab(bgr: np.ndarray) -> np.ndarray:
    """BGR uint8 (..., 3) → CIE Lab float32 (..., 3): L in 0..100, a and b around 0.

    Uses OpenCV's 8-bit conversion (fast; L quantised to 100/255) and rescales it.
    """
    shape = bgr.shape
    lab = cv2.cvtColor(np.ascontiguousarray(bgr).reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).astype(np.float32)
    lab = lab.reshape(shape)
    lab -= np.array([0.0, 128.0, 128.0], np.float32)
    lab[..., 0] *= np.float32(100.0 / 255.0)
    return lab


def place_features(board_bgr: np.ndarray, centres_mm, px_per_mm: float, patch_mm: float) -> np.ndarray:
    """Feature vectors of places on a rectified board.

    Args:
        board_bgr: rectified board (already illumination-normalised), BGR uint8 (H, W, 3);
            pixel (u, v) is at ((u + 0.5)/px_per_mm, (v + 0.5)/px_per_mm) mm.
        centres_mm: (N, 2) place centres in board mm.
        px_per_mm: resolution of ``board_bgr``.
        patch_mm: side of the square patch around each centre (mm).
    Returns:
        float32 (N, 10), columns :data:`FEATURE_NAMES`. Places partly off the board use the part
        that is on it.
    """
    lab = bgr_to_lab(board_bgr)
    gray = lab[..., 0]
    grad = sobel_magnitude(gray)
    h, w = gray.shape
    half = max(1, int(round(patch_mm * px_per_mm / 2)))
    core = max(1, int(round(half * CORE_SHARE)))
    # box sums from integral images: every place in O(1), all places at once
    s1 = cv2.integral(lab, sdepth=cv2.CV_64F)
    s2 = cv2.integral(lab * lab, sdepth=cv2.CV_64F)   # integral2's squares are several times slower
    sg = cv2.integral(grad, sdepth=cv2.CV_64F)
    c = np.asarray(centres_mm, np.float64).reshape(-1, 2)
    u, v = (c[:, 0] * px_per_mm).astype(int), (c[:, 1] * px_per_mm).astype(int)

    def box(table, r):
        y0, y1 = np.clip(v - r, 0, h), np.clip(v + r, 0, h)
        x0, x1 = np.clip(u - r, 0, w), np.clip(u + r, 0, w)
        n = (y1 - y0) * (x1 - x0)
        total = table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0]
        return total, n

    out = np.zeros((len(c), len(FEATURE_NAMES)), np.float32)
    t1, n = box(s1, half)
    t2, _ = box(s2, half)
    tg, _ = box(sg, half)
    tc, nc = box(s1, core)
    ok = (n > 0) & (nc > 0)          # places wholly off the board keep zeros
    nn, ncc = np.maximum(n, 1)[:, None], np.maximum(nc, 1)[:, None]
    mean = t1 / nn
    out[:, 0:3] = mean
    out[:, 3:6] = np.sqrt(np.maximum(t2 / nn - mean ** 2, 0.0))
    out[:, 6] = tg.reshape(-1) / nn[:, 0] / 4.0
    out[:, 7:10] = tc / ncc
    out[~ok] = 0
    return out


@dataclass
class PlaceModel:
    """Learned appearance of every place class.

    Attributes:
        classes: class names, length K.
        means: float64 (K, F) mean feature vector per class.
        precision: float64 (F, F) inverse of the pooled covariance.
        patch_mm: patch side used for features (mm).
        px_per_mm: resolution the features were computed at.
        median_bgr: (3,) the calibration board's median BGR (illumination reference).
        counts: samples per class.
    """

    classes: list[str]
    means: np.ndarray
    precision: np.ndarray
    patch_mm: float
    px_per_mm: float
    median_bgr: np.ndarray
    counts: list[int]

    def to_json(self) -> dict:
        """The model as JSON for CAL_DIR/calibration.json."""
        return {"classes": self.classes, "means": self.means.round(4).tolist(),
                "precision": self.precision.tolist(), "patch_mm": self.patch_mm, "px_per_mm": self.px_per_mm,
                "median_bgr": np.asarray(self.median_bgr).round(2).tolist(), "counts": self.counts,
                "features": list(FEATURE_NAMES)}

    @classmethod
    def from_json(cls, d: dict) -> "PlaceModel":
        """Rebuild a model saved by :meth:`to_json`."""
        return cls(classes=list(d["classes"]), means=np.array(d["means"], np.float64),
                   precision=np.array(d["precision"], np.float64), patch_mm=float(d["patch_mm"]),
                   px_per_mm=float(d["px_per_mm"]), median_bgr=np.array(d["median_bgr"], np.float32),
                   counts=list(d["counts"]))


def learn_places(board_bgr: np.ndarray, samples, px_per_mm: float, patch_mm: float,
                 jitter_mm: float = 0.0) -> PlaceModel:
    """Learn class appearance from labelled places of the calibration shot.

    Args:
        board_bgr: rectified calibration board, BGR uint8 (H, W, 3).
        samples: iterable of ``(label, (x_mm, y_mm))``.
        px_per_mm: resolution of ``board_bgr``.
        patch_mm: patch side (mm), usually a little less than the place pitch.
        jitter_mm: when > 0, each sample is also measured ``jitter_mm`` off its centre in the
            8 directions, so the class's spread includes a token a little off its place (the
            covariance then says how far a place may honestly stray, see :func:`typicality`).
    Returns:
        A :class:`PlaceModel`.
    Raises:
        ValueError: no samples.
    """
    samples = list(samples)
    if not samples:
        raise ValueError("no labelled samples")
    median = board_median_bgr(board_bgr)
    counts_of = [lab for lab, _ in samples]
    if jitter_mm > 0:
        offsets = [(dx * jitter_mm, dy * jitter_mm) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        samples = [(lab, (x + ox, y + oy)) for lab, (x, y) in samples for ox, oy in offsets]
    feats = place_features(board_bgr, [xy for _, xy in samples], px_per_mm, patch_mm).astype(np.float64)
    labels = [lab for lab, _ in samples]
    classes = sorted(set(labels))
    idx = np.array([classes.index(lab) for lab in labels])
    means = np.stack([feats[idx == k].mean(axis=0) for k in range(len(classes))])
    resid = feats - means[idx]
    dof = max(len(samples) - len(classes), 1)
    cov = resid.T @ resid / dof
    cov = np.diag(np.diag(cov)) * 0.5 + cov * 0.5  # shrink towards the diagonal
    cov += np.diag(COVARIANCE_FLOOR)
    return PlaceModel(classes=classes, means=means, precision=np.linalg.inv(cov), patch_mm=patch_mm,
                      px_per_mm=px_per_mm, median_bgr=median, counts=[counts_of.count(c) for c in classes])


def classify_places(board_bgr: np.ndarray, centres_mm, model: PlaceModel, allowed=None):
    """Give every place its most likely class.

    Args:
        board_bgr: rectified board at ``model.px_per_mm``, BGR uint8, NOT yet normalised.
        centres_mm: (N, 2) place centres (mm).
        model: learned :class:`PlaceModel`.
        allowed: optional list of class names to choose from (others ignored).
    Returns:
        ``(labels, confidence, distance)``: list of N class names; float64 (N,) posterior
        probability of the chosen class times its :func:`typicality`, in [0, 1]; float64 (N,)
        Mahalanobis distance to it (a large distance means "like no class seen at calibration").
    """
    board = normalise_illumination(board_bgr, model.median_bgr)
    feats = place_features(board, centres_mm, model.px_per_mm, model.patch_mm).astype(np.float64)
    keep = np.arange(len(model.classes)) if allowed is None else np.array(
        [model.classes.index(c) for c in allowed if c in model.classes])
    diff = feats[:, None, :] - model.means[None, keep, :]
    d2 = np.einsum("nkf,fg,nkg->nk", diff, model.precision, diff)
    logp = -0.5 * (d2 - d2.min(axis=1, keepdims=True))
    post = np.exp(logp)
    post /= post.sum(axis=1, keepdims=True)
    best = post.argmax(axis=1)
    labels = [model.classes[keep[b]] for b in best]
    n = np.arange(len(best))
    return labels, post[n, best] * typicality(d2[n, best]), np.sqrt(d2[n, best])


#: A place whose features are less likely than this under its class's Gaussian (chi-square test on
#: the squared Mahalanobis distance) is "like no class seen at calibration".
TYPICAL_ALPHA = 1e-3


def chi2_sf_even(x, dof: int) -> np.ndarray:
    """Survival function of the chi-square distribution with an even number of degrees of freedom:
    ``exp(−x/2) · Σ_{i<dof/2} (x/2)^i / i!`` (closed form; float64 array like ``x``)."""
    half = np.asarray(x, np.float64) / 2.0
    term = np.ones_like(half)
    total = np.ones_like(half)
    for i in range(1, dof // 2):
        term = term * half / i
        total = total + term
    return np.exp(-half) * total


def typicality(d2) -> np.ndarray:
    """How plausible a place's features are under the class it was given, in [0, 1].

    The posterior only compares classes with each other: a patch half stone, half board (a place
    seen a few mm off, a stone between two places) lies far from every class yet closer to one,
    and would be given it with a posterior of 1.0. Here the squared Mahalanobis distance to the
    chosen class is tested against the chi-square distribution of :data:`FEATURE_NAMES` degrees of
    freedom (the distance of a sample of that class): 1 while its p-value is at least
    :data:`TYPICAL_ALPHA`, falling in proportion below it.
    """
    return np.minimum(1.0, chi2_sf_even(d2, len(FEATURE_NAMES)) / TYPICAL_ALPHA)
