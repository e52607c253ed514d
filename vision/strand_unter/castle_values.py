"""What a Strand unter castle is worth: the calibration's model of the value cues, their
likelihoods and the one-castle-per-value assignment.

Input: the calibration's castles' cues (:func:`vision.strand_unter.castle_cues.measure`) and
shells' (``castle_model``, ``shell_shape``); a scan candidate's cues and colour likelihoods.
Output: the JSON models; log likelihoods per value, or of being a shell; the posterior of a
player's assignment.

Each size cue's likelihood is a Student-t (ν = ``value_dof``, Lange, Little & Taylor 1989: one cue
far off does not overrule the others) of its log radius around the value's learned one (the
platform's times the player's learned scale: a colour that stands out less from the sand ends a
little inside its rim), with the spread learned from the calibration's castles plus the
measurement's own, and both radii expected larger as the camera sees the castle from further
aside (the lean: :func:`view_tan`, the slopes ``cfg.lean_platform``, ``cfg.lean_footprint``; the
calibration castles' own radii are taken to their mean view angle before pooling, :func:`size_model`); the
tower count's likelihood is the calibration's count frequencies per value (Jeffreys' add-½ smoothing) together with what that very castle showed at calibration. A
candidate may also be a shell the light tinted towards a player's colour (no base around it). A
player's candidates get distinct values or "no castle" by the posterior over every assignment.
"""

from __future__ import annotations

import itertools

import numpy as np

from vision.strand_unter.config import CASTLES


def shell_shape(shells: list, cfg=CASTLES) -> dict:
    """How the calibration's shells look to the castle cues: their coloured part's radius per colour
    (:func:`vision.strand_unter.castle_cues.radial_sizes` with the shell's own colour), how far its foreground reaches beyond that
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
    count (:func:`tower_likelihood`) times ``cfg.tower_exponent`` (a tempered likelihood: the count
    is worth that share of an independent look).

    Both radii are expected larger by ``exp(cfg.lean_… · f["view_tan"])`` (``view_tan``, when
    given: the tangent of the view angle at the castle less the calibration castles' mean,
    :func:`view_tan`): far from the camera's nadir the camera sees the castle's walls and towers'
    sides, which widen it outwards.
    """
    vs = [str(v) for v in cm["values"]]
    sig = cm["sigma_log"]
    scale = cm["platform_scale"].get(player, 1.0)
    t = float(f.get("view_tan") or 0.0)
    lean_p, lean_f = float(np.exp(cfg.lean_platform * t)), float(np.exp(cfg.lean_footprint * t))
    ll = size_loglik(f["platform_px"], f["platform_se_px"], [lean_p * scale * cm["platform_px"][v] for v in vs],
                     sig["platform"], cfg)
    ll = ll + size_loglik(f["footprint_px"], f["footprint_se_px"], [lean_f * cm["footprint_px"][v] for v in vs],
                          sig["footprint"], cfg)
    return ll + cfg.tower_exponent * np.log(tower_likelihood(f["towers"], cm, player, cfg))


def calibration_view_tan(model: dict) -> float | None:
    """The mean tangent of the view angle at the calibration castles' coloured parts: their
    distance (mm) from the camera's nadir over the camera's height (``model["parallax"]``); None
    without a camera height."""
    t = castle_view_tans(model["castles"], model.get("parallax"), float(model["ppm"]))
    return None if t is None else float(np.mean([x for d in t.values() for x in d.values()]))


def castle_view_tans(castles: dict[str, dict[str, dict]], parallax: dict | None, ppm: float) -> dict | None:
    """The tangent of the view angle at each calibration castle's coloured part: its distance (mm)
    from the camera's nadir (``parallax["nadir_px"]``, work px; the part's centre is the castle's
    ``centre_px`` less its ``offset_px``) over the camera's height ``parallax["camera_mm"]``.

    Returns:
        ``{player: {value: tan}}`` (floats), or None without a camera height or castles.

    >>> castle_view_tans({"red": {"1": {"centre_px": [30.0, 40.0], "offset_px": [0.0, 0.0]}}},
    ...                  {"camera_mm": 100.0, "nadir_px": [0.0, 0.0]}, 1.0)
    {'red': {'1': 0.5}}
    """
    par = parallax or {}
    if not par.get("camera_mm") or "nadir_px" not in par or not any(castles.values()):
        return None
    n = np.asarray(par["nadir_px"], np.float64)
    mm = ppm * float(par["camera_mm"])

    def tan(c: dict) -> float:
        return float(np.hypot(*(np.asarray(c["centre_px"], np.float64) - np.asarray(c["offset_px"], np.float64) - n))) / mm

    return {p: {v: tan(c) for v, c in d.items()} for p, d in castles.items()}


