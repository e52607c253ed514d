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

The ring's own colour (:func:`ring_medians`, ``with_background``) is also what a hand over a
place changes. Helpers for speed: :func:`board_lab` (Lab without OpenCV's ~90 ms table set-up),
:func:`vision.places.apply_gains` (lighting correction through a lookup table) and :func:`patch_features`
(the :mod:`vision.places` features of every place at once).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.image.gradients import sobel_magnitude
from vision.places import CORE_SHARE, gain_table, illumination_gains

FEATURE_NAMES = ("log_mean_dE", "log_p90_dE", "log_texture_ratio")


def board_lab(board_bgr: np.ndarray, gains=None) -> np.ndarray:
    """CIE Lab (D65, sRGB) of a BGR uint8 board as float32 (H, W, 3): L in 0–100, a and b centred on 0.

    Computed here rather than by ``cv2.cvtColor(COLOR_BGR2LAB)``, whose first call in a process
    spends ~90 ms building tables (a whole scan's budget): sRGB decoding through a 256-entry
    lookup table, the linear map to XYZ / white, the CIE cube root. Within 1.4 units of
    OpenCV's 8-bit result (which rounds Lab to bytes), about as fast once warm.

    Args:
        board_bgr: BGR uint8 (H, W, 3).
        gains: optional (3,) B, G, R gains applied first as :func:`vision.places.apply_gains`
            applies them (rounded and clipped to bytes): the same result, folded into the one
            lookup table.
    Raises:
        ValueError: not a BGR uint8 image of shape (H, W, 3).
    """
    if board_bgr.dtype != np.uint8 or board_bgr.ndim != 3 or board_bgr.shape[2] != 3:
        raise ValueError("expected a BGR uint8 image of shape (H, W, 3)")
    linear_lut, xyz_from_bgr = _lab_tables()
    if gains is not None:
        scaled = gain_table(gains)                                       # (256, 3) bytes
        linear_lut = np.ascontiguousarray(linear_lut[scaled, 0, np.arange(3)]).reshape(256, 1, 3)
    xyz = cv2.transform(cv2.LUT(board_bgr, linear_lut), xyz_from_bgr)      # X/Xn, Y/Yn, Z/Zn
    # float32 cube root (4x faster than cv2.pow(·, 1/3), within 1 ulp); values below _LAB_EPS are
    # replaced by the linear segment just below (xyz ≥ 0: no clamp needed before the root)
    f = np.cbrt(xyz)
    low = xyz < _LAB_EPS
    if low.any():
        f[low] = 7.787 * xyz[low] + 16.0 / 116.0
    return cv2.transform(f, _LAB_FROM_F)


_LAB_EPS = np.float32(0.008856)
#: L = 116 fy − 16, a = 500 (fx − fy), b = 200 (fy − fz).
_LAB_FROM_F = np.float32([[0, 116, 0, -16], [500, -500, 0, 0], [0, 200, -200, 0]])


@functools.lru_cache(maxsize=1)
def _lab_tables() -> tuple[np.ndarray, np.ndarray]:
    """sRGB byte → linear light table, float32 (256, 1, 3); BGR → XYZ/white matrix, float32 (3, 3)."""
    v = np.arange(256, dtype=np.float64) / 255.0
    linear = np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4).astype(np.float32)
    rgb_to_xyz = np.array([[0.412453, 0.357580, 0.180423], [0.212671, 0.715160, 0.072169],
                           [0.019334, 0.119193, 0.950227]]) / np.array([0.950456, 1.0, 1.088754])[:, None]
    return np.repeat(linear[:, None], 3, axis=1).reshape(256, 1, 3), rgb_to_xyz[:, ::-1].astype(np.float32)


def normalised_lab(board_bgr: np.ndarray, reference_median_bgr=None) -> np.ndarray:
    """Illumination-normalised CIE Lab of a rectified board, float32 (H, W, 3).

    Lighting corrected by :func:`vision.places.normalise_illumination` (channel gains so the
    board's median B, G, R match the calibration's, applied through a lookup table).

    Args:
        board_bgr: rectified board, BGR uint8 (H, W, 3).
        reference_median_bgr: (3,) calibration board median BGR, or None for no correction.
    """
    if board_bgr.dtype != np.uint8 or board_bgr.ndim != 3 or board_bgr.shape[2] != 3:
        raise ValueError("expected a BGR uint8 image of shape (H, W, 3)")
    if reference_median_bgr is None:
        return board_lab(board_bgr)
    return board_lab(board_bgr, illumination_gains(board_bgr, reference_median_bgr))


