"""Colour models of Strand unter: learned Lab Gaussians baked into a BGR lookup table.

Input: Lab pixels of the labelled classes (calibration), BGR images (scans).
Output: class Gaussians, the lookup table, per-pixel classes, lighting gains and fields, the
change of a scan against the empty board.

- Each labelled class (shell colour, player colour, sea, sand, castle base, sandpiper) is a
  Gaussian in 8-bit OpenCV Lab (mean (3,), covariance (3, 3)), fitted at calibration; pixels go
  to the nearest class by Mahalanobis distance (Mahalanobis 1936).
- Reading never converts images to Lab: at calibration the nearest class of every cell of a
  quantised BGR cube (``2**bits`` levels per channel) is computed once and saved as a lookup table
  (:func:`build_lut`); a scan maps pixels through it (:func:`classify`), a table lookup per pixel.
- Lighting colour/strength changes between the calibration and a scan are undone with a
  diagonal (von Kries) gain per BGR channel, measured on parts of the scene that never change
  (the table around the board, then the bare sand), as in grey-world/white-patch balancing;
  uneven light by a smooth field (:func:`illumination_field`).
- Foreground is a change against the rectified empty board, split into a brightness part (along
  the sand's colour direction: shading, shadows) and a chroma part (across it): :func:`change`.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.strand_unter import stats

#: class index of "no class" in a lookup table
UNKNOWN = 255


def lab(image_bgr: np.ndarray) -> np.ndarray:
    """BGR uint8 (H, W, 3) → Lab float32 (H, W, 3) in 8-bit OpenCV units. Calibration only (slow first call)."""
    if image_bgr.dtype != np.uint8 or image_bgr.ndim != 3:
        raise ValueError("expected a BGR uint8 image")
    return cv2.cvtColor(image_bgr, cv2.COLOR_BGR2Lab).astype(np.float32)


def gaussian(pixels_lab: np.ndarray, min_std) -> dict:
    """Fit a Lab Gaussian to pixels (N, 3) float; returns JSON ``{"mean", "cov", "n"}``.

    Args:
        pixels_lab: (N, 3) Lab pixels.
        min_std: (3,) floor of the standard deviation per axis (L, a, b), Lab units: a class seen
            under one light in one spot must still accept shading and camera noise.
    Raises:
        ValueError: fewer than 3 pixels.
    """
    x = np.asarray(pixels_lab, dtype=np.float64).reshape(-1, 3)
    if len(x) < 3:
        raise ValueError("too few pixels")
    mean = np.median(x, axis=0)
    cov = np.cov(x, rowvar=False)
    floor = np.asarray(min_std, np.float64) ** 2
    cov = cov + np.diag(np.maximum(floor - np.diag(cov), 0.0))
    return {"mean": mean.round(3).tolist(), "cov": cov.round(4).tolist(), "n": int(len(x))}


def mahalanobis(pixels_lab: np.ndarray, models: list[dict]) -> np.ndarray:
    """Mahalanobis distances float32 (N, K) of Lab pixels (N, 3) to K Gaussians (:func:`gaussian`)."""
    x = np.asarray(pixels_lab, dtype=np.float64).reshape(-1, 3)
    out = np.empty((len(x), len(models)), np.float32)
    for k, m in enumerate(models):
        d = x - np.asarray(m["mean"])
        inv = np.linalg.inv(np.asarray(m["cov"], np.float64))
        out[:, k] = np.sqrt(np.einsum("ni,ij,nj->n", d, inv, d))
    return out


def lut_index(image_bgr: np.ndarray, bits: int) -> np.ndarray:
    """Cell index of every pixel in the quantised BGR cube: uint16 (H, W) from BGR uint8 (H, W, 3).

    Index = ``b' << 2·bits | g' << bits | r'`` with ``x' = x >> (8 − bits)``; ``bits`` ≤ 5.
    """
    # (integer shifts in numpy: the same index as summing :func:`_index_parts`' shares, about twice as fast
    # as ``cv2.transform`` of the uint16 shares, which converts through float)
    if not 1 <= bits <= 5:
        raise ValueError("lut bits must be 1…5")
    q = image_bgr >> (8 - bits)
    idx = q[..., 0].astype(np.uint16)
    idx <<= 2 * bits                                      # (in place: fewer temporaries)
    g = q[..., 1].astype(np.uint16)
    g <<= bits
    idx |= g
    idx |= q[..., 2]
    return idx


_PARTS: dict = {}


def _index_parts(bits: int) -> np.ndarray:
    """(1, 256, 3) uint16 table: each channel's share of :func:`lut_index`."""
    if bits not in _PARTS:
        if not 1 <= bits <= 5:
            raise ValueError("lut bits must be 1…5")
        q = (np.arange(256) >> (8 - bits)).astype(np.uint16)
        _PARTS[bits] = np.ascontiguousarray(np.stack([q << (2 * bits), q << bits, q], axis=-1)[None])
    return _PARTS[bits]


