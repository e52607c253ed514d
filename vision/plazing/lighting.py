"""Plażing lighting and sharpness, measured on the board's printed frame.

Input: this photo's and the calibration's small board views (the frame), the cells' sand rings.
Output: B, G, R gains, a smooth field for uneven light, per-cell gains measured on the bare sand,
the frame's sharpness.

Idea: the frame (sea, dunes, score track: the board outside the grid) is printed artwork that no
game changes, so it is the reference for the lighting change since calibration and for the
photo's sharpness, whatever lies on the grid.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.image import quality
from vision.plazing.cells import Grid
from vision.plazing.config import PRINTS, QUALITY


def frame_mask(shape, grid: Grid, scale_px_per_mm: float) -> np.ndarray:
    """bool (H, W): the board outside the grid (frame, sea, dunes) — the same in every game, so its
    sharpness does not depend on how many pieces lie on the board. Read-only: one array per
    (shape, grid, scale), made once."""
    return _frame_mask(tuple(shape[:2]), grid, float(scale_px_per_mm))


@functools.lru_cache(maxsize=16)
def _frame_mask(shape, grid: Grid, scale_px_per_mm: float) -> np.ndarray:
    m = np.ones(shape[:2], bool)
    x0, y0 = (int(v * scale_px_per_mm) for v in grid.origin_mm)
    x1 = int((grid.origin_mm[0] + grid.cols * grid.cell_mm) * scale_px_per_mm)
    y1 = int((grid.origin_mm[1] + grid.rows * grid.cell_mm) * scale_px_per_mm)
    m[y0:y1, x0:x1] = False
    m.flags.writeable = False
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


def lighting_gains(small: np.ndarray, reference: np.ndarray | None, frame: np.ndarray, fallback_median=None,
                   cache: dict | None = None):
    """Per-channel gains that bring this photo's lighting to the calibration's.

    The board's frame (sea, dunes, score track: outside the grid) is printed artwork that no game
    changes, so the median ratio of the calibration's frame to this photo's, pixel by pixel, is
    the lighting change whatever lies on the grid (grey world restricted to the frame).

    Args:
        small: this photo's small whole-board view, BGR uint8 (h, w, 3).
        reference: the calibration's, same shape, or None (then the ratio of whole-board medians).
        frame: bool (h, w), the frame.
        fallback_median: (3,) the calibration's whole-board median BGR (used without reference).
        cache: optional dict kept with the calibration (:func:`_frame_pairs`).
    Returns:
        float32 (3,) gains, clipped to [0.25, 4].
    """
    if reference is None or reference.shape != small.shape:
        gains = np.asarray(fallback_median, np.float32) / np.maximum(median_bgr(small), 1.0)
        return np.clip(gains, *QUALITY.gain_range).astype(np.float32)
    _, a, b, a_ok = _frame_pairs(small, reference, frame, QUALITY.lighting_stride, cache)
    ok = _unclipped(a, b, a_ok)
    if ok.sum() < QUALITY.min_gain_pixels:
        ok[:] = True
    gains = np.median(a[ok] / np.maximum(b[ok], 1.0), axis=0)
    return np.clip(gains, *QUALITY.gain_range).astype(np.float32)


def _frame_pairs(small: np.ndarray, reference: np.ndarray, frame: np.ndarray, stride: int,
                 cache: dict | None = None):
    """Every ``stride``-th frame pixel: flat indices, the calibration's and this photo's B, G, R
    there, float32 (n, 3) each, and where the calibration's is unclipped (:func:`_unclipped`).

    What depends on the calibration only (the indices, its colours, their clipping) is kept in
    ``cache`` (a dict kept with the calibration, for one ``reference`` and ``frame``) when given;
    the calibration's colours are then read-only."""
    key = ("frame_pairs", stride, small.shape)
    ref = cache.get(key) if cache is not None else None
    if ref is None:
        idx = np.flatnonzero(frame.ravel())[::stride]
        a = reference.reshape(-1, 3)[idx].astype(np.float32)
        ref = (idx, a, _ref_unclipped(a))
        if cache is not None:
            a.flags.writeable = False
            cache[key] = ref
    idx, a, a_ok = ref
    return idx, a, small.reshape(-1, 3)[idx].astype(np.float32), a_ok


def _ref_unclipped(a: np.ndarray) -> np.ndarray:
    """bool (n,): the calibration's pixels with no channel near black or white."""
    return (a.min(axis=1) > 15) & (a.max(axis=1) < 245)


