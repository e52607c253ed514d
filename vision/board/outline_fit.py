"""The board's corners where its outline's four sides cross in the calibration shot.

A corner clicked by hand (or moved by a lens) lies a few pixels off; a reader whose cells are a
few millimetres wide needs the board's own edges. Along each side of the outline the clicked
corners predict, the shot is sampled across the side; at each sample the edge is where the mean
colours of the two windows either side of it differ most (a step between the board and what lies
beside it: texture inside either region averages out, where a grey-level gradient would follow the
printed sea's waves). A line is fitted to each side's edge points (RANSAC, then total least squares
on the inliers), and the corners are where neighbouring sides cross.

Input: the shot (BGR uint8, undistorted when the lens bends lines), the clicked corners, the board's
size. Output: :class:`OutlineFit` (the corners to use and how they were found).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.board.geometry import board_px_per_mm, homography_from_corners


@dataclass(frozen=True)
class OutlineFitConfig:
    """Tunable numbers of the outline fit (board mm unless said)."""

    #: How far either side of the clicked outline its edge is looked for.
    search_mm: float = 20.0
    #: The width of the windows either side of a candidate edge whose mean colours are compared …
    window_mm: float = 5.0
    #: … and its least width, shot px.
    min_window_px: int = 3
    #: Samples across each side, and the share of the side left out at each end (the corners,
    #: where the other side's edge crosses).
    samples: int = 80
    end_share: float = 0.08
    #: A sample is an inlier of its side's line within this distance, shot px …
    inlier_px: float = 1.0
    #: … and a side counts when at least this share of its samples are inliers.
    min_inlier_share: float = 0.5
    #: Corners the fit moves by less than this are kept as clicked: the fit's own error on exactly
    #: placed corners reaches 2.7 mm where a narrow frame lies beside brighter print (the synthetic
    #: boards of ``tests/synthetic/plazing.py``; at most 1.6 px, under 1 mm, on the 11 rendered
    #: Plażing set-ups of ``../shared``).
    keep_clicked_mm: float = 4.0
    #: RANSAC draws per side (seeded: the same shot gives the same corners).
    ransac_draws: int = 200


OUTLINE_FIT = OutlineFitConfig()


@dataclass
class OutlineFit:
    """Outcome of :func:`fit_outline`.

    Attributes:
        corners_px: float64 (4, 2), TL, TR, BR, BL: the fitted corners when ``moved``, else the clicked ones.
        moved: whether the fitted corners replace the clicked ones.
        shift_mm: the largest distance between a fitted and a clicked corner, board mm (None when a
            side was not found).
        inlier_share: per side (top, right, bottom, left), the share of its samples on its line.
    """

    corners_px: np.ndarray
    moved: bool
    shift_mm: float | None
    inlier_share: list[float] = field(default_factory=list)


def _edge_points(image: np.ndarray, H: np.ndarray, a_mm, b_mm, search_px: float, window_px: int,
                 cfg: OutlineFitConfig) -> np.ndarray:
    """Edge points (float64 (n, 2) shot px) across one side ``a_mm`` → ``b_mm`` of the predicted outline."""
    a, b = np.asarray(a_mm, np.float64), np.asarray(b_mm, np.float64)
    s = np.linspace(cfg.end_share, 1.0 - cfg.end_share, cfg.samples)
    along = a[None] + s[:, None] * (b - a)[None]
    d = (b - a) / np.linalg.norm(b - a)
    p0 = cv2.perspectiveTransform(along.reshape(-1, 1, 2), H).reshape(-1, 2)
    p1 = cv2.perspectiveTransform((along + np.array([-d[1], d[0]])).reshape(-1, 1, 2), H).reshape(-1, 2)
    normal = (p1 - p0) / np.maximum(np.linalg.norm(p1 - p0, axis=1, keepdims=True), 1e-9)
    R, k = int(np.ceil(search_px)), window_px
    t = np.arange(-R - k, R + k + 1, dtype=np.float64)
    q = (p0[:, None, :] + t[None, :, None] * normal[:, None, :]).astype(np.float32)
    prof = cv2.remap(image, q[..., 0], q[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    prof = prof.astype(np.float64).reshape(len(s), len(t), -1)
    c = np.concatenate([np.zeros((len(s), 1, prof.shape[2])), np.cumsum(prof, axis=1)], axis=1)
    split = np.arange(k, len(t) - k + 1)                      # the edge lies between samples split − 1 and split
    left = (c[:, split] - c[:, split - k]) / k
    right = (c[:, split + k] - c[:, split]) / k
    step = np.linalg.norm(left - right, axis=2)
    best = step.argmax(axis=1)
    offset = t[split[best]] - 0.5
    strong = step[np.arange(len(s)), best]
    keep = strong > 0.5 * np.median(strong)
    return p0[keep] + offset[keep, None] * normal[keep]


def _side_line(pts: np.ndarray, n_samples: int, cfg: OutlineFitConfig) -> tuple[np.ndarray, np.ndarray, float] | None:
    """(a point, the unit direction, the inlier share) of the line through a side's edge points, or None."""
    if len(pts) < 2:
        return None
    rng = np.random.default_rng(0)
    best = None
    for _ in range(cfg.ransac_draws):
        i, j = rng.choice(len(pts), 2, replace=False)
        d = pts[j] - pts[i]
        norm = float(np.hypot(*d))
        if norm < 1e-9:
            continue
        inliers = np.abs((pts - pts[i]) @ (np.array([-d[1], d[0]]) / norm)) < cfg.inlier_px
        if best is None or inliers.sum() > best.sum():
            best = inliers
    if best is None or best.sum() < 2:
        return None
    use = pts[best]
    centre = use.mean(axis=0)
    _, _, vt = np.linalg.svd(use - centre, full_matrices=False)
    return centre, vt[0], float(best.sum()) / n_samples


