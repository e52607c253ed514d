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

import cv2
import numpy as np

from vision.plazing.cells import Grid
from vision.plazing.seam_config import SEAM, SeamConfig

Cell = tuple[int, int]


def _edge_list(owner: np.ndarray):
    """Edges between 4-neighbour cells of the same player: (vertical list, horizontal list) of
    ((r, c), (r2, c2)) with the second cell right of / below the first."""
    same_h = (owner[:, :-1] >= 0) & (owner[:, :-1] == owner[:, 1:])
    same_v = (owner[:-1, :] >= 0) & (owner[:-1, :] == owner[1:, :])
    vert = [((int(r), int(c)), (int(r), int(c) + 1)) for r, c in np.argwhere(same_h)]
    horiz = [((int(r), int(c)), (int(r) + 1, int(c))) for r, c in np.argwhere(same_v)]
    return vert, horiz


def has_seams(owner: np.ndarray) -> bool:
    """Whether any two 4-neighbour cells are covered by the same player (an edge :func:`seam_contrasts`
    measures)."""
    same_h = (owner[:, :-1] >= 0) & (owner[:, :-1] == owner[:, 1:])
    same_v = (owner[:-1, :] >= 0) & (owner[:-1, :] == owner[1:, :])
    return bool(same_h.any() or same_v.any())


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


def finest_dips(board_bgr: np.ndarray, owner: np.ndarray, grid: Grid, px_per_mm: float, fine=None,
                cfg: SeamConfig = SEAM) -> dict[tuple[Cell, Cell], float]:
    """The dip across every edge (:func:`seam_contrasts`) on the reading's board and, when ``fine``
    is given, on the full-size photo (``fine`` = (a :class:`~vision.plazing.rectify.FineView` or an
    image in the same millimetres, its px per mm)): the larger of the two. The reduced board sees a
    cut's wide shadow or gap, the full-size photo the hairline of two pieces pressed together that
    the reduced decode averaged away; inside a piece both are noise (the calibration measures the
    same larger dip on its labelled screens).
    """
    dips = seam_contrasts(board_bgr, owner, grid, px_per_mm, cfg)
    if fine is None or not dips:
        return dips
    finer = seam_contrasts(fine[0], owner, grid, fine[1], cfg)
    return {e: max(d, finer.get(e, d)) for e, d in dips.items()}


