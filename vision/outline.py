"""Has the board moved since calibration? Edge strips across the board's outline, in the board plane.

Pieces change between every two shots; the board's rim, its outline, a printed frame along it and
the table's edge next to it do not. So a board motion is measured only there: bands along the
chosen sides of the board outline (``inside_mm`` in, ``outside_mm`` out, beyond the search range)
are resampled in the board plane through the calibrated homography, cut into short strips across
the outline, and each strip's mean profile is matched against the calibration shot's by normalised
cross-correlation of their derivatives (invariant to the light's gain and offset). Each strip gives
one number: how far the outline moved along its outward normal (mm).

Decision (see :func:`measure_motion`):

1. *Nothing moved* is tested first: the strips that match with no motion are counted.
2. A motion of the board on the table (shift and turn in the board plane, a Euclidean motion;
   a homography when the camera tilted) is fitted only to the strips, with RANSAC and then
   iteratively reweighted least squares (Tukey's biweight), and checked by measuring the strips
   again through the moved homography.
3. The motion is accepted only when it explains clearly more strips than no motion does
   (:attr:`OutlineConfig.min_gain`), so new pieces on the board, a hand at one edge or a piece
   lying across the outline never invent a bump.

A board pushed further than the strips' search range is first found coarsely by phase
correlation of the outline band's edges (Kuglin & Hines 1975; ``cv2.phaseCorrelate``).
RANSAC: Fischler & Bolles 1981. Biweight: Beaton & Tukey 1974.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.image.gradients import sobel_magnitude

SIDES = ("top", "right", "bottom", "left")


@dataclass(frozen=True)
class OutlineConfig:
    """Geometry of the strips and thresholds of the decision (mm unless said)."""

    #: Strip profile: this far into the board (pieces may stand further in) …
    inside_mm: float = 8.0
    #: … and this far out (rim, table edge).
    outside_mm: float = 16.0
    #: Search range of each strip's shift.
    search_mm: float = 12.0
    #: Strip width along the outline, and spacing between strip centres.
    width_mm: float = 6.0
    spacing_mm: float = 8.0
    #: Largest sampling resolution (px/mm); the photo's own resolution when lower.
    max_ppm: float = 2.0
    #: Smallest sampling resolution (px/mm).
    min_ppm: float = 0.75
    #: A strip's derivative profile must vary this much (grey levels per mm, RMS) to be used.
    min_structure: float = 0.5
    #: A strip matches when its normalised cross-correlation peak is at least this …
    min_ncc: float = 0.6
    #: … and, to count as explained by a motion, its residual shift is at most this (mm; at
    #: least one sample px).
    tolerance_mm: float = 0.6
    #: Share of matching strips with no motion above which the board has not moved (no fit).
    still_share: float = 0.8
    #: A fitted motion must explain this many more strips than no motion (share of usable strips,
    #: and at least ``min_gain_strips``).
    min_gain: float = 0.2
    min_gain_strips: int = 4
    #: Fewer explained strips than this share of the usable ones: the board is not where it was
    #: nor anywhere near (``registration-lost``).
    min_explained: float = 0.3
    #: Resolution of the coarse phase-correlation search (px/mm) and its minimum peak response.
    coarse_ppm: float = 0.5
    coarse_min_response: float = 0.05
    #: A push this far or more (mm) cannot be a bump of a fixed set-up.
    max_shift_mm: float = 60.0


OUTLINE = OutlineConfig()


def project(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a homography to points (..., 2) float64 → (..., 2)."""
    p = np.asarray(pts, np.float64)
    return cv2.perspectiveTransform(p.reshape(-1, 1, 2), np.asarray(H, np.float64)).reshape(p.shape)


@dataclass
class Strips:
    """Sampling layout of the strips for one board (board mm, independent of any photo).

    Attributes:
        ppm: samples per mm.
        grid_mm: float64 (n_across, n_along, 2) board mm of every sample; across runs from
            ``-(inside + search)`` (in) to ``+(outside + search)`` (out).
        centres_mm: float64 (n_strips, 2) strip centres on the outline.
        normals: float64 (n_strips, 2) outward unit normals.
        tangents: float64 (n_strips, 2) unit tangents.
        cols: int (n_strips, 2) column range [start, stop) of each strip in the band image.
        sides: (n_strips,) the side each strip lies on (one of :data:`SIDES`).
        pad: search range in samples.
    """

    ppm: float
    grid_mm: np.ndarray
    centres_mm: np.ndarray
    normals: np.ndarray
    tangents: np.ndarray
    cols: np.ndarray
    sides: np.ndarray
    pad: int


def strip_layout(board_mm, ppm: float, sides=SIDES, cfg: OutlineConfig = OUTLINE) -> Strips:
    """Lay strips along the chosen sides of the board outline.

    Args:
        board_mm: (width_mm, height_mm).
        ppm: samples per mm.
        sides: which of ``SIDES`` carry strips.
    Returns:
        :class:`Strips`.
    """
    w, h = board_mm
    pad = int(np.ceil(cfg.search_mm * ppm))
    t = (np.arange(int(round((cfg.inside_mm + cfg.outside_mm) * ppm)) + 2 * pad) - pad) / ppm - cfg.inside_mm
    end = cfg.search_mm + cfg.width_mm  # keep clear of the corners, where the other side's edge crosses
    step = 1.0 / ppm
    grids, centres, normals, tangents, cols, names = [], [], [], [], [], []
    start = 0
    for side in sides:
        length = w if side in ("top", "bottom") else h
        s = np.arange(end, length - end, step)
        if side == "top":
            base, n, e = np.stack([s, np.zeros_like(s)], -1), (0.0, -1.0), (1.0, 0.0)
        elif side == "bottom":
            base, n, e = np.stack([s, np.full_like(s, h)], -1), (0.0, 1.0), (1.0, 0.0)
        elif side == "left":
            base, n, e = np.stack([np.zeros_like(s), s], -1), (-1.0, 0.0), (0.0, 1.0)
        else:
            base, n, e = np.stack([np.full_like(s, w), s], -1), (1.0, 0.0), (0.0, 1.0)
        n = np.array(n)
        grids.append(base[None, :, :] + t[:, None, None] * n[None, None, :])
        per = max(1, int(round(cfg.width_mm * ppm)))
        every = max(1, int(round(cfg.spacing_mm * ppm)))
        for c0 in range(0, len(s) - per + 1, every):
            centres.append(base[c0:c0 + per].mean(axis=0))
            normals.append(n)
            tangents.append(np.array(e))
            cols.append((start + c0, start + c0 + per))
            names.append(side)
        start += len(s)
    return Strips(ppm=ppm, grid_mm=np.concatenate(grids, axis=1), centres_mm=np.array(centres, float).reshape(-1, 2),
                  normals=np.array(normals, float).reshape(-1, 2), tangents=np.array(tangents, float).reshape(-1, 2),
                  cols=np.array(cols, int).reshape(-1, 2), sides=np.array(names), pad=pad)


