"""Castles of Strand unter: find them in a blob, measure them, give each its value.

Input: the scan's blobs and pixel classes, the corrected board and its foreground, the
calibration's assets, the camera's nadir in this board's frame, the scan's colour error.
Output: :class:`Castle` list (owner, value, base, groove, and the posteriors of value, owner
and groove; value None for a candidate read as no castle, with that posterior), the pixels each
castle explains, doubts.

A castle is a sand-coloured base carrying a platform and towers in the player's colour
(rulebook: "larger with higher value"; the sizes and the tower count per value are learned from
the calibration's castles, not assumed). Its value is read from three cues in board millimetres,
each compared with the calibration's castles of every value (:func:`castle_model`):

- ``platform``: the radius of its player-coloured platform: along 48 rays from the coloured
  part's centroid, where the colour's projection on the sand → player direction in (a, b) falls
  below half-way between the platform's level and the surround's (a half-maximum edge, the same
  for any contrast, so a lamp or a dimmer light does not move it), the median over the rays
  (a touching neighbour moves only a few of them);
- ``footprint``: the radius of its foreground (the base), measured the same way on the filled
  foreground mask;
- ``towers``: the number of tower shadows, dark local minima of the grey image inside the
  coloured part (a blob detector in the spirit of Lindeberg 1998, at one scale).

Each size cue's likelihood is a Student-t (ν = ``value_dof``, Lange, Little & Taylor 1989: one
cue far off does not overrule the others) of its log radius around the value's learned one (the
platform's times the player's learned scale: a colour that stands out less from the sand ends a
little inside its rim), with the spread learned from the calibration's castles plus the
measurement's own; the tower count's is the calibration's count frequencies per value (with
Jeffreys' add-½ smoothing) together with what that very castle showed at calibration. A candidate
may also be no castle but a shell whose colour the light pushed towards a player's (a brown shell
under a warm lamp looks red): that hypothesis has the shell classes' colour and the shells' size
(no base around it). A player's candidates then get distinct values or "no castle"
(one castle per value) by the posterior over every such assignment.
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
    rs = np.arange(0.0, r_max, cfg.radial_step_px, dtype=np.float32)
    c, s = _rays(cfg.radial_rays)
    mx = (np.float32(cx) + c[:, None] * rs[None, :]).astype(np.float32)
    my = (np.float32(cy) + s[:, None] * rs[None, :]).astype(np.float32)
    return rs, cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


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
    u = np.asarray(player_lab, np.float64)[1:] - np.asarray(sand_lab, np.float64)[1:]
    u = u / max(float(np.hypot(*u)), 1e-6)
    # channel 0: the colour's projection on sand → player in (a, b); channel 1: the filled foreground
    m = np.array([[0.0, u[0], u[1], -(u[0] * sand_lab[1] + u[1] * sand_lab[2])],
                  [0.0, 0.0, 0.0, 0.0]], np.float32)
    two = cv2.transform(lab, m)
    two[..., 1] = _filled(fg[y0:y1, x0:x1])
    rs, PF = polar(two, cx - x0, cy - y0, r_max, cfg)
    P, F = PF[..., 0], PF[..., 1]
    r0 = 0.5 * r_core
    inner = _median(P[:, (rs >= cfg.radial_inner[0] * r_core) & (rs <= cfg.radial_inner[1] * r_core)])
    outer = _median(P[:, rs >= cfg.radial_outer * r_core])
    i0 = int(np.searchsorted(rs, r0))
    n = len(P)
    levels = np.concatenate([np.full(n, 0.5 * (inner + outer), np.float32), np.full(n, 0.5, np.float32)])[:, None]
    r = _crossings(rs, np.concatenate([P, F]), levels, i0, cfg.radial_step_px)
    rp, rp_se = _median_se(r[:n], cfg)
    rf, rf_se = _median_se(r[n:], cfg)
    return {"platform_px": rp, "platform_se_px": rp_se, "footprint_px": rf, "footprint_se_px": rf_se}


def shell_shape(shells: list, cfg=CASTLES) -> dict:
    """How the calibration's shells look to the castle cues: their coloured part's radius per colour
    (:func:`radial_sizes` with the shell's own colour), how far its foreground reaches beyond that
    (:func:`ring_of`, the median over all shells), the spreads of both radii (with the prior of
    :func:`size_model`) and their tower counts (texture: dark minima; Jeffreys-smoothed
    frequencies over 0 … ``cfg.max_towers``).

    Args:
        shells: ``[(colour, radial_sizes result, towers)]`` of the calibration's shell samples.
    Returns:
        JSON ``{"platform_px": {colour: r}, "ring_log": x, "sigma_log": {"platform", "footprint"},
        "towers_p": [P(n)]}``.
    """
    med, res, rings, resf = {}, [], [], []
    for c in sorted({c for c, _, _ in shells}):
        logs = np.log([max(f["platform_px"], 0.5) for cc, f, _ in shells if cc == c])
        med[c] = round(float(np.exp(np.median(logs))), 3)
        res += list(logs - np.median(logs))
        logf = np.log([max(f["footprint_px"], 0.5) for cc, f, _ in shells if cc == c])
        resf += list(logf - np.median(logf))
    rings = [ring_of(f, cfg) for _, f, _ in shells]
    k = cfg.max_towers + 1
    counts = np.bincount([min(int(t), cfg.max_towers) for _, _, t in shells], minlength=k).astype(np.float64)
    return {"platform_px": med, "ring_log": round(float(np.median(rings)), 4),
            "sigma_log": {"platform": _pooled_sigma(res, len(med), cfg), "footprint": _pooled_sigma(resf, len(med), cfg)},
            "towers_p": ((counts + 0.5) / (counts.sum() + 0.5 * k)).round(4).tolist()}


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
    cx, cy = float(xs.mean()) + ox, float(ys.mean()) + oy
    area = float(core.sum())
    rows, cols = slice(oy, oy + core.shape[0]), slice(ox, ox + core.shape[1])
    out = {"core_px2": area, "spread_px": tower_spread(core), "area_px2": blob_area_px2,
           "towers": count_towers(gray[rows, cols], core, cfg), "x": cx, "y": cy}
    out.update(radial_sizes(image, fg, cx, cy, float(np.sqrt(area / np.pi)), sand_lab, player_lab, cfg))
    return out


def student_t_logpdf(z: np.ndarray, dof: float) -> np.ndarray:
    """Log density of the standard Student-t with ``dof`` degrees of freedom at z."""
    from math import lgamma, log, pi
    c = lgamma((dof + 1) / 2) - lgamma(dof / 2) - 0.5 * log(dof * pi)
    return c - (dof + 1) / 2 * np.log1p(np.square(z) / dof)


def size_loglik(radius_px: float, se_px: float, centre_px, sigma_log: float, cfg=CASTLES) -> np.ndarray:
    """Log likelihood of a measured radius under each hypothesis' radius ``centre_px`` (array, px).

    Student-t (``cfg.value_dof``) of log radius, the spread ``sigma_log`` (learned) and the
    measurement's own relative error ``se_px / radius_px`` added in quadrature; the density is of
    log radius (the Jacobian is the same for every hypothesis).
    """
    r = max(float(radius_px), 0.5)
    return _t_loglik(np.log(r), max(se_px, cfg.radial_floor_px) / r, np.log(np.asarray(centre_px, np.float64)),
                     sigma_log, cfg)


def _t_loglik(x: float, se: float, centres, sigma: float, cfg=CASTLES) -> np.ndarray:
    s = float(np.hypot(sigma, se))
    return student_t_logpdf((x - np.asarray(centres, np.float64)) / s, cfg.value_dof) - np.log(s)


def ring_of(f: dict, cfg=CASTLES) -> float:
    """How far a piece's foreground reaches beyond its coloured part: log(footprint / platform radius)."""
    return float(np.log(max(f["footprint_px"], 0.5) / max(f["platform_px"], 0.5)))


def value_loglik(f: dict, cm: dict, player: str, cfg=CASTLES) -> np.ndarray:
    """Log likelihood (n_values,) of one candidate's cues (:func:`measure`) under each value.

    The platform's radius (the value's times the player's scale) and the footprint's radius
    (:func:`size_loglik`, each with its learned spread: two Student-t terms, so one cue that a
    light or a neighbour upset does not overrule the other), plus the log likelihood of its tower
    count (:func:`tower_likelihood`).
    """
    vs = [str(v) for v in cm["values"]]
    sig = cm["sigma_log"]
    scale = cm["platform_scale"].get(player, 1.0)
    ll = size_loglik(f["platform_px"], f["platform_se_px"], [scale * cm["platform_px"][v] for v in vs],
                     sig["platform"], cfg)
    ll = ll + size_loglik(f["footprint_px"], f["footprint_se_px"], [cm["footprint_px"][v] for v in vs],
                          sig["footprint"], cfg)
    return ll + np.log(tower_likelihood(f["towers"], cm, player, cfg))


def tower_likelihood(towers: int, cm: dict, player: str, cfg=CASTLES) -> np.ndarray:
    """P(the tower count seen | value) (n_values,) for one of ``player``'s castles.

    The value's count frequencies over all players (``towers_p``) and what this very castle showed
    at calibration (``towers_seen``: a castle whose towers merge into fewer shadows in this set-up
    does so again) are averaged with weights ``cfg.tower_pool_weight`` : 1 — a Dirichlet prior of
    that concentration around the pooled frequencies, updated by the castle's own one observation.
    """
    vs = [str(v) for v in cm["values"]]
    k = min(int(towers), len(cm["towers_p"][vs[0]]) - 1)
    pooled = np.array([cm["towers_p"][v][k] for v in vs])
    seen = cm.get("towers_seen", {}).get(player)
    if not seen:
        return pooled
    own = np.array([float(min(int(seen[v]), len(cm["towers_p"][v]) - 1) == k) if v in seen else np.nan for v in vs])
    w = cfg.tower_pool_weight
    return np.where(np.isnan(own), pooled, (own + w * pooled) / (1.0 + w))


def shell_loglik(f: dict, shape: dict, colours, cfg=CASTLES):
    """Log likelihood of one candidate's cues if it is a shell of ``colour`` (a name: a float; a
    list of names: an array): its coloured part is the shell (of the calibration's shells' radius),
    its foreground hardly wider (no base around it: the shells' ring), its tower count as the
    shells' texture gave at calibration (:func:`shell_shape`)."""
    one = isinstance(colours, str)
    r = np.array([shape["platform_px"][c] for c in ([colours] if one else colours)])
    sig = shape["sigma_log"]
    ll = size_loglik(f["platform_px"], f["platform_se_px"], r, sig["platform"], cfg)
    ll = ll + size_loglik(f["footprint_px"], f["footprint_se_px"], r * np.exp(shape["ring_log"]), sig["footprint"], cfg)
    ll = ll + np.log(shape["towers_p"][min(int(f["towers"]), len(shape["towers_p"]) - 1)])
    return float(ll[0]) if one else ll


def castle_model(castles: dict[str, dict[str, dict]], cfg=CASTLES) -> dict:
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
        "radius_px": {v}, "offset_px": {v}, "scale": {player: {"core_px2": s, "spread_px": s}}}``,
        plus :func:`size_model`'s keys when the castles carry the radial cues.
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
    if all("platform_px" in c for d in castles.values() for c in d.values()):
        out.update(size_model(castles, values, cfg))
    return out


