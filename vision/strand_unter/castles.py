"""Castles of Strand unter: find them in a blob, measure them, give each its value.

Input: the scan's blobs and pixel classes, the corrected board, the calibration's assets, the
camera's nadir in this board's frame, the scan's colour error.
Output: :class:`Castle` list (owner, value, base, groove, and the posteriors of value, owner
and groove), the pixels each castle explains, doubts.

A castle is a sand-coloured base carrying a platform and ``value + 1`` towers in the player's
colour (rulebook: "larger with higher value"; the tower count per value is learned from the
calibration's castles, not assumed). Its value is read from four cues, each compared with the
calibration's castles:

- ``core``: area of its player-coloured pixels (px²), scaled per player (colour contrast);
- ``spread``: sqrt(var x + var y) of those pixels (px), scaled per player;
- ``area``: the whole foreground blob (px²), when the blob holds this castle alone;
- ``towers``: the number of tower shadows, counted as dark local minima of the grey image
  inside the castle (a blob detector in the spirit of Lindeberg 1998, at one scale).

Each cue gives a cost per value (log ratio for sizes, tower difference for the count); a
player's castles then get distinct values by minimising the summed cost (one castle per value).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.strand_unter.blobs import blob_box
from vision.strand_unter.config import CASTLES, READING


def tower_spread(core: np.ndarray) -> float:
    """Spread of a castle's towers: sqrt(var x + var y) (px) of the bool (H, W) tower pixels."""
    ys, xs = np.nonzero(core)
    return float(np.sqrt(xs.var() + ys.var())) if len(xs) else 0.0