def band_maps(H_px_from_mm: np.ndarray, strips: Strips) -> tuple[np.ndarray, np.ndarray]:
    """Where every band sample lies in a photo seen through ``H_px_from_mm``: the x and y maps of
    :func:`sample_bands`, float32 (n_across, n_along) each, contiguous."""
    px = project(H_px_from_mm, strips.grid_mm).astype(np.float32)
    return np.ascontiguousarray(px[..., 0]), np.ascontiguousarray(px[..., 1])


def sample_bands(gray: np.ndarray, H_px_from_mm: np.ndarray, strips: Strips,
                 maps: tuple[np.ndarray, np.ndarray] | None = None, as_float: bool = True) -> np.ndarray:
    """Resample the outline bands of a grey photo through ``H_px_from_mm``: float32 (n_across, n_along)
    (``as_float`` False: the photo's dtype, uint8 for a grey photo). ``maps``: :func:`band_maps` of
    ``H_px_from_mm``, when already at hand."""
    mx, my = band_maps(H_px_from_mm, strips) if maps is None else maps
    bands = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return bands.astype(np.float32) if as_float else bands


def strip_profiles(bands: np.ndarray, strips: Strips) -> np.ndarray:
    """Derivative (across the outline, grey levels per sample) of each strip's mean profile:
    float32 (n_strips, n_across − 1). Bands of uint8 are summed in integers (one integral image:
    the same sums, exactly, several times faster than a float64 running sum)."""
    if bands.dtype == np.uint8 and bands.shape[0] * bands.shape[1] < 2 ** 23:   # sums stay below 2³¹
        table = cv2.integral(bands, sdepth=cv2.CV_32S)
        lo, hi = table[:, strips.cols[:, 0]], table[:, strips.cols[:, 1]]
        sums = (hi[1:] - hi[:-1]) - (lo[1:] - lo[:-1])                     # each row's sum over each strip
        means = sums / (strips.cols[:, 1] - strips.cols[:, 0])
    else:
        csum = np.concatenate([np.zeros((bands.shape[0], 1), np.float64),
                               np.cumsum(bands, axis=1, dtype=np.float64)], 1)
        means = (csum[:, strips.cols[:, 1]] - csum[:, strips.cols[:, 0]]) / (strips.cols[:, 1] - strips.cols[:, 0])
    prof = means.T
    prof = cv2.GaussianBlur(prof, (1, 5), 0, sigmaY=1.0) if prof.shape[1] >= 5 else prof
    return np.diff(prof, axis=1).astype(np.float32)


def structure(ref_profiles: np.ndarray, strips: Strips) -> np.ndarray:
    """RMS derivative (grey levels per mm) of each reference strip's core: float64 (n_strips,)."""
    core = ref_profiles[:, strips.pad:ref_profiles.shape[1] - strips.pad]
    return np.sqrt(np.mean(core.astype(np.float64) ** 2, axis=1)) * strips.ppm