def _quantile_last(x: np.ndarray, q: float) -> np.ndarray:
    """``np.percentile(x, 100·q, axis=-1)`` (linear interpolation) with one partition, float (...)."""
    n = x.shape[-1]
    pos = q * (n - 1)
    lo = int(np.floor(pos))
    hi = min(lo + 1, n - 1)
    part = np.array(x, order="C")              # a C-ordered copy: the last axis contiguous (x may be a moved view)
    if hi == lo:
        part.partition(lo, axis=-1)
        return part[..., lo]
    # one order statistic partitioned (numpy's two-at-once selection is slower than that and a
    # max): below position hi lie the hi smallest values, whose largest is the lo-th
    part.partition(hi, axis=-1)
    upper, lower = part[..., hi], part[..., :hi].max(axis=-1)
    return lower + (pos - lo) * (upper - lower)


def _place_pixels(u0: np.ndarray, v0: np.ndarray, mask: np.ndarray, shape) -> np.ndarray:
    """Flat pixel indices (n, mask.sum()) of ``mask``'s pixels in every place whose corner is (u0, v0).

    Places partly off the image repeat its edge pixels (as ``BORDER_REPLICATE``). The indices
    depend only on the board's geometry (a profile's places at a reader's resolution), so the last
    few layouts are kept (read-only arrays).
    """
    u0, v0 = np.asarray(u0), np.asarray(v0)
    key = (u0.tobytes(), v0.tobytes(), np.packbits(mask).tobytes(), mask.shape, tuple(shape[:2]))
    idx = _PLACE_PIXELS.get(key)
    if idx is None:
        ry, rx = np.nonzero(mask)
        yy = np.clip(v0[:, None] + ry[None, :], 0, shape[0] - 1)
        xx = np.clip(u0[:, None] + rx[None, :], 0, shape[1] - 1)
        idx = yy * shape[1] + xx
        idx.setflags(write=False)
        if len(_PLACE_PIXELS) >= 32:
            _PLACE_PIXELS.clear()
        _PLACE_PIXELS[key] = idx
    return idx


#: :func:`_place_pixels`' layouts (geometry only: the same for every photo of a calibration).
_PLACE_PIXELS: dict = {}