def view_tan(x_px: float, y_px: float, nadir_px, model: dict, calibration_tan: float | None = None) -> float:
    """How much more steeply the camera sees a point (work px) than the calibration castles: the
    tangent of its view angle (distance from the nadir ``nadir_px`` (x, y) work px, in mm, over the
    camera's height) less :func:`calibration_view_tan` (``calibration_tan`` when the caller holds it,
    else worked out from ``model``); 0 when either is unknown.

    >>> m = {"ppm": 1.0, "parallax": {"camera_mm": 500.0, "nadir_px": [0.0, 0.0]},
    ...      "castles": {"red": {"1": {"centre_px": [100.0, 0.0], "offset_px": [0.0, 0.0]}}}}
    >>> round(view_tan(0.0, 200.0, (0.0, 0.0), m), 3)
    0.2
    """
    t0 = calibration_view_tan(model) if calibration_tan is None else calibration_tan
    if t0 is None or nadir_px is None:
        return 0.0
    d = float(np.hypot(x_px - nadir_px[0], y_px - nadir_px[1])) / float(model["ppm"])
    return d / float(model["parallax"]["camera_mm"]) - t0


def tower_likelihood(towers: int, cm: dict, player: str, cfg=CASTLES) -> np.ndarray:
    """P(the tower count seen | value) (n_values,) for one of ``player``'s castles.

    The value's count frequencies over all players (``towers_p``) and what this very castle showed
    at calibration (``towers_seen``: a castle whose towers merge into fewer shadows in this set-up
    does so again) are averaged with weights ``cfg.tower_pool_weight`` : 1 — a Dirichlet prior of
    that concentration around the pooled frequencies, updated by the castle's own one observation.
    That holds when the count is read right (:func:`tower_reliability`); otherwise any count is as
    likely as another.
    """
    vs = [str(v) for v in cm["values"]]
    n_counts = len(cm["towers_p"][vs[0]])
    k = min(int(towers), n_counts - 1)
    pooled = np.array([cm["towers_p"][v][k] for v in vs])
    seen = cm.get("towers_seen", {}).get(player)
    if not seen:
        return pooled
    own = np.array([float(min(int(seen[v]), n_counts - 1) == k) if v in seen else np.nan for v in vs])
    w = cfg.tower_pool_weight
    read = np.where(np.isnan(own), pooled, (own + w * pooled) / (1.0 + w))
    r = tower_reliability(cm, player, cfg)
    return r * read + (1.0 - r) / n_counts


def tower_reliability(cm: dict, player: str, cfg=CASTLES) -> float:
    """The probability that one of ``player``'s castles shows its tower count as it should in this
    set-up: the share of the player's calibration castles whose count is the one most of the
    calibration's castles of that value showed (the mode of ``towers_p``), with the Beta prior
    ``cfg.tower_reliability_prior`` (a colour whose towers' shadows this light blurs miscounts at
    calibration as in the scans).

    Returns:
        r in (0, 1); 1 for a calibration without the castles' own counts.
    """
    seen = cm.get("towers_seen", {}).get(player)
    if not seen or cfg.tower_reliability_prior is None:
        return 1.0
    n_counts = len(next(iter(cm["towers_p"].values())))
    agree = sum(min(int(n), n_counts - 1) == int(np.argmax(cm["towers_p"][v])) for v, n in seen.items() if v in cm["towers_p"])
    a, b = cfg.tower_reliability_prior
    return (agree + a) / (len(seen) + a + b)


