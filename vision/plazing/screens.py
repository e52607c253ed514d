"""Plażing screens: where a labelled calibration screen lies, and which way a screen faces.

Input: the grey grid crop, a screen's cells, the learned cross-profile. Output: its facing and the
posterior of it.

Idea: seen from above, a screen's cross-section (across its length) has a learned shape — in the
sample set a dark stripe along the outer long side, but the code knows nothing of it. From every
``screen/<player>/<dir>`` calibration sample the screen is cut out of the rectified grey board
(its cells only, so neighbours and the frame stay out), turned so that its labelled outer side is
at the top, and its grey averaged along its length into a profile across its width; the
profiles, each normalised to zero mean and unit norm, are averaged into the template. A screen
in a scan is turned both possible ways and the way whose profile correlates better with the
template (best over small shifts: pieces a few mm off the grid) gives the facing.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.plazing.cells import Grid
from vision.plazing.config import FACING, FacingConfig

#: Rotation that brings the side facing this direction to the top of the image.
_TO_TOP = {"N": None, "S": cv2.ROTATE_180, "E": cv2.ROTATE_90_COUNTERCLOCKWISE, "W": cv2.ROTATE_90_CLOCKWISE}


def _crop(board_L: np.ndarray, cells, grid: Grid, px_per_mm: float) -> np.ndarray:
    r0 = min(r for r, _ in cells)
    r1 = max(r for r, _ in cells) + 1
    c0 = min(c for _, c in cells)
    c1 = max(c for _, c in cells) + 1
    u0, v0 = (int(round((grid.origin_mm[0] + c0 * grid.cell_mm) * px_per_mm)),
              int(round((grid.origin_mm[1] + r0 * grid.cell_mm) * px_per_mm)))
    u1, v1 = (int(round((grid.origin_mm[0] + c1 * grid.cell_mm) * px_per_mm)),
              int(round((grid.origin_mm[1] + r1 * grid.cell_mm) * px_per_mm)))
    return board_L[max(v0, 0):v1, max(u0, 0):u1]


def profile(board_L: np.ndarray, cells, facing: str, grid: Grid, px_per_mm: float,
            cfg: FacingConfig = FACING) -> np.ndarray:
    """Normalised cross-profile of a screen turned so that ``facing`` is at the top.

    Args:
        board_L: rectified grey board, uint8 or float32 (H, W).
        cells: the screen's cells [(row, col), …].
        facing: ``N``, ``S``, ``E`` or ``W``.
        grid: board grid; px_per_mm: resolution of ``board_L``.
    Returns:
        float64 (cfg.profile_bins,), zero mean, unit norm (zeros when flat).
    """
    patch = _crop(board_L, cells, grid, px_per_mm)
    if _TO_TOP[facing] is not None:
        patch = cv2.rotate(patch, _TO_TOP[facing])
    if patch.size == 0:
        return np.zeros(cfg.profile_bins)
    rows = patch.mean(axis=1).astype(np.float32).reshape(-1, 1)
    prof = cv2.resize(rows, (1, cfg.profile_bins), interpolation=cv2.INTER_AREA).ravel().astype(np.float64)
    prof -= prof.mean()
    n = np.linalg.norm(prof)
    return prof / n if n > 1e-9 else prof


def learn_template(board_L: np.ndarray, labelled, grid: Grid, px_per_mm: float,
                   cfg: FacingConfig = FACING) -> np.ndarray:
    """Average normalised cross-profile of labelled screens.

    Args:
        labelled: list of (cells, facing).
    Returns:
        float64 (cfg.profile_bins,), normalised; zeros when no screen is labelled.
    """
    profs = [profile(board_L, cells, f, grid, px_per_mm, cfg) for cells, f in labelled]
    if not profs:
        return np.zeros(cfg.profile_bins)
    t = np.mean(profs, axis=0)
    t -= t.mean()
    n = np.linalg.norm(t)
    return t / n if n > 1e-9 else t


def _shift_tables(template: np.ndarray, max_shift: int):
    """For each shift k in −max_shift…max_shift: the overlap mask W (2m+1, n) over the profile's
    bins and the template moved by k (zeros outside the overlap), T (2m+1, n)."""
    n = len(template)
    ks = np.arange(-max_shift, max_shift + 1)
    idx = np.arange(n)[None, :] - ks[:, None]  # template bin matched to profile bin i at shift k
    W = ((idx >= 0) & (idx < n)).astype(np.float64)
    T = np.where(W > 0, template[np.clip(idx, 0, n - 1)], 0.0)
    return W, T


def _shifted_correlation(profs: np.ndarray, template: np.ndarray, max_shift: int) -> np.ndarray:
    """Best correlation of profiles with the template over shifts of ±max_shift bins (a screen a
    few mm off its cells), each overlap renormalised.

    Args:
        profs: float64 (K, n) normalised profiles; template: float64 (n,).
    Returns:
        float64 (K,) best correlation in [−1, 1] (−1 when undefined).
    """
    W, cnt, yc, yy = _template_side(template, max_shift)
    xm = (profs[:, None, :] * W).sum(-1) / cnt
    xc = (profs[:, None, :] - xm[..., None]) * W
    den = np.sqrt((xc ** 2).sum(-1) * yy[None])
    corr = np.where(den > 1e-9, (xc * yc[None]).sum(-1) / np.maximum(den, 1e-12), -1.0)
    return corr.max(axis=1)


_TEMPLATES: dict = {}  #: (template, max_shift) → its side of :func:`_shifted_correlation` (one per calibration)


def _template_side(template: np.ndarray, max_shift: int):
    """What :func:`_shifted_correlation` needs of the template alone, per shift: the overlap mask
    W, its bin count, the template centred on the overlap and its squared norm (made once per
    template)."""
    key = (template.tobytes(), int(max_shift))
    got = _TEMPLATES.get(key)
    if got is None:
        W, T = _shift_tables(template, max_shift)
        cnt = W.sum(axis=1)
        ym = (T * W).sum(-1) / cnt
        yc = (T - ym[:, None]) * W
        got = (W, cnt, yc, (yc ** 2).sum(-1))
        for a in got:
            a.flags.writeable = False
        if len(_TEMPLATES) >= 8:
            _TEMPLATES.pop(next(iter(_TEMPLATES)))
        _TEMPLATES[key] = got
    return got


def facing_of(board_L: np.ndarray, cells, template: np.ndarray, grid: Grid, px_per_mm: float,
              cfg: FacingConfig = FACING) -> tuple[str, float]:
    """Facing of one screen.

    Args:
        board_L: rectified grey board (uint8 or float32, (H, W)).
        cells: the screen's cells [(row, col), …].
        template: learned cross-profile (:func:`learn_template`), float64 (bins,).
        grid: board grid; px_per_mm: resolution of ``board_L``.
    Returns:
        (facing, probability): the direction whose turned profile correlates best with the
        template (best over small shifts); probability logistic in the difference of the two
        correlations (0.5 when no screen was labelled at calibration).
    """
    a, b = long_axis_facings(cells)
    pa = profile(board_L, cells, a, grid, px_per_mm, cfg)
    profs = np.stack([pa, pa[::-1]])  # turning the screen half round reverses its cross-profile
    ca, cb = _shifted_correlation(profs, np.asarray(template, np.float64), cfg.max_shift_bins)
    p = 1.0 / (1.0 + np.exp(-cfg.posterior_slope * abs(ca - cb)))
    return (a if ca >= cb else b), float(p)


def long_axis_facings(cells) -> tuple[str, str]:
    """The two facings a screen lying on ``cells`` can have: (N, S) when it lies along a row,
    (E, W) when it lies along a column.

    >>> long_axis_facings([(3, 4), (3, 5), (3, 6)])
    ('N', 'S')
    """
    rows = {r for r, _ in cells}
    cols = {c for _, c in cells}
    return ("N", "S") if len(cols) >= len(rows) else ("E", "W")


def screen_cells(centre: tuple[int, int], facing: str, shape) -> list[tuple[int, int]]:
    """Cells of a labelled calibration screen.

    Args:
        centre: (row, col) of the cell holding the sample point (the screen's centre).
        facing: ``N``, ``S``, ``E`` or ``W`` (the label's direction).
        shape: the catalogue's screen cells [(row, col), …] in any orientation.
    Returns:
        The shape laid across ``facing`` (along a row for N/S, along a column for E/W) and
        centred on ``centre``: list of (row, col).

    >>> screen_cells((5, 5), "E", [(0, 0), (0, 1), (0, 2)])
    [(4, 5), (5, 5), (6, 5)]
    """
    cells = list(shape)
    h = max(r for r, _ in cells) + 1
    w = max(c for _, c in cells) + 1
    if (facing in "NS") != (w >= h):
        cells = [(c, r) for r, c in cells]
        h, w = w, h
    return [(centre[0] + r - (h - 1) // 2, centre[1] + c - (w - 1) // 2) for r, c in cells]