def build_lut(models: list[dict], bits: int, max_dist: float) -> np.ndarray:
    """Nearest class of every cell of the quantised BGR cube.

    Args:
        models: K Lab Gaussians (:func:`gaussian`), K < 255.
        bits: levels per channel = 2**bits (cell centres at ``(i + 0.5)·2**(8−bits)``).
        max_dist: cells farther than this (Mahalanobis) from every class get :data:`UNKNOWN`.
    Returns:
        uint8 (2**(3·bits),): class index 0…K−1 or :data:`UNKNOWN`, indexed by :func:`lut_index`.
    """
    n = 1 << bits
    step = 256 // n
    v = (np.arange(n) * step + step // 2).astype(np.uint8)
    b, g, r = np.meshgrid(v, v, v, indexing="ij")
    cube = np.stack([b, g, r], axis=-1).reshape(1, -1, 3)
    d = mahalanobis(lab(cube).reshape(-1, 3), models)
    out = np.argmin(d, axis=1).astype(np.uint8)
    out[d.min(axis=1) > max_dist] = UNKNOWN
    return out


def classify(image_bgr: np.ndarray, lut: np.ndarray, bits: int) -> np.ndarray:
    """Class index uint8 (H, W) of every pixel of a BGR uint8 (H, W, 3) image via :func:`build_lut`'s table."""
    return np.take(lut, lut_index(image_bgr, bits))     # (np.take: the same lookup, twice as fast as lut[idx])


def lut_to_image(lut: np.ndarray) -> np.ndarray:
    """The table as a grey uint8 picture (rows of 1024) for saving as PNG."""
    return lut.reshape(-1, 1024)


def lut_from_image(img: np.ndarray) -> np.ndarray:
    """Inverse of :func:`lut_to_image`: uint8 (N,)."""
    if img.ndim == 3:
        img = img[..., 0]
    return np.ascontiguousarray(img).reshape(-1)


def channel_gains(now_bgr: np.ndarray, ref_bgr: np.ndarray) -> np.ndarray:
    """Per-channel gains (B, G, R) float (3,) mapping ``now`` colours onto ``ref`` colours (von Kries).

    Args:
        now_bgr: pixels (N, 3) of the scan, uint8 or float.
        ref_bgr: the same scene parts in the calibration, (3,) median BGR.
    """
    return np.asarray(ref_bgr, np.float64) / np.maximum(channel_medians(now_bgr), 1.0)


def channel_medians(pixels_bgr: np.ndarray) -> np.ndarray:
    """Per-channel medians (B, G, R) float64 (3,) of pixels (N, 3), uint8 or float."""
    px = np.asarray(pixels_bgr).reshape(-1, 3)
    return np.array([stats.median(px[:, c]) for c in range(3)], np.float64)   # (np.median(axis=0), the same values)


def apply_gains(image_bgr: np.ndarray, gains) -> np.ndarray:
    """Multiply BGR channels by ``gains`` (3,), saturating to uint8."""
    return cv2.transform(image_bgr, np.diag(np.asarray(gains, np.float32)))


def change_basis(sand_bgr) -> np.ndarray:
    """(3, 3) float32 rows: the unit sand colour direction, then two unit directions across it.

    Projecting a BGR difference on the first row measures brightness change (shading, shadow);
    the other two measure chroma change (a piece of another colour).
    """
    e = np.asarray(sand_bgr, np.float64)
    e = e / np.linalg.norm(e)
    a = np.cross(e, [0.0, 0.0, 1.0])
    a /= np.linalg.norm(a)
    b = np.cross(e, a)
    return np.stack([e, a, b]).astype(np.float32)


def change(now_bgr: np.ndarray, empty_bgr: np.ndarray, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Brightness and chroma change of a scan against the empty board.

    Args:
        now_bgr, empty_bgr: aligned BGR uint8 (H, W, 3) images (after lighting correction).
        basis: :func:`change_basis`.
    Returns:
        (brightness change int16 (H, W), signed, grey levels; chroma change int16 (H, W) ≥ 0, L1),
        rounded to whole grey levels (16-bit arithmetic is several times faster than float).
    """
    d = cv2.subtract(now_bgr, empty_bgr, dtype=cv2.CV_16S)
    p = cv2.transform(d, basis)                            # the three projections in one pass
    # (numpy on the channels' strided views: the same values, without cv2.split's three copies)
    return p[..., 0], np.abs(p[..., 1]) + np.abs(p[..., 2])


def change_magnitudes(now_bgr: np.ndarray, empty_bgr: np.ndarray, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`change` as magnitudes: (|brightness change|, chroma change), int16 (H, W) each, the same
    values (one saturating absolute value of the three projections instead of numpy's per channel)."""
    d = cv2.subtract(now_bgr, empty_bgr, dtype=cv2.CV_16S)
    a = cv2.absdiff(cv2.transform(d, basis), 0)
    return a[..., 0], a[..., 1] + a[..., 2]


def cloth_region(sea_px: np.ndarray, window_px: int) -> np.ndarray:
    """The cloth as one region hanging from the sea side: bool (H, W) from per-pixel sea bool (H, W).

    Per column, the cloth reaches down to the first non-sea row (after closing small holes); the
    edge is then median-filtered across ``window_px`` columns so that a blue piece just
    under the cloth (or isolated blue pixels elsewhere) is not taken for sea.
    """
    return np.arange(sea_px.shape[0])[:, None] < cloth_edge(sea_px, window_px)[None, :]


def cloth_edge(sea_px: np.ndarray, window_px: int) -> np.ndarray:
    """Per column, the row (float (W,)) where the cloth hanging from row 0 ends; see :func:`cloth_region`.

    Each column's edge is the step that best splits it into "sea above, something else below":
    the row ``e`` maximising Σ_{y<e} (+1 if sea else −1) (a least-squares step fit of the 0/1
    column). A hole in the cloth (a hand lying on it, a patch of noisy pixels) does not end the
    cloth there, as long as more cloth than hole lies above the true edge; a column without cloth
    gets 0. The edge is then median-filtered across ``window_px`` columns.
    """
    h = sea_px.shape[0]
    above = np.cumsum(sea_px, axis=0, dtype=np.int32)                       # sea pixels in rows 0…y of each column
    score = 2 * above - np.arange(1, h + 1, dtype=np.int32)[:, None]        # Σ_{rows ≤ y} (+1 sea, −1 not)
    best = np.argmax(score, axis=0)
    edge = np.where(score[best, np.arange(score.shape[1])] > 0, best + 1, 0).astype(np.float32)
    win = max(3, int(window_px) | 1)
    r = win // 2                                                            # (the edge values repeated at both ends)
    padded = np.concatenate([np.full(r, edge[0], edge.dtype), edge, np.full(r, edge[-1], edge.dtype)])
    # (an odd window: the median is the middle element, np.partition finds it without np.median's overhead)
    smooth = np.partition(np.lib.stride_tricks.sliding_window_view(padded, win), win // 2, axis=1)[:, win // 2]
    return straight_edge(edge, smooth)


def straight_edge(raw: np.ndarray, start: np.ndarray, floor_px: float = 1.5) -> np.ndarray:
    """The cloth's edge as the straight line it is (it hangs from a straight stick), float (W,).

    A line ``a + b·x`` is fitted to the columns' edges ``raw`` by iteratively re-weighted least
    squares with Tukey's biweight (σ: 1.4826 × the median absolute residual, at least
    ``floor_px``), starting from ``start`` (the median-filtered edges): columns a hand on the cloth,
    a fold or a corner in shadow disturb drop out. Where the line and the median-filtered edge
    disagree by more than 3 σ, the cloth is not straight there: where the median-filtered edge
    lies below the line (a fold hanging lower) it is kept; where it lies above it (a corner of
    the cloth in a rail's shadow, missed), the cloth still reaches the line.
    """
    w = len(raw)
    if w < 8 or not np.any(raw > 0):
        return start
    x = np.arange(w, dtype=np.float64)
    X = np.column_stack([np.ones(w), x / w])
    u = X[:, 1]
    raw64 = np.asarray(raw, np.float64)
    coef = _line_fit(u, np.asarray(start, np.float64), None)
    sigma = floor_px
    for _ in range(6):
        r = raw64 - X @ coef
        sigma = max(1.4826 * stats.median(np.abs(r)), floor_px)
        z = r / (4.685 * sigma)
        wts = np.where(np.abs(z) < 1, (1 - z * z) ** 2, 0.0)
        if (wts > 0).sum() < w // 4:
            return start
        coef = _line_fit(u, raw64, wts)
    line = X @ coef
    return np.where(start - line > 3 * sigma, start, line).astype(start.dtype)


def _line_fit(u: np.ndarray, y: np.ndarray, wts: np.ndarray | None) -> np.ndarray:
    """(a, b) of the (weighted) least-squares line ``y ≈ a + b·u`` (float64 (N,) each), by its 2 × 2
    normal equations (what ``np.linalg.lstsq`` of ``[1, u]`` returns, without its SVD's overhead;
    ``u`` spans [0, 1): well conditioned)."""
    if wts is None:
        s0, s1, s2 = float(len(u)), float(u.sum()), float(u @ u)
        t0, t1 = float(y.sum()), float(u @ y)
    else:
        wu = wts * u
        s0, s1, s2 = float(wts.sum()), float(wu.sum()), float(wu @ u)
        t0, t1 = float(wts @ y), float(wu @ y)
    det = s0 * s2 - s1 * s1
    return np.array([(s2 * t0 - s1 * t1) / det, (s0 * t1 - s1 * t0) / det])


def sea_pixels(image_bgr: np.ndarray, lut: np.ndarray, bits: int, sea_index: int, smooth_px: int) -> np.ndarray:
    """Cloth-coloured pixels, bool (H, W), judged on the colour averaged over ``smooth_px`` × ``smooth_px``.

    The cloth is a large plain area: its mean colour is steady where single pixels of a noisy
    photo stray out of the learned colour (noise of σ 25 grey levels leaves under half the cloth's
    pixels cloth-coloured; their 5 × 5 means are nearly all).
    """
    k = max(1, int(smooth_px))
    src = cv2.blur(image_bgr, (k, k)) if k > 1 else image_bgr
    return classify(src, lut, bits) == sea_index


def illumination_field(log_ratio: np.ndarray, valid: np.ndarray, out_shape, tile_px: int = 4,
                       min_share: float = 0.3, smooth_tiles: float = 1.0,
                       local_tol: float = 0.08) -> tuple[np.ndarray, dict]:
    """A smooth brightness gain field ``now / ref`` (float32 ``out_shape``) from unchanged scene parts.

    Light that is not even (a vignette, a lamp on one side, a soft shadow) multiplies the photo by
    a slowly varying factor. It is measured on parts that never change (bare sand against the
    empty board, the table and rails around it): per tile of ``tile_px`` the mean log ratio of
    the valid pixels; then a quadratic surface is fitted to the tiles by iteratively re-weighted
    least squares (tiles far off it drop out), tiles off their neighbours' mean (a piece) drop
    out, and the inliers' residuals are spread by multi-scale normalised convolution (Knutsson &
    Westin 1993): a soft shadow's edge is followed where tiles are dense, places without tiles
    (under pieces, the cloth) get coarser estimates, and the quadratic where there are none.

    Args:
        log_ratio: float32 (H, W) ``log(now + 1) − log(ref + 1)`` of grey levels.
        valid: bool (H, W), pixels that should show the unchanged scene.
        out_shape: (h, w) of the returned field (the same region, resampled).
    Returns:
        (field float32 out_shape, figures ``{"range": max/min of the field over valid tiles,
        "tiles": inlier tiles, "rms": rms log residual of the inliers}``).
    """
    H, W = log_ratio.shape[:2]
    th, tw = max(1, H // tile_px), max(1, W // tile_px)
    hh, ww = th * tile_px, tw * tile_px
    v = valid[:hh, :ww].astype(np.float32)
    lr = np.where(v > 0, log_ratio[:hh, :ww], 0).astype(np.float32)
    share = cv2.resize(v, (tw, th), interpolation=cv2.INTER_AREA)
    mean = cv2.resize(lr, (tw, th), interpolation=cv2.INTER_AREA) / np.maximum(share, 1e-6)
    ok = share >= min_share
    X = _quadratic_design(th, tw)
    y = mean.reshape(-1).astype(np.float64)
    okf = ok.reshape(-1)
    w = okf.astype(np.float64)
    coef = np.zeros(6)
    if w.sum() >= 8:
        for _ in range(3):
            idx = w > 0
            Xi = X[idx]
            coef = np.linalg.solve(Xi.T @ Xi + 1e-6 * np.eye(6), Xi.T @ y[idx])   # normal equations (6 × 6)
            res = y - X @ coef
            s = 1.4826 * stats.median(np.abs(res[okf])) + 0.01
            w_new = okf & (np.abs(res) < 2.5 * max(s, 0.03))
            if w_new.sum() < 8:
                break
            w = w_new.astype(np.float64)
    elif ok.any():
        coef[0] = stats.median(y[okf])
    poly = (X @ coef).reshape(th, tw).astype(np.float32)
    inl = w.reshape(th, tw).astype(np.float32)
    res = ((mean - poly) * inl).astype(np.float32)
    # a tile off its neighbours (a piece, a stick) is no light measurement
    nb = cv2.blur(res, (5, 5), borderType=cv2.BORDER_REPLICATE) / np.maximum(
        cv2.blur(inl, (5, 5), borderType=cv2.BORDER_REPLICATE), 1e-4)
    inl = inl * (np.abs(mean - poly - nb) < local_tol)
    res = ((mean - poly) * inl).astype(np.float32)
    corr = np.zeros_like(res)
    for sig in (8.0 * smooth_tiles, 3.0 * smooth_tiles, smooth_tiles):
        num = cv2.GaussianBlur(res, (0, 0), sig, borderType=cv2.BORDER_REPLICATE)
        den = cv2.GaussianBlur(inl, (0, 0), sig, borderType=cv2.BORDER_REPLICATE)
        a = np.clip(den / 0.3, 0, 1)
        corr = (1 - a) * corr + a * (num / np.maximum(den, 1e-4))
    logf = (poly + corr).astype(np.float32)
    # resample onto the output grid (tile centres → pixels)
    mapx, mapy = _tile_maps(hh, ww, tuple(out_shape), tile_px)
    field = np.exp(cv2.remap(logf, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    used = inl > 0
    rng = float(np.exp(logf[used].max() - logf[used].min())) if used.any() else 1.0
    rms = float(np.sqrt(np.mean(((mean - poly - corr)[used]) ** 2))) if used.any() else 0.0
    return field.astype(np.float32), {"range": rng, "tiles": int(used.sum()), "rms": rms}


_GRIDS: dict = {}


def _quadratic_design(th: int, tw: int) -> np.ndarray:
    """The tiles' quadratic terms (1, x, y, x², xy, y²) float64 (th·tw, 6), x, y the tile centres in
    [−½, ½]; a function of the grid's size only, built once per size (read-only)."""
    key = ("X", th, tw)
    if key not in _GRIDS:
        yy, xx = np.mgrid[0:th, 0:tw].astype(np.float64)
        xs, ys = (xx + 0.5) / tw - 0.5, (yy + 0.5) / th - 0.5
        X = np.stack([np.ones_like(xs), xs, ys, xs * xs, xs * ys, ys * ys], -1).reshape(-1, 6)
        X.flags.writeable = False
        _GRIDS[key] = X
    return _GRIDS[key]


def _tile_maps(hh: int, ww: int, out_shape: tuple, tile_px: int) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap`` maps float32 ``out_shape`` from the output pixels to the tile grid (tile centres
    → pixels) of a ``hh`` × ``ww`` region; a function of the sizes only, built once per size."""
    key = ("maps", hh, ww, out_shape, tile_px)
    if key not in _GRIDS:
        oh, ow = out_shape
        sy, sx = hh / oh, ww / ow
        mapx = np.repeat(((np.arange(ow, dtype=np.float32) + 0.5) * sx / tile_px - 0.5)[None, :], oh, 0)
        mapy = np.repeat(((np.arange(oh, dtype=np.float32) + 0.5) * sy / tile_px - 0.5)[:, None], ow, 1)
        mapx.flags.writeable = mapy.flags.writeable = False
        _GRIDS[key] = (mapx, mapy)
    return _GRIDS[key]


def apply_field(image_bgr: np.ndarray, field: np.ndarray, gains) -> np.ndarray:
    """``image / field · gains`` per channel, saturating to uint8 (field float32 (H, W), gains (3,))."""
    g = np.asarray(gains, np.float32)
    inv = 1.0 / field
    scale = cv2.merge([inv * g[0], inv * g[1], inv * g[2]])
    return cv2.multiply(image_bgr, scale, dtype=cv2.CV_8U)