def castle_posterior(share: float, cfg=CASTLES) -> float:
    """The posterior that a player-coloured part is a castle rather than a shadow or a hand, from its
    contrast share (:func:`vision.strand_unter.castle_cues.contrast_share`).

    Each kind's share is Gaussian (``cfg.contrast_castle``, ``cfg.contrast_other``: mean, std) and
    the other kind's prior is ``cfg.contrast_other_prior``. Below the other kind's mean the posterior
    is held at its value there (the castles' wider spread would otherwise make a part that shows
    less colour than any shadow more castle-like). 1 when the model is not fitted.

    >>> castle_posterior(0.9, CASTLES.__class__(contrast_castle=(0.95, 0.2), contrast_other=(0.2, 0.08), contrast_other_prior=0.01)) > 0.99
    True
    """
    if cfg.contrast_castle is None or cfg.contrast_other is None or not cfg.contrast_other_prior:
        return 1.0
    x = max(float(share), cfg.contrast_other[0])
    return piece_posterior(x, cfg.contrast_castle, cfg.contrast_other, cfg.contrast_other_prior)


def piece_posterior(share: float, piece: tuple, other: tuple, other_prior: float) -> float:
    """The posterior that a part showing contrast share ``share`` is the piece, not a shadow or a
    hand: each kind's share Gaussian (``piece``, ``other``: (mean, std)), the other kind's prior
    ``other_prior`` in (0, 1). The callers hold ``share`` inside the range where the ratio means
    what it says (:func:`castle_posterior`, :func:`vision.strand_unter.shells.shell_posterior`)."""
    (m1, s1), (m0, s0), q = piece, other, other_prior

    def log_density(m, s) -> float:
        return -0.5 * ((share - m) / s) ** 2 - float(np.log(s))

    logit = log_density(m1, s1) + np.log1p(-q) - log_density(m0, s0) - np.log(q)
    return float(1.0 / (1.0 + np.exp(-np.clip(logit, -50.0, 50.0))))


def shell_loglik(f: dict, shape: dict, colours, cfg=CASTLES):
    """Log likelihood of one candidate's cues if it is a shell of ``colour`` (a name: a float; a
    list of names: an array): its coloured part is the shell (of the calibration's shells' radius),
    its foreground hardly wider (no base around it: the shells' ring), its tower count as the
    shells' texture gave at calibration (:func:`shell_shape`; tempered as :func:`value_loglik`'s)."""
    one = isinstance(colours, str)
    r = np.array([shape["platform_px"][c] for c in ([colours] if one else colours)])
    sig = shape["sigma_log"]
    ll = size_loglik(f["platform_px"], f["platform_se_px"], r, sig["platform"], cfg)
    ll = ll + size_loglik(f["footprint_px"], f["footprint_se_px"], r * np.exp(shape["ring_log"]), sig["footprint"], cfg)
    ll = ll + cfg.tower_exponent * np.log(shape["towers_p"][min(int(f["towers"]), len(shape["towers_p"]) - 1)])
    return float(ll[0]) if one else ll