def _pooled_sigma(res: list, groups: int, cfg=CASTLES) -> float:
    """Pooled spread of residuals around ``groups`` medians, with the prior of :func:`size_model`."""
    dof = max(len(res) - groups, 0)
    return round(float(np.sqrt((np.sum(np.square(res)) + cfg.size_prior_n * cfg.size_prior_sigma ** 2)
                               / (dof + cfg.size_prior_n))), 4)


def size_model(castles: dict[str, dict[str, dict]], values: list, cfg=CASTLES) -> dict:
    """The value cues' model from the calibration's castles (see the module docstring).

    One mould per value: the footprint's radius per value is the median over the players. The
    platform's radius as seen also depends on how well a player's colour stands out from the sand
    (a yellow platform on warm sand ends a little inside its rim), so it is modelled as
    ``log r[p, v] = log r[v] + s[p]`` and fitted by alternating medians. Each cue's spread
    ``sigma_log`` is the pooled standard deviation of the castles' log radii around that model,
    with ``cfg.size_prior_n`` pseudo-observations of ``cfg.size_prior_sigma`` (a scaled-inverse-χ²
    prior: a calibration with one castle per value still gets a spread). The tower count's
    distribution per value is the calibration's counts with Jeffreys' add-½ smoothing over
    0 … ``cfg.max_towers`` (the last meaning "that many or more").

    Returns:
        JSON ``{"platform_px": {v}, "platform_scale": {player: s}, "footprint_px": {v},
        "sigma_log": {"platform", "footprint"}, "towers_p": {v: [P(n) for n = 0 … max_towers]},
        "towers_seen": {player: {v: n}}}`` (the last: each calibration castle's own count,
        :func:`tower_likelihood`).
    """
    players = list(castles)
    n_p, n_v = len(players), len(values)
    lp = np.full((n_p, n_v), np.nan)
    lf = np.full((n_p, n_v), np.nan)
    for i, p in enumerate(players):
        for j, v in enumerate(values):
            if str(v) in castles[p]:
                lp[i, j] = np.log(max(castles[p][str(v)]["platform_px"], 0.5))
                lf[i, j] = np.log(max(castles[p][str(v)]["footprint_px"], 0.5))
    sp = np.zeros(n_p)
    for _ in range(3):
        cp = np.nanmedian(lp - sp[:, None], axis=0)
        sp = np.nan_to_num(np.nanmedian(lp - cp[None, :], axis=1))
    cf = np.nanmedian(lf, axis=0)
    ok = ~np.isnan(lp)
    res = {"platform": (lp - cp[None, :] - sp[:, None])[ok], "footprint": (lf - cf[None, :])[ok]}
    groups = {"platform": n_v + max(n_p - 1, 0), "footprint": n_v}
    out: dict = {"platform_px": {str(v): round(float(np.exp(cp[j])), 3) for j, v in enumerate(values)},
                 "platform_scale": {p: round(float(np.exp(sp[i])), 4) for i, p in enumerate(players)},
                 "footprint_px": {str(v): round(float(np.exp(cf[j])), 3) for j, v in enumerate(values)},
                 "sigma_log": {k: _pooled_sigma(list(r), groups[k], cfg) for k, r in res.items()}}
    k = cfg.max_towers + 1
    out["towers_p"] = {}
    for v in values:
        counts = np.bincount([min(int(castles[p][str(v)]["towers"]), cfg.max_towers) for p in castles
                              if str(v) in castles[p]], minlength=k).astype(np.float64)
        out["towers_p"][str(v)] = ((counts + 0.5) / (counts.sum() + 0.5 * k)).round(4).tolist()
    out["towers_seen"] = {p: {v: int(c["towers"]) for v, c in d.items()} for p, d in castles.items()}
    return out