def _unclipped(a: np.ndarray, b: np.ndarray, a_ok: np.ndarray | None = None) -> np.ndarray:
    """bool (n,): pixel pairs with no channel near black or white in either image (``a_ok``:
    :func:`_ref_unclipped` of ``a`` when the caller has it)."""
    return (_ref_unclipped(a) if a_ok is None else a_ok) & (b.min(axis=1) > 5) & (b.max(axis=1) < 250)


def lighting_field(small: np.ndarray, reference: np.ndarray | None, frame: np.ndarray, gains,
                   min_range: float = 0.03, cache: dict | None = None) -> np.ndarray | None:
    """Quadratic log-brightness field (6 coefficients over the board, see :func:`field_at`) that
    evens out uneven light — a lamp to one side, a vignette, a soft shadow — or None when the light
    is even.

    The frame (printed artwork no game changes, around the grid) is compared pixel by pixel with
    the calibration's, after the global ``gains``: the ratio's log is fitted by a quadratic
    surface in the board's coordinates (robustly, twice more without the pixels far off the fit:
    a hand or a card on the frame). Where the fit varies by less than ``min_range`` over the
    frame (log units) the light is even and None is returned.

    Args:
        small: this photo's small whole-board view, BGR uint8 (h, w, 3).
        reference: the calibration's, same shape, or None (no field then).
        frame: bool (h, w), the frame.
        gains: (3,) global gains from :func:`lighting_gains`.
        cache: optional dict kept with the calibration (:func:`_frame_pairs`; the design matrix of
            the frame's pixels too).
    """
    if reference is None or reference.shape != small.shape:
        return None
    h, w = small.shape[:2]
    idx, a, b, a_ok = _frame_pairs(small, reference, frame, QUALITY.light_field_stride, cache)
    b *= np.asarray(gains, np.float32)
    ok = _unclipped(a, b, a_ok)
    if ok.sum() < QUALITY.min_field_pixels:
        return None
    key = ("design", QUALITY.light_field_stride, small.shape)
    design = cache.get(key) if cache is not None else None
    if design is None:  # the quadratic's terms at every frame pixel sampled: the calibration's alone
        y, x = np.divmod(idx, w)
        design = _design((x + 0.5) / w * 2 - 1, (y + 0.5) / h * 2 - 1)
        if cache is not None:
            design.flags.writeable = False
            cache[key] = design
    A = design[ok]
    r = np.log(a[ok].sum(axis=1) / np.maximum(b[ok].sum(axis=1), 1.0))
    keep = np.ones(len(r), bool)
    for _ in range(3):
        coef = _least_squares(A[keep], r[keep])
        res = r - _lin(A, coef)
        mad = float(np.median(np.abs(res[keep])))
        keep = np.abs(res) < max(QUALITY.field_clip_sigmas * 1.4826 * mad, QUALITY.field_clip_floor)
        if keep.sum() < QUALITY.min_field_kept:
            return None
    if keep.mean() < 1.0 - QUALITY.light_field_max_outliers or 1.4826 * mad > QUALITY.light_field_max_sd:
        return None  # not smooth light (a hard shadow, a flat patch over part of the board): not corrected
    fitted = _lin(A[keep], coef)
    lo, hi = np.percentile(fitted, [2, 98])  # both from one partition (fitted is float64: as two calls)
    if float(hi - lo) < min_range:
        return None
    return coef