def castle_model(castles: dict[str, dict[str, dict]], cfg=CASTLES, view_tans: dict | None = None) -> dict:
    """Pool the calibration's castles: one model per value, one colour scale per player.

    All players' castles come from the same moulds, so footprint (blob area, radius, base offset)
    and tower count are pooled per value (median over players). The visible coloured part (its
    area and spread) also depends on how well a player's colour stands out from the sand, so each
    is modelled as ``f[p, v] = scale_f[p] · f[v]`` and fitted by alternating medians in log space.

    Args:
        castles: ``{player: {value: {"core_px2", "spread_px", "area_px2", "towers", "radius_px",
            "offset_px"}}}`` (values as strings).
        view_tans: ``{player: {value: tan}}`` (:func:`castle_view_tans`) to take the lean out of the
            radial cues before pooling (:func:`size_model`), or None.
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
        out.update(size_model(castles, values, cfg, view_tans))
    return out


def _pooled_sigma(res: list, groups: int, cfg=CASTLES, prior: tuple | None = None) -> float:
    """Pooled spread of residuals around ``groups`` medians, with the prior ``prior`` = (σ, n): n
    pseudo-observations of σ (default ``cfg.size_prior_sigma``, ``cfg.size_prior_n``)."""
    sigma, n = prior or (cfg.size_prior_sigma, cfg.size_prior_n)
    return spread_with_prior(float(np.sum(np.square(res))), max(len(res) - groups, 0), sigma, n)


def spread_with_prior(ss: float, dof: float, sigma: float, n: float) -> float:
    """The spread √((ss + n σ²) / (dof + n)) of residuals whose squares sum to ``ss`` over ``dof``
    degrees of freedom, under n pseudo-observations of σ (a scaled-inverse-χ² prior), rounded to 1e-4.

    >>> spread_with_prior(0.0, 0.0, 0.05, 2.0)
    0.05
    """
    return round(float(np.sqrt((ss + n * sigma ** 2) / (dof + n))), 4)


def size_model(castles: dict[str, dict[str, dict]], values: list, cfg=CASTLES, view_tans: dict | None = None) -> dict:
    """The value cues' model from the calibration's castles (see the module docstring).

    One mould per value: the footprint's radius per value is the median over the players. The
    platform's radius as seen also depends on how well a player's colour stands out from the sand
    (a yellow platform on warm sand ends a little inside its rim), so it is modelled as
    ``log r[p, v] = log r[v] + s[p]`` and fitted by alternating medians. Each cue's spread
    ``sigma_log`` is the pooled standard deviation of the castles' log radii around that model,
    with ``cfg.size_prior_n`` pseudo-observations of ``cfg.size_prior_sigma`` (a scaled-inverse-χ²
    prior: a calibration with one castle per value still gets a spread; per cue
    ``cfg.value_spread_prior`` when fitted). The tower count's
    distribution per value is the calibration's counts with Jeffreys' add-½ smoothing over
    0 … ``cfg.max_towers`` (the last meaning "that many or more").

    With ``view_tans`` (``{player: {value: tan}}``, :func:`castle_view_tans`) each castle's log radii
    are first brought to the calibration castles' mean tangent t̄ (less ``cfg.lean_platform · (t − t̄)``,
    ``cfg.lean_footprint · (t − t̄)``, the lean of :func:`value_loglik`): the model's radii then hold at
    t̄ as :func:`view_tan` expects, whichever castle of a player stood far from the camera's nadir.

    Returns:
        JSON ``{"platform_px": {v}, "platform_scale": {player: s}, "footprint_px": {v},
        "sigma_log": {"platform", "footprint"}, "spread_ss": {cue: [Σ residual², degrees of freedom]},
        "towers_p": {v: [P(n) for n = 0 … max_towers]}, "towers_seen": {player: {v: n}}}`` (the last:
        each calibration castle's own count, :func:`tower_likelihood`).
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
    if view_tans:
        t = np.array([[view_tans.get(p, {}).get(str(v), np.nan) for v in values] for p in players])
        dt = np.nan_to_num(t - np.nanmean(t))
        lp, lf = lp - cfg.lean_platform * dt, lf - cfg.lean_footprint * dt
    sp = np.zeros(n_p)
    for _ in range(3):
        cp = np.nanmedian(lp - sp[:, None], axis=0)
        sp = np.nan_to_num(np.nanmedian(lp - cp[None, :], axis=1))
    cf = np.nanmedian(lf, axis=0)
    ok = ~np.isnan(lp)
    res = {"platform": (lp - cp[None, :] - sp[:, None])[ok], "footprint": (lf - cf[None, :])[ok]}
    groups = {"platform": n_v + max(n_p - 1, 0), "footprint": n_v}
    prior = cfg.value_spread_prior or {}
    out: dict = {"platform_px": {str(v): round(float(np.exp(cp[j])), 3) for j, v in enumerate(values)},
                 "platform_scale": {p: round(float(np.exp(sp[i])), 4) for i, p in enumerate(players)},
                 "footprint_px": {str(v): round(float(np.exp(cf[j])), 3) for j, v in enumerate(values)},
                 "sigma_log": {k: _pooled_sigma(list(r), groups[k], cfg, prior.get(k)) for k, r in res.items()},
                 "spread_ss": {k: [round(float(np.sum(np.square(r))), 6), max(len(r) - groups[k], 0)]
                               for k, r in res.items()}}
    k = cfg.max_towers + 1
    out["towers_p"] = {}
    for v in values:
        counts = np.bincount([min(int(castles[p][str(v)]["towers"]), cfg.max_towers) for p in castles
                              if str(v) in castles[p]], minlength=k).astype(np.float64)
        out["towers_p"][str(v)] = ((counts + 0.5) / (counts.sum() + 0.5 * k)).round(4).tolist()
    out["towers_seen"] = {p: {v: int(c["towers"]) for v, c in d.items()} for p, d in castles.items()}
    return out


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
