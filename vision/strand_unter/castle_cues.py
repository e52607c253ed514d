"""The value cues of one Strand unter castle, in board millimetres (work px at 1 px/mm).

Input: the corrected board (BGR), its grey image and foreground, one castle's player-coloured
pixels, the sand's and the player's mean colours.
Output: ``measure``'s cues: the coloured part's area and spread, the blob's area, the number of
tower shadows, and the radii of the platform and of the footprint with their standard errors.

- ``platform``: along ``radial_rays`` rays from the coloured part's centroid, where the colour's
  projection on the sand → player direction in (a, b) falls below half-way between the platform's
  level and the surround's (a half-maximum edge: the same for any contrast, so a lamp or a dimmer
  light does not move it); the median over the rays (a touching neighbour moves only a few);
- ``footprint``: the same on the filled foreground mask (the sand-coloured base);
- ``towers``: dark local minima of the grey image inside the coloured part (tower shadows; a blob
  detector in the spirit of Lindeberg 1998, at one scale);
- ``contrast_share`` (:func:`contrast_share`): how much of the player's colour the part shows against
  the empty board under it, in log chromaticity (a shadow, the same sand under less light, shows none).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.strand_unter import stats
from vision.strand_unter.config import CASTLES


def _mean_var(a: np.ndarray) -> tuple[float, float]:
    """``(a.mean(), a.var())`` of a non-empty 1-D integer array, the same float64 arithmetic (the mean
    taken once for both)."""
    n = a.shape[0]
    m = a.sum(dtype=np.float64) / n
    d = a - m
    return m, (d * d).sum() / n


def tower_spread(core: np.ndarray) -> float:
    """Spread of a castle's towers: sqrt(var x + var y) (px) of the bool (H, W) tower pixels."""
    ys, xs = np.nonzero(core)
    return float(np.sqrt(xs.var() + ys.var())) if len(xs) else 0.0


