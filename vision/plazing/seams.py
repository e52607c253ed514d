"""Plażing seams: the cut between two same-colour pieces that touch.

Input: the normalised grid crop, the colour masks, who covers each cell. Output: per edge between
two cells of one player, the colour dip across it and the outline's jog along it, and their
likelihoods under "cut" and "one piece".

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


def _boundary_mm(frac: np.ndarray, start_mm: float, px_per_mm: float) -> float | None:
    """Where a profile of the player's share (1 inside the piece, 0 outside, from the outside
    in) first crosses one half, in mm from ``start_mm``; None when it never does."""
    idx = np.flatnonzero(frac >= 0.5)
    if not len(idx) or idx[0] == 0:
        return None
    i = int(idx[0])
    a, b = float(frac[i - 1]), float(frac[i])
    t = (0.5 - a) / max(b - a, 1e-6)
    return start_mm + (i - 1 + t + 0.5) / px_per_mm


def edge_jogs(mask: np.ndarray, owner: np.ndarray, grid: Grid, px_per_mm: float,
              cfg: SeamConfig = SEAM) -> dict[tuple[Cell, Cell], float]:
    """How far the outline jogs where two cells of one player meet: one piece has straight sides
    (turned a little, maybe), two pieces pressed together hardly ever line up exactly.

    For two cells side by side, the top (and bottom) edge of the player's colour is located in each
    cell at two places along the half next to the joint (sub-pixel, from the colour mask) where no
    cell of the same player lies beyond it, and both cells' lines carried to the grid line
    between them: a turned piece's two lines meet there, two pieces' lines stand apart by the
    step between them. For two cells one above the other, the same with the left and right edges.
    The jog is the smaller of the two sides' steps, and only where both can be seen (two pieces
    offset show it on both; a token against one side of a piece, or a neighbour's edge, on one).

    Args:
        mask: the owning players' colour masks, uint8 (H, W, P), 255 = that player's colour
            (:func:`vision.plazing.cells.player_masks`), at ``px_per_mm`` (pixel u at (u + 0.5)/ppm).
        owner: int (rows, cols) covering player index or −1.
    Returns:
        dict edge ((r, c), (r2, c2)) → jog in mm, for the edges where an outline side could be
        compared (second cell right of or below the first).
    """
    rows, cols = owner.shape
    reach = cfg.jog_reach_mm
    H, W = mask.shape[:2]
    vert, horiz = _edge_list(owner)
    out = {}
    half_band = 0.1 * grid.cell_mm

    def line(cell, which, joint):
        """(slope, intercept) of one outline side of a cell's piece near the joint, position (mm,
        across) as a function of the position along it (mm), or None."""
        r, c = cell
        p = owner[r, c]
        x0 = grid.origin_mm[0] + c * grid.cell_mm
        y0 = grid.origin_mm[1] + r * grid.cell_mm
        start = x0 if which in ("top", "bottom") else y0
        near_end = abs(start + grid.cell_mm - joint) < abs(start - joint)
        spots = (0.55, 0.8) if near_end else (0.2, 0.45)  # the half of the side next to the joint
        along, across = [], []
        for f in spots:
            if which in ("top", "bottom"):
                t = x0 + f * grid.cell_mm
                u0, u1 = int(round((t - half_band) * px_per_mm)), int(round((t + half_band) * px_per_mm))
                edge = y0 if which == "top" else y0 + grid.cell_mm
                lo, hi = int(round((edge - reach) * px_per_mm)), int(round((edge + reach) * px_per_mm))
                lo, hi, u0, u1 = max(lo, 0), min(hi, H), max(u0, 0), min(u1, W)
                if hi - lo < 3 or u1 <= u0:
                    continue
                prof = mask[lo:hi, u0:u1, p].mean(axis=1) / 255.0
            else:
                t = y0 + f * grid.cell_mm
                v0, v1 = int(round((t - half_band) * px_per_mm)), int(round((t + half_band) * px_per_mm))
                edge = x0 if which == "left" else x0 + grid.cell_mm
                lo, hi = int(round((edge - reach) * px_per_mm)), int(round((edge + reach) * px_per_mm))
                lo, hi, v0, v1 = max(lo, 0), min(hi, W), max(v0, 0), min(v1, H)
                if hi - lo < 3 or v1 <= v0:
                    continue
                prof = mask[v0:v1, lo:hi, p].mean(axis=0) / 255.0
            if which in ("top", "left"):
                at = _boundary_mm(prof, lo / px_per_mm, px_per_mm)
            else:
                back = _boundary_mm(prof[::-1], 0.0, px_per_mm)  # from the outside (far end) inwards
                at = None if back is None else hi / px_per_mm - back
            if at is not None:
                along.append(t)
                across.append(at)
        if len(along) < 2:
            return None
        return tuple(np.polyfit(along, across, 1))

    def beyond_free(cell, dr, dc):
        r, c = cell[0] + dr, cell[1] + dc
        return not (0 <= r < rows and 0 <= c < cols) or owner[r, c] != owner[cell]

    for edges, sides in ((vert, (("top", -1, 0), ("bottom", 1, 0))), (horiz, (("left", 0, -1), ("right", 0, 1)))):
        for a, b in edges:
            joint = (grid.origin_mm[0] + (a[1] + 1) * grid.cell_mm) if edges is vert else \
                (grid.origin_mm[1] + (a[0] + 1) * grid.cell_mm)
            jogs = []
            for which, dr, dc in sides:
                if beyond_free(a, dr, dc) and beyond_free(b, dr, dc):
                    la, lb = line(a, which, joint), line(b, which, joint)
                    if la is not None and lb is not None:
                        jogs.append(abs((la[0] * joint + la[1]) - (lb[0] * joint + lb[1])))
            if len(jogs) == 2:  # a step between two pieces shows on both sides; a token against one side, on one
                out[(a, b)] = float(min(jogs))
    return out


def jog_log_likelihoods(jog_mm, joined_sd_mm: float, cfg: SeamConfig = SEAM):
    """Log likelihoods of an outline's jog (:func:`edge_jogs`) if the edge is a cut between two
    pieces, and if it lies inside one piece.

    Inside a piece the jog is the noise of locating an edge (a half Student t, ``joined_sd_mm``,
    measured on the calibration's labelled screens); two pieces pressed together line up within that noise
    in ``cfg.aligned_cut_share`` of cases, else lie up to a millimetre or two apart (half-normal,
    ``cfg.placed_sd_mm``).

    Returns:
        (log p(jog | cut), log p(jog | joined)).
    """
    d = np.asarray(jog_mm, np.float64)

    def half_normal(sd):
        return np.log(2.0 / (sd * np.sqrt(2 * np.pi))) - d * d / (2 * sd * sd)

    nu, s = cfg.joined_t_dof, joined_sd_mm  # heavy-tailed like the dip: a speck on an edge now and then
    joined = np.log(2.0) + lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * np.log(nu * np.pi) - np.log(s) \
        - (nu + 1) / 2 * np.log1p(d * d / (nu * s * s))
    e = cfg.aligned_cut_share
    return np.logaddexp(np.log(e) + joined, np.log(1 - e) + half_normal(cfg.placed_sd_mm)), joined
