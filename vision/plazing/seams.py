"""Plażing seams: the cut between two same-colour pieces that touch.

Idea: two pieces that touch leave a thin cut between them (their cut edges, a line of sand or
shadow), while inside one piece the colour runs on across the cell edge. For every edge shared by
two cells of the same player, :func:`seam_contrasts` measures the colour dip across the edge on
exact colour values (a ridge/valley detector that ignores steps, so a printed square or stripe
ending at the edge is no seam); :func:`seam_log_likelihoods` gives how likely that dip is on a cut and inside a piece
(:func:`vision.plazing.pieces.split_group` weighs the tilings of a group with them).
"""

from __future__ import annotations

from math import lgamma

import numpy as np

from vision.plazing.cells import Grid
from vision.plazing.config import SEAM, SeamConfig

Cell = tuple[int, int]


def _edge_list(owner: np.ndarray):
    """Edges between 4-neighbour cells of the same player: (vertical list, horizontal list) of
    ((r, c), (r2, c2)) with the second cell right of / below the first."""
    same_h = (owner[:, :-1] >= 0) & (owner[:, :-1] == owner[:, 1:])
    same_v = (owner[:-1, :] >= 0) & (owner[:-1, :] == owner[1:, :])
    vert = [((int(r), int(c)), (int(r), int(c) + 1)) for r, c in np.argwhere(same_h)]
    horiz = [((int(r), int(c)), (int(r) + 1, int(c))) for r, c in np.argwhere(same_v)]
    return vert, horiz


def _valley(profiles: np.ndarray, centre: int, search: int, lags) -> np.ndarray:
    """Ridge/valley response of colour profiles.

    Args:
        profiles: float32 (E, n, 3) colour across each edge, ``centre`` at the grid line.
        search: positions ±search around the centre examined.
        lags: detector half-widths in px.
    Returns:
        float64 (E,): max over positions and lags of min(|d1|, |d2|)·max(0, cos(d1, d2)), with
        d1, d2 the colour differences to the positions one lag before and after.
    """
    best = np.zeros(len(profiles))
    pos = np.arange(centre - search, centre + search + 1)
    for lag in lags:
        p = profiles[:, pos]
        d1 = p - profiles[:, pos - lag]
        d2 = p - profiles[:, pos + lag]
        n1 = np.linalg.norm(d1, axis=-1)
        n2 = np.linalg.norm(d2, axis=-1)
        cos = (d1 * d2).sum(-1) / np.maximum(n1 * n2, 1e-6)
        r = np.minimum(n1, n2) * np.maximum(cos, 0.0)
        best = np.maximum(best, r.max(axis=1))
    return best


def seam_contrasts(board_bgr: np.ndarray, owner: np.ndarray, grid: Grid, px_per_mm: float,
                   cfg: SeamConfig = SEAM) -> dict[tuple[Cell, Cell], float]:
    """Seam evidence on every edge shared by two cells of the same player.

    Args:
        board_bgr: rectified, illumination-normalised board, BGR uint8 (H, W, 3) at
            ``px_per_mm``; pixel (u, v) is at ((u + 0.5)/ppm, (v + 0.5)/ppm) mm.
        owner: int (rows, cols) covering player index or −1.
        grid: board grid.
        px_per_mm: resolution of ``board_bgr``.
    Returns:
        dict ((r, c), (r2, c2)) → colour dip across the edge in BGR levels (0: the colour runs
        on; ≳ 10: a cut). The second cell is right of or below the first.
    """
    lags = sorted({max(1, int(round(l * px_per_mm))) for l in cfg.lags_mm})
    search = max(1, int(round(cfg.search_mm * px_per_mm)))
    half = search + max(lags)
    along = max(1, int(round(0.5 * cfg.along_share * grid.cell_mm * px_per_mm)))
    vert, horiz = _edge_list(owner)
    out = {}
    img = board_bgr
    H, W = img.shape[:2]
    for edges, transpose in ((vert, False), (horiz, True)):
        if not edges:
            continue
        a = np.array([e[0] for e in edges], np.float64)
        if not transpose:  # vertical line between (r, c) and (r, c+1): profile runs along u
            line = (grid.origin_mm[0] + (a[:, 1] + 1) * grid.cell_mm) * px_per_mm - 0.5
            mid = (grid.origin_mm[1] + (a[:, 0] + 0.5) * grid.cell_mm) * px_per_mm - 0.5
        else:
            line = (grid.origin_mm[1] + (a[:, 0] + 1) * grid.cell_mm) * px_per_mm - 0.5
            mid = (grid.origin_mm[0] + (a[:, 1] + 0.5) * grid.cell_mm) * px_per_mm - 0.5
        across = np.round(line)[:, None].astype(np.int64) + np.arange(-half, half + 1)[None]
        lengthwise = np.round(mid)[:, None].astype(np.int64) + np.arange(-along, along + 1)[None]
        if not transpose:
            u = np.clip(across, 0, W - 1)[:, None, :]
            v = np.clip(lengthwise, 0, H - 1)[:, :, None]
        else:
            v = np.clip(across, 0, H - 1)[:, None, :]
            u = np.clip(lengthwise, 0, W - 1)[:, :, None]
        strips = img[v, u].astype(np.float32)  # (E, along, across, 3)
        profiles = strips.mean(axis=1)
        dips = _valley(profiles, half, search, lags)
        for e, d in zip(edges, dips):
            out[e] = float(d)
    return out


def seam_log_likelihoods(dip_bgr, joined_sd_bgr: float, cfg: SeamConfig = SEAM):
    """Log likelihoods of an edge's colour dip if the edge is a cut between two pieces, and if it
    lies inside one piece.

    Inside a piece the dip is noise (JPEG ripple, shading, a crease): a half Student t
    (``cfg.joined_t_dof``: now and then a crease or double JPEG dips deeper) with the scale measured
    on the calibration's labelled screens (``joined_sd_bgr``). A cut shows as a dip of any depth — except
    when the pieces are pressed together so that no line shows (``cfg.invisible_cut_share`` of
    cuts): then it looks like the inside of a piece. So a faint dip never proves "one piece" by more
    than 1 / ``invisible_cut_share``; the pieces' prints must decide the rest.

    Args:
        dip_bgr: float or array, the dip (:func:`seam_contrasts`).
    Returns:
        (log p(dip | cut), log p(dip | joined)), same shape as ``dip_bgr``.
    """
    d = np.asarray(dip_bgr, np.float64)

    def half_normal(sd):
        return np.log(2.0 / (sd * np.sqrt(2 * np.pi))) - d * d / (2 * sd * sd)

    nu, s = cfg.joined_t_dof, joined_sd_bgr
    norm = np.log(2.0) + lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * np.log(nu * np.pi) - np.log(s)
    joined = norm - (nu + 1) / 2 * np.log1p(d * d / (nu * s * s))
    e = cfg.invisible_cut_share
    cut = np.logaddexp(np.log(e) + joined, np.log(1 - e) + half_normal(cfg.cut_sd_bgr))
    return cut, joined


def joined_sd(dips, cfg: SeamConfig = SEAM) -> float:
    """The sd of the dip inside one piece, from dips on edges known to lie inside pieces (the
    calibration's labelled screens): robust (from the median of the squares), at least
    ``cfg.min_joined_sd_bgr``."""
    d = np.asarray(list(dips), np.float64)
    if not len(d):
        return cfg.default_joined_sd_bgr
    return float(max(np.sqrt(np.median(d * d) / 0.4549), cfg.min_joined_sd_bgr))  # 0.4549: median of χ²₁