def _lin(A: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """``A @ coef`` over the last axis, written out: numpy hands large matrix–vector products to a
    multi-threaded BLAS, whose threads on a busy 2-core Pi cost more than the product."""
    out = A[..., 0] * coef[0]
    for k in range(1, len(coef)):
        out = out + A[..., k] * coef[k]
    return out


def _least_squares(A: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Least-squares coefficients of ``A x ≈ r`` from the normal equations (A is n × 6: a 6 × 6
    solve; no multi-threaded LAPACK call)."""
    AtA = np.einsum("ni,nj->ij", A, A)
    return np.linalg.solve(AtA + 1e-9 * np.eye(A.shape[1]), np.einsum("ni,n->i", A, r))


def _design(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.stack([np.ones_like(u), u, v, u * u, v * v, u * v], axis=-1)


def field_at(coef: np.ndarray, shape, offset_mm, px_per_mm: float, board_mm) -> np.ndarray:
    """The gain field of :func:`lighting_field` on an image of ``shape`` (h, w) whose pixel (0, 0)
    starts at ``offset_mm`` on the board, at ``px_per_mm``; float32 (h, w), clipped to [0.4, 2.5]."""
    h, w = shape[:2]
    step = 4 if h * w > 20000 else 1  # a quadratic field: evaluated every 4 px, interpolated between
    hs, ws = -(-h // step), -(-w // step)
    xs = ((offset_mm[0] + (np.arange(ws) * step + 0.5 * step) / px_per_mm) / board_mm[0] * 2 - 1).astype(np.float32)
    ys = ((offset_mm[1] + (np.arange(hs) * step + 0.5 * step) / px_per_mm) / board_mm[1] * 2 - 1).astype(np.float32)
    u, v = np.meshgrid(xs, ys)
    f = np.clip(np.exp(_lin(_design(u, v), coef.astype(np.float32))), 0.4, 2.5).astype(np.float32)
    return f if step == 1 else cv2.resize(f, (w, h), interpolation=cv2.INTER_LINEAR)


def uneven_light(small: np.ndarray, reference: np.ndarray | None, frame: np.ndarray, gains, coef=None,
                 min_share: float = 0.12, min_log: float = 0.15, max_tint: float = 0.12) -> bool:
    """Whether the light left uneven after correction explains cells that look like nothing learned.

    On the printed frame, light changes brightness, not colour: a share ≥ ``min_share`` of the
    frame still off the calibration's brightness by more than ``min_log`` (log units) after the
    gains and the field of :func:`lighting_field`, with about the same ratio in B, G and R
    (median spread ≤ ``max_tint``), is a shadow or a bright patch — an arm or a hand changes the
    colour too.
    """
    if reference is None or reference.shape != small.shape:
        return False
    h, w = small.shape[:2]
    idx, a, b, _ = _frame_pairs(small, reference, frame, max(QUALITY.lighting_stride // 2, 1))
    b *= np.asarray(gains, np.float32)
    if coef is not None:
        y, x = np.divmod(idx, w)
        b *= np.exp(_lin(_design((x + 0.5) / w * 2 - 1, (y + 0.5) / h * 2 - 1), coef))[:, None].astype(np.float32)
    ok = _unclipped(a, b)
    if ok.sum() < 200:
        return False
    lr = np.log(a[ok] / np.maximum(b[ok], 1.0))
    lum = lr.mean(axis=1)
    off = np.abs(lum - np.median(lum)) > min_log
    if off.mean() < min_share:
        return False
    tint = np.median(lr[off].max(axis=1) - lr[off].min(axis=1))
    return bool(tint <= max_tint)


def cell_sands(board: np.ndarray, cells) -> np.ndarray:
    """Every cell's sand colour: the median of a ring just inside its edge (inset and width as
    :func:`~vision.plazing.prints.cell_sand`), which tokens in a cell's middle do not reach.

    Args:
        board: normalised grid crop, BGR uint8 (H, W, 3).
        cells: the crop's :class:`~vision.plazing.cells.CellBlocks` (its grid rectangle).
    Returns:
        float32 (rows, cols, 3).
    """
    g = cells.grid
    K = 12  # px per cell side of the resampled grid: the ring is a pixel or two wide
    u0, v0, u1, v1 = cells.rect
    img = cv2.resize(board[v0:v1, u0:u1], (g.cols * K, g.rows * K), interpolation=cv2.INTER_AREA)
    a = max(1, int(round(PRINTS.ring_inset_share * K)))
    b = max(a + 1, int(round((PRINTS.ring_inset_share + PRINTS.ring_width_share) * K)))
    ring = np.zeros((K, K), bool)
    ring[a:K - a, a:K - a] = True
    ring[b:K - b, b:K - b] = False
    cellwise = img.reshape(g.rows, K, g.cols, K, 3).transpose(0, 2, 1, 3, 4)[:, :, ring]  # (rows, cols, n, 3)
    return np.median(cellwise, axis=2).astype(np.float32)


def smooth_cells(values: np.ndarray, weight: np.ndarray, sigma_cells: float) -> np.ndarray | None:
    """Normalised Gaussian smoothing of per-cell values where ``weight`` > 0 (a cell's own value
    and its neighbours', so cells without a value get their neighbours'): (rows, cols, C) float32,
    or None when no cell has a weight."""
    w = weight.astype(np.float32)
    if w.sum() <= 0:
        return None
    num = cv2.GaussianBlur(values * w[..., None], (0, 0), sigma_cells, borderType=cv2.BORDER_REPLICATE)
    den = cv2.GaussianBlur(w, (0, 0), sigma_cells, borderType=cv2.BORDER_REPLICATE)
    return (num.reshape(values.shape) / np.maximum(den, 1e-6)[..., None]).astype(np.float32)


def sand_correction(sands: np.ndarray, candidates: np.ndarray, reference: np.ndarray, ref_bare: np.ndarray,
                    cfg=QUALITY, cache: dict | None = None) -> np.ndarray | None:
    """Per-cell B, G, R gains that bring this photo's bare sand to the calibration's, or None when
    the light already matches (every gain within ``cfg.sand_even_share`` of 1) or the change is no
    light at all (beyond ``cfg.sand_most_gain``: a shadow, a flat patch — the checks name those).

    What is bare at this moment is the reference: the sand ring of each cell (which tokens in the
    middle do not reach). Its log ratio to the calibration's sand at the same place (itself
    smoothed over the calibration's bare cells) is taken robustly — a 5 × 5-cell median first, so
    pieces, closing terrain and marks on a ring (outliers farther than ``cfg.sand_outlier_log``)
    are left out — then smoothed over the board (Gaussian, ``cfg.sand_sigma_cells``): a lamp's hot
    spot, a vignette, a colour cast that varies across the board are evened out; where the sand is
    hidden the neighbours' correction is used.

    Args:
        sands: float32 (rows, cols, 3) this photo's :func:`cell_sands`; candidates: bool (rows, cols)
            cells that may show bare sand (no player colour on their ring, not closing terrain).
        reference, ref_bare: the calibration shot's cell sands and where they were bare.
        cache: optional dict kept with the calibration (for this ``reference`` and ``ref_bare``):
            their smoothed log, the calibration's alone, is made once.
    Returns:
        float32 (rows, cols, 3) gains, or None.
    """
    key = ("sand_reference", cfg.sand_sigma_cells)
    if cache is not None and key in cache:
        ref = cache[key]
    else:
        ref = smooth_cells(np.log(np.maximum(reference, 1.0)), ref_bare, cfg.sand_sigma_cells)
        if cache is not None:
            if ref is not None:
                ref.flags.writeable = False
            cache[key] = ref
    if ref is None or candidates.sum() < cfg.sand_min_cells:
        return None
    ratio = (ref - np.log(np.maximum(sands, 1.0))).astype(np.float32)
    fill = np.where(candidates[..., None], ratio, np.median(ratio[candidates], axis=0)).astype(np.float32)
    local = np.stack([cv2.medianBlur(np.ascontiguousarray(fill[..., k]), 5) for k in range(3)], axis=-1)
    use = candidates & (np.abs(ratio - local).max(axis=-1) < cfg.sand_outlier_log)
    if use.sum() < cfg.sand_min_cells:
        return None
    fit = smooth_cells(ratio, use, cfg.sand_sigma_cells)
    worst = float(np.abs(fit).max())
    if worst < np.log1p(cfg.sand_even_share) or worst > np.log(cfg.sand_most_gain):
        return None
    return np.exp(fit).astype(np.float32)


def cells_to_pixels(per_cell: np.ndarray, grid: Grid, shape, px_per_mm: float) -> np.ndarray:
    """A smooth per-cell field (rows, cols, C) as a per-pixel field of an image of ``shape`` whose
    grid sits at ``grid`` (the image's own mm): bilinear between cell centres, float32 (H, W, C)."""
    h, w = shape[:2]
    rows, cols = per_cell.shape[:2]
    # cell centre (r, c) is at px ((origin + (c + 0.5)·cell)·ppm − 0.5, …): an affine map from cells to px
    sx = grid.cell_mm * px_per_mm
    tx = grid.origin_mm[0] * px_per_mm + 0.5 * sx - 0.5
    ty = grid.origin_mm[1] * px_per_mm + 0.5 * sx - 0.5
    M = np.float32([[1.0 / sx, 0, -tx / sx], [0, 1.0 / sx, -ty / sx]])  # px → cell coordinates
    return cv2.warpAffine(per_cell.astype(np.float32), M, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE).reshape(h, w, -1)
