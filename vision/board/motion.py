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

from vision.board.strips import (OUTLINE, SIDES, OutlineConfig, Strips, band_maps, project, sample_bands, strip_layout,
                                 strip_profiles, structure)
from vision.image.gradients import sobel_magnitude


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


def coarse_motion(ref: OutlineReference, gray: np.ndarray, H0: np.ndarray) -> np.ndarray | None:
    """A translation of the board (motion T, (3, 3), board mm) found by phase correlation of the
    outline band's edges, for pushes beyond the strips' search range; None when the peak is weak
    or too far (:func:`measure_motion` uses the same)."""
    return _coarse_shift(ref, gray, H0)


@dataclass(frozen=True)
class MoveTolerance:
    """The smallest motion of the board that counts as "moved": a shift of its centre under
    ``shift_mm`` (mm) that also turns it less than ``rotation_deg`` (degrees) is no motion.

    >>> MoveTolerance(0.75, 0.2).is_moved(0.5, 0.1), MoveTolerance(0.75, 0.2).is_moved(0.5, -0.3)
    (False, True)
    """

    shift_mm: float
    rotation_deg: float

    def is_moved(self, shift_mm: float, rotation_deg: float) -> bool:
        """Whether a motion of ``shift_mm`` (mm) and ``rotation_deg`` (degrees, either way) counts."""
        return not (shift_mm < self.shift_mm and abs(rotation_deg) < self.rotation_deg)


#: "Moved" for the board stage's registration on the outline strips and readers without their own.
BOARD_MOVED = MoveTolerance(shift_mm=0.75, rotation_deg=0.2)