def tower_candidates(gray: np.ndarray, core: np.ndarray, cfg=CASTLES) -> tuple[np.ndarray, np.ndarray, float]:
    """The candidate tower shadows of one castle before any depth test.

    Args:
        gray: grey image crop around the castle, uint8 or float (H, W), after lighting correction.
        core: bool (H, W), the castle's player-coloured pixels in the same crop (not empty).
    Returns:
        (the crop after a Gaussian of ``cfg.tower_sigma_px``, float32 (H, W); bool (H, W), the pixels
        that are the minimum of their ``cfg.tower_window_px`` neighbourhood and lie on the castle
        grown by one pixel; the castle's median of the smoothed grey).
    """
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), cfg.tower_sigma_px)
    w = cfg.tower_window_px
    low = cv2.erode(g, np.ones((w, w), np.uint8))
    on = cv2.dilate(core.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    return g, (g <= low) & on, stats.median(g[core])


def count_towers(gray: np.ndarray, core: np.ndarray, cfg=CASTLES) -> int:
    """Number of towers of one castle: dark local minima (tower shadows) inside its coloured part.

    Args:
        gray: grey image crop around the castle, uint8 or float (H, W), after lighting correction.
        core: bool (H, W), the castle's player-coloured pixels in the same crop.
    Returns:
        count ≥ 0 of 8-connected groups of :func:`tower_candidates` darker than the castle's
        median by ``cfg.tower_depth``.
    """
    if not core.any():
        return 0
    g, candidates, median = tower_candidates(gray, core, cfg)
    peaks = candidates & (g < median - cfg.tower_depth)
    n, _ = cv2.connectedComponents(peaks.astype(np.uint8), connectivity=8)
    return int(n - 1)


_ANGLES: dict = {}


def _rays(n: int) -> tuple[np.ndarray, np.ndarray]:
    if n not in _ANGLES:
        a = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
        _ANGLES[n] = (np.cos(a).astype(np.float32), np.sin(a).astype(np.float32))
    return _ANGLES[n]


def polar(image: np.ndarray, cx: float, cy: float, r_max: float, cfg=CASTLES) -> tuple[np.ndarray, np.ndarray]:
    """Samples of a float32 (H, W) image along ``cfg.radial_rays`` rays from (cx, cy) (px).

    Returns:
        (radii (n_r,) px, every ``cfg.radial_step_px``, up to ``r_max``; samples float32
        (n_rays, n_r), bilinear, the border replicated).
    """
    rs, dx, dy = _ray_offsets(cfg.radial_rays, float(r_max), float(cfg.radial_step_px))
    mx = np.float32(cx) + dx                                  # (float32 already)
    my = np.float32(cy) + dy
    return rs, cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


_OFFSETS: dict = {}


def _ray_offsets(n_rays: int, r_max: float, step: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`polar`'s radii (n_r,) and the rays' x and y offsets (n_rays, n_r), float32; a function of
    the number of samples only (the radii are ``step`` apart from 0), built once per count (read-only)."""
    n = max(int(math.ceil(r_max / step)), 0)                # (the length np.arange(0, r_max, step) has)
    key = (n_rays, n, step)
    if key not in _OFFSETS:
        rs = np.arange(0.0, r_max, step, dtype=np.float32)
        c, s = _rays(n_rays)
        out = (rs, c[:, None] * rs[None, :], s[:, None] * rs[None, :])
        for a in out:
            a.flags.writeable = False
        _OFFSETS[key] = out
    return _OFFSETS[key]


def _crossings(rs: np.ndarray, P: np.ndarray, level, i0: int, step: float) -> np.ndarray:
    """Per row of ``P`` (n_rays, n_r), the radius where it first falls below ``level`` (scalar or
    (n_rays, 1)) from sample ``i0`` on, interpolated between the two samples around it."""
    Q = P[:, i0:]
    below = Q < level
    first = np.where(below.any(axis=1), np.argmax(below, axis=1), Q.shape[1] - 1)
    first = np.maximum(first, 1)
    rows = np.arange(len(Q))
    hi, lo = Q[rows, first - 1], Q[rows, first]
    lv = level if np.ndim(level) == 0 else np.asarray(level).reshape(-1)
    f = np.clip((hi - lv) / np.maximum(hi - lo, 1e-6), 0.0, 1.0)
    return rs[i0 + first - 1] + f * step


def _median_se(r: np.ndarray, cfg=CASTLES) -> tuple[float, float]:
    r = np.sort(r)
    n = len(r)
    med = 0.5 * (r[(n - 1) // 2] + r[n // 2])
    iqr = r[(3 * (n - 1)) // 4] - r[(n - 1) // 4]
    return float(med), float(1.253 * iqr / 1.349 / np.sqrt(cfg.radial_independent))


def edge_radius(rs: np.ndarray, samples: np.ndarray, level: float, r_start: float, cfg=CASTLES) -> tuple[float, float]:
    """Where ray samples first fall below ``level`` going outwards from ``r_start`` (px).

    Per ray the crossing is interpolated linearly between the two samples around it (a ray that
    never falls below it ends at the last radius). Returns (the median over the rays, its
    standard error: 1.253 × the rays' robust spread (IQR / 1.349) / √``cfg.radial_independent``,
    neighbouring rays being correlated), both px.
    """
    return _median_se(_crossings(rs, samples, level, int(np.searchsorted(rs, r_start)), cfg.radial_step_px), cfg)


def _median(a: np.ndarray) -> float:
    a = np.ravel(a)
    return float(np.partition(a, len(a) // 2)[len(a) // 2]) if len(a) else 0.0


def radial_sizes(image: np.ndarray, fg: np.ndarray, cx: float, cy: float, r_core: float, sand_lab, player_lab,
                 cfg=CASTLES) -> dict:
    """The platform's and the footprint's radius of one castle (see the module docstring).

    Args:
        image: corrected board BGR uint8 (H, W, 3); fg: bool (H, W) its foreground.
        cx, cy: the coloured part's centroid, px; r_core: sqrt(its area / π), px (sets where the
            platform's level and the surround's are taken: within ``cfg.radial_inner`` × r_core, beyond
            ``cfg.radial_outer`` × r_core; the edges are looked for from 0.5 × r_core outwards).
        sand_lab, player_lab: the sand's and the player's mean Lab (3,).
    Returns:
        ``{"platform_px", "platform_se_px", "footprint_px", "footprint_se_px"}``.
    """
    r_max = cfg.radial_outer * r_core + cfg.radial_ring_px
    h, w = fg.shape
    x0, y0 = max(0, int(cx - r_max - 2)), max(0, int(cy - r_max - 2))
    x1, y1 = min(w, int(cx + r_max + 3)), min(h, int(cy + r_max + 3))
    lab = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2Lab).astype(np.float32)
    two = cv2.transform(lab, _projection(sand_lab, player_lab))
    two[..., 1] = _filled(fg[y0:y1, x0:x1])
    rs, PF = polar(two, cx - x0, cy - y0, r_max, cfg)
    P = PF[..., 0]
    r0 = 0.5 * r_core
    inner = _median(P[:, (rs >= cfg.radial_inner[0] * r_core) & (rs <= cfg.radial_inner[1] * r_core)])
    outer = _median(P[:, rs >= cfg.radial_outer * r_core])
    i0 = int(np.searchsorted(rs, r0))
    n = len(P)
    levels = np.concatenate([np.full(n, 0.5 * (inner + outer), np.float32), np.full(n, 0.5, np.float32)])[:, None]
    # (P's rows then F's: the samples' channels made rows in one copy)
    r = _crossings(rs, PF.transpose(2, 0, 1).reshape(2 * n, PF.shape[1]), levels, i0, cfg.radial_step_px)
    rp, rp_se = _median_se(r[:n], cfg)
    rf, rf_se = _median_se(r[n:], cfg)
    return {"platform_px": rp, "platform_se_px": rp_se, "footprint_px": rf, "footprint_se_px": rf_se}


_PROJECTIONS: dict = {}


def _projection(sand_lab, player_lab) -> np.ndarray:
    """:func:`radial_sizes`' ``cv2.transform`` matrix float32 (2, 4): channel 0 the colour's projection
    on sand → player in (a, b), channel 1 zero (the filled foreground goes there); once per colour pair."""
    key = (tuple(float(v) for v in sand_lab), tuple(float(v) for v in player_lab))
    if key not in _PROJECTIONS:
        u = np.asarray(player_lab, np.float64)[1:] - np.asarray(sand_lab, np.float64)[1:]
        u = u / max(float(np.hypot(*u)), 1e-6)
        m = np.array([[0.0, u[0], u[1], -(u[0] * sand_lab[1] + u[1] * sand_lab[2])],
                      [0.0, 0.0, 0.0, 0.0]], np.float32)
        m.flags.writeable = False
        if len(_PROJECTIONS) > 256:                # (a long-running station meets few calibrations)
            _PROJECTIONS.clear()
        _PROJECTIONS[key] = m
    return _PROJECTIONS[key]


def _filled(mask: np.ndarray) -> np.ndarray:
    """A bool mask with its holes filled (outer contours drawn filled)."""
    m = mask.astype(np.uint8)
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(m)
    cv2.drawContours(out, contours, -1, 1, thickness=-1)
    return out > 0


def measure(image: np.ndarray, gray: np.ndarray, fg: np.ndarray, core: np.ndarray, origin: tuple[int, int],
            sand_lab, player_lab, blob_area_px2: float | None, cfg=CASTLES) -> dict:
    """The value cues of one castle (see the module docstring).

    Args:
        image, gray, fg: the whole corrected board (BGR uint8 (H, W, 3), grey (H, W)) and its
            foreground (bool (H, W)).
        core: bool (h, w) the castle's player-coloured pixels in a crop whose top-left corner is
            ``origin`` = (row, column) of the board.
        sand_lab, player_lab: mean Lab (3,) of the sand and of the castle's player.
        blob_area_px2: area of its foreground blob when it holds this castle alone, else None.
    Returns:
        ``{"core_px2", "spread_px", "area_px2" (or None), "towers", "x", "y" (the coloured part's
        centroid, board px), "platform_px", "platform_se_px", "footprint_px", "footprint_se_px"}``.
    """
    ys, xs = np.nonzero(core)
    oy, ox = origin
    (mx, vx), (my, vy) = _mean_var(xs), _mean_var(ys)
    cx, cy = float(mx) + ox, float(my) + oy
    area = float(len(xs))
    rows, cols = slice(oy, oy + core.shape[0]), slice(ox, ox + core.shape[1])
    spread = float(np.sqrt(vx + vy))                      # tower_spread(core), its pixels already found
    out = {"core_px2": area, "spread_px": spread, "area_px2": blob_area_px2,
           "towers": count_towers(gray[rows, cols], core, cfg), "x": cx, "y": cy}
    out.update(radial_sizes(image, fg, cx, cy, float(np.sqrt(area / np.pi)), sand_lab, player_lab, cfg))
    return out


def contrast_share(now_bgr: np.ndarray, empty_bgr: np.ndarray, player_bgr, sand_bgr) -> float:
    """The share of the player's colour contrast that a coloured part shows against the empty board.

    Light is a per-channel gain, so a shadow on the sand (the same sand under less light) changes
    every channel's log by the same amount, and a piece changes them by its colour against the
    sand. The part's change in log chromaticity (the per-channel log ratio of its mean colour now
    to the empty board's under the same pixels, less the mean over channels) projected on the
    player's (the log ratio of the player's learned colour to the sand's, less its mean): 0 for a
    shadow or anything grey against the sand, 1 for a part as colourful against the sand as the
    calibration's castles.

    Args:
        now_bgr, empty_bgr: the part's pixels (N, 3) BGR uint8 in the corrected scan and in the
            rectified empty board.
        player_bgr, sand_bgr: the player's and the sand's learned mean colours, BGR (3,).

    >>> round(contrast_share(np.array([[50, 100, 150]]), np.array([[100, 200, 250]]), [40, 200, 220], [100, 200, 250]), 2)
    0.08
    """
    def chroma(a, b) -> np.ndarray:
        r = np.log(np.asarray(a, np.float64) + 1.0) - np.log(np.asarray(b, np.float64) + 1.0)
        return r - r.mean()

    c = chroma(np.asarray(now_bgr, np.float64).reshape(-1, 3).mean(axis=0),
               np.asarray(empty_bgr, np.float64).reshape(-1, 3).mean(axis=0))
    m = chroma(player_bgr, sand_bgr)
    return float(c @ m / max(float(m @ m), 1e-9))
