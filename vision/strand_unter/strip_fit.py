"""The fine fit of the board's motion from strips across its outline (the rails with the table
beside them, the land-side edge with the table below): each strip's mean profile is shifted onto
the reference's by normalised cross-correlation of their derivatives, and a rigid motion is fitted
to the shifts (:func:`~vision.strand_unter.robust_motion.robust_motion`).

Input: the extended rectified grey photo (only the strips' regions: :func:`warp_strips`), the
calibration's registration reference, the cloth's reach. Output: :class:`Fit` (motion, quality,
change of scale, gain over "nothing moved"), or ``registration-lost``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.strand_unter.config import REGISTRATION
from vision.strand_unter.geometry import mm_to_work
from vision.strand_unter.reference_cache import cache_for
from vision.strand_unter.robust_motion import robust_motion, tukey


def warp_strips(image: np.ndarray, H_px_from_mm: np.ndarray, shape, board_mm, cfg=REGISTRATION) -> np.ndarray:
    """The extended rectified grey image (uint8 ``shape``) of a BGR photo where :func:`fine_fit` reads
    it, the regions of its strips (:func:`_bands`: along each rail and the land-side edge), 0 elsewhere;
    each region warped on its own, then made grey (a fifth of the pixels of the whole extended image)."""
    out = np.zeros(shape, np.uint8)
    M = np.asarray(H_px_from_mm, np.float64) @ np.linalg.inv(mm_to_work(cfg.ppm, cfg.margin_mm))
    for side in ("left", "right", "bottom"):
        regs = [b[2] for b in _bands(shape, board_mm, cfg) if b[0] == side]
        if not regs:
            continue
        r0, r1 = min(r[0].start for r in regs), max(r[0].stop for r in regs)
        c0, c1 = min(r[1].start for r in regs), max(r[1].stop for r in regs)
        r0, c0, r1, c1 = max(r0, 0), max(c0, 0), min(r1, shape[0]), min(c1, shape[1])
        if r1 <= r0 or c1 <= c0:
            continue
        Mt = M @ np.array([[1.0, 0.0, c0], [0.0, 1.0, r0], [0.0, 0.0, 1.0]])
        out[r0:r1, c0:c1] = cv2.cvtColor(cv2.warpPerspective(image, Mt, (c1 - c0, r1 - r0), flags=cv2.INTER_LINEAR |
                                                             cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE),
                                         cv2.COLOR_BGR2GRAY)
    return out


def fine_fit(gray: np.ndarray, cal, ref: np.ndarray, board_mm, edges, cfg) -> tuple[np.ndarray, float]:
    """Fit the board's motion (shift x, y, rotation) from the strips across its outline.

    Args:
        gray: extended rectified photo, grey uint8 (H, W), rectified with the homography the
            motion is measured from (only its strips' regions are read: :func:`warp_strips`).
        ref: the calibration's registration reference (same frame and size).
        edges: (3,) cloth reach (board mm, y) near the left rail, the right rail and anywhere,
            already grown by the safety margin: strips the cloth may cover are not used.
    Returns:
        (T float64 (3, 3) board mm → board mm, fit quality in [0, 1], relative change of scale
        the strips suggest (a 4-parameter fit; NaN unless both rails and the front edge fit)),
        searched ±``cfg.max_shift_mm``.
    Raises:
        UnreadableBoardError: ``registration-lost`` when too few strips correlate or they do not
            agree on one motion.
    """
    rows, rhs, sides = [], [], []
    w, h = board_mm
    cx, cy = w / 2, h / 2
    bands = _reference_bands(cal, ref, board_mm, cfg)
    use = [not ((side != "bottom" and c - cfg.band_mm / 2 < edges[0 if side == "left" else 1])   # rail under cloth?
                or (side == "bottom" and edges[2] > h - cfg.inner_band_mm)) for side, c, _, _ in bands]
    profiles = _band_profiles(gray, bands, cfg)
    number = [j for *_, j in _numbered(bands)]
    found: dict = {}
    same = "left" in profiles and "right" in profiles and profiles["left"].shape[1] == profiles["right"].shape[1]
    # profiles of equal length (each side's strips; both rails' when they are alike) shifted at once
    for batch in ((("left", "right"),) if same else (("left",), ("right",))) + (("bottom",),):
        idx = [k for k, b in enumerate(bands) if use[k] and b[0] in batch]
        if not idx:
            continue
        shifts, corrs = _profile_shifts(np.stack([bands[k][3] for k in idx]),
                                        np.stack([profiles[bands[k][0]][number[k]] for k in idx]), cfg)
        found.update(zip(idx, zip(shifts, corrs)))
    for group in ("left", "right", "bottom"):
        idx = [k for k, b in enumerate(bands) if use[k] and b[0] == group]
        for k in idx:
            shift, corr = found[k]
            if not np.isfinite(shift) or corr < cfg.min_profile_corr:
                continue
            side, centre_mm = bands[k][0], bands[k][1]
            if side in ("left", "right"):   # δx = tx − θ (y − cy)
                rows.append([1.0, 0.0, -(centre_mm - cy)])
            else:                           # δy = ty + θ (x − cx)
                rows.append([0.0, 1.0, centre_mm - cx])
            sides.append(side)
            rhs.append(shift / cfg.ppm)
    for group in ("left", "right"):
        usable = sum(1 for k, b in enumerate(bands) if use[k] and b[0] == group)
        if usable >= 3 and group not in sides:
            # a whole rail unlike the calibration's while the other matches: the board looks
            # larger or smaller (camera height, zoom) or something lies along that rail
            raise UnreadableBoardError("registration-lost", f"the board's {group} rail does not match the "
                                       "calibration; is something lying along it, or did the camera move?")
    rows, rhs = np.array(rows), np.array(rhs)
    sides_x = int((rows[:, 0] > 0).sum()) if len(rows) else 0
    if len(rows) < 4 or sides_x < 2 or len(rows) - sides_x < 1:
        raise UnreadableBoardError("registration-lost", "too little of the board's outline is visible to check "
                                   "where the board is; clear the rails and the front edge")
    sol, keep, sigma = robust_motion(rows, rhs, cfg)
    res = np.abs(rows @ sol - rhs)
    if keep.sum() < 4:
        raise UnreadableBoardError("registration-lost", "the board's outline does not fit one position; "
                                   "is something lying against it?")
    tx, ty, theta = sol
    rms = float(np.sqrt(np.mean(res[keep] ** 2)))
    # "nothing moved" (this fit's starting position) against the motion: the robust cost of the strips'
    # shifts as they are against their residuals after the motion, in units of the shifts' noise
    gain = float(tukey(rhs / sigma).sum() - tukey((rhs - rows @ sol) / sigma).sum())
    ecc = float(np.clip(1.0 - rms / (2 * cfg.max_residual_mm), 0, 1)) * float(keep.mean())
    # a change of scale (camera raised/lowered, zoom): the rails move apart or together
    side = np.where(rows[:, 0] > 0, np.where(np.array(sides) == "right", w / 2, -w / 2), h / 2)
    scale = float("nan")
    if keep.sum() >= 5 and len({sd for sd, k in zip(sides, keep) if k}) == 3:
        X4 = np.column_stack([rows, side])[keep]
        scale = float(np.linalg.solve(X4.T @ X4 + 1e-9 * np.eye(4), X4.T @ rhs[keep])[3])
    c, s_ = np.cos(theta), np.sin(theta)
    T = np.array([[c, -s_, cx + tx - c * cx + s_ * cy], [s_, c, cy + ty - s_ * cx - c * cy], [0, 0, 1]])
    return Fit(T, ecc, scale, gain, sigma)


@dataclass
class Fit:
    """One fine fit: the motion ``T`` (board mm → board mm), its quality ``ecc`` in [0, 1], the change
    of scale the strips suggest (NaN unless every side fits), ``gain``: how much better the motion
    explains the strips than no motion (robust cost difference, :func:`tukey` units: a χ²-like
    figure with 3 degrees of freedom), ``sigma``: the strips' shift noise (mm)."""

    T: np.ndarray
    ecc: float
    scale: float
    gain: float
    sigma: float

    def __iter__(self):          # unpacks as (T, ecc, scale)
        return iter((self.T, self.ecc, self.scale))


def _reference_bands(cal, ref: np.ndarray, board_mm, cfg):
    """:func:`_bands` with the reference's profile across each strip, computed once per calibration."""
    key = ("bands", cal.folder, id(cal))
    cache = cache_for(cal)
    if key not in cache:
        bands = _bands(ref.shape, board_mm, cfg)
        prof = _band_profiles(ref, bands, cfg)
        cache[key] = [(side, c, region, prof[side][j]) for side, c, region, j in _numbered(bands)]
    return cache[key]


def _numbered(bands):
    """``(side, centre, region, index among that side's strips)`` for every strip of :func:`_bands`."""
    seen: dict[str, int] = {}
    out = []
    for b in bands:
        out.append((b[0], b[1], b[2], seen.get(b[0], 0)))
        seen[b[0]] = seen.get(b[0], 0) + 1
    return out


def _band_profiles(gray: np.ndarray, bands, cfg) -> dict[str, np.ndarray]:
    """Mean profile across every strip of :func:`_bands`, smoothed along the profile.

    The strips of one side are consecutive and equally wide, so each side is reduced in one call
    (``np.add.reduceat``). Smoothing the 1-D profiles with a Gaussian of ``cfg.blur_sigma_px`` equals
    blurring the image before averaging, away from the strips' ends.

    Args:
        gray: extended rectified image, grey uint8 (H, W).
        bands: :func:`_bands` entries (side, centre, (row slice, column slice), …).
    Returns:
        ``{side: float32 (n_strips, profile length)}`` in the order of ``bands``.
    """
    out = {}
    for side in ("left", "right", "bottom"):
        regs = [b[2] for b in bands if b[0] == side]
        if not regs:
            continue
        if side == "bottom":
            rs = regs[0][0]
            starts = np.array([r[1].start for r in regs])
            sub = gray[rs, starts[0]:regs[-1][1].stop].astype(np.float32).T        # (columns, rows)
            widths = np.array([r[1].stop - r[1].start for r in regs], np.float32)
        else:
            cs = regs[0][1]
            starts = np.array([r[0].start for r in regs])
            sub = gray[starts[0]:regs[-1][0].stop, cs].astype(np.float32)          # (rows, columns)
            widths = np.array([r[0].stop - r[0].start for r in regs], np.float32)
        prof = np.add.reduceat(sub, starts - starts[0], axis=0) / widths[:, None]
        out[side] = cv2.GaussianBlur(prof, (0, 0), sigmaX=cfg.blur_sigma_px, sigmaY=1e-3,
                                     borderType=cv2.BORDER_REPLICATE)
    return out


def _bands(shape, board_mm, cfg):
    """Strips across the board's outline, in extended px: ``(side, centre along the edge in mm, slices)``.

    Left/right strips cross the rails (table, rail, sand); bottom strips cross the land-side edge.
    """
    w, h = board_mm
    m, ppm, b, step = cfg.margin_mm, cfg.ppm, cfg.inner_band_mm, cfg.band_mm
    out = []
    for y0 in np.arange(step / 2, h - step / 2, step):
        ys = slice(int((m + y0) * ppm), int((m + y0 + step) * ppm))
        out.append(("left", y0 + step / 2, (ys, slice(int((m - cfg.rail_mm) * ppm), int((m + b) * ppm)))))
        out.append(("right", y0 + step / 2, (ys, slice(int((m + w - b) * ppm), int((m + w + cfg.rail_mm) * ppm)))))
    for x0 in np.arange(step, w - step, step):
        xs = slice(int((m + x0) * ppm), int((m + x0 + step) * ppm))
        out.append(("bottom", x0 + step / 2, (slice(int((m + h - 2 * b) * ppm), int((m + h + 2 * b) * ppm)), xs)))
    return out


def _profile_shifts(ref: np.ndarray, now: np.ndarray, cfg) -> tuple[np.ndarray, np.ndarray]:
    """Shifts (px, sub-pixel) of 1-D profiles ``now`` against ``ref`` by normalised cross-correlation.

    Args:
        ref, now: float (k, n) profiles, one per row.
    Returns:
        (shift float (k,), NaN when a profile is too short; correlation float (k,)), searched within
        ±``cfg.max_shift_mm`` on the profiles' derivatives, refined by a parabola through the peak.
    """
    a, b = np.diff(ref, axis=1), np.diff(now, axis=1)
    L = int(cfg.max_shift_mm * cfg.ppm)
    k, n = a.shape
    if n <= 2 * L + 4:
        return np.full(k, np.nan), np.zeros(k)
    core = a[:, L:n - L]
    core = core - core.mean(axis=1, keepdims=True)
    cn = np.linalg.norm(core, axis=1) + 1e-6
    segs = np.lib.stride_tricks.sliding_window_view(b, n - 2 * L, axis=1)   # (k, 2L + 1, n − 2L), lag −L … L
    segs = segs - segs.mean(axis=2, keepdims=True)
    scores = np.einsum("kln,kn->kl", segs, core) / (cn[:, None] * (np.linalg.norm(segs, axis=2) + 1e-6))
    j = np.argmax(scores, axis=1)
    best = scores[np.arange(k), j]
    shift = (j - L).astype(np.float64)
    inner = (j > 0) & (j < 2 * L)
    jj = np.clip(j, 1, 2 * L - 1)
    y0, y1, y2 = (scores[np.arange(k), jj + d] for d in (-1, 0, 1))
    den = y0 - 2 * y1 + y2
    ok = inner & (den < 0)
    shift[ok] += 0.5 * (y0[ok] - y2[ok]) / den[ok]
    return shift, best
