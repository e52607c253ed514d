"""Lens distortion from what the calibration shot already holds: lines that are straight on the board.

A board's edges, a printed grid, grooves, lanes and mat rows are straight; a lens that bends
them shows by how much. The plumb-line method (Brown 1971; Devernay & Faugeras 2001): find many
points along each such line in the photo, then choose the distortion coefficients that make the
undistorted points of every line collinear.

1. :func:`profile_lines_mm` lists the candidate lines of a board from its profile: the outline,
   the edges of every polygon (grooves, lane spaces, basket) and a grid's lines (between and
   through its places; a board prints one kind or the other, or only some of them).
2. :func:`measure_line` samples the photo across a line at points predicted by the current
   camera model, aligns each sample's derivative profile with the line's own template (made
   from its samples near the ends, where the prediction is best), and keeps the samples whose
   offset along the line follows a smooth curve (a robust polynomial fit): pieces on the line or a
   line the board does not print drop out.
3. :func:`fit_radial` fits ``k1`` (and ``k2`` when it helps significantly) by iteratively
   reweighted Gauss–Newton with Tukey's biweight on the points' distances to their lines' total
   least-squares fits.

:func:`estimate_lens` runs it twice: the outline alone from the clicked corners' homography, then
every line predicted through the first fit. A fit whose effect on the board stays below
:data:`vision.lens.model.MIN_DISPLACEMENT_PX` or is not significant stores no distortion.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.lens.model import MIN_DISPLACEMENT_PX, Lens, undistort_px


@dataclass(frozen=True)
class LineConfig:
    """Tunable numbers of the line search and fit (px of the calibration shot unless said)."""

    #: Search range across a line: a share of the distance to the nearest parallel line …
    search_share: float = 0.4
    #: … within these bounds, first pass (from the clicked corners) and second pass (through a fit).
    search_first: tuple[float, float] = (6.0, 30.0)
    search_second: tuple[float, float] = (3.0, 10.0)
    #: Half length of a line's template (px).
    template_half: int = 6
    #: Spacing of samples along a line (px) and their number bounds.
    sample_step: float = 4.0
    samples: tuple[int, int] = (24, 400)
    #: Share of a line left out at each end (corners, where another line crosses).
    end_share: float = 0.04
    #: A sample counts when its profile correlates with the template at least this well …
    min_ncc: float = 0.6
    #: … and lies within this of the line's smooth offset curve (px).
    curve_tolerance: float = 1.5
    #: A line is used when at least this share of its samples count, and at least this many.
    min_share: float = 0.5
    min_points: int = 16
    #: Interior lines shorter than this share of the board's smaller side are not used.
    min_length_share: float = 0.3
    #: Significance (estimate / standard error) a coefficient needs to be kept.
    min_significance: float = 5.0


LINES = LineConfig()


def profile_lines_mm(profile: dict, cfg: LineConfig = LINES) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """Candidate straight lines of a board, from its profile.

    Returns:
        list of ``(A, B, is_outline)``: segment ends in board mm (float64 (2,)), merged when
        collinear, clipped to the board; the outline's four sides first.
    """
    w, h = (float(v) for v in profile["board_mm"])
    outline = [((0, 0), (w, 0)), ((w, 0), (w, h)), ((w, h), (0, h)), ((0, h), (0, 0))]
    segs = []

    def polygon(poly):
        pts = [tuple(map(float, p)) for p in poly]
        segs.extend((pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts)))

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("polygon_mm", "basket_mm") and isinstance(v, list) and len(v) >= 3:
                    polygon(v)
                else:
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk({k: v for k, v in profile.items() if k not in ("markers", "board_mm")})
    for key in ("grid", "towel"):
        g = profile.get(key)
        if not isinstance(g, dict):
            continue
        pitch = g.get("pitch_mm", g.get("cell_mm"))
        if pitch is None:
            continue
        px, py = (pitch, pitch) if isinstance(pitch, (int, float)) else pitch
        rows, cols = g.get("rows"), g.get("cols")
        rows = len(rows) if isinstance(rows, list) else rows
        cols = len(cols) if isinstance(cols, list) else cols
        if not (isinstance(rows, int) and isinstance(cols, int)):
            continue
        ox, oy = map(float, g.get("origin_mm", (0, 0)))
        for k in np.arange(0, cols + 0.5, 0.5):       # boundaries and lines through the places
            segs.append(((ox + k * px, oy + (0.5 if k % 1 else 0) * py),
                         (ox + k * px, oy + (rows - (0.5 if k % 1 else 0)) * py)))
        for k in np.arange(0, rows + 0.5, 0.5):
            segs.append(((ox + (0.5 if k % 1 else 0) * px, oy + k * py),
                         (ox + (cols - (0.5 if k % 1 else 0)) * px, oy + k * py)))
    lines = [(np.array(a, float), np.array(b, float), True) for a, b in outline]
    merged: dict[tuple[str, float], list[float]] = {}
    for a, b in segs:
        a, b = np.clip(a, 0, (w, h)), np.clip(b, 0, (w, h))
        if abs(a[1] - b[1]) < 1e-6:
            key, lo, hi = ("h", round(a[1], 1)), min(a[0], b[0]), max(a[0], b[0])
        elif abs(a[0] - b[0]) < 1e-6:
            key, lo, hi = ("v", round(a[0], 1)), min(a[1], b[1]), max(a[1], b[1])
        else:
            continue                                   # only axis-parallel lines are listed
        span = merged.setdefault(key, [lo, hi])
        span[0], span[1] = min(span[0], lo), max(span[1], hi)
    for (axis, pos), (lo, hi) in sorted(merged.items()):
        side = h if axis == "h" else w
        if min(pos, side - pos) < 2.0 or hi - lo < cfg.min_length_share * min(w, h):
            continue                                   # the outline itself, or too short
        a, b = ((lo, pos), (hi, pos)) if axis == "h" else ((pos, lo), (pos, hi))
        lines.append((np.array(a, float), np.array(b, float), False))
    return lines


def _gaps_mm(lines) -> list[float]:
    """Distance (mm) from each line to its nearest parallel neighbour."""
    out = []
    for i, (a, b, _) in enumerate(lines):
        horiz = abs(a[1] - b[1]) < 1e-6
        pos = a[1] if horiz else a[0]
        others = [(c[1] if horiz else c[0]) for j, (c, d, _) in enumerate(lines)
                  if j != i and (abs(c[1] - d[1]) < 1e-6) == horiz]
        out.append(min([abs(pos - o) for o in others if abs(pos - o) > 1e-6], default=1e9))
    return out


def _sample(gray: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples of a float32 image at px (..., 2)."""
    p = pts.astype(np.float32)
    return cv2.remap(gray, p[..., 0], p[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def measure_line(gray: np.ndarray, predict, a_mm, b_mm, search_px: float, cfg: LineConfig = LINES):
    """Points of one straight board line in the photo.

    Args:
        gray: photo, float32 grey (H, W), lightly smoothed.
        predict: callable board mm (N, 2) → photo px (N, 2) (the current camera model).
        a_mm, b_mm: the line's ends (board mm).
        search_px: how far across the prediction the line is looked for.
    Returns:
        ``(points, share)``: float64 (M, 2) photo px of the samples that follow the line, and the
        share of samples that did; ``(empty, 0.0)`` when the line is too short in the photo.
    """
    a_mm, b_mm = np.asarray(a_mm, float), np.asarray(b_mm, float)
    ends = predict(np.stack([a_mm, b_mm]))
    length_px = float(np.linalg.norm(ends[1] - ends[0]))
    n = int(np.clip(length_px / cfg.sample_step, *cfg.samples))
    if length_px < 4 * cfg.sample_step * 4:
        return np.zeros((0, 2)), 0.0
    s = np.linspace(cfg.end_share, 1 - cfg.end_share, n)
    P = a_mm[None] + s[:, None] * (b_mm - a_mm)[None]
    d = (b_mm - a_mm) / np.linalg.norm(b_mm - a_mm)
    nrm = np.array([-d[1], d[0]])
    p0 = predict(P)
    p1 = predict(P + 0.5 * nrm[None])
    nimg = (p1 - p0) / np.maximum(np.linalg.norm(p1 - p0, axis=1, keepdims=True), 1e-9)
    R, W = int(np.ceil(search_px)), cfg.template_half
    t = np.arange(-R - W - 1, R + W + 2, dtype=np.float64)
    prof = _sample(gray, p0[:, None, :] + t[None, :, None] * nimg[:, None, :]).astype(np.float64)
    g = np.gradient(prof, axis=1)                                   # (n, len(t))
    # template from the samples near the ends, where the prediction is best
    near = np.r_[0:max(3, n // 8), n - max(3, n // 8):n]
    centre = R + W + 1                                              # index of t = 0
    tmpl = np.median(g[near, centre - W:centre + W + 1], axis=0)
    offs = np.zeros(n)
    ok = np.zeros(n, bool)
    lo_hi = np.tile([-R, R], (n, 1)).astype(float)
    for _ in range(3):
        tm = tmpl - tmpl.mean()
        if np.linalg.norm(tm) < 1e-6:
            return np.zeros((0, 2)), 0.0
        win = np.lib.stride_tricks.sliding_window_view(g, 2 * W + 1, axis=1)   # (n, 2R+3, 2W+1)
        wm = win - win.mean(axis=2, keepdims=True)
        ncc = (wm @ tm) / (np.linalg.norm(wm, axis=2) * np.linalg.norm(tm) + 1e-9)
        shifts = np.arange(ncc.shape[1]) - (R + 1)
        allowed = (shifts[None] >= np.floor(lo_hi[:, :1])) & (shifts[None] <= np.ceil(lo_hi[:, 1:]))
        ncc_a = np.where(allowed, ncc, -2)
        best = ncc_a.argmax(axis=1)
        rows = np.arange(n)
        peak = ncc_a[rows, best]
        l_, r_ = np.clip(best - 1, 0, ncc.shape[1] - 1), np.clip(best + 1, 0, ncc.shape[1] - 1)
        y0, y1, y2 = ncc[rows, l_], peak, ncc[rows, r_]
        den = y0 - 2 * y1 + y2
        frac = np.where((den < 0) & (best > 0) & (best < ncc.shape[1] - 1), 0.5 * (y0 - y2) / np.where(den < 0, den, -1), 0)
        offs = shifts[best] + np.clip(frac, -0.5, 0.5)
        good = peak >= cfg.min_ncc
        if good.sum() < cfg.min_points:
            return np.zeros((0, 2)), 0.0
        curve = _robust_poly(s, offs, good, cfg.curve_tolerance)
        ok = good & (np.abs(offs - curve) <= cfg.curve_tolerance)
        # next pass: a sharper template from the aligned samples, searched near the curve
        idx = np.flatnonzero(ok)
        if len(idx) >= cfg.min_points:
            al = np.stack([np.interp(np.arange(-W, W + 1) + offs[i], t, g[i]) for i in idx])
            tmpl = np.median(al, axis=0)
        lo_hi = np.column_stack([curve - 3, curve + 3])
    pts = p0 + offs[:, None] * nimg
    return pts[ok], float(ok.mean())


def _robust_poly(s, y, keep, tol, degree: int = 4) -> np.ndarray:
    """A smooth curve (polynomial of ``degree`` in ``s``) through ``y``, refitted on inliers."""
    use = keep.copy()
    coef = None
    for _ in range(4):
        if use.sum() <= degree + 2:
            break
        coef = np.polyfit(s[use], y[use], degree)
        r = np.abs(np.polyval(coef, s) - y)
        scale = max(tol, 1.4826 * np.median(r[use]) * 3)
        use = keep & (r <= scale)
    return np.polyval(coef, s) if coef is not None else np.where(keep, y, 0.0)


def _line_residuals(pts_list, coeffs, K) -> np.ndarray:
    """Distances (px) of every undistorted point to its line's total least-squares fit."""
    dist = np.zeros(5)
    dist[:len(coeffs)] = coeffs
    out = []
    for pts in pts_list:
        u = undistort_px(pts, K, dist, K)
        c = u.mean(axis=0)
        _, _, vt = np.linalg.svd(u - c, full_matrices=False)
        out.append((u - c) @ vt[1])
    return np.concatenate(out) if out else np.zeros(0)


@dataclass
class RadialFit:
    """Outcome of :func:`fit_radial`: coefficients (k1[, k2]), their standard errors, the robust
    residual scale (px) before and after, and the number of points used."""

    coeffs: np.ndarray
    stderr: np.ndarray
    rms_before: float
    rms_after: float
    points: int


def fit_radial(pts_list, size, n_params: int = 1, start=None, iterations: int = 12) -> RadialFit | None:
    """Plumb-line fit of radial distortion to points of straight lines.

    Args:
        pts_list: list of float64 (M_i, 2) photo px, one array per straight line.
        size: (width, height) px of the photo (``f`` = width, centre = image centre).
        n_params: 1 (``k1``) or 2 (``k1, k2``).
        start: optional starting coefficients.
    Returns:
        :class:`RadialFit`, or None with fewer than 3 lines.
    """
    if len(pts_list) < 3:
        return None
    w, h = size
    K = np.array([[w, 0, (w - 1) / 2], [0, w, (h - 1) / 2], [0, 0, 1.0]])
    theta = np.zeros(n_params) if start is None else np.array(list(start)[:n_params] + [0.0] * (n_params - len(start)))
    r0 = _line_residuals(pts_list, np.zeros(1), K)
    scale0 = 1.4826 * np.median(np.abs(r0)) + 1e-3
    wts = np.ones_like(r0)
    for _ in range(iterations):
        r = _line_residuals(pts_list, theta, K)
        sigma = max(1.4826 * np.median(np.abs(r)), 0.05)
        c = 4.685 * sigma
        wts = np.where(np.abs(r) < c, (1 - (r / c) ** 2) ** 2, 0.0)
        eps = 1e-4
        J = np.stack([(_line_residuals(pts_list, theta + e, K) - _line_residuals(pts_list, theta - e, K)) / (2 * eps)
                      for e in np.eye(n_params) * eps], -1)
        sw = np.sqrt(wts)[:, None]
        step, *_ = np.linalg.lstsq(J * sw, r * sw[:, 0], rcond=None)
        theta = theta - step
        if np.abs(step).max() < 1e-6:
            break
    r = _line_residuals(pts_list, theta, K)
    sigma = max(1.4826 * np.median(np.abs(r)), 0.05)
    J = np.stack([(_line_residuals(pts_list, theta + e, K) - _line_residuals(pts_list, theta - e, K)) / 2e-4
                  for e in np.eye(n_params) * 1e-4], -1)
    try:
        cov = np.linalg.inv((J * wts[:, None]).T @ J) * sigma ** 2
        stderr = np.sqrt(np.maximum(np.diag(cov), 0))
    except np.linalg.LinAlgError:
        stderr = np.full(n_params, np.inf)
    return RadialFit(theta, stderr, float(scale0), float(sigma), int((wts > 0).sum()))


def _predictor(H: np.ndarray, lens: Lens | None, size):
    def predict(mm):
        px = cv2.perspectiveTransform(np.asarray(mm, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)
        return px if lens is None else lens.distort_points(px, *size)
    return predict


def _measure(gray, lines, gaps_mm, predict, ppm, bounds, only_outline, cfg):
    found = []
    for (a, b, outline), gap in zip(lines, gaps_mm):
        if only_outline and not outline:
            continue
        search = float(np.clip(cfg.search_share * gap * ppm, *bounds))
        pts, share = measure_line(gray, predict, a, b, search, cfg)
        if share >= cfg.min_share and len(pts) >= cfg.min_points:
            found.append(pts)
    return found


def estimate_lens(image_bgr: np.ndarray, corners_px, profile: dict, cfg: LineConfig = LINES,
                  details: dict | None = None) -> Lens | None:
    """Radial distortion of the calibration shot from the board's straight lines, or None.

    Args:
        image_bgr: calibration shot, BGR uint8 (H, W, 3).
        corners_px: the board's four corners in the shot (TL, TR, BR, BL), as clicked (or from markers).
        profile: the board profile.
        details: optional dict that receives the fits and line counts (for logs and tests).
    Returns:
        a :class:`~vision.lens.model.Lens` (source ``"lines"``) when the shot shows a distortion that
        moves some point of the board by :data:`~vision.lens.model.MIN_DISPLACEMENT_PX` or more and is
        significant; None when it shows none (or too few lines to tell).
    """
    h_img, w_img = image_bgr.shape[:2]
    size = (w_img, h_img)
    gray = cv2.GaussianBlur(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    board = [float(v) for v in profile["board_mm"]]
    corners = np.asarray(corners_px, np.float64).reshape(4, 2)
    box = np.float64([[0, 0], [board[0], 0], [board[0], board[1]], [0, board[1]]])
    H = cv2.getPerspectiveTransform(box.astype(np.float32), corners.astype(np.float32)).astype(np.float64)
    ppm = float(np.linalg.norm(np.roll(corners, -1, 0) - corners, axis=1).sum() / (2 * sum(board)))
    lines = profile_lines_mm(profile, cfg)
    gaps = _gaps_mm(lines)
    info = details if details is not None else {}
    outline_pts = _measure(gray, lines, gaps, _predictor(H, None, size), ppm, cfg.search_first, True, cfg)
    info["outline_lines"] = len(outline_pts)
    first = fit_radial(outline_pts, size, 1) if len(outline_pts) >= 3 else None
    lens1 = Lens.fitted((first.coeffs[0], 0, 0, 0), size, "lines") if first is not None else None
    if lens1 is not None:
        Hu = cv2.getPerspectiveTransform(box.astype(np.float32),
                                         lens1.undistort_points(corners, *size).astype(np.float32)).astype(np.float64)
        predict = _predictor(Hu, lens1, size)
    else:
        predict = _predictor(H, None, size)
    all_pts = _measure(gray, lines, gaps, predict, ppm, cfg.search_second, False, cfg)
    info["lines"] = len(all_pts)
    fit = fit_radial(all_pts, size, 1, start=first.coeffs if first is not None else None)
    if fit is None:
        return None
    fit2 = fit_radial(all_pts, size, 2, start=fit.coeffs)
    if fit2 is not None and abs(fit2.coeffs[1]) >= cfg.min_significance * fit2.stderr[1]:
        fit = fit2
    info["fit"] = fit
    coeffs = list(fit.coeffs) + [0.0] * (2 - len(fit.coeffs))
    if abs(coeffs[0]) < cfg.min_significance * fit.stderr[0]:
        return None
    lens = Lens.fitted((coeffs[0], coeffs[1], 0, 0), size, "lines")
    region = np.concatenate([corners, predict(np.float64([[board[0] / 2, 0], [board[0], board[1] / 2],
                                                          [board[0] / 2, board[1]], [0, board[1] / 2]]))])
    info["displacement_px"] = lens.max_displacement(region, *size)
    if info["displacement_px"] < MIN_DISPLACEMENT_PX:
        return None
    return lens