def _core_and_ring(h: int, w: int, px_per_mm: float, core_inset_mm: float,
                   ring_mm: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """bool (h, w) masks of a place's core (at least ``core_inset_mm`` inside its edge) and ring
    (between ``ring_mm`` inside it); pixel centres at half-pixel offsets."""
    yy, xx = np.mgrid[0:h, 0:w] + 0.5
    inset = np.minimum(np.minimum(xx, w - xx), np.minimum(yy, h - yy)) / px_per_mm
    return inset >= core_inset_mm, (inset >= ring_mm[0]) & (inset < ring_mm[1])


def core_ring_quantiles(values: np.ndarray, boxes_mm, px_per_mm: float, core_inset_mm: float,
                        ring_mm: tuple[float, float], q: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``q`` quantile of a one-channel board's values over each equal-sized place's core and ring.

    Args:
        values: (H, W) any real dtype, the rectified board at ``px_per_mm``; boxes_mm: (N, 4) places
            of one size as x0, y0, x1, y1 in board mm; core_inset_mm, ring_mm: as
            :func:`ring_contrast_features`; q: quantile in [0, 1].
    Returns:
        ``(core, ring)``, each (N,) of ``values``' dtype.
    """
    boxes = np.asarray(boxes_mm, np.float64).reshape(-1, 4)
    u0, v0 = np.round(boxes[:, 0] * px_per_mm).astype(int), np.round(boxes[:, 1] * px_per_mm).astype(int)
    w = int(np.round(boxes[0, 2] * px_per_mm)) - u0[0]
    h = int(np.round(boxes[0, 3] * px_per_mm)) - v0[0]
    core, ring = _core_and_ring(h, w, px_per_mm, core_inset_mm, ring_mm)
    flat = np.asarray(values).reshape(-1)
    return (_quantile_last(_gather(flat, _place_pixels(u0, v0, core, values.shape)), q),
            _quantile_last(_gather(flat, _place_pixels(u0, v0, ring, values.shape)), q))


def _gather(flat: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``flat[idx]`` for flat pixel indices: ``np.take`` along the first axis (the same values,
    several times faster than fancy indexing)."""
    return np.take(flat, idx, axis=0)


def ring_medians(image: np.ndarray, boxes_mm, px_per_mm: float, ring_mm: tuple[float, float]) -> np.ndarray:
    """Median colour of each rectangular place's ring (the band ``ring_mm`` inside its edge).

    Args:
        image: rectified board, (H, W, C) any dtype; pixel (u, v) is at ((u + 0.5)/ppm, (v + 0.5)/ppm) mm.
        boxes_mm: (N, 4) places as x0, y0, x1, y1 in board mm.
        px_per_mm: resolution of ``image``.
        ring_mm: (inner, outer) distance inside the box edge, mm.
    Returns:
        float64 (N, C).
    """
    boxes = np.asarray(boxes_mm, np.float64).reshape(-1, 4)
    flat = image.reshape(-1, image.shape[2])
    out = np.zeros((len(boxes), image.shape[2]))
    u0 = np.round(boxes[:, 0] * px_per_mm).astype(int)
    v0 = np.round(boxes[:, 1] * px_per_mm).astype(int)
    ws = np.round(boxes[:, 2] * px_per_mm).astype(int) - u0
    hs = np.round(boxes[:, 3] * px_per_mm).astype(int) - v0
    for h, w in sorted(set(zip(hs.tolist(), ws.tolist()))):
        idx = np.flatnonzero((hs == h) & (ws == w))
        _, ring = _core_and_ring(h, w, px_per_mm, 0.0, ring_mm)
        px = _gather(flat, _place_pixels(u0[idx], v0[idx], ring, image.shape)).astype(np.float32)   # (n, n_ring, C)
        out[idx] = _quantile_last(np.moveaxis(px, 2, 1), 0.5)
    return out


def ring_contrast_features(lab: np.ndarray, boxes_mm, px_per_mm: float, core_inset_mm: float,
                           ring_mm: tuple[float, float], grad: np.ndarray | None = None,
                           with_background: bool = False, step_px: int = 1):
    """Contrast features of rectangular places against their own ring.

    Only the core and ring pixels of each place are gathered (no whole-place crops), and medians
    and percentiles are one partition each: a few ms for a 49-cell towel at 1.5 px/mm.

    Args:
        lab: rectified board in Lab, float32 (H, W, 3) from :func:`board_lab`; pixel (u, v) is at
            ((u + 0.5)/px_per_mm, (v + 0.5)/px_per_mm) mm.
        boxes_mm: (N, 4) places as x0, y0, x1, y1 in board mm (places partly off the board
            repeat its edge pixels).
        px_per_mm: resolution of ``lab``.
        core_inset_mm: core = pixels at least this far inside the box edge.
        ring_mm: (inner, outer) distance inside the box edge of the background ring, mm.
        grad: optional precomputed :func:`~vision.image.gradients.sobel_magnitude` of ``lab[..., 0]``.
        with_background: also return every place's ring colour.
        step_px: look at every ``step_px``-th pixel of the core and ring in x and y (large
            places: the statistics barely change, the cost falls by ``step_px²``).
    Returns:
        float64 (N, 3), columns :data:`FEATURE_NAMES`; with ``with_background`` the pair
        ``(features, ring_lab)``, ring_lab float64 (N, 3) the median Lab of each place's ring (its
        background: what a hand or a cloth over the place changes).
    Raises:
        ValueError: a box is too small to hold both a ring and a core at this resolution.
    """
    if grad is None:
        grad = sobel_magnitude(np.ascontiguousarray(lab[..., 0]))
    boxes = np.asarray(boxes_mm, np.float64).reshape(-1, 4)
    out = np.zeros((len(boxes), len(FEATURE_NAMES)))
    ring_lab = np.zeros((len(boxes), 3))
    if len(boxes) == 0:
        return (out, ring_lab) if with_background else out
    flat_lab = lab.reshape(-1, 3)
    flat_grad = grad.reshape(-1)
    u0 = np.round(boxes[:, 0] * px_per_mm).astype(int)
    v0 = np.round(boxes[:, 1] * px_per_mm).astype(int)
    ws = np.round(boxes[:, 2] * px_per_mm).astype(int) - u0
    hs = np.round(boxes[:, 3] * px_per_mm).astype(int) - v0
    for h, w in sorted(set(zip(hs.tolist(), ws.tolist()))):  # same-sized places are done together
        idx = np.flatnonzero((hs == h) & (ws == w))
        core, ring = _core_and_ring(h, w, px_per_mm, core_inset_mm, ring_mm)
        if step_px > 1:
            sparse = np.zeros_like(core)
            sparse[::step_px, ::step_px] = True
            core, ring = core & sparse, ring & sparse
        if core.sum() < 4 or ring.sum() < 8:
            raise ValueError(f"place of {w}x{h} px is too small for a core and a ring")
        core_px = _place_pixels(u0[idx], v0[idx], core, lab.shape)     # (n, n_core)
        ring_px = _place_pixels(u0[idx], v0[idx], ring, lab.shape)     # (n, n_ring)
        bg = _quantile_last(np.moveaxis(_gather(flat_lab, ring_px), 2, 1), 0.5)   # (n, 3) ring median
        ring_lab[idx] = bg
        diff = _gather(flat_lab, core_px) - bg[:, None].astype(np.float32)   # (n, n_core, 3)
        de = np.sqrt(np.einsum("nkc,nkc->nk", diff, diff))               # (n, n_core)
        out[idx, 0] = np.log1p(de.mean(axis=1))
        out[idx, 1] = np.log1p(_quantile_last(de, 0.9))
        out[idx, 2] = (np.log1p(_gather(flat_grad, core_px).mean(axis=1))
                       - np.log1p(_quantile_last(_gather(flat_grad, ring_px), 0.5)))
    return (out, ring_lab) if with_background else out


@dataclass
class ContrastReading:
    """What :func:`denoised_contrast_features` measured on one board.

    Attributes:
        features: float64 (N, 3), columns :data:`FEATURE_NAMES`, noise-corrected (see there).
        ring_lab: float64 (N, 3), median Lab of each place's ring (its own background).
        ring_power: the photo's background noise power, ΔE² (median over places of the mean
            squared ΔE of ring pixels from their ring's median, after smoothing).
        ring_p90: the photo's typical 90th percentile ΔE of ring pixels (median over places).
        core_de: float32 (N, n_core) ΔE of every core pixel from its ring's median (smoothed).
        core_lab: float32 (N, n_core, 3) the smoothed Lab of every core pixel.
    """

    features: np.ndarray
    ring_lab: np.ndarray
    ring_power: float
    ring_p90: float
    core_de: np.ndarray
    core_lab: np.ndarray


def denoised_contrast_features(lab: np.ndarray, boxes_mm, px_per_mm: float, core_inset_mm: float,
                               ring_mm: tuple[float, float], smooth_px: int = 3) -> ContrastReading:
    """Noise-robust contrast features of equal-sized rectangular places against their own ring.

    :func:`ring_contrast_features` compares single pixels with the ring's median: on a noisy or
    heavily compressed photo every pixel differs from it, so every place looks occupied. Here

    1. the board is first averaged over ``smooth_px`` × ``smooth_px`` px windows (means over
       areas: white noise falls by ``smooth_px``, a piece several mm across keeps its colour);
    2. the photo's own background noise is measured where no piece is expected — every place's
       ring: the median over places of the rings' mean squared ΔE (``ring_power``) and 90th
       percentile ΔE (``ring_p90``);
    3. that noise is taken off each core's statistics, as independent noise adds in power:
       feature 0 is ``log1p(sqrt(max(mean(ΔE²) − ring_power, 0)))``, feature 1
       ``log1p(sqrt(max(p90(ΔE)² − ring_p90², 0)))``; feature 2 is the texture ratio of
       :func:`ring_contrast_features` on the smoothed lightness (unsmoothed, noise drowns a faint
       piece's texture and the ratio tends to that of an empty place).

    An empty place then scores about 0 whatever the noise; a piece keeps its contrast.

    Args:
        lab: rectified board in Lab, float32 (H, W, 3) (:func:`board_lab`).
        boxes_mm: (N, 4) places x0, y0, x1, y1 in board mm, all of one size.
        px_per_mm: resolution of ``lab``.
        core_inset_mm: core = pixels at least this far inside the box edge.
        ring_mm: (inner, outer) distance inside the box edge of the background ring, mm.
        smooth_px: side of the averaging window (1: none).
    Returns:
        A :class:`ContrastReading`.
    Raises:
        ValueError: places of different sizes, or too small for a core and a ring.
    """
    if smooth_px > 1:
        lab = cv2.blur(lab, (smooth_px, smooth_px))
    grad = sobel_magnitude(np.ascontiguousarray(lab[..., 0]))
    boxes = np.asarray(boxes_mm, np.float64).reshape(-1, 4)
    u0 = np.round(boxes[:, 0] * px_per_mm).astype(int)
    v0 = np.round(boxes[:, 1] * px_per_mm).astype(int)
    ws = np.round(boxes[:, 2] * px_per_mm).astype(int) - u0
    hs = np.round(boxes[:, 3] * px_per_mm).astype(int) - v0
    if len(set(ws.tolist())) != 1 or len(set(hs.tolist())) != 1:
        raise ValueError("denoised_contrast_features needs places of one size")
    h, w = int(hs[0]), int(ws[0])
    core, ring = _core_and_ring(h, w, px_per_mm, core_inset_mm, ring_mm)
    if core.sum() < 4 or ring.sum() < 8:
        raise ValueError(f"place of {w}x{h} px is too small for a core and a ring")
    flat_lab, flat_grad = lab.reshape(-1, 3), grad.reshape(-1)
    core_px = _place_pixels(u0, v0, core, lab.shape)
    ring_px = _place_pixels(u0, v0, ring, lab.shape)
    ring_vals = _gather(flat_lab, ring_px)                              # (n, n_ring, 3)
    bg = _quantile_last(np.moveaxis(ring_vals, 2, 1), 0.5)            # (n, 3)
    d = ring_vals - bg[:, None].astype(np.float32)
    ring_de2 = np.einsum("nkc,nkc->nk", d, d)
    ring_power = float(np.median(ring_de2.mean(axis=1)))
    ring_p90 = float(np.median(np.sqrt(_quantile_last(ring_de2, 0.9))))
    core_lab = _gather(flat_lab, core_px)
    d = core_lab - bg[:, None].astype(np.float32)
    core_de2 = np.einsum("nkc,nkc->nk", d, d)
    out = np.zeros((len(boxes), len(FEATURE_NAMES)))
    out[:, 0] = np.log1p(np.sqrt(np.maximum(core_de2.mean(axis=1) - ring_power, 0.0)))
    out[:, 1] = np.log1p(np.sqrt(np.maximum(_quantile_last(core_de2, 0.9) - ring_p90 ** 2, 0.0)))
    out[:, 2] = (np.log1p(_gather(flat_grad, core_px).mean(axis=1))
                 - np.log1p(_quantile_last(_gather(flat_grad, ring_px), 0.5)))
    return ContrastReading(out, bg.astype(np.float64), ring_power, ring_p90, np.sqrt(core_de2), core_lab)


def patch_features(lab: np.ndarray, grad: np.ndarray, centres_mm, px_per_mm: float, patch_mm: float) -> np.ndarray:
    """:func:`vision.places.place_features` from a precomputed Lab board and gradient (fast).

    The same ten features, same patch geometry and clipping at the board's edge, but the Lab
    conversion and gradient are shared with :func:`ring_contrast_features` and every patch is
    gathered at once (no Python loop over places).

    Args:
        lab: board in CIE Lab, float32 (H, W, 3) from :func:`board_lab` (already
            illumination-normalised); pixel (u, v) is at ((u + 0.5)/px_per_mm, (v + 0.5)/px_per_mm) mm.
        grad: :func:`~vision.image.gradients.sobel_magnitude` of ``lab[..., 0]``, float32 (H, W).
        centres_mm: (N, 2) place centres in board mm.
        px_per_mm: resolution of ``lab``.
        patch_mm: side of the square patch around each centre (mm).
    Returns:
        float32 (N, 10), columns ``vision.places.FEATURE_NAMES`` (L, a, b, sd_L, sd_a, sd_b,
        texture, core_L, core_a, core_b); zeros for a place wholly off the board.
    """

    h, w = lab.shape[:2]
    half = max(1, int(round(patch_mm * px_per_mm / 2)))
    core = max(1, int(round(half * CORE_SHARE)))
    c = np.asarray(centres_mm, np.float64).reshape(-1, 2)
    u, v = (c[:, 0] * px_per_mm).astype(int), (c[:, 1] * px_per_mm).astype(int)
    flat_lab, flat_grad = lab.reshape(-1, 3), grad.reshape(-1)

    def gather(r):
        """Flat indices (N, 4r²) of each place's window and whether each pixel lies on the board."""
        off = np.arange(-r, r)
        yy, xx = v[:, None, None] + off[None, :, None], u[:, None, None] + off[None, None, :]
        inside = ((yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)).reshape(len(c), -1)
        idx = (np.clip(yy, 0, h - 1) * w + np.clip(xx, 0, w - 1)).reshape(len(c), -1)
        return idx, inside.astype(np.float64)

    out = np.zeros((len(c), 10), np.float32)
    idx, m = gather(half)
    n = m.sum(axis=1)
    idx_i, m_i = gather(core)
    n_i = m_i.sum(axis=1)
    ok = (n > 0) & (n_i > 0)
    if not ok.any():
        return out
    x = _gather(flat_lab, idx[ok])                             # (n, P, 3) float32
    wts = (m[ok] / n[ok][:, None]).astype(np.float32)          # (n, P), rows sum to 1
    mean = np.einsum("np,npc->nc", wts, x, dtype=np.float64)
    out[ok, 0:3] = mean
    out[ok, 3:6] = np.sqrt(np.maximum(np.einsum("np,npc->nc", wts, x * x, dtype=np.float64) - mean ** 2, 0.0))
    out[ok, 6] = np.einsum("np,np->n", wts, _gather(flat_grad, idx[ok]), dtype=np.float64) / 4.0
    wi = (m_i[ok] / n_i[ok][:, None]).astype(np.float32)
    out[ok, 7:10] = np.einsum("np,npc->nc", wi, _gather(flat_lab, idx_i[ok]), dtype=np.float64)
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

    @classmethod
    def mislabelled(cls, features, labels, var_floor, min_llr: float, min_rms_z: float,
                    broaden: tuple[str, str] | None = None,
                    close_rms_z: float | None = None, near_rms_z: float | None = None,
                    broad_own_rms_z: float = 0.0) -> list[tuple[int, str]]:
        """Samples that clearly belong to another class than their label (leave-one-out).

        Each sample is left out, the classes are learned from the others (as :meth:`fit`, then
        :meth:`broadened` with ``broaden = (cls, toward)`` when given), and the sample is
        suspect when another class's log-likelihood beats its own label's by ``min_llr`` *and*
        it lies more than ``min_rms_z`` standard deviations (RMS per feature) from its own
        class — or, with ``close_rms_z``, when it lies within ``close_rms_z`` standard
        deviations of the better class (a broad class such as broadened shells also "explains" a
        plain empty place; a sample indistinguishable from another class is still suspect). Close
        to the broadened class counts only beyond ``broad_own_rms_z`` from the sample's own class:
        that class covers ``toward`` by construction, so every ``toward`` sample lies close to it.
        With ``near_rms_z``, the first rule also needs the sample within ``near_rms_z`` standard
        deviations of the better class: a sample unlike every class (a glossy piece catching the
        light) is far from its own class without looking like another one.
        A sample whose class has no other sample is not judged.

        Args:
            features: (N, F) feature rows; labels: N class names.
            var_floor: (F,) variance floor, as for :meth:`fit`.
            min_llr: log-likelihood margin; min_rms_z: distance from the own class.
            broaden: optional ``(cls, toward)`` for :meth:`broadened`.
        Returns:
            ``[(index, better_class), …]`` most suspect first.
        """
        X = np.asarray(features, np.float64)
        labels = list(labels)
        out = []
        for i in range(len(X)):
            rest = [j for j in range(len(X)) if j != i]
            rest_labels = [labels[j] for j in rest]
            if labels[i] not in rest_labels or len(set(rest_labels)) < 2:
                continue
            model = cls.fit(X[rest], rest_labels, var_floor)
            if broaden and broaden[0] in model.classes and broaden[1] in model.classes:
                model = model.broadened(*broaden)
            ll = model.log_likelihood(X[i:i + 1])[0]
            own = model.classes.index(labels[i])
            other = int(np.argmax(np.where(np.arange(len(ll)) == own, -np.inf, ll)))
            d2 = model.distances2(X[i:i + 1])[0]
            rms_z = float(np.sqrt(d2[own] / X.shape[1]))
            other_z = float(np.sqrt(d2[other] / X.shape[1]))
            close = close_rms_z is not None and other_z < close_rms_z
            if close and broaden and model.classes[other] == broaden[0]:
                close = rms_z > broad_own_rms_z
            near = near_rms_z is None or other_z < near_rms_z
            if (ll[other] - ll[own] > min_llr and rms_z > min_rms_z and near) or (close and ll[other] > ll[own]):
                out.append((ll[other] - ll[own], i, model.classes[other]))
        return [(i, c) for _, i, c in sorted(out, reverse=True)]

    def to_json(self) -> dict:
        return {"classes": self.classes, "means": self.means.tolist(), "variances": self.variances.tolist()}

    @classmethod
    def from_json(cls, d: dict) -> "GaussianClasses":
        return cls(list(d["classes"]), np.array(d["means"], np.float64), np.array(d["variances"], np.float64))
