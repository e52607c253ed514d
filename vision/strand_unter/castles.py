"""Castles of Strand unter: find them in a blob, measure them, give each its value.

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

import cv2
import numpy as np

from vision.strand_unter.config import CASTLES


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


def value_terms(f: dict, cm: dict, player: str, cfg=CASTLES) -> np.ndarray:
    """Cost of every value per cue: float (n_values, 4) columns core, spread, area, towers.

    Size cues cost |log(measured / learned)| (the learned size times the player's scale); the
    tower cue costs ``cfg.tower_weight`` per tower of difference; a missing area costs 0.

    Args:
        f: :func:`measure`'s result.
        cm: the calibration's ``castle_model`` (:func:`vision.strand_unter.calibrate.castle_model`).
        player: the castle's player (for the colour scales).
    """
    scale = cm["scale"].get(player, {})
    out = np.zeros((len(cm["values"]), 4))
    for j, v in enumerate(cm["values"]):
        v = str(v)
        out[j, 0] = abs(np.log(max(f["core_px2"], 1.0) / (scale.get("core_px2", 1.0) * cm["core_px2"][v])))
        out[j, 1] = abs(np.log(max(f["spread_px"], 0.1) / (scale.get("spread_px", 1.0) * cm["spread_px"][v])))
        if f.get("area_px2"):
            out[j, 2] = abs(np.log(f["area_px2"] / cm["area_px2"][v]))
        out[j, 3] = cfg.tower_weight * abs(f["towers"] - cm["towers"][v])
    return out


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