def seam_log_likelihoods(dip_bgr, joined_sd_bgr: float, cfg: SeamConfig = SEAM):
    """Log likelihoods of an edge's colour dip if the edge is a cut between two pieces, and if it
    lies inside one piece.

    Inside a piece the dip is noise (JPEG ripple, shading, a crease): a half Student t
    (``cfg.joined_t_dof``: now and then a crease or double JPEG dips deeper) with the scale measured
    on the calibration's labelled screens (``joined_sd_bgr``; the split widens it by
    ``cfg.joined_spread`` for a scene's pieces). A cut shows as a dip of any depth (half-normal,
    ``cfg.cut_sd_bgr``: a hairline, a gap's sand, a shadow, up to the contrast of piece and sand) — except
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


def _boundaries(prof: np.ndarray) -> np.ndarray:
    """Where each profile of a player's share (rows; 1 inside the piece, 0 outside, from the
    outside in) first crosses one half, in px from its start (sub-pixel, pixel centres at i + 0.5);
    NaN where it never does or starts inside."""
    inside = prof >= 0.5
    i = inside.argmax(axis=1)
    ok = inside.any(axis=1) & (i > 0)
    i = np.maximum(i, 1)
    rows = np.arange(len(prof))
    lo, hi = prof[rows, i - 1], prof[rows, i]
    t = (0.5 - lo) / np.maximum(hi - lo, 1e-6)
    return np.where(ok, i - 1 + t + 0.5, np.nan)


#: The outline sides of a cell: name, (dr, dc) to the cell beyond it, whether it runs along x.
SIDES = {"top": (-1, 0, True), "bottom": (1, 0, True), "left": (0, -1, False), "right": (0, 1, False)}


def edge_jogs(mask: np.ndarray, owner: np.ndarray, grid: Grid, px_per_mm: float,
              cfg: SeamConfig = SEAM) -> dict[tuple[Cell, Cell], float]:
    """How far the outline jogs where two cells of one player meet: one piece has straight sides
    (turned a little, maybe), two pieces pressed together hardly ever line up exactly.

    For two cells side by side, the top (and bottom) edge of the player's colour is located in each
    cell at two places along the half next to the joint (sub-pixel, from the colour mask) where no
    cell of the same player lies beyond it, and both cells' lines carried to the grid line between
    them: a turned piece's two lines meet there, two pieces' lines stand apart by the step between
    them. For two cells one above the other, the same with the left and right edges. The jog is the
    smaller of the two sides' steps (the second cell's line less the first's) when both step the
    same way, else 0, and only where both sides can be seen: a piece slid against another moves both
    of its sides the same way, while the noise of locating an edge, or a token or a neighbour's edge
    against one side, moves the sides each its own way.

    Args:
        mask: the owning players' colour masks, uint8 (H, W, P), 255 = that player's colour
            (:func:`vision.plazing.cells.player_masks`), at ``px_per_mm`` (pixel u at (u + 0.5)/ppm).
        owner: int (rows, cols) covering player index or −1.
    Returns:
        dict edge ((r, c), (r2, c2)) → jog in mm (≥ 0), for the edges where both outline sides could be
        compared (second cell right of or below the first).
    """
    rows, cols = owner.shape
    H, W = mask.shape[:2]
    vert, horiz = _edge_list(owner)
    L = int(round(2 * cfg.jog_reach_mm * px_per_mm))  # profile length across the side
    B = max(1, int(round(0.2 * grid.cell_mm * px_per_mm)))  # band along the side, averaged
    cm, (ox, oy) = grid.cell_mm, grid.origin_mm

    def beyond_free(cell, side):
        dr, dc, _ = SIDES[side]
        r, c = cell[0] + dr, cell[1] + dc
        return not (0 <= r < rows and 0 <= c < cols) or owner[r, c] != owner[cell]

    # every (edge, side, cell, spot) whose position is needed: the spots are the half next to the joint
    jobs = []
    for edges, sides in ((vert, ("top", "bottom")), (horiz, ("left", "right"))):
        for a, b in edges:
            for side in sides:
                if beyond_free(a, side) and beyond_free(b, side):
                    for cell, near_end in ((a, True), (b, False)):
                        for f in ((0.55, 0.8) if near_end else (0.2, 0.45)):
                            jobs.append(((a, b), side, cell, f))
    if not jobs:
        return {}
    n = len(jobs)
    r = np.array([j[2][0] for j in jobs])
    c = np.array([j[2][1] for j in jobs])
    f = np.array([j[3] for j in jobs])
    p = owner[r, c]
    horizontal = np.array([SIDES[j[1]][2] for j in jobs])  # a top/bottom side runs along x
    far = np.array([j[1] in ("bottom", "right") for j in jobs])
    x0, y0 = ox + c * cm, oy + r * cm
    along = np.where(horizontal, x0, y0) + f * cm  # mm along the side
    edge = np.where(horizontal, y0, x0) + np.where(far, cm, 0.0)  # mm across: the grid line of the side
    lo = np.round((edge - cfg.jog_reach_mm) * px_per_mm).astype(int)
    mid = np.round(along * px_per_mm).astype(int)
    k = np.arange(L)[None, :, None]
    t = (mid[:, None] + np.arange(B)[None] - B // 2)[:, None, :]
    across_px = lo[:, None, None] + k
    uu = np.where(horizontal[:, None, None], t, across_px)
    vv = np.where(horizontal[:, None, None], across_px, t)
    prof = mask[np.clip(vv, 0, H - 1), np.clip(uu, 0, W - 1), p[:, None, None]].mean(axis=2) / 255.0  # (n, L)
    prof = np.where(far[:, None], prof[:, ::-1], prof)  # from the outside in
    at = _boundaries(prof) / px_per_mm
    pos = np.where(far, (lo + L) / px_per_mm - at, lo / px_per_mm + at)  # mm across, of each spot
    # per (edge, side, cell): the line through its two spots, carried to the joint
    out, step = {}, {}
    for i in range(0, n, 2):
        (a, b), side, cell, _ = jobs[i]
        joint = ox + (a[1] + 1) * cm if SIDES[side][2] else oy + (a[0] + 1) * cm
        x1, x2, y1, y2 = along[i], along[i + 1], pos[i], pos[i + 1]
        value = y1 + (y2 - y1) * (joint - x1) / (x2 - x1)
        step.setdefault(((a, b), side), []).append(value)
    for ((a, b), side), vals in step.items():
        if len(vals) == 2 and np.isfinite(vals).all():
            out.setdefault((a, b), []).append(vals[0] - vals[1])
    return {e: float(min(abs(v[0]), abs(v[1]))) if v[0] * v[1] > 0 else 0.0 for e, v in out.items() if len(v) == 2}


def jog_log_likelihoods(jog_mm, joined_sd_mm: float, cfg: SeamConfig = SEAM):
    """Log likelihoods of an outline's jog (:func:`edge_jogs`) if the edge is a cut between two
    pieces, and if it lies inside one piece.

    Inside a piece the jog is the noise of locating an edge (a half Student t with ``cfg.jog_t_dof``
    degrees of freedom and scale ``joined_sd_mm``, measured on the calibration's labelled screens,
    which the split widens by ``cfg.jog_spread`` for a scene's pieces); two pieces pressed together
    line up within that noise in ``cfg.aligned_cut_share`` of cases, else lie up to a few
    millimetres apart (half-normal, ``cfg.placed_sd_mm``).

    Returns:
        (log p(jog | cut), log p(jog | joined)).
    """
    d = np.asarray(jog_mm, np.float64)

    def half_normal(sd):
        return np.log(2.0 / (sd * np.sqrt(2 * np.pi))) - d * d / (2 * sd * sd)

    nu, s = cfg.jog_t_dof, joined_sd_mm  # heavy-tailed: a speck on an edge now and then
    joined = np.log(2.0) + lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * np.log(nu * np.pi) - np.log(s) \
        - (nu + 1) / 2 * np.log1p(d * d / (nu * s * s))
    e = cfg.aligned_cut_share
    return np.logaddexp(np.log(e) + joined, np.log(1 - e) + half_normal(cfg.placed_sd_mm)), joined


def _window_medians(wins: np.ndarray) -> np.ndarray:
    """Per window and channel, the median of uint8 values (as ``np.median``), from one histogram of
    all of them: wins uint8 (N, m, 3) → float32 (N, 1, 3)."""
    N, m, _ = wins.shape
    keys = (np.arange(N * 3).reshape(N, 1, 3) * 256 + wins).ravel()
    hist = np.bincount(keys, minlength=N * 3 * 256).reshape(N * 3, 256)
    cum = np.cumsum(hist, axis=1)
    lo = (cum <= (m - 1) // 2).sum(axis=1)  # the value at sorted index (m − 1) // 2 …
    hi = (cum <= m // 2).sum(axis=1)        # … and at m // 2 (the same one when m is odd)
    return ((lo + hi) / 2.0).astype(np.float32).reshape(N, 1, 3)


def _otsu(values: np.ndarray) -> np.ndarray:
    """Otsu's threshold of each row of uint8 values (N, m) as ``cv2.threshold`` with
    ``THRESH_OTSU`` finds it (the first level of largest between-class variance; a value above it
    is in the upper class): float64 (N,)."""
    N, m = values.shape
    hist = np.bincount((np.arange(N)[:, None] * 256 + values).ravel(), minlength=N * 256).reshape(N, 256) / m
    levels = np.arange(256, dtype=np.float64)
    q1 = np.cumsum(hist, axis=1)
    mu_t = (hist * levels).sum(axis=1, keepdims=True)
    m1 = np.cumsum(hist * levels, axis=1)
    q2 = 1.0 - q1
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.where((q1 > 1e-12) & (q2 > 1e-12), (mu_t * q1 - m1) ** 2 / (q1 * q2), 0.0)
    return var.argmax(axis=1).astype(np.float64)


def _print_spots(dist: np.ndarray, corners: list, ppm: float) -> list:
    """The print inside each cell's central window: the centroid (mm, crop frame) and area (px) of
    the patch that stands out of the piece's colour and lies wholly inside the window, or None (no
    such patch, or two of a size: a token beside the print).

    Args:
        dist: float32 (N, n, n), each pixel's colour distance from the piece's (the window's median
            colour: the piece covers most of it), BGR levels; corners: the windows' (u0, v0), px.
    Returns:
        per window ((x, y) mm, area px) or None.

    The patch is where the distance exceeds Otsu's split of the window's distances (a pale print on
    a pale piece stands out too, where the colour labels merge them); its centroid is weighted by
    how far each pixel stands out beyond that split (sub-pixel). Specks (a patch under
    ``SEAM.print_speck_share`` of the largest) are no second patch. The windows are laid side by
    side, one pixel apart, and labelled in one pass.
    """
    N, n, _ = dist.shape
    d8 = np.clip(dist, 0, 255).astype(np.uint8)
    t = _otsu(d8.reshape(N, -1))
    binary = d8 > t[:, None, None]
    mosaic = np.zeros((n, N, n + 1), np.uint8)  # window k in columns k(n+1) … k(n+1)+n−1, a blank column after
    mosaic[:, :, :n] = binary.transpose(1, 0, 2)
    excess = np.zeros((n, N, n + 1), np.float32)
    excess[:, :, :n] = (dist - t[:, None, None].astype(np.float32)).transpose(1, 0, 2)
    mosaic = mosaic.reshape(n, -1)
    count, lab, stats, _ = cv2.connectedComponentsWithStats(mosaic, connectivity=8)
    left = stats[:, 0] % (n + 1)
    inside = (left > 0) & (stats[:, 1] > 0) & (left + stats[:, 2] < n) & (stats[:, 1] + stats[:, 3] < n)
    inside[0] = False
    flat = lab.ravel()
    w = np.where(flat > 0, excess.ravel(), 0.0).astype(np.float64)
    xs = np.tile(np.arange(N * (n + 1)) % (n + 1), n).astype(np.float64)
    ys = np.repeat(np.arange(n), N * (n + 1)).astype(np.float64)
    m00 = np.bincount(flat, weights=w, minlength=count)
    m10 = np.bincount(flat, weights=w * xs, minlength=count)
    m01 = np.bincount(flat, weights=w * ys, minlength=count)
    # per window its largest inner patch, and the next largest (a second patch of a size: no print)
    comp = np.flatnonzero(inside)
    win = stats[comp, 0] // (n + 1)
    order = comp[np.lexsort((-stats[comp, 4], win))]
    win = stats[order, 0] // (n + 1)
    first = np.ones(len(order), bool)
    first[1:] = win[1:] != win[:-1]
    out = [None] * N
    for j in np.flatnonzero(first):
        i, k = order[j], win[j]
        if j + 1 < len(order) and win[j + 1] == k and stats[order[j + 1], 4] > SEAM.print_speck_share * stats[i, 4]:
            continue
        if m00[i] <= 0:
            continue
        u0, v0 = corners[k]
        out[k] = ((u0 + m10[i] / m00[i] + 0.5) / ppm, (v0 + m01[i] / m00[i] + 0.5) / ppm), int(stats[i, 4])
    return out


def print_offsets(board_bgr: np.ndarray, owner: np.ndarray, grid: Grid, px_per_mm: float, cfg: SeamConfig = SEAM,
                  cells=None) -> dict[tuple[Cell, Cell], tuple[float, float]]:
    """How far the print of one cell lies from where its neighbour's print puts it: a piece's print
    is rigid, so the cells of one piece whose cells look alike (a gear's dot per cell) repeat it at
    exactly one cell's pitch, while two pieces laid side by side are placed each on its own.

    For every edge between two cells of one player, each cell's print is the one patch standing out
    of the piece's colour wholly inside a centred window (``cfg.print_window_share`` of the cell
    side, :func:`_print_spots`); the offset is (second centroid − first centroid) − one cell,
    split into its part along the line through the two cells and across it. Only where both cells
    show one patch whose area lies within a factor ``cfg.print_area_ratio`` of the median patch of
    the scene's cells (a print half hidden, or noise split off a plain cell, is no print).

    Args:
        board_bgr: the illumination-normalised grid crop, BGR uint8 (H, W, 3), pixel u at
            (u + 0.5)/ppm mm.
        owner: int (rows, cols) covering player index or −1.
        grid: the grid in the crop's millimetres; px_per_mm: resolution of ``board_bgr``.
        cells: when given, only the edges between two of these cells are measured.
    Returns:
        dict edge ((r, c), (r2, c2)) → (along, across) in mm (second cell right of or below the
        first), for the edges where both prints were found.
    """
    vert, horiz = _edge_list(owner)
    if cells is not None:
        vert = [e for e in vert if e[0] in cells and e[1] in cells]
        horiz = [e for e in horiz if e[0] in cells and e[1] in cells]
    if not vert and not horiz:
        return {}
    n = max(3, int(round(cfg.print_window_share * grid.cell_mm * px_per_mm)))
    H, W = board_bgr.shape[:2]
    corners = {}
    for r, c in sorted({c for e in vert + horiz for c in e}):
        cx = (grid.origin_mm[0] + (c + 0.5) * grid.cell_mm) * px_per_mm
        cy = (grid.origin_mm[1] + (r + 0.5) * grid.cell_mm) * px_per_mm
        u0, v0 = int(round(cx - n / 2)), int(round(cy - n / 2))
        if u0 >= 0 and v0 >= 0 and u0 + n <= W and v0 + n <= H:
            corners[(r, c)] = (u0, v0)
    spots: dict = dict.fromkeys(c for e in vert + horiz for c in e)
    if corners:  # every window's distances from its median colour at once
        wins = np.stack([board_bgr[v0:v0 + n, u0:u0 + n] for u0, v0 in corners.values()]).reshape(len(corners), -1, 3)
        dist = np.sqrt(((wins.astype(np.float32) - _window_medians(wins)) ** 2).sum(axis=2)).reshape(-1, n, n)
        for cell, found in zip(corners, _print_spots(dist, list(corners.values()), px_per_mm)):
            spots[cell] = found

    areas = [x[1] for x in spots.values() if x is not None]
    if not areas:
        return {}
    typical = float(np.median(areas))  # most cells show their print whole; a pale print on a pale piece, in part
    out = {}
    for edges, axis in ((vert, 0), (horiz, 1)):
        for a, b in edges:
            sa, sb = spots[a], spots[b]
            r = cfg.print_area_ratio
            if sa is None or sb is None or any(not typical / r <= x[1] <= r * typical for x in (sa, sb)):
                continue
            d = (sb[0][0] - sa[0][0], sb[0][1] - sa[0][1])
            along = d[axis] - grid.cell_mm
            out[(a, b)] = (float(along), float(d[1 - axis]))
    return out


def print_pitch(alongs, cfg: SeamConfig = SEAM) -> float | None:
    """The scene's print pitch: the along offset (mm) most of its measured edges agree on.

    Each edge's along offset gathers the edges within ``cfg.print_agree_scales`` ×
    ``cfg.print_joined_sd_mm`` of it; the largest such cluster, when it holds at least
    ``cfg.print_min_pitch_edges`` edges and half of them all (pieces' edges agree, cuts scatter),
    gives the pitch as its median. None otherwise: too few edges, no majority, or another cluster as
    large (two pieces' cut edges agree too: two two-square gears side by side give two joined and
    two cut edges, and which of them is the pitch the photo does not say).
    """
    a = np.asarray(list(alongs), np.float64)
    if len(a) < cfg.print_min_pitch_edges:
        return None
    w = cfg.print_agree_scales * cfg.print_joined_sd_mm
    near = np.abs(a[:, None] - a[None, :]) <= w
    count = near.sum(axis=1)
    best = int(np.argmax(count))
    if count[best] < max(cfg.print_min_pitch_edges, 0.5 * len(a)):
        return None
    if np.any((count == count[best]) & ~near[best]):  # a rival cluster as large
        return None
    return float(np.median(a[near[best]]))


def print_residuals(offsets: dict, cfg: SeamConfig = SEAM) -> dict[tuple[Cell, Cell], tuple[float | None, float]]:
    """Per edge, its print offset (:func:`print_offsets`) less what one piece would show.

    Across the line through the two cells a piece whose cells look alike shows 0 (its cells' prints
    are alike). Along it the pieces' own print layout sets the pitch (a piece's prints need not sit
    at the cell centres: the cut edges are trimmed, the joined ones not): the scene's own
    (:func:`print_pitch`); without one the along part is not judged (None).

    Returns:
        edge → (along − the scene's pitch, or None; across), mm.
    """
    if not offsets:
        return {}
    pitch = print_pitch([al for al, _ in offsets.values()], cfg)
    return {e: (None if pitch is None else float(al) - pitch, float(ac)) for e, (al, ac) in offsets.items()}


def print_log_ratios(offsets: dict, cfg: SeamConfig = SEAM) -> dict[tuple[Cell, Cell], float]:
    """Per edge, the log likelihood ratio of its print offset (:func:`print_offsets`, judged by
    :func:`print_residuals`) if the two cells lie in one piece whose cells look alike against two
    pieces side by side.

    One piece: the residual is the noise of locating a print (a Student t, scale
    ``cfg.print_joined_sd_mm``, ``cfg.print_joined_dof`` degrees of freedom; bivariate, or on the
    across part alone when the along part is not judged), except in ``cfg.print_outlier_share`` of
    edges where a speck or a token moved a centroid (then it is spread like a cut's). Two pieces:
    Gaussian with ``cfg.print_cut_sd_mm`` (along, across), pieces put down by hand. The ratio is at
    least about log(outlier share): a print measured wrong never proves a cut by more.

    Args:
        offsets: edge → (along, across) mm, the scene's (all of them: the pitch is the scene's).
    Returns:
        edge → log p(offset | one piece) − log p(offset | two pieces), natural log.
    """
    res = print_residuals(offsets, cfg)
    sa, sc = cfg.print_cut_sd_mm
    s, nu, o = cfg.print_joined_sd_mm, cfg.print_joined_dof, cfg.print_outlier_share
    out = {}
    for e, (al, ac) in res.items():
        if al is None:  # across only: univariate
            cut = -0.5 * (ac / sc) ** 2 - 0.5 * np.log(2 * np.pi * sc * sc)
            core = lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * np.log(nu * np.pi * s * s) \
                - (nu + 1) / 2 * np.log1p(ac * ac / (nu * s * s))
        else:
            cut = -0.5 * ((al / sa) ** 2 + (ac / sc) ** 2) - np.log(2 * np.pi * sa * sc)
            core = lgamma((nu + 2) / 2) - lgamma(nu / 2) - np.log(nu * np.pi * s * s) \
                - (nu + 2) / 2 * np.log1p((al * al + ac * ac) / (nu * s * s))
        out[e] = float(np.logaddexp(np.log(1 - o) + core, np.log(o) + cut) - cut)
    return out