# --- finding castles in a scan -------------------------------------------------------------------

@dataclass
class Castle:
    """One castle read from a scan (work px).

    Attributes:
        player, value: its owner and value (value None: no castle — a shell of colour ``shell``
            tinted towards the player's, or more castles of the player than values).
        x, y: its base (the coloured part's centroid moved by the parallax), work px.
        core_x, core_y: centroid of its player-coloured part, work px.
        groove: groove number under the base (0: none).
        p_value, p_owner, p_groove: posteriors of the value (or of "no castle"), the owner and
            the groove.
        cues, cost: the value cues and each value's −log likelihood above the best (annotator, logs).
        shell, core: for a candidate read as a shell: its colour and ((rows, cols), bool mask)
            of its coloured pixels (the shells read them as that shell's).
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
    shell: str | None = None
    core: tuple | None = field(default=None, repr=False)


_LABELS: dict = {}


def _labelings(n: int, m: int) -> np.ndarray:
    """Every labelling of n candidates with distinct values 0 … m−1 or none (−1): int64 (n_options, n)."""
    if (n, m) not in _LABELS:
        opts = []
        for k in range(min(n, m) + 1):
            for rows in itertools.combinations(range(n), k):
                for perm in itertools.permutations(range(m), k):
                    lab = [-1] * n
                    for i, j in zip(rows, perm):
                        lab[i] = j
                    opts.append(lab)
        _LABELS[n, m] = np.array(opts, np.int64).reshape(len(opts), n)
    return _LABELS[n, m]


def assignment_posterior(loglik: np.ndarray, none_loglik: np.ndarray, vals: list) -> tuple[list, list[float], float]:
    """Values of one player's candidates, one castle per value, each candidate possibly no castle.

    Every labelling (distinct values, or none) has the likelihood ``exp(Σ loglik[i, value_i] +
    Σ none_loglik[i] for the candidates left without one)``; the most likely labelling is returned
    with its posterior (its share of all) and, per candidate, the posterior of its own label
    (summed over the labellings that give it that label).

    Args:
        loglik: float (n, n_values) log likelihood of each candidate's cues under each value
            (colour included); none_loglik: float (n,) that of its being no castle.
        vals: the values, one per column.
    Returns:
        (value or None per candidate, per-candidate posterior, joint posterior).

    >>> assignment_posterior(np.array([[0.0, -9.0], [-9.0, 0.0]]), np.array([-20.0, -20.0]), [0, 1])[0]
    [0, 1]
    """
    L = np.asarray(loglik, np.float64)
    n, m = L.shape
    N = np.asarray(none_loglik, np.float64).reshape(n)
    labels = _labelings(n, m)
    table = np.concatenate([L, N[:, None]], axis=1)               # column m: none
    idx = np.where(labels < 0, m, labels)
    totals = table[np.arange(n)[None, :], idx].sum(axis=1)
    w = np.exp(totals - totals.max())
    w /= w.sum()
    b = int(np.argmax(totals))
    values: list = [None if j < 0 else vals[j] for j in labels[b]]
    per = [float(w[labels[:, i] == labels[b, i]].sum()) for i in range(n)]
    return values, per, float(w[b])


def find_castles(blobs, cls: np.ndarray, image: np.ndarray, A, nadir_px, residual_ab: float = 0.0,
                 stick: np.ndarray | None = None, fg: np.ndarray | None = None,
                 cfg=CASTLES) -> tuple[list, np.ndarray, list]:
    """Castles on the corrected board.

    A castle is a connected part of a blob in one player's learned colour (joined by a closing of
    ``cfg.close_px``) that looks like that player's castles: at least ``min_core_fraction`` of the
    smallest learned coloured part, at most ``max_core_ratio`` × the largest (a larger part is split
    into touching castles when it can be, :func:`split_core`), and a mean colour
    within ``max_colour_distance`` (Mahalanobis, the class's pixel spread) of the player's — a
    hand or a cloth of a similar hue is larger, or paler, or both, and is left for the occlusion
    check. Values: :func:`assignment_posterior` over :func:`value_loglik` (with the colour's
    likelihood) against :func:`shell_loglik` for "no castle"; groove: the base under the coloured
    part (parallax towards the camera's nadir ``nadir_px``).

    Args:
        blobs: :class:`~vision.strand_unter.blobs.Blobs` of the scan; cls: uint8 (H, W) pixel classes.
        image: corrected board BGR uint8 (H, W, 3); A: the calibration's assets.
        nadir_px: (x, y) the camera's nadir in this board's work px (moved with a bumped board).
        residual_ab: the scan's colour error (Lab units), widening the players' colour models.
        stick: bool (H, W) the band of the sea's stick under the cloth's edge, or None: a coloured
            part lying mostly in it is the stick (a castle in front of it stands mostly below).
        fg: bool (H, W) the foreground (the footprints are measured on it); None: the blobs'.
    Returns:
        (castles — those read as no castle with value None, and ``shell`` the shell colour they
        look like when that is likelier than a castle —, owned bool (H, W): blob pixels within each castle's learned footprint,
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
    stacked = _Classes(player_models(A, residual_ab))
    shells = shells_models_cache(A, residual_ab)
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
                    lab = _mean_lab(sub)
                    dist, owner_post, colour_ll = _owner_lab(lab, p, stacked)
                    if dist > cfg.max_colour_distance:
                        continue
                    ys, xs = np.nonzero(core)
                    found[p].append({"blob": i, "x": float(xs.mean()) + cs.start, "y": float(ys.mean()) + rs.start,
                                     "box": (rs, cs), "core": core, "p_owner": owner_post, "colour_ll": colour_ll,
                                     "shell_ll": shells.loglik(lab)[0]})
    max_side = 2 * cfg.radius_slack * max(cm["radius_px"].values())
    fg = blobs.labels > 0 if fg is None else fg
    sand_lab = model["classes"]["sand"]["mean"]
    shape = model["shell_shape"]
    out = []
    vals = cm["values"]
    for p, cands in found.items():
        if not cands:
            continue
        LL, LN, best_shell = [], [], []
        for c in cands:
            i = c["blob"]
            alone = sum(1 for o in itertools.chain(*found.values()) if o["blob"] == i) == 1 and \
                max(blobs.stats[i, 2:4]) <= max_side
            rs, cs = c["box"]
            c["cues"] = measure(image, gray, fg, c["core"], (rs.start, cs.start), sand_lab,
                                model["classes"][f"castle/{p}"]["mean"],
                                float(blobs.stats[i, cv2.CC_STAT_AREA]) if alone else None, cfg)
            LL.append(c["colour_ll"] + value_loglik(c["cues"], cm, p, cfg))
            # no castle but a shell whose colour the light pushed towards the player's
            alt = c["shell_ll"] + shell_loglik(c["cues"], shape, shells.names, cfg)
            best = int(np.argmax(alt))
            LN.append(float(alt[best]))
            best_shell.append(shells.names[best])
        LL, LN = np.array(LL), np.array(LN)
        keep = np.argsort(-(LL.max(axis=1) - LN))[: cfg.max_candidates]      # the likeliest castles
        values = [None] * len(cands)
        per = [1.0] * len(cands)
        v_k, per_k, _ = assignment_posterior(LL[keep], LN[keep], vals)
        for j, i in enumerate(keep):
            values[i], per[i] = v_k[j], per_k[j]
        for c, value, pv, ll, ln, shell in zip(cands, values, per, LL, LN, best_shell):
            tx, ty, i = c["x"], c["y"], c["blob"]
            cost = [round(float(x), 3) for x in -(ll - ll.max())]
            if value is None:
                if ll.max() > ln:
                    doubts.append(f"there seem to be more {p} castles than a player owns; the one at "
                                  f"{A.where(tx, ty)} was left out")
                out.append(Castle(player=p, value=None, x=tx, y=ty, core_x=tx, core_y=ty, groove=A.groove_at(tx, ty),
                                  p_value=pv, p_owner=c["p_owner"], cues=c["cues"], cost=cost,
                                  shell=shell if ln >= ll.max() else None, core=(c["box"], c["core"])))
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
                              cues=c["cues"], cost=cost))
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
    return {q: _widened(A.model["classes"][f"castle/{q}"], residual_ab) for q in A.players}


def shell_models(A, residual_ab: float) -> dict:
    """The shell colours' Gaussians as :func:`player_models` gives the players'."""
    return {c: _widened(A.model["classes"][f"shell/{c}"], residual_ab) for c in A.shell_colours}


_SHELL_CACHE: dict = {}


def shells_models_cache(A, residual_ab: float) -> "_Classes":
    """The shell colours' Gaussians of :func:`shell_models`, stacked (:class:`_Classes`), once per scan."""
    key = (id(A), float(residual_ab))
    if key not in _SHELL_CACHE:
        _SHELL_CACHE.clear()
        _SHELL_CACHE[key] = _Classes(shell_models(A, residual_ab))
    return _SHELL_CACHE[key]


def _widened(cls: dict, residual_ab: float) -> tuple:
    cov = np.asarray(cls["cov"], np.float64) + np.diag([0.0, residual_ab ** 2, residual_ab ** 2])
    return np.asarray(cls["mean"], np.float64), np.linalg.inv(cov), float(np.linalg.slogdet(cov)[1])


def _mean_lab(pixels_bgr: np.ndarray) -> np.ndarray:
    """Lab (3,) float of the mean BGR colour of pixels (N, 3)."""
    mean = np.clip(np.round(pixels_bgr.reshape(-1, 3).mean(axis=0)), 0, 255).astype(np.uint8)
    return cv2.cvtColor(mean.reshape(1, 1, 3), cv2.COLOR_BGR2Lab).reshape(3).astype(np.float64)


class _Classes:
    """Lab Gaussians stacked for one call per colour: names, means (K, 3), inverse covariances
    (K, 3, 3), log determinants (K,)."""

    def __init__(self, models: dict):
        self.names = list(models)
        self.mu = np.array([g[0] for g in models.values()])
        self.inv = np.array([g[1] for g in models.values()])
        self.logdet = np.array([g[2] for g in models.values()])

    def loglik(self, lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(Gaussian log densities without the 2π term (K,), squared Mahalanobis distances (K,))."""
        d = lab[None, :] - self.mu
        d2 = np.einsum("ki,kij,kj->k", d, self.inv, d)
        return -0.5 * d2 - 0.5 * self.logdet, d2


def _loglik(lab: np.ndarray, g: tuple) -> float:
    """Gaussian log density (without the 2π term, the same for every class) of a Lab colour."""
    mu, inv, logdet = g
    d = lab - mu
    return float(-0.5 * (d @ inv @ d) - 0.5 * logdet)


def _owner_lab(lab: np.ndarray, player: str, models) -> tuple[float, float, float]:
    """Mahalanobis distance of a coloured part's mean Lab colour from ``player``'s class, the
    posterior that the part is ``player``'s among all players' classes (Gaussian likelihoods of the
    mean, :func:`player_models`, a dict or stacked :class:`_Classes`), and the log likelihood of
    its colour under ``player``'s class."""
    classes = models if isinstance(models, _Classes) else _Classes(models)
    logs, d2 = classes.loglik(lab)
    w = np.exp(logs - logs.max())
    i = classes.names.index(player)
    return float(np.sqrt(max(d2[i], 0.0))), float(w[i] / w.sum()), float(logs[i])


def _owner(pixels_bgr: np.ndarray, player: str, models: dict) -> tuple[float, float]:
    """:func:`_owner_lab` of the pixels' (N, 3) BGR mean: (distance, posterior)."""
    dist, post, _ = _owner_lab(_mean_lab(pixels_bgr), player, models)
    return dist, post


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