def count_towers(gray: np.ndarray, core: np.ndarray, cfg=CASTLES) -> int:
    """Number of towers of one castle: dark local minima (tower shadows) inside its coloured part.

    Args:
        gray: grey image crop around the castle, uint8 or float (H, W), after lighting correction.
        core: bool (H, W), the castle's player-coloured pixels in the same crop.
    Returns:
        count ≥ 0 of 8-connected groups of pixels that are the minimum of their
        ``cfg.tower_window_px`` neighbourhood (after a Gaussian of ``cfg.tower_sigma_px``), lie on
        the castle (grown by one pixel) and are darker than its median by ``cfg.tower_depth``.
    """
    if not core.any():
        return 0
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), cfg.tower_sigma_px)
    w = cfg.tower_window_px
    low = cv2.erode(g, np.ones((w, w), np.uint8))
    on = cv2.dilate(core.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    peaks = (g <= low) & on & (g < float(np.median(g[core])) - cfg.tower_depth)
    n, _ = cv2.connectedComponents(peaks.astype(np.uint8), connectivity=8)
    return int(n - 1)


def measure(gray: np.ndarray, core: np.ndarray, blob_area_px2: float | None, cfg=CASTLES) -> dict:
    """The value cues of one castle (see the module docstring).

    Args:
        gray: grey crop (H, W) around the castle; core: bool (H, W) its player-coloured pixels.
        blob_area_px2: area of its foreground blob when it holds this castle alone, else None.
    Returns:
        ``{"core_px2", "spread_px", "area_px2" (or None), "towers"}``.
    """
    return {"core_px2": float(core.sum()), "spread_px": tower_spread(core), "area_px2": blob_area_px2,
            "towers": count_towers(gray, core, cfg)}


def value_terms(f: dict, cm: dict, player: str, cfg=CASTLES, log_scale: float = 0.0) -> np.ndarray:
    """Cost of every value per cue: float (n_values, 4) columns core, spread, area, towers.

    Size cues cost |log(measured / learned)| (the learned size times the player's scale); the
    tower cue costs ``cfg.tower_weight`` per tower of difference; a missing area costs 0.

    Args:
        f: :func:`measure`'s result.
        cm: the calibration's ``castle_model`` (:func:`vision.strand_unter.calibrate.castle_model`).
        player: the castle's player (for the colour scales).
        log_scale: how much larger (log, per length) the player's coloured parts look in this
            photo than at calibration (the light changes how much of a castle takes the learned
            colour): the core's area is taken ``exp(2·log_scale)``, its spread ``exp(log_scale)``
            times the learned; the blob's area and the towers do not depend on it.
    """
    core, spread, fixed = _log_ratios(f, cm, player, cfg)
    return np.column_stack([np.abs(core - 2 * log_scale), np.abs(spread - log_scale), fixed[:, 0], fixed[:, 1]])


def _log_ratios(f: dict, cm: dict, player: str, cfg=CASTLES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per value: log(measured / learned) of the core's area and spread (n_values,) each, and the
    costs that do not depend on the colour's scale (n_values, 2): blob area, towers."""
    scale = cm["scale"].get(player, {})
    vs = [str(v) for v in cm["values"]]
    core = np.log(max(f["core_px2"], 1.0)) - np.log([scale.get("core_px2", 1.0) * cm["core_px2"][v] for v in vs])
    spread = np.log(max(f["spread_px"], 0.1)) - np.log([scale.get("spread_px", 1.0) * cm["spread_px"][v] for v in vs])
    area = np.abs(np.log(f["area_px2"]) - np.log([cm["area_px2"][v] for v in vs])) if f.get("area_px2") \
        else np.zeros(len(vs))
    towers = cfg.tower_weight * np.abs(f["towers"] - np.array([cm["towers"][v] for v in vs], np.float64))
    return core, spread, np.column_stack([area, towers])


def cost_grid(cands_cues: list, cm: dict, player: str, grid: np.ndarray, cfg=CASTLES) -> np.ndarray:
    """:func:`value_terms` summed over cues, for every castle and every log scale of ``grid``:
    float (n_t, n_castles, n_values)."""
    parts = [_log_ratios(f, cm, player, cfg) for f in cands_cues]
    core = np.stack([c for c, _, _ in parts])[None]                  # (1, n, m)
    spread = np.stack([s for _, s, _ in parts])[None]
    fixed = np.stack([x.sum(axis=1) for _, _, x in parts])[None]
    t = np.asarray(grid, np.float64)[:, None, None]
    return np.abs(core - 2 * t) + np.abs(spread - t) + fixed


def assign_values(cost: np.ndarray, vals: list) -> tuple[list, list[float]]:
    """Give each castle of one player a distinct value (a player owns one castle per value).

    Minimises the total cost over all one-to-one assignments (at most 4! = 24 of them).
    Castles beyond the number of values get ``None``.

    Args:
        cost: float (n_castles, n_values), e.g. row sums of :func:`value_terms`.
        vals: the values, one per column.
    Returns:
        (value or None per castle, margin per castle): the margin is the cost of the castle's
        cheapest other value minus the cost of the chosen one (negative when the one-per-value
        rule overruled the castle's own best guess).

    >>> assign_values(np.array([[0.0, 0.7], [0.6, 0.1]]), [0, 1])[0]
    [0, 1]
    """
    cost = np.asarray(cost, np.float64)
    n = len(cost)
    order = sorted(range(n), key=lambda i: cost[i].min())[: len(vals)]
    best, best_cost = None, np.inf
    for perm in itertools.permutations(range(len(vals)), len(order)):
        c = sum(cost[i, j] for i, j in zip(order, perm))
        if c < best_cost:
            best, best_cost = perm, c
    values: list = [None] * n
    margins = [0.0] * n
    for i, j in zip(order, best):
        values[i] = vals[j]
        others = np.delete(cost[i], j)
        nxt = others.min() if len(others) else np.inf
        margins[i] = float(nxt - cost[i, j]) if np.isfinite(nxt) else np.inf
    return values, margins


def castle_model(castles: dict[str, dict[str, dict]]) -> dict:
    """Pool the calibration's castles: one model per value, one colour scale per player.

    All players' castles come from the same moulds, so footprint (blob area, radius, base offset)
    and tower count are pooled per value (median over players). The visible coloured part (its
    area and spread) also depends on how well a player's colour stands out from the sand, so each
    is modelled as ``f[p, v] = scale_f[p] · f[v]`` and fitted by alternating medians in log space.

    Args:
        castles: ``{player: {value: {"core_px2", "spread_px", "area_px2", "towers", "radius_px",
            "offset_px"}}}`` (values as strings).
    Returns:
        JSON ``{"values": [v…], "core_px2": {v}, "spread_px": {v}, "area_px2": {v}, "towers": {v},
        "radius_px": {v}, "offset_px": {v}, "scale": {player: {"core_px2": s, "spread_px": s}}}``.
    """
    values = sorted({int(v) for d in castles.values() for v in d})
    players = list(castles)
    out: dict = {"values": values, "scale": {p: {} for p in players}}
    for key in ("core_px2", "spread_px"):
        f = np.full((len(players), len(values)), np.nan)
        for i, p in enumerate(players):
            for j, v in enumerate(values):
                if str(v) in castles[p]:
                    f[i, j] = np.log(max(castles[p][str(v)][key], 1e-3))
        s = np.zeros(len(players))
        for _ in range(3):
            c = np.nanmedian(f - s[:, None], axis=0)
            s = np.nan_to_num(np.nanmedian(f - c[None, :], axis=1))
        out[key] = {str(v): round(float(np.exp(c[j])), 2) for j, v in enumerate(values)}
        for i, p in enumerate(players):
            out["scale"][p][key] = round(float(np.exp(s[i])), 3)
    for key in ("area_px2", "radius_px", "offset_px", "towers"):
        out[key] = {str(v): np.median([castles[p][str(v)][key] for p in players if str(v) in castles[p]],
                                      axis=0).round(2).tolist() for v in values}
    return out


# --- finding castles in a scan -------------------------------------------------------------------

@dataclass
class Castle:
    """One castle read from a scan (work px).

    Attributes:
        player, value: its owner and value (value None: more castles of the player than values).
        x, y: its base (the coloured part's centroid moved by the parallax), work px.
        core_x, core_y: centroid of its player-coloured part, work px.
        groove: groove number under the base (0: none).
        p_value, p_owner, p_groove: posteriors of the value (the player's whole assignment),
            the owner and the groove.
        cues, cost: the value cues and each value's cost (for the annotator and logs).
    """

    player: str
    value: int | None
    x: float
    y: float
    core_x: float
    core_y: float
    groove: int = 0
    p_value: float = 1.0
    p_owner: float = 1.0
    p_groove: float = 1.0
    cues: dict = field(default_factory=dict)
    cost: list = field(default_factory=list)


def photo_scale(cost_fns: list, vals: list, cfg=CASTLES) -> float:
    """How much larger (log, per length) castles' coloured parts look in this photo than at calibration.

    The light changes how much of a castle takes its player's learned colour, alike for every
    castle in the photo. ``t`` has a Gaussian prior of ``cfg.scale_sigma``; its most likely value
    is found on a grid, each player's castles' values summed out (``Σ_assignments exp(−cost/τ)``,
    one castle per value), so many castles fix it and a lone castle leaves it near 0.

    Args:
        cost_fns: per player, ``grid ↦ (n_t, n_castles, n_values)`` costs (:func:`cost_grid`).
    Returns:
        t (0 without castles).
    """
    if not cost_fns:
        return 0.0
    grid = np.linspace(-2.5 * cfg.scale_sigma, 2.5 * cfg.scale_sigma, 21)
    score = -0.5 * (grid / cfg.scale_sigma) ** 2
    for fn in cost_fns:
        cost = fn(grid)                                                      # (n_t, n_castles, n_values)
        rows, cols = _assignment_index(cost.shape[1], len(vals))             # (n_options, k) each
        totals = cost[:, rows, cols].sum(axis=2)                             # (n_t, n_options)
        score = score + np.logaddexp.reduce(-totals / cfg.value_tau, axis=1)
    return float(grid[int(np.argmax(score))])


_INDEX: dict = {}


def _assignment_index(n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices (n_options, k) of every one-to-one assignment of m values to n rows."""
    if (n, m) not in _INDEX:
        opts = [key for _, key in _assignments(np.zeros((n, m)), m)]
        _INDEX[n, m] = (np.array([r for r, _ in opts], np.int64).reshape(len(opts), -1),
                        np.array([p for _, p in opts], np.int64).reshape(len(opts), -1))
    return _INDEX[n, m]


def _assignments(cost: np.ndarray, m: int):
    """Every one-to-one assignment of ``m`` values to the rows of ``cost``: (total, (rows, values))."""
    n = len(cost)
    k = min(n, m)
    for rows in itertools.combinations(range(n), k):
        for perm in itertools.permutations(range(m), k):
            yield sum(cost[i, j] for i, j in zip(rows, perm)), (rows, perm)


def assignment_posterior(cost: np.ndarray, vals: list, tau: float) -> tuple[list, list[float], float]:
    """One-value-per-castle assignment of one player's castles and its posterior.

    Every one-to-one assignment of values to castles (castles beyond the number of values get
    none) has the likelihood ``exp(−Σ cost / tau)``; the most likely one is returned with its share
    of the total (the posterior that the player's values are all right) and, per castle, the
    posterior of its own value (summed over the assignments that give it that value).

    Args:
        cost: float (n_castles, n_values) (row sums of :func:`value_terms`).
        vals: the values, one per column.
        tau: the cost scale (a documented statistical constant, ``CastleConfig.value_tau``).
    Returns:
        (value or None per castle, per-castle posterior, joint posterior).
    """
    cost = np.asarray(cost, np.float64)
    n, m = cost.shape
    rows, cols = _assignment_index(n, m)
    totals = cost[rows, cols].sum(axis=1)
    w = np.exp(-(totals - totals.min()) / tau)
    w /= w.sum()
    b = int(np.argmin(totals))
    # value index of every castle in every option (-1: none)
    given = np.full((len(rows), n), -1, np.int64)
    np.put_along_axis(given, rows, cols, axis=1)
    values: list = [None if j < 0 else vals[j] for j in given[b]]
    per = [float(w[given[:, i] == given[b, i]].sum()) for i in range(n)]
    return values, per, float(w[b])


def find_castles(blobs, cls: np.ndarray, image: np.ndarray, A, nadir_px, residual_ab: float = 0.0,
                 stick: np.ndarray | None = None, cfg=CASTLES) -> tuple[list, np.ndarray, list]:
    """Castles on the corrected board.

    A castle is a connected part of a blob in one player's learned colour (joined by a closing of
    ``cfg.close_px``) that looks like that player's castles: at least ``min_core_fraction`` of the
    smallest learned coloured part, at most ``max_core_ratio`` × the largest (a larger part is split
    into touching castles when it can be, :func:`split_core`), and a mean colour
    within ``max_colour_distance`` (Mahalanobis, the class's pixel spread) of the player's — a
    hand or a cloth of a similar hue is larger, or paler, or both, and is left for the occlusion
    check. Values: :func:`assignment_posterior` over :func:`value_terms`; groove: the base under
    the coloured part (parallax towards the camera's nadir ``nadir_px``).

    Args:
        blobs: :class:`~vision.strand_unter.blobs.Blobs` of the scan; cls: uint8 (H, W) pixel classes.
        image: corrected board BGR uint8 (H, W, 3); A: the calibration's assets.
        nadir_px: (x, y) the camera's nadir in this board's work px (moved with a bumped board).
        residual_ab: the scan's colour error (Lab units), widening the players' colour models.
        stick: bool (H, W) the band of the sea's stick under the cloth's edge, or None: a coloured
            part lying mostly in it is the stick (a castle in front of it stands mostly below).
    Returns:
        (castles, owned bool (H, W): blob pixels within each castle's learned footprint,
        doubts: sentences).
    """
    model = A.model
    cm = model["castle_model"]
    doubts: list[str] = []
    min_core = cfg.min_core_fraction * min(cm["core_px2"].values()) * min(
        sc["core_px2"] for sc in cm["scale"].values())
    max_core = cfg.max_core_ratio * max(cm["core_px2"].values()) * max(
        sc["core_px2"] for sc in cm["scale"].values())
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * cfg.close_px + 1,) * 2)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    models = player_models(A, residual_ab)
    owned = np.zeros(cls.shape, bool)
    found: dict[str, list] = {p: [] for p in A.players}
    min_area = READING.min_blob_fraction * min(model["shell_area_px2"].values())
    for i in range(1, blobs.n):
        if blobs.stats[i, cv2.CC_STAT_AREA] < min_area:
            continue
        for p, k in A.player_k.items():
            if blobs.counts[i, k] < min_core:
                continue
            rs, cs = blob_box(blobs, i, pad=2)
            parts = cv2.morphologyEx(((blobs.labels[rs, cs] == i) & (cls[rs, cs] == k)).astype(np.uint8),
                                     cv2.MORPH_CLOSE, kernel)
            n, lab_img, st, ce = cv2.connectedComponentsWithStats(parts, connectivity=8)
            for j in range(1, n):
                area = st[j, cv2.CC_STAT_AREA]
                if area < min_core:
                    continue
                cores = [lab_img == j]
                if area > max_core:         # castles of one player touching: split by where their pixels lie
                    cores = split_core(cores[0], area, min_core, max_core)
                for core in cores:
                    if stick is not None and (core & stick[rs, cs]).sum() > cfg.max_stick_share * core.sum():
                        continue            # the sea's stick (wood of a player's hue), not a castle in front of it
                    sub = image[rs, cs][core & (cls[rs, cs] == k)]
                    dist, owner_post = _owner(sub, p, models)
                    if dist > cfg.max_colour_distance:
                        continue
                    ys, xs = np.nonzero(core)
                    found[p].append({"blob": i, "x": float(xs.mean()) + cs.start, "y": float(ys.mean()) + rs.start,
                                     "box": (rs, cs), "core": core, "p_owner": owner_post})
    max_side = 2 * cfg.radius_slack * max(cm["radius_px"].values())
    out = []
    fns = {}
    for p, cands in found.items():
        for c in cands:
            i = c["blob"]
            alone = sum(1 for o in itertools.chain(*found.values()) if o["blob"] == i) == 1 and \
                max(blobs.stats[i, 2:4]) <= max_side
            c["cues"] = measure(gray[c["box"]], c["core"], float(blobs.stats[i, cv2.CC_STAT_AREA]) if alone else None,
                                cfg)
        if cands:
            fns[p] = lambda grid, cands=cands, p=p: cost_grid([c["cues"] for c in cands], cm, p, grid, cfg)
    t = photo_scale(list(fns.values()), cm["values"], cfg)
    for p, cands in found.items():
        if not cands:
            continue
        costs = list(fns[p](np.array([t]))[0])
        values, per, joint = assignment_posterior(np.array(costs), cm["values"], cfg.value_tau)
        for c, value, pv, cost in zip(cands, values, per, costs):
            tx, ty, i = c["x"], c["y"], c["blob"]
            if value is None:
                doubts.append(f"there seem to be more {p} castles than a player owns; the one at "
                              f"{A.where(tx, ty)} was left out")
                continue
            v = str(value)
            bx, by = castle_base(tx, ty, v, model, nadir_px)
            rs, cs = blob_box(blobs, i)
            yy, xx = np.ogrid[rs, cs]
            owned[rs, cs] |= (blobs.labels[rs, cs] == i) & \
                ((xx - bx) ** 2 + (yy - by) ** 2 <= (cfg.radius_slack * cm["radius_px"][v]) ** 2)
            g = A.groove_at(bx, by)
            out.append(Castle(player=p, value=value, x=bx, y=by, core_x=tx, core_y=ty, groove=g, p_value=pv,
                              p_owner=c["p_owner"], p_groove=groove_posterior((by + 0.5) / A.ppm, g, A, model),
                              cues=c["cues"], cost=[round(float(x), 3) for x in cost]))
    return out, owned, doubts


def split_core(core: np.ndarray, area: float, min_core: float, max_core: float, k_max: int = 4) -> list:
    """Split one player's coloured part that is too large for one castle into k castles (k ≤ 4).

    k-means (Lloyd 1982, ``cv2.kmeans``) of its pixel positions for k = 2 … ``k_max``; the
    smallest k whose parts are all between ``min_core`` and ``max_core`` px wins. A part no split
    explains (a hand of the player's colour, a cloth) gives no castle: [].
    """
    ys, xs = np.nonzero(core)
    pts = np.column_stack([xs, ys]).astype(np.float32)
    for k in range(2, k_max + 1):
        if area < k * min_core:
            break
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
        cv2.setRNGSeed(k)                       # the same photo is always read the same way
        _, lab, _ = cv2.kmeans(pts, k, None, crit, 3, cv2.KMEANS_PP_CENTERS)
        sizes = np.bincount(lab.ravel(), minlength=k)
        if sizes.min() >= min_core and sizes.max() <= max_core:
            parts = []
            for q in range(k):
                m = np.zeros(core.shape, bool)
                sel = lab.ravel() == q
                m[ys[sel], xs[sel]] = True
                parts.append(m)
            return parts
    return []


def player_models(A, residual_ab: float) -> dict:
    """Each player's colour Gaussian for a coloured part's *mean*: ``{player: (mean (3,), inverse
    covariance (3, 3), log det)}``, the class's pixel covariance with its a, b variance widened by
    the scan's colour error ``residual_ab`` (:func:`vision.strand_unter.lighting.surround_residual`)."""
    extra = np.diag([0.0, residual_ab ** 2, residual_ab ** 2])
    out = {}
    for q in A.players:
        cov = np.asarray(A.model["classes"][f"castle/{q}"]["cov"], np.float64) + extra
        out[q] = (np.asarray(A.model["classes"][f"castle/{q}"]["mean"], np.float64), np.linalg.inv(cov),
                  float(np.linalg.slogdet(cov)[1]))
    return out


def _owner(pixels_bgr: np.ndarray, player: str, models: dict) -> tuple[float, float]:
    """Mahalanobis distance of a coloured part's mean colour from ``player``'s class, and the
    posterior that the part is ``player``'s among all players' classes (Gaussian likelihoods of
    the mean, :func:`player_models`)."""
    mean = np.clip(np.round(pixels_bgr.reshape(-1, 3).mean(axis=0)), 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(mean.reshape(1, 1, 3), cv2.COLOR_BGR2Lab).reshape(3).astype(np.float64)
    names = list(models)
    d2 = np.array([float((lab - mu) @ inv @ (lab - mu)) for mu, inv, _ in models.values()])
    logs = -0.5 * d2 - 0.5 * np.array([ld for _, _, ld in models.values()])
    w = np.exp(logs - logs.max())
    i = names.index(player)
    return float(np.sqrt(d2[i])), float(w[i] / w.sum())


def castle_base(x: float, y: float, value: str, model: dict, nadir_px) -> tuple[float, float]:
    """A castle's base (work px) from the centroid (x, y) of its coloured part.

    The coloured part stands above the base, so the camera sees it shifted away from its nadir by
    k·(base − nadir)/(1 − k) (:func:`vision.strand_unter.calibrate.parallax_model`); without a learned
    k for the value, the calibration's fixed offset per value is used.

    Args:
        nadir_px: (x, y) the camera's nadir in this board's work px.
    """
    par = model.get("parallax") or {}
    k = (par.get("k") or {}).get(value)
    if k is not None and nadir_px is not None:
        nx, ny = nadir_px
        return x - k * (x - nx), y - k * (y - ny)
    off = model["castle_model"]["offset_px"][value]
    return x + off[0], y + off[1]


def groove_posterior(y_mm: float, groove: int, A, model: dict) -> float:
    """Posterior that a piece whose base is estimated at ``y_mm`` stands in ``groove``.

    The base's y is taken as Gaussian around the estimate with the calibration's base error
    (``model["base_sigma_mm"]``, :func:`vision.strand_unter.calibrate.parallax_model`): the share
    of it inside the groove's extent. Outside every groove: 1 (that decision is made elsewhere).
    """
    if groove not in A.extent:
        return 1.0
    s = float(model.get("base_sigma_mm") or CASTLES.base_sigma_floor_mm)
    lo, hi = A.extent[groove]
    return float(_phi((hi - y_mm) / s) - _phi((lo - y_mm) / s))


def _phi(z: float) -> float:
    from math import erf, sqrt
    return 0.5 * (1.0 + erf(z / sqrt(2.0)))
