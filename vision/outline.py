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


def sample_bands(gray: np.ndarray, H_px_from_mm: np.ndarray, strips: Strips) -> np.ndarray:
    """Resample the outline bands of a grey photo through ``H_px_from_mm``: float32 (n_across, n_along)."""
    px = project(H_px_from_mm, strips.grid_mm).astype(np.float32)
    return cv2.remap(gray, px[..., 0], px[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)


def strip_profiles(bands: np.ndarray, strips: Strips) -> np.ndarray:
    """Derivative (across the outline, grey levels per sample) of each strip's mean profile:
    float32 (n_strips, n_across − 1)."""
    csum = np.concatenate([np.zeros((bands.shape[0], 1), np.float64), np.cumsum(bands, axis=1, dtype=np.float64)], 1)
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
    win = np.lib.stride_tricks.sliding_window_view(profiles.astype(np.float64), core.shape[1], axis=1)
    win = win - win.mean(axis=2, keepdims=True)
    num = np.einsum("nk,nsk->ns", core, win)
    den = np.sqrt((core ** 2).sum(axis=1))[:, None] * np.sqrt((win ** 2).sum(axis=2)) + 1e-9
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
    for _ in range(8):
        r = d - predicted_shifts(motion_matrix(params, board_mm), strips, idx)
        wts = np.where(np.abs(r) < c, (1 - (r / c) ** 2) ** 2, 0.0)
        if (wts > 0).sum() < 6:
            return None
        J = np.stack([(predicted_shifts(motion_matrix(params + e, board_mm), strips, idx)
                       - predicted_shifts(motion_matrix(params - e, board_mm), strips, idx)) / 2e-4 for e in eps], -1)
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

    @classmethod
    def from_image(cls, gray: np.ndarray, H: np.ndarray, board_mm, ppm: float, cfg: OutlineConfig = OUTLINE):
        """Reference from one grey calibration picture and its homography (board mm → its px)."""
        return cls(sample_bands(gray, H, strip_layout(board_mm, ppm, SIDES, cfg)), gray, H, board_mm, ppm, cfg)

    def shifts(self, gray: np.ndarray, H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Shifts (mm, + outward) and NCC peaks of every strip in a photo seen through ``H``."""
        prof = strip_profiles(sample_bands(gray, H, self.strips), self.strips)
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
    shift, peak = ref.shifts(gray, H0)
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
    mag = cv2.magnitude(cv2.Sobel(view, cv2.CV_32F, 1, 0), cv2.Sobel(view, cv2.CV_32F, 0, 1))
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