def strip_shifts(ref_profiles: np.ndarray, profiles: np.ndarray, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """Shift (samples, + outward) and NCC peak of every strip, the reference's core against the photo.

    Args:
        ref_profiles, profiles: float32 (n_strips, K) derivative profiles (:func:`strip_profiles`).
        pad: search range in samples either way.
    Returns:
        ``(shift, peak)``: float64 (n_strips,) sub-sample shifts (parabola through the peak) and
        peak NCC in [−1, 1].
    """
    core = ref_profiles[:, pad:ref_profiles.shape[1] - pad].astype(np.float64)
    core = core - core.mean(axis=1, keepdims=True)
    K = core.shape[1]
    prof = profiles.astype(np.float64)
    win = np.lib.stride_tricks.sliding_window_view(prof, K, axis=1)
    # the core's mean is 0: its products with a window need not remove the window's mean; the
    # windows' spreads come from running sums (no (n, S, K) copies)
    num = np.einsum("nk,nsk->ns", core, win)
    c1 = np.zeros((prof.shape[0], prof.shape[1] + 1))
    c2 = np.zeros_like(c1)
    np.cumsum(prof, axis=1, out=c1[:, 1:])
    np.cumsum(prof * prof, axis=1, out=c2[:, 1:])
    s1, s2 = c1[:, K:] - c1[:, :-K], c2[:, K:] - c2[:, :-K]
    den = np.sqrt((core ** 2).sum(axis=1))[:, None] * np.sqrt(np.maximum(s2 - s1 * s1 / K, 0.0)) + 1e-9
    ncc = num / den
    best = ncc.argmax(axis=1)
    n = np.arange(len(best))
    peak = ncc[n, best]
    lo, hi = np.clip(best - 1, 0, ncc.shape[1] - 1), np.clip(best + 1, 0, ncc.shape[1] - 1)
    a, b, c = ncc[n, lo], peak, ncc[n, hi]
    den2 = a - 2 * b + c
    frac = np.where((best > 0) & (best < ncc.shape[1] - 1) & (den2 < 0), 0.5 * (a - c) / np.where(den2 < 0, den2, -1), 0)
    return best + frac - pad, peak


def motion_matrix(params: np.ndarray, board_mm) -> np.ndarray:
    """Board motion T (board mm → board mm, (3, 3)) from parameters about the board's centre.

    3 parameters ``(dx_mm, dy_mm, angle_rad)``: a Euclidean motion; 8: additionally the changes
    of scale along x and y, a shear, and the perspective terms per metre (``sx, sy, k, gx, gy``),
    which a camera tilted since calibration causes: a homography.
    """
    w, h = board_mm
    C = np.array([[1, 0, w / 2], [0, 1, h / 2], [0, 0, 1.0]])
    p = np.asarray(params, float)
    c, s = np.cos(p[2]), np.sin(p[2])
    M = np.array([[c, -s, p[0]], [s, c, p[1]], [0, 0, 1.0]])
    if len(p) == 8:
        M = M @ np.array([[1 + p[3], p[5], 0], [p[5], 1 + p[4], 0], [p[6] / 1000, p[7] / 1000, 1.0]])
    return C @ M @ np.linalg.inv(C)


def _motion_matrices(params: np.ndarray, board_mm) -> np.ndarray:
    """:func:`motion_matrix` of every row of ``params`` ((M, 3) or (M, 8)): float64 (M, 3, 3)."""
    w, h = board_mm
    p = np.asarray(params, float)
    m = len(p)
    c, s = np.cos(p[:, 2]), np.sin(p[:, 2])
    M = np.zeros((m, 3, 3))
    M[:, 0, 0], M[:, 0, 1], M[:, 0, 2] = c, -s, p[:, 0]
    M[:, 1, 0], M[:, 1, 1], M[:, 1, 2] = s, c, p[:, 1]
    M[:, 2, 2] = 1.0
    if p.shape[1] == 8:
        A = np.zeros((m, 3, 3))
        A[:, 0, 0], A[:, 0, 1], A[:, 1, 0], A[:, 1, 1] = 1 + p[:, 3], p[:, 5], p[:, 5], 1 + p[:, 4]
        A[:, 2, 0], A[:, 2, 1], A[:, 2, 2] = p[:, 6] / 1000, p[:, 7] / 1000, 1.0
        M = M @ A
    C = np.array([[1, 0, w / 2], [0, 1, h / 2], [0, 0, 1.0]])
    return C @ M @ np.linalg.inv(C)


def _project_many(Ts: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (N, 2) through every homography of ``Ts`` (M, 3, 3): float64 (M, N, 2), computed as
    ``cv2.perspectiveTransform`` does (the reciprocal of w, then the products)."""
    x, y = pts[:, 0], pts[:, 1]
    T = Ts[:, :, :, None]                                         # (M, 3, 3, 1): broadcasts over the points
    w = 1.0 / (x * T[:, 2, 0] + y * T[:, 2, 1] + T[:, 2, 2])
    return np.stack([(x * T[:, 0, 0] + y * T[:, 0, 1] + T[:, 0, 2]) * w,
                     (x * T[:, 1, 0] + y * T[:, 1, 1] + T[:, 1, 2]) * w], -1)


def _predicted_shifts_many(Ts: np.ndarray, P: np.ndarray, n: np.ndarray, e: np.ndarray) -> np.ndarray:
    """:func:`predicted_shifts` under every motion of ``Ts`` (M, 3, 3) for strips at ``P`` with
    normals ``n`` and tangents ``e`` (N, 2): float64 (M, N)."""
    TP = _project_many(Ts, P)
    TE = _project_many(Ts, P + e) - TP
    n2 = np.stack([-TE[..., 1], TE[..., 0]], -1)
    n2 /= np.linalg.norm(n2, axis=-1, keepdims=True)
    n2 *= np.sign((n2 * n).sum(axis=-1, keepdims=True))
    return ((TP - P) * n2).sum(axis=-1) / np.maximum((n2 * n).sum(axis=-1), 1e-6)


def predicted_shifts(T: np.ndarray, strips: Strips, keep: np.ndarray) -> np.ndarray:
    """Where the outline at each strip lands along its normal under motion ``T`` (mm).

    The moved outline passes through ``T(P)`` with direction ``J_T(P)·e``; its intersection with
    the strip's normal line gives the shift the strip measures.
    """
    P, n, e = strips.centres_mm[keep], strips.normals[keep], strips.tangents[keep]
    TP = project(T, P)
    TE = project(T, P + e) - TP
    n2 = np.stack([-TE[:, 1], TE[:, 0]], -1)
    n2 /= np.linalg.norm(n2, axis=1, keepdims=True)
    n2 *= np.sign((n2 * n).sum(axis=1, keepdims=True))
    return ((TP - P) * n2).sum(axis=1) / np.maximum((n2 * n).sum(axis=1), 1e-6)


def fit_motion(shift_mm: np.ndarray, strips: Strips, keep: np.ndarray, board_mm, n_params: int = 3,
               tol_mm: float = OUTLINE.tolerance_mm, ransac: bool = True, seed: int = 0) -> np.ndarray | None:
    """Robust fit of a board motion to the strips' shifts.

    RANSAC (optional) over minimal sets of three strips on a linearised Euclidean model, then
    Gauss–Newton iterations weighted by Tukey's biweight on the exact model of :func:`predicted_shifts`.

    Args:
        shift_mm: (n_strips,) measured shifts (mm, + outward).
        strips: the layout.
        keep: bool (n_strips,) strips to fit.
        board_mm: (width_mm, height_mm).
        n_params: 3 (Euclidean) or 8 (homography), see :func:`motion_matrix`.
        tol_mm: a strip within this of the model is an inlier.
        ransac: search a start by RANSAC (else start from no motion: for small residual motions).
    Returns:
        float64 (n_params,) or None when fewer than 6 strips carry weight.
    """
    idx = np.flatnonzero(keep)
    if len(idx) < 6:
        return None
    d = shift_mm[idx]
    P, n = strips.centres_mm[idx], strips.normals[idx]
    w, h = board_mm
    rel = P - np.array([w / 2, h / 2])
    start = np.zeros(3)
    if ransac:  # linearised Euclidean: shift ≈ n·(t + θ·(−ry, rx))
        A = np.stack([n[:, 0], n[:, 1], n[:, 1] * rel[:, 0] - n[:, 0] * rel[:, 1]], -1)
        picks = np.random.default_rng(seed).integers(0, len(idx), (200, 3))
        As, ds = A[picks], d[picks]
        ok = np.abs(np.linalg.det(As)) > 1e-6 * max(w, h)
        if ok.any():
            xs = np.linalg.solve(As[ok], ds[ok][..., None])[..., 0]
            inliers = (np.abs(xs @ A.T - d[None]) <= 2.5 * tol_mm).sum(axis=1)
            if inliers.max() > (np.abs(d) <= tol_mm).sum():
                start = xs[inliers.argmax()]
    params = np.concatenate([start, np.zeros(n_params - 3)])
    c = 4.0 * tol_mm
    eps = np.eye(n_params) * 1e-4
    e_idx = strips.tangents[idx]
    for _ in range(8):
        # the shifts under the motion and under each parameter nudged either way, all at once
        pred = _predicted_shifts_many(_motion_matrices(np.concatenate([params[None], params + eps, params - eps]),
                                                       board_mm), P, n, e_idx)
        r = d - pred[0]
        wts = np.where(np.abs(r) < c, (1 - (r / c) ** 2) ** 2, 0.0)
        if (wts > 0).sum() < 6:
            return None
        J = ((pred[1:1 + n_params] - pred[1 + n_params:]) / 2e-4).T
        sw = np.sqrt(wts)[:, None]
        step, *_ = np.linalg.lstsq(J * sw, r * sw[:, 0], rcond=None)
        params = params + step
        if np.abs(step).max() < 1e-4:
            break
    return params


@dataclass
class Motion:
    """Outcome of :func:`measure_motion`.

    Attributes:
        T: (3, 3) board motion, board mm → board mm (identity when not moved).
        moved: whether a motion was accepted.
        usable: strips with structure (and not excluded).
        still: strips explained by no motion.
        explained: strips explained by ``T``.
    """

    T: np.ndarray
    moved: bool
    usable: int
    still: int
    explained: int


class OutlineReference:
    """The calibration shot's outline strips, ready to be compared with photos.

    Built once per calibration from the calibration picture's outline bands (:func:`sample_bands`,
    all four sides, stored by ``calibrate``) and a grey calibration picture for the coarse search.

    Args:
        bands: float32/uint8 (n_across, n_along) the calibration shot's bands at ``ppm``.
        coarse_gray, H_coarse: a grey calibration picture and its homography board mm → its px
            (the 1/4-size registration reference does).
        board_mm: (width_mm, height_mm).
        ppm: samples per mm of ``bands``.
    """

    def __init__(self, bands: np.ndarray, coarse_gray: np.ndarray, H_coarse: np.ndarray, board_mm, ppm: float,
                 cfg: OutlineConfig = OUTLINE):
        self.cfg, self.board_mm = cfg, tuple(float(v) for v in board_mm)
        self.strips = strip_layout(board_mm, ppm, SIDES, cfg)
        if bands.shape != self.strips.grid_mm.shape[:2]:
            raise ValueError(f"outline bands {bands.shape} do not fit the layout {self.strips.grid_mm.shape[:2]}")
        self.profiles = strip_profiles(bands.astype(np.float32), self.strips)
        self.structured = structure(self.profiles, self.strips) >= cfg.min_structure
        self.coarse = _coarse_view(coarse_gray, H_coarse, board_mm, cfg)
        self._maps: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}   # band_maps of the calibrated homographies

    @classmethod
    def from_image(cls, gray: np.ndarray, H: np.ndarray, board_mm, ppm: float, cfg: OutlineConfig = OUTLINE):
        """Reference from one grey calibration picture and its homography (board mm → its px)."""
        return cls(sample_bands(gray, H, strip_layout(board_mm, ppm, SIDES, cfg)), gray, H, board_mm, ppm, cfg)

    def shifts(self, gray: np.ndarray, H: np.ndarray, keep_maps: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Shifts (mm, + outward) and NCC peaks of every strip in a photo seen through ``H``.

        ``keep_maps``: ``H`` is one every photo of this size is first seen through (the calibrated
        homography): where the strips' samples lie in it is kept (a few, per photo size)."""
        maps = None
        if keep_maps:
            key = np.asarray(H, np.float64).tobytes()
            maps = self._maps.get(key)
            if maps is None:
                maps = band_maps(H, self.strips)
                if len(self._maps) >= 4:
                    self._maps.clear()
                self._maps[key] = maps
        bands = sample_bands(gray, H, self.strips, maps, as_float=gray.dtype != np.uint8)
        prof = strip_profiles(bands, self.strips)
        s, peak = strip_shifts(self.profiles, prof, self.strips.pad)
        return s / self.strips.ppm, peak

    def explained(self, shift_mm, peak, usable, tol) -> np.ndarray:
        """Strips that match (NCC ≥ ``min_ncc``) within ``tol`` mm of no residual shift."""
        return usable & (peak >= self.cfg.min_ncc) & (np.abs(shift_mm) <= tol)


def measure_motion(ref: OutlineReference, gray: np.ndarray, H0: np.ndarray, usable: np.ndarray | None = None) -> Motion:
    """Decide whether the board moved against the calibration, and how (module docstring).

    Args:
        ref: the calibration's :class:`OutlineReference` (same photo size).
        gray: photo, grey uint8 (H, W).
        H0: calibrated homography board mm → this photo's px.
        usable: optional bool (n_strips,) strips that may be used (e.g. not under an excluded area).
    Returns:
        :class:`Motion`; ``moved`` False means: use ``H0``.
    """
    cfg = ref.cfg
    use = ref.structured.copy() if usable is None else ref.structured & usable
    n_use = int(use.sum())
    tol = max(cfg.tolerance_mm, 1.0 / ref.strips.ppm)
    shift, peak = ref.shifts(gray, H0, keep_maps=True)
    still = ref.explained(shift, peak, use, tol)
    n0 = int(still.sum())
    eye = np.eye(3)
    if n_use == 0 or n0 >= cfg.still_share * n_use:
        return Motion(eye, False, n_use, n0, n0)
    need = n0 + max(cfg.min_gain_strips, cfg.min_gain * n_use)
    best = Motion(eye, False, n_use, n0, n0)
    params = fit_motion(shift, ref.strips, use & (peak >= cfg.min_ncc), ref.board_mm, 3, tol)
    if params is not None:
        T, n1 = _refine(ref, gray, H0, motion_matrix(params, ref.board_mm), use, tol)
        best = Motion(T, True, n_use, n0, n1)
    if best.explained < cfg.still_share * n_use:   # perhaps pushed beyond the strips' search range
        guess = _coarse_shift(ref, gray, H0)
        if guess is not None:
            T, n1 = _refine(ref, gray, H0, guess, use, tol)
            if n1 > best.explained:
                best = Motion(T, True, n_use, n0, n1)
    if best.explained >= need:
        return best
    return Motion(eye, False, n_use, n0, n0)


def _count(ref: OutlineReference, ok: np.ndarray) -> int:
    """Strips explained, counted only when they pin the board both ways: a motion that explains the
    top and bottom strips alone leaves the board free to slide sideways."""
    across = np.abs(ref.strips.normals[ok, 0]) > 0.5
    if min(across.sum(), (~across).sum()) < ref.cfg.min_gain_strips:
        return 0
    return int(ok.sum())


def _refine(ref: OutlineReference, gray, H0, T, use, tol) -> tuple[np.ndarray, int]:
    """Measure the strips again through ``H0 @ T`` and refit the residual motion (Euclidean, then a
    homography); keeps whichever motion explains most strips and returns it with that count."""
    cfg = ref.cfg
    best_T, best_n = T, -1
    for n_params in (3, 8, 0):
        shift, peak = ref.shifts(gray, H0 @ T)
        n_now = _count(ref, ref.explained(shift, peak, use, tol))
        if n_now > best_n:
            best_T, best_n = T, n_now
        if not n_params or n_now == int(use.sum()):
            break
        params = fit_motion(shift, ref.strips, use & (peak >= cfg.min_ncc), ref.board_mm, n_params, tol,
                            ransac=False)
        if params is None:
            break
        T = T @ motion_matrix(params, ref.board_mm)
    return best_T, best_n


def _coarse_view(gray, H, board_mm, cfg: OutlineConfig):
    """Edge magnitude of the outline band at ``cfg.coarse_ppm``, masked to the band and smoothed: float32."""
    w, h = board_mm
    m = cfg.outside_mm + cfg.max_shift_mm
    ppm = cfg.coarse_ppm
    size = (int(round((w + 2 * m) * ppm)), int(round((h + 2 * m) * ppm)))
    S = np.array([[1 / ppm, 0, -m], [0, 1 / ppm, -m], [0, 0, 1.0]])
    view = cv2.warpPerspective(gray, H @ S, size, flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    view = cv2.GaussianBlur(view, (0, 0), 1.0)
    mag = sobel_magnitude(view)
    mask = np.zeros_like(mag)
    band = (cfg.inside_mm + cfg.outside_mm) * ppm
    x0, y0 = m * ppm, m * ppm
    cv2.rectangle(mask, (int(x0 - band), int(y0 - band)), (int(x0 + w * ppm + band), int(y0 + h * ppm + band)), 1.0, -1)
    cv2.rectangle(mask, (int(x0 + band), int(y0 + band)), (int(x0 + w * ppm - band), int(y0 + h * ppm - band)), 0.0, -1)
    # smoothed after masking: the whitened cross-power spectrum is otherwise dominated by the fine
    # detail that only one of the two pictures has (the reference is a 1/4-size shot)
    return cv2.GaussianBlur(mag * mask, (0, 0), 2.0)


def _coarse_shift(ref: OutlineReference, gray, H0) -> np.ndarray | None:
    """A translation of the board (as a motion T) by phase correlation of the outline band's edges,
    or None when the peak is weak."""
    cfg = ref.cfg
    view = _coarse_view(gray, H0, ref.board_mm, cfg)
    win = cv2.createHanningWindow((view.shape[1], view.shape[0]), cv2.CV_32F)
    (dx, dy), response = cv2.phaseCorrelate(ref.coarse, view, win)
    if response < cfg.coarse_min_response:
        return None
    dx_mm, dy_mm = dx / cfg.coarse_ppm, dy / cfg.coarse_ppm
    if np.hypot(dx_mm, dy_mm) > cfg.max_shift_mm:
        return None
    return np.array([[1, 0, dx_mm], [0, 1, dy_mm], [0, 0, 1.0]])


# --- Is this the calibrated board? ------------------------------------------------------------
#
# The strips above tell *how far* the outline moved; strips laid the same way also tell *whether
# it is the calibrated board at all*. A plain board edge on a table looks like any other board
# edge in grey (a step), so each strip is compared in colour: the mean B, G, R profile across the
# outline, in log units with each channel's mean removed (a lamp's gain, a colour temperature or
# an exposure change cancel; the contrast between the board's rim, its printed frame and the table
# does not). Each strip's evidence is graded by how closely its best shift within the search range
# brings it to the calibration's profile (Tukey's biweight of the residual). Then the matches must
# agree on where the board is: where it was calibrated (nothing moved: the camera is fixed), or
# where one bump put it (a shift and turn fitted to the matched strips, which counts only when
# strips across both directions pin it, as :func:`measure_motion` requires of a motion). The
# statistic is the share of the usable strips that position explains. Another board may share a
# plain edge with the calibrated one, even near the same place, but not the printed frames, rails
# and rims all round it at the places one position of the board explains.
#
# Before saying "not the board" the strips are compared once more with the calibration blurred (a
# photo less sharp than the calibration shot), around the coarse phase-correlation shift (a board
# pushed beyond the search range) and with red and blue swapped (a camera delivering RGB as BGR,
# refused later as such). A photo far darker than the calibration shot, or one whose strips are
# mostly out of view, gets no verdict: the readers' own checks say what is wrong with it.


@dataclass(frozen=True)
class IdentityConfig:
    """Constants of :func:`board_identity` (log units: natural logs of grey levels 0–255).

    The thresholds come from ``scripts/board_identity_stats.py``: the statistic measured on every
    right-board scene of the shared samples, the new set-ups, the real photos and lens-distorted
    copies, and on every pair "photo of game A, calibration of game B" of them (README, "Is this
    the calibrated board?", gives both distributions).
    """

    #: Strip geometry: as the registration's (:data:`OUTLINE`), with a wider search, so that a
    #: board bumped up to this far (mm, at any strip) is still found without the coarse search,
    #: and a strip every 12 mm (half the work of the registration's 8 mm, the same verdicts).
    strips: OutlineConfig = OutlineConfig(search_mm=24.0, spacing_mm=12.0)
    #: Sampling resolution (px/mm): the profiles are smoothed to ``smooth_mm`` anyway …
    ppm: float = 1.0
    #: … and across a strip's width every this many samples are averaged (2: every 2 mm).
    width_step: int = 2
    #: Added to every grey level (at the calibration's exposure) before the log, so that the noise
    #: of dark pixels does not count.
    eps: float = 8.0
    #: Both profiles are smoothed across the outline by a Gaussian of this σ (mm): a photo
    #: sampled at another resolution, or slightly blurred, still matches.
    smooth_mm: float = 2.0
    #: A photo less sharp than the calibration shot (focus, a shaking camera: σ = 6 px of a
    #: 1920 px photo is 2.7 mm on a Strand unter board) is compared once more with the
    #: calibration's profiles blurred by this much more (Gaussian σ, mm on the board).
    blur_mm: float = 3.0
    #: A photo that needs more than this gain (calibration / now, in every channel: one channel
    #: alone may differ because of what lies on the board) to reach the calibration's exposure
    #: gets no verdict: too dark to compare; the readers refuse it as such (this is their own
    #: limit, :attr:`vision.image.quality.QualityConfig.max_gain`).
    max_exposure_gain: float = 3.5
    #: A reference strip is usable when its profile varies at least this much (RMS, log units):
    #: a featureless strip would match any featureless photo.
    min_contrast: float = 0.03
    #: A strip's RMS residual (log units) at the best shift is compared with this …
    max_residual: float = 0.08
    #: … and with this share of the reference profile's own RMS (it must explain its structure):
    #: the larger of the two ratios, ``u``, gives the strip's evidence, Tukey's biweight
    #: ``(1 − u²)²`` (0 from ``u = 1``). Right boards' strips match far closer (typical residual
    #: 0.005–0.02; the real Go board's faint rim strips, relative to their RMS, about 0.2).
    max_relative_residual: float = 0.5
    #: The statistic: the evidence one position of the board (unmoved, or bumped) explains, as a
    #: share of the usable strips. Measured (``scripts/board_identity_stats.py``, 230 right-board
    #: scans and 2896 other-game scans, both paths): right boards ≥ 0.307 (Strand unter with the sea
    #: cloth over both rails), other games ≤ 0.084. The threshold is their geometric mean.
    min_share: float = 0.16
    #: A fitted position counts only when the evidence it explains across each direction is at
    #: least this (strips' weights). Measured: bumped right boards ≥ 2.56 (Strand unter, cloth over
    #: the rails), motions fitted to other games' boards ≤ 0.02.
    min_pinning: float = 1.0
    #: With fewer usable strips than this (a board filling the photo, no table round it) no
    #: verdict is given.
    min_usable: int = 12


IDENTITY = IdentityConfig()


def strip_samples_mm(strips: Strips, step: int = 1) -> np.ndarray:
    """Board mm of the samples of every strip, every ``step``-th column across its width: float64
    (n_across, n_strips · width samples, 2), strip after strip (:func:`colour_profiles` samples them)."""
    per = int(strips.cols[0, 1] - strips.cols[0, 0])            # every strip has the same width
    return strips.grid_mm[:, (strips.cols[:, :1] + np.arange(0, per, max(1, step))[None, :]).ravel()]


def colour_profiles(bgr: np.ndarray, H_px_from_mm: np.ndarray, strips: Strips,
                    samples_mm: np.ndarray | None = None, px: np.ndarray | None = None) -> np.ndarray:
    """Mean colour of each strip across the outline.

    Args:
        bgr: photo, BGR uint8 (H, W, 3).
        H_px_from_mm: homography board mm → px of ``bgr``.
        strips: the layout (:func:`strip_layout`).
        samples_mm: :func:`strip_samples_mm` of ``strips``, when already at hand.
        px: :func:`strip_samples_px` of them through ``H_px_from_mm``, when already at hand.
    Returns:
        float32 (n_strips, n_across, 3): mean B, G, R (grey levels) over each strip's width, from
        ``-(inside + search)`` mm (in) to ``outside + search`` mm (out).
    """
    if px is None:
        px = strip_samples_px(strip_samples_mm(strips) if samples_mm is None else samples_mm, H_px_from_mm)
    bands = cv2.remap(bgr, px, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)   # px: a 2-channel map
    # each strip's ``per`` columns averaged: an area resize by an integer factor is exactly that
    means = cv2.resize(bands.astype(np.float32), (len(strips.cols), bands.shape[0]), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(means.transpose(1, 0, 2))


def strip_samples_px(samples_mm: np.ndarray, H_px_from_mm: np.ndarray) -> np.ndarray:
    """Where the samples (:func:`strip_samples_mm`) lie in a photo seen through ``H_px_from_mm``:
    float32 (n_across, N, 2), contiguous (the map :func:`colour_profiles` remaps the photo by)."""
    flat = np.ascontiguousarray(samples_mm, np.float32).reshape(-1, 1, 2)   # float32: ample for 1/1000 px
    return cv2.perspectiveTransform(flat, np.asarray(H_px_from_mm, np.float64)).reshape(samples_mm.shape)


def strips_in_view(H_px_from_mm: np.ndarray, strips: Strips, size: tuple[int, int]) -> np.ndarray:
    """Strips whose profile (``inside_mm`` in to ``outside_mm`` out; the search range may leave the
    photo) lies inside a photo of ``size`` (w, h) px: bool (n_strips,)."""
    w, h = size
    grid = strips.grid_mm
    ends = np.stack([grid[strips.pad], grid[-1 - strips.pad]], 0)         # (2, n_along, 2): the in and out ends
    px = project(H_px_from_mm, ends)
    inside = (px[..., 0] >= 0) & (px[..., 1] >= 0) & (px[..., 0] <= w - 1) & (px[..., 1] <= h - 1)
    csum = np.concatenate([[0], np.cumsum(~inside.all(axis=0))])
    return (csum[strips.cols[:, 1]] - csum[strips.cols[:, 0]]) == 0


def identity_frame(board_mm, grow_mm: float = 0.0) -> tuple[tuple[float, float], np.ndarray]:
    """The outline the identity strips lie along: the board's, grown by ``grow_mm`` on every side.

    Returns:
        ``(grown_mm, S)``: the grown rectangle's (width_mm, height_mm) and the (3, 3) map from its
        mm to board mm (``H_px_from_mm @ S`` maps the grown rectangle into a photo).
    """
    w, h = (float(v) for v in board_mm)
    m = float(grow_mm)
    return (w + 2 * m, h + 2 * m), np.array([[1.0, 0, -m], [0, 1.0, -m], [0, 0, 1.0]])


def identity_strips(board_mm, grow_mm: float = 0.0, cfg: IdentityConfig = IDENTITY) -> tuple[Strips, np.ndarray]:
    """The identity strips' layout and the map ``S`` of :func:`identity_frame`."""
    grown, S = identity_frame(board_mm, grow_mm)
    return strip_layout(grown, cfg.ppm, SIDES, cfg.strips), S


def identity_profiles(bgr: np.ndarray, H_px_from_mm: np.ndarray, board_mm, grow_mm: float = 0.0,
                      cfg: IdentityConfig = IDENTITY) -> np.ndarray:
    """The :func:`colour_profiles` an :class:`IdentityReference` is built from (a calibration shot).

    Args:
        bgr: the calibration shot (or its empty-board shot), BGR uint8, undistorted.
        H_px_from_mm: its homography board mm → px.
        board_mm: (width_mm, height_mm).
        grow_mm: the strips lie along the board's outline grown by this (:func:`identity_frame`).
    Returns:
        float32 (n_strips, n_across, 3).
    """
    strips, S = identity_strips(board_mm, grow_mm, cfg)
    return colour_profiles(bgr, np.asarray(H_px_from_mm, np.float64) @ S, strips)


def identity_layout(cfg: IdentityConfig = IDENTITY) -> list[float]:
    """The strip geometry stored identity profiles were sampled with (other ones are not used)."""
    c = cfg.strips
    return [c.inside_mm, c.outside_mm, c.search_mm, c.width_mm, c.spacing_mm, cfg.ppm]  # width_step: photo side only


def _log_profiles(profiles: np.ndarray, cfg: IdentityConfig, extra_blur_mm: float = 0.0) -> np.ndarray:
    """Log colour profiles smoothed across the outline (σ = ``smooth_mm``, and ``extra_blur_mm``
    more in quadrature): float32 (n_strips, n_across, 3)."""
    lg = np.log(profiles.astype(np.float32) + np.float32(cfg.eps))
    sigma = np.hypot(cfg.smooth_mm, extra_blur_mm) * cfg.ppm
    return _smooth_across(lg, sigma) if sigma >= 0.3 else lg


def _smooth_across(lg: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian smoothing (σ in samples) of (n, A, 3) along A, edges replicated."""
    r = int(np.ceil(3 * sigma))
    return cv2.GaussianBlur(lg, (2 * r + 1, 1), sigmaX=sigma, sigmaY=0, borderType=cv2.BORDER_REPLICATE)


@dataclass
class Identity:
    """Outcome of :func:`board_identity`.

    Attributes:
        usable: strips that can tell (varied in the calibration, in view, on the game's fixed sides).
        matched: strips whose colour profile matches the calibration's at some shift (weight > 0).
        explained: the evidence (sum of the strips' weights, :meth:`IdentityReference.matches`) at
            the places one board position (unmoved or bumped) puts the strips.
        moved: whether that position is a fitted one (a bump; "nothing moved" is tried first, and no
            motion is fitted once it explains enough).
        share: ``explained / usable`` (0 when nothing is usable): the statistic.
        verdict: True: the calibrated board; False: not it; None: cannot tell (too few usable
            strips, or the photo far darker than the calibration shot).
        fitted: evidence explained by the shift and turn fitted to the matched strips (0: none).
        fewest: of that, the part across the direction with less (a fitted position counts from
            :attr:`IdentityConfig.min_pinning` on).
        swapped: the board was recognised only with the photo's red and blue swapped (a camera
            delivering RGB as BGR: the calibrated board, refused later as ``colours-swapped``).
    """

    usable: int
    matched: int
    explained: float
    moved: bool
    share: float
    verdict: bool | None
    fitted: float = 0.0
    fewest: float = 0.0
    swapped: bool = False


class IdentityReference:
    """The calibration shot's colour strips, ready for :func:`board_identity`.

    Args:
        profiles: (n_strips, n_across, 3) the calibration shot's :func:`identity_profiles` (uint8
            or float) with the same ``board_mm`` and ``grow_mm``.
        board_mm: (width_mm, height_mm).
        grow_mm: how far outside the board's outline the strips lie (pieces that may stand on the
            outline, a Go board's edge stones, must not reach them; 0 for boards whose pieces
            stand inside, beyond ``inside_mm``).
    Raises:
        ValueError: ``profiles`` does not fit the layout.
    """

    def __init__(self, profiles: np.ndarray, board_mm, grow_mm: float = 0.0, cfg: IdentityConfig = IDENTITY):
        self.cfg = cfg
        self.board_mm, self.S = identity_frame(board_mm, grow_mm)
        self.strips, _ = identity_strips(board_mm, grow_mm, cfg)
        self.samples_mm = strip_samples_mm(self.strips, cfg.width_step).astype(np.float32)
        n_across = self.strips.grid_mm.shape[0]
        if profiles.shape != (len(self.strips.cols), n_across, 3):
            raise ValueError(f"colour strips {profiles.shape} do not fit the layout "
                             f"{(len(self.strips.cols), n_across, 3)}")
        pad = self.strips.pad
        self.levels = profiles.astype(np.float32)
        # cores kept channel-major, (n, 3, K): every sum below runs along the last, contiguous axis
        core = _log_profiles(self.levels, cfg)[:, pad:n_across - pad].transpose(0, 2, 1)
        self.core = np.ascontiguousarray(core - core.mean(axis=2, keepdims=True))
        self.contrast = np.sqrt((self.core.astype(np.float64) ** 2).mean(axis=(1, 2)))
        self.structured = self.contrast >= cfg.min_contrast
        blurred = _log_profiles(self.levels, cfg, cfg.blur_mm)[:, pad:n_across - pad].transpose(0, 2, 1)
        self.blurred_core = np.ascontiguousarray(blurred - blurred.mean(axis=2, keepdims=True))
        self._energy = {False: (self.core * self.core).sum(axis=(1, 2)),           # Σ core² per strip
                        True: (self.blurred_core * self.blurred_core).sum(axis=(1, 2))}
        self.mean_levels = self.levels[:, pad:n_across - pad].mean(axis=1)        # (n, 3)
        self._views: dict = {}      # (H, photo size) → (samples' px, strips in view): the calibrated homographies

    def view(self, H_px_from_mm: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """Where the strips' samples lie in a photo of ``size`` (w, h) seen through ``H_px_from_mm``
        (:func:`strip_samples_px`) and which strips it shows (:func:`strips_in_view`); kept for a
        few homographies (the calibrated one every photo of this size is first seen through)."""
        key = (np.asarray(H_px_from_mm, np.float64).tobytes(), tuple(size))
        got = self._views.get(key)
        if got is None:
            got = (strip_samples_px(self.samples_mm, H_px_from_mm), strips_in_view(H_px_from_mm, self.strips, size))
            if len(self._views) >= 4:
                self._views.clear()
            self._views[key] = got
        return got

    def exposure(self, profiles: np.ndarray, usable: np.ndarray | None = None) -> np.ndarray:
        """Per-channel gain (3,) that brings a photo's strips to the calibration's exposure: the
        ratio of the mean levels of the ``usable`` strips (default: the structured ones), each
        strip's mean taken over the calibration's profile and over the whole searched photo profile."""
        use = self.structured if usable is None else usable
        if not use.any():
            return np.ones(3)
        return self.mean_levels[use].mean(axis=0) / np.maximum(profiles[use].mean(axis=(0, 1)), 0.5)

    def residuals(self, profiles: np.ndarray, usable: np.ndarray | None = None,
                  blurred: bool = False, gain: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Best shift and RMS log residual of every strip of a photo's :func:`colour_profiles`.

        The photo is first brought to the calibration's exposure (:meth:`exposure`), so that
        :attr:`IdentityConfig.eps` is the same share of the light in both (a photo 3 times darker is
        compared as if it were lit; its quantisation noise is averaged over each strip's width).

        Args:
            profiles: the photo's :func:`colour_profiles`, float32 (n_strips, n_across, 3).
            usable: bool (n_strips,) strips whose levels set the exposure (default: the structured).
            blurred: compare with the calibration's profiles blurred by :attr:`IdentityConfig.blur_mm`
                (a photo less sharp than the calibration shot).
        Returns:
            ``(shift_mm, residual)``: float64 (n_strips,) the sub-sample shift (mm, + outward) of
            the smallest residual, NaN where it lies on the search range's end (the best match may
            be beyond it), and that residual (log units, each channel's mean removed).
        """
        gain = self.exposure(profiles, usable) if gain is None else gain
        profiles = profiles * gain.astype(np.float32)
        lg = np.ascontiguousarray(_log_profiles(profiles, self.cfg).transpose(0, 2, 1))      # (n, 3, A)
        lg -= lg.mean(axis=2, keepdims=True)           # centred: the window sums below stay exact in float32
        core, pad = (self.blurred_core if blurred else self.core), self.strips.pad
        K = core.shape[2]
        c1 = np.zeros(lg.shape[:2] + (lg.shape[2] + 1,), np.float32)
        c2 = np.zeros_like(c1)
        np.cumsum(lg, axis=2, out=c1[..., 1:])
        np.cumsum(lg * lg, axis=2, out=c2[..., 1:])
        s1, s2 = c1[..., K:] - c1[..., :-K], c2[..., K:] - c2[..., :-K]           # (n, 3, S) window sums
        win = np.lib.stride_tricks.sliding_window_view(lg, K, axis=2)         # (n, 3, S, K)
        cross = np.einsum("ncsk,nck->ns", win, core)
        # Σ (w − mean(w) − core)² over the window, per channel mean removed (the core's mean is 0)
        sq = (s2 - s1 * s1 / K).sum(axis=1) - 2 * cross + self._energy[bool(blurred)][:, None]
        r2 = np.maximum(sq, 0) / (3 * K)
        best = r2.argmin(axis=1)
        n = np.arange(len(best))
        last = r2.shape[1] - 1
        a, b, c = r2[n, np.clip(best - 1, 0, last)], r2[n, best], r2[n, np.clip(best + 1, 0, last)]
        den = a - 2 * b + c
        frac = np.where(den > 0, 0.5 * (a - c) / np.where(den > 0, den, 1), 0.0)
        shift = (best + np.clip(frac, -0.5, 0.5) - pad) / self.strips.ppm
        shift[(best == 0) | (best == last)] = np.nan
        return shift, np.sqrt(b)

    def matches(self, profiles: np.ndarray, usable: np.ndarray | None = None,
                blurred: bool = False, gain: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """How well every strip of a photo matches, at its best shift (``blurred``: as :meth:`residuals`).

        Returns:
            ``(shift_mm, weight)``: float64 (n_strips,) as :meth:`residuals`, and each strip's
            evidence in [0, 1]: Tukey's biweight ``(1 − u²)²`` of ``u``, the larger of the residual
            over :attr:`IdentityConfig.max_residual` and the residual over
            :attr:`IdentityConfig.max_relative_residual` times the reference's own RMS; 0 from
            ``u = 1`` on, at a shift on the search range's end, or for an unusable strip. A close
            match counts almost fully, a borderline one hardly.
        """
        cfg = self.cfg
        shift, res = self.residuals(profiles, usable, blurred, gain)
        u = np.maximum(res / cfg.max_residual, res / (cfg.max_relative_residual * np.maximum(self.contrast, 1e-9)))
        weight = np.where(u < 1, (1 - np.minimum(u, 1) ** 2) ** 2, 0.0)
        weight[~np.isfinite(shift) | ~self.structured] = 0.0
        return shift, weight


def _agreeing(ref: IdentityReference, shift_mm: np.ndarray, weight: np.ndarray,
              fitted_only: bool = False, enough: float = np.inf) -> tuple[float, bool, float, float]:
    """How much matching evidence (sum of the strips' weights) one board position explains: the
    calibrated one (nothing moved), or one shift and turn fitted to the matched strips. A fitted
    position counts only when strips across both directions pin it (evidence of at least
    :attr:`IdentityConfig.min_pinning` each): strips along one side alone leave a fitted board free
    to slide along it, and a plain edge of another board may well lie near where the calibrated
    board's edge was.

    Args:
        fitted_only: the position ``shift_mm`` is measured from was itself found in the photo (a
            coarse guess): "nothing moved" from there must be pinned too.
        enough: evidence of "nothing moved" from which no motion is fitted (the verdict is made).
    Returns:
        ``(evidence, moved, fitted, fewest)``: the evidence of the position chosen; whether it is a
        fitted one; the evidence the fitted position explains and, of that, the part across the
        direction with less (0, 0 when none could be fitted).
    """
    st = ref.strips
    tol = max(ref.cfg.strips.tolerance_mm, 1.0 / st.ppm)
    d = np.nan_to_num(shift_mm, nan=1e6)
    across = np.abs(st.normals[:, 0]) > 0.5

    def explained(ok):
        w = np.where(ok, weight, 0.0)
        return float(w.sum()), float(min(w[across].sum(), w[~across].sum()))

    matched = weight > 0
    still, still_fewest = explained(matched & (np.abs(d) <= tol))
    if fitted_only and still_fewest < ref.cfg.min_pinning:
        still = 0.0
    params = fit_motion(np.where(matched, d, 0.0), st, matched, ref.board_mm, 3, tol) \
        if still < enough and (matched & (np.abs(d) > tol)).any() else None
    if params is None:
        return still, False, 0.0, 0.0
    pred = predicted_shifts(motion_matrix(params, ref.board_mm), st, np.ones(len(d), bool))
    fitted, fewest = explained(matched & (np.abs(d - pred) <= tol))
    if fewest >= ref.cfg.min_pinning and fitted > still:
        return fitted, True, fitted, fewest
    return still, False, fitted, fewest


def coarse_motion(ref: OutlineReference, gray: np.ndarray, H0: np.ndarray) -> np.ndarray | None:
    """A translation of the board (motion T, (3, 3), board mm) found by phase correlation of the
    outline band's edges, for pushes beyond the strips' search range; None when the peak is weak
    or too far (:func:`measure_motion` uses the same)."""
    return _coarse_shift(ref, gray, H0)


def board_identity(ref: IdentityReference, bgr: np.ndarray, H0: np.ndarray, usable: np.ndarray | None = None,
                   coarse_guess=None, exhaustive: bool = False) -> Identity:
    """Is the board in this photo the calibrated one? (the comment above :class:`IdentityConfig`).

    Args:
        ref: the calibration's :class:`IdentityReference`.
        bgr: photo, BGR uint8 (H, W, 3), undistorted, at the size ``H0`` is for.
        H0: the calibrated homography board mm → this photo's px.
        usable: optional bool (n_strips,) strips that may be used (e.g. the game's fixed sides).
        coarse_guess: optional callable returning a board motion T ((3, 3), board mm) or None
            (e.g. :func:`coarse_motion`): when the strips do not find the board within their
            search range, they are compared once more around ``H0 @ T`` (a board pushed further).
        exhaustive: always fit a motion, even once "nothing moved" explains enough for the
            verdict (the verdict is the same; ``share`` is then the statistic's full value, as
            ``scripts/board_identity_stats.py`` measures it).
    Returns:
        :class:`Identity`.
    """
    cfg = ref.cfg
    size = (bgr.shape[1], bgr.shape[0])
    board_H0 = np.asarray(H0, np.float64)

    def measure(T, fitted_only, blurred=False, swapped=False):
        H = board_H0 @ T @ ref.S
        if fitted_only:
            px, in_view = strip_samples_px(ref.samples_mm, H), strips_in_view(H, ref.strips, size)
        else:                                                          # the calibrated position: kept
            px, in_view = ref.view(H, size)
        use = ref.structured & in_view                                 # strips off the photo tell nothing
        if usable is not None:
            use &= usable
        profiles = colour_profiles(bgr, H, ref.strips, px=px)
        if swapped:
            profiles = np.ascontiguousarray(profiles[..., ::-1])
        gain = ref.exposure(profiles, use)
        shift, weight = ref.matches(profiles, use, blurred, gain)
        weight = np.where(use, weight, 0.0)
        enough = np.inf if exhaustive else cfg.min_share * use.sum()
        evidence, moved, fitted, fewest = _agreeing(ref, shift, weight, fitted_only, enough)
        return (int(use.sum()), int((weight > 0).sum()), evidence, moved or fitted_only, fitted, fewest,
                float(gain.min()))

    n_use, matched, evidence, moved, fitted, fewest, gain = measure(np.eye(3), False)
    if n_use < cfg.min_usable or gain > cfg.max_exposure_gain:
        return Identity(n_use, 0, 0.0, False, 0.0, None)
    if evidence < cfg.min_share * n_use:       # a photo less sharp than the calibration shot?
        again = measure(np.eye(3), False, blurred=True)
        if again[2] > evidence:
            n_use, matched, evidence, moved, fitted, fewest, _ = again
    if evidence < cfg.min_share * n_use and coarse_guess is not None:
        T = coarse_guess()
        if T is not None:
            again = measure(T, True)
            if again[0] >= cfg.min_usable and again[2] / again[0] > evidence / n_use:
                n_use, matched, evidence, moved, fitted, fewest, _ = again
    swapped = False
    if evidence < cfg.min_share * n_use:       # the calibrated board, its red and blue swapped (RGB as BGR)?
        again = measure(np.eye(3), False, swapped=True)
        if again[2] >= cfg.min_share * again[0]:
            (n_use, matched, evidence, moved, fitted, fewest, _), swapped = again, True
    share = evidence / n_use
    return Identity(n_use, matched, round(evidence, 2), moved, share, share >= cfg.min_share, round(fitted, 2),
                    round(fewest, 2), swapped)
