"""Objects on the Strand unter board: foreground against the empty board, as connected blobs.

Input: the corrected board and the rectified empty board (BGR, work px), the pixel classes.
Output: the foreground mask with the scan's noise level, the blobs (labels, stats, class counts),
and the weak-but-consistent colour change where something sand-like lies (:func:`weak_change`).

Background subtraction (e.g. Piccardi 2004, "Background subtraction techniques: a review") with
a fixed background: the rectified empty board of the calibration. A pixel is foreground when its
lighting-corrected colour changed much in brightness (along the sand's colour direction) or in
chroma (across it) — see :func:`vision.strand_unter.colour.change`. Blobs are 8-connected
components (Rosenfeld & Pfaltz 1966), each described by its area, box, centroid and a histogram
of the learned pixel classes inside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.image.gradients import magnitude
from vision.strand_unter import colour as colour
from vision.strand_unter import stats
from vision.strand_unter.config import READING


def foreground(now_bgr: np.ndarray, empty_bgr: np.ndarray, basis: np.ndarray, *, valid: np.ndarray | None = None,
               sample: np.ndarray | None = None, cfg=READING) -> tuple[np.ndarray, float]:
    """Pixels where something lies on the board.

    Args:
        now_bgr: rectified board after lighting correction, BGR uint8 (H, W, 3).
        empty_bgr: the rectified empty board, BGR uint8 (H, W, 3).
        basis: :func:`vision.strand_unter.colour.change_basis` of the sand colour.
        valid: bool (H, W) of the pixels that may be foreground (e.g. not under the cloth), or None.
        sample: bool (H, W) of the pixels whose change sets the noise level (default ``valid``).
    Returns:
        (bool (H, W) foreground, noise scale: the robust spread (grey levels) of the change on the
        pixels the thresholds left as background).
    """
    abs_p, chroma = colour.change_magnitudes(now_bgr, empty_bgr, basis)
    sub_p, sub_c = abs_p[::4, ::4], chroma[::4, ::4]
    sample = valid if sample is None else sample
    if sample is not None:
        v = sample[::4, ::4]
        sub_p, sub_c = sub_p[v], sub_c[v]
    # robust spread of the background part: the lower quartile of |change| is bare sand even when
    # pieces cover half of what is visible (|N(0, σ)| has its 25th percentile at 0.319 σ)
    noise_p = stats.percentile(sub_p, 25) / 0.319 if sub_p.size else 0.0
    noise_c = stats.percentile(sub_c, 25) / 0.319 if sub_c.size else 0.0
    t_p = max(cfg.fg_brightness, cfg.fg_noise_k * noise_p)
    t_c = max(cfg.fg_chroma, cfg.fg_noise_k * noise_c)
    # (the changes are whole grey levels, int16: "> t" is "> floor(t)", compared without a cast to float64)
    fg = ((abs_p > min(math.floor(t_p), 32767)) | (chroma > min(math.floor(t_c), 32767))).astype(np.uint8)
    if valid is not None:
        fg &= valid.astype(np.uint8)
    if cfg.open_px:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * cfg.open_px + 1,) * 2)
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, k)
    return fg > 0, max(noise_p, noise_c)


@dataclass
class Blobs:
    """Connected foreground blobs of one image.

    Attributes:
        labels: int32 (H, W), 0 background, 1…n−1 blob index.
        stats: int32 (n, 5) x, y, w, h, area (px) as ``cv2.connectedComponentsWithStats``.
        centroids: float64 (n, 2) x, y (px).
        counts: int32 (n, K+1) pixels of each class (last column: unknown) per blob.
    """

    labels: np.ndarray
    stats: np.ndarray
    centroids: np.ndarray
    counts: np.ndarray

    @property
    def n(self) -> int:
        """Number of label values (blob 0 is the background)."""
        return len(self.stats)


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats(mask, connectivity=8)`` of a bool or uint8 (H, W) mask:
    (n, labels int32 (H, W), stats int32 (n, 5), centroids float64 (n, 2)), the same values.

    (Labelled in 16 bits when every possible label fits, at most one 8-connected part per 2 × 2
    pixels: several times faster than OpenCV's 32-bit labelling with statistics; then widened.)
    """
    m = mask.view(np.uint8) if mask.dtype == bool and mask.flags.c_contiguous else \
        np.ascontiguousarray(mask, dtype=np.uint8)
    h, w = m.shape
    if ((h + 1) // 2) * ((w + 1) // 2) < 65535:
        n, labels, st, ce = cv2.connectedComponentsWithStats(m, connectivity=8, ltype=cv2.CV_16U)
        return n, labels.astype(np.int32), st, ce
    return cv2.connectedComponentsWithStats(m, connectivity=8)


def find_blobs(fg: np.ndarray, classes: np.ndarray, n_classes: int) -> Blobs:
    """Blobs of a foreground mask with their class histograms.

    Args:
        fg: bool (H, W).
        classes: uint8 (H, W) class index per pixel (:func:`vision.strand_unter.colour.classify`);
            :data:`~vision.strand_unter.colour.UNKNOWN` counts in the last column.
        n_classes: K.
    """
    n, labels, stats, cent = components(fg)
    sel = np.flatnonzero(fg)                  # the blobs' pixels, gathered once (those of a label > 0)
    cls = np.minimum(classes.reshape(-1)[sel], n_classes).astype(np.int32)
    K = n_classes + 1
    counts = np.bincount(labels.reshape(-1)[sel] * K + cls, minlength=n * K).reshape(n, K).astype(np.int32)
    return Blobs(labels, stats, cent, counts)


def blob_box(blobs: Blobs, i: int, pad: int = 0) -> tuple[slice, slice]:
    """Row and column slices of blob ``i``'s bounding box grown by ``pad`` px (clipped)."""
    x, y, w, h, _ = blobs.stats[i]
    H, W = blobs.labels.shape
    return slice(max(0, y - pad), min(H, y + h + pad)), slice(max(0, x - pad), min(W, x + w + pad))


def weak_change(now_bgr: np.ndarray, empty_bgr: np.ndarray, basis: np.ndarray, valid: np.ndarray,
                cfg=READING, empty_half: np.ndarray | None = None) -> np.ndarray:
    """Where the sand's colour changed a little but consistently: something sand-like lies there.

    A hand or an arm can look much like the sand (a lit skin top against warm sand): pixel by pixel
    below the foreground thresholds, yet over a whole region shifted the same way. The chroma change
    (across the sand's colour direction, so shading and shadows do not count) is averaged over
    ``cfg.weak_window_px`` squares; a pixel changed where that average exceeds ``cfg.weak_chroma``
    grey levels, or more than ``cfg.fg_noise_k`` robust spreads above the valid pixels' median.

    Args:
        now_bgr, empty_bgr: aligned corrected scan and empty board, BGR uint8 (H, W, 3).
        basis: :func:`vision.strand_unter.colour.change_basis`; valid: bool (H, W) pixels to judge.
        empty_half: ``empty_bgr`` already shrunk to half size (INTER_AREA; once per calibration), or None.
    Returns:
        bool (H, W).
    """
    h, w = valid.shape
    half = (w // 2, h // 2)                       # a smooth average: computed at half resolution
    if empty_half is None or empty_half.shape[:2] != half[::-1]:
        empty_half = cv2.resize(empty_bgr, half, interpolation=cv2.INTER_AREA)
    d = cv2.subtract(cv2.resize(now_bgr, half, interpolation=cv2.INTER_AREA), empty_half,
                     dtype=cv2.CV_16S).astype(np.float32)
    k = (max(3, cfg.weak_window_px // 2) | 1,) * 2
    m = magnitude(cv2.blur(cv2.transform(d, basis[1:2]), k), cv2.blur(cv2.transform(d, basis[2:3]), k))
    v2 = cv2.resize(valid.astype(np.uint8), half, interpolation=cv2.INTER_NEAREST) > 0
    sub = m[::2, ::2][v2[::2, ::2]]
    t = cfg.weak_chroma
    if sub.size:
        med = stats.median(sub)
        t = max(t, med + cfg.fg_noise_k * 1.4826 * stats.median(np.abs(sub - med)))
    return cv2.resize((m > t).view(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST).view(bool) & valid