def _crossing(l1, l2) -> np.ndarray | None:
    (c1, d1, _), (c2, d2, _) = l1, l2
    A = np.array([d1, -d2]).T
    if abs(np.linalg.det(A)) < 1e-6:
        return None
    return c1 + np.linalg.solve(A, c2 - c1)[0] * d1


def fit_outline(image_bgr: np.ndarray, corners_px, board_mm, cfg: OutlineFitConfig = OUTLINE_FIT,
                clicked_px=None) -> OutlineFit:
    """The board's corners from its outline's edges near the clicked ones.

    Args:
        image_bgr: the calibration shot, BGR uint8 (H, W, 3), with straight lines straight (undistorted).
        corners_px: (4, 2) the clicked corners, shot px, TL, TR, BR, BL: where the outline is looked for.
        board_mm: (width, height) of the board, mm.
        clicked_px: (4, 2) the user's clicks in this shot when the outline is looked for elsewhere
            (around an earlier fit's corners); the keep test is made against them. None: ``corners_px``.
    Returns:
        :class:`OutlineFit`: the fitted corners when every side is found (at least
        ``cfg.min_inlier_share`` of its samples on one line), they lie within ``cfg.search_mm`` of
        ``corners_px`` and one of them lies ``cfg.keep_clicked_mm`` or more from its click; else the
        clicked corners.
    """
    start = np.asarray(corners_px, np.float64).reshape(4, 2)
    clicked = start if clicked_px is None else np.asarray(clicked_px, np.float64).reshape(4, 2)
    w, h = (float(v) for v in board_mm)
    size = float(np.hypot(*image_bgr.shape[:2]))
    if not (np.isfinite(start).all() and np.isfinite(clicked).all()) or np.abs(start).max() > 4.0 * size:
        return OutlineFit(clicked, False, None, [0.0] * 4)  # no outline to look for (and no sampling grid to build)
    box = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
    H = homography_from_corners(start, (w, h))
    ppm = board_px_per_mm(H, (w, h))
    smooth = cv2.GaussianBlur(image_bgr, (0, 0), 1.0)
    window = max(cfg.min_window_px, int(round(cfg.window_mm * ppm)))
    if not np.isfinite(ppm) or cfg.search_mm * ppm + window > size:
        return OutlineFit(clicked, False, None, [0.0] * 4)
    lines = []
    for i in range(4):
        pts = _edge_points(smooth, H, box[i], box[(i + 1) % 4], cfg.search_mm * ppm, window, cfg)
        lines.append(_side_line(pts, cfg.samples, cfg))
    shares = [0.0 if ln is None else ln[2] for ln in lines]
    if any(ln is None or ln[2] < cfg.min_inlier_share for ln in lines):
        return OutlineFit(clicked, False, None, shares)
    crossings = [_crossing(lines[(i - 1) % 4], lines[i]) for i in range(4)]
    if any(c is None for c in crossings):
        return OutlineFit(clicked, False, None, shares)
    fitted = np.array(crossings)
    shift_mm = float(np.linalg.norm(fitted - clicked, axis=1).max()) / ppm
    searched_mm = float(np.linalg.norm(fitted - start, axis=1).max()) / ppm
    if shift_mm < cfg.keep_clicked_mm or searched_mm > cfg.search_mm:
        return OutlineFit(clicked, False, shift_mm, shares)
    return OutlineFit(fitted, True, shift_mm, shares)
