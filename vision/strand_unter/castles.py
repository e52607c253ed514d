"""Castles of Strand unter: find them in a blob and give each its owner, value and groove.

Input: the scan's blobs and pixel classes, the corrected board and its foreground, the
calibration's assets, the camera's nadir in this board's frame, the scan's colour error.
Output: :class:`Castle` list (owner, value, base, groove, and the posteriors of value, owner
and groove; value None for a candidate read as no castle, with that posterior), the pixels each
castle explains, doubts.

A castle is a sand-coloured base carrying a platform and towers in the player's colour
(rulebook: "larger with higher value"; the sizes and the tower count per value are learned from
the calibration's castles, not assumed). A candidate is a connected part of one player's colour
of castle size; its value cues are measured by :mod:`~vision.strand_unter.castle_cues` and
judged by :mod:`~vision.strand_unter.castle_values` (one castle per value; a shell the light
tinted towards the player's colour is the alternative "no castle"); its base follows from the
coloured part's centroid by the parallax towards the camera's nadir.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.strand_unter.blobs import blob_box, components
from vision.strand_unter.castle_cues import contrast_share, measure
from vision.strand_unter.castle_values import (assignment_posterior, castle_posterior, shell_loglik, value_loglik,
                                               view_tan)
from vision.strand_unter.config import CASTLES, READING


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
        p_castle: the posterior that the part is a piece at all, not a shadow or a hand in the
            player's colour (:func:`~vision.strand_unter.castle_values.castle_posterior`); below ½
            it is no castle, and ``p_value`` is 1 − p_castle.
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
    p_castle: float = 1.0


def find_castles(blobs, cls: np.ndarray, image: np.ndarray, A, nadir_px, residual_ab: float = 0.0,
                 stick: np.ndarray | None = None, fg: np.ndarray | None = None,
                 cfg=CASTLES, gray: np.ndarray | None = None) -> tuple[list, np.ndarray, list]:
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
        gray: ``image``'s grey image (uint8 (H, W)) when the caller has it, else None (computed here).
    Returns:
        (castles — those read as no castle with value None, and ``shell`` the shell colour they
        look like when that is likelier than a castle —, owned bool (H, W): blob pixels within each castle's learned footprint,
        doubts: sentences).
    """
    doubts: list[str] = []
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if gray is None else gray
    shells = shells_models_cache(A, residual_ab)
    owned = np.zeros(cls.shape, bool)
    found = _coloured_parts(blobs, cls, image, A, shells, residual_ab, stick, cfg)
    fg = blobs.labels > 0 if fg is None else fg
    out = []
    for p, cands in found.items():
        if not cands:
            continue
        _value_castles(p, cands, found, blobs, image, gray, fg, A, shells, nadir_px, owned, out, doubts, cfg)
    return out, owned, doubts


def _coloured_parts(blobs, cls: np.ndarray, image: np.ndarray, A, shells, residual_ab: float,
                    stick: np.ndarray | None, cfg) -> dict[str, list]:
    """Each player's candidate castles: the parts of the blobs in the player's learned colour (joined
    by a closing of ``cfg.close_px``, too large ones split by :func:`split_core`) whose size and mean
    colour fit the player's castles, the sea's stick left out.

    Returns:
        {player: [{"blob", "x", "y" (core centre, work px), "box" (row and column slices), "core"
        (bool mask in the box), "p_owner", "colour_ll", "shell_ll"}]}.
    """
    model = A.model
    cm = model["castle_model"]
    min_core = cfg.min_core_fraction * min(cm["core_px2"].values()) * min(
        sc["core_px2"] for sc in cm["scale"].values())
    max_core = cfg.max_core_ratio * max(cm["core_px2"].values()) * max(
        sc["core_px2"] for sc in cm["scale"].values())
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * cfg.close_px + 1,) * 2)
    stacked = _Classes.widened(A, [f"castle/{q}" for q in A.players], A.players, residual_ab)
    found: dict[str, list] = {p: [] for p in A.players}
    min_area = READING.min_blob_fraction * min(model["shell_area_px2"].values())
    players = list(A.player_k.items())
    # the (blob, player) pairs worth a look, in the order of the loops below, found in one pass
    enough = (blobs.counts[:, [k for _, k in players]] >= min_core) & \
        (blobs.stats[:, cv2.CC_STAT_AREA] >= min_area)[:, None]
    enough[0] = False
    for i in np.nonzero(enough.any(axis=1))[0]:
        i = int(i)
        for (p, k), look in zip(players, enough[i]):
            if not look:
                continue
            rs, cs = blob_box(blobs, i, pad=2)
            parts = cv2.morphologyEx(((blobs.labels[rs, cs] == i) & (cls[rs, cs] == k)).astype(np.uint8),
                                     cv2.MORPH_CLOSE, kernel)
            n, lab_img, st, ce = components(parts)
            for j in range(1, n):
                area = st[j, cv2.CC_STAT_AREA]
                if area < min_core:
                    continue
                cores = [lab_img == j]
                if area > max_core:         # castles of one player touching: split by where their pixels lie
                    cores = split_core(cores[0], area, min_core, max_core)
                for core in cores:
                    if stick is not None and np.count_nonzero(core & stick[rs, cs]) > \
                            cfg.max_stick_share * np.count_nonzero(core):
                        continue            # the sea's stick (wood of a player's hue), not a castle in front of it
                    sub = image[rs, cs][core & (cls[rs, cs] == k)]
                    lab = _mean_lab(sub)
                    dist, owner_post, colour_ll = _owner_lab(lab, p, stacked)
                    if dist > cfg.max_colour_distance:
                        continue
                    ys, xs = np.nonzero(core)
                    share = contrast_share(sub, A.empty[rs, cs][core & (cls[rs, cs] == k)], A.player_bgr[p],
                                           A.model["sand_bgr"])
                    found[p].append({"blob": i, "x": float(xs.mean()) + cs.start, "y": float(ys.mean()) + rs.start,
                                     "box": (rs, cs), "core": core, "p_owner": owner_post, "colour_ll": colour_ll,
                                     "shell_ll": shells.loglik(lab)[0], "contrast_share": share})
    return found


def _value_castles(p: str, cands: list, found: dict, blobs, image: np.ndarray, gray: np.ndarray, fg: np.ndarray, A,
                   shells, nadir_px, owned: np.ndarray, out: list, doubts: list, cfg) -> None:
    """One player's candidates given values (one castle per value, :func:`assignment_posterior`) or
    read as no castle; each appended to ``out`` as a :class:`Castle`, its footprint's blob pixels
    marked in ``owned``, a surplus castle named in ``doubts``."""
    model = A.model
    cm = model["castle_model"]
    max_side = 2 * cfg.radius_slack * max(cm["radius_px"].values())
    sand_lab = model["classes"]["sand"]["mean"]
    shape = model["shell_shape"]
    vals = cm["values"]
    LL, LN, best_shell = [], [], []
    for c in cands:
        i = c["blob"]
        alone = sum(1 for o in itertools.chain(*found.values()) if o["blob"] == i) == 1 and \
            max(blobs.stats[i, 2:4]) <= max_side
        rs, cs = c["box"]
        c["cues"] = measure(image, gray, fg, c["core"], (rs.start, cs.start), sand_lab,
                            model["classes"][f"castle/{p}"]["mean"],
                            float(blobs.stats[i, cv2.CC_STAT_AREA]) if alone else None, cfg)
        c["cues"]["contrast_share"] = c["contrast_share"]
        c["cues"]["view_tan"] = view_tan(c["cues"]["x"], c["cues"]["y"], nadir_px, model, A.calibration_view_tan)
        LL.append(c["colour_ll"] + value_loglik(c["cues"], cm, p, cfg))
        # no castle but a shell whose colour the light pushed towards the player's
        alt = c["shell_ll"] + shell_loglik(c["cues"], shape, shells.names, cfg)
        best = int(np.argmax(alt))
        LN.append(float(alt[best]))
        best_shell.append(shells.names[best])
    LL, LN = np.array(LL), np.array(LN)
    piece = np.array([castle_posterior(c["contrast_share"], cfg) for c in cands])
    # the likeliest castles among the parts that are pieces at all (not a castle's shadow, not a hand)
    keep = [int(j) for j in np.argsort(-(LL.max(axis=1) - LN)) if piece[j] >= 0.5][: cfg.max_candidates]
    values = [None] * len(cands)
    per = list(1.0 - piece)
    v_k, per_k, _ = assignment_posterior(LL[keep], LN[keep], vals) if keep else ([], [], 1.0)
    for j, i in enumerate(keep):
        values[i], per[i] = v_k[j], per_k[j]
    for c, value, pv, ll, ln, shell, pc in zip(cands, values, per, LL, LN, best_shell, piece):
        tx, ty, i = c["x"], c["y"], c["blob"]
        cost = [round(float(x), 3) for x in -(ll - ll.max())]
        if value is None:
            if ll.max() > ln and pc >= 0.5:
                doubts.append(f"there seem to be more {p} castles than a player owns; the one at "
                              f"{A.where(tx, ty)} was left out")
            out.append(Castle(player=p, value=None, x=tx, y=ty, core_x=tx, core_y=ty, groove=A.groove_at(tx, ty),
                              p_value=pv, p_owner=c["p_owner"], cues=c["cues"], cost=cost,
                              shell=shell if ln >= ll.max() and pc >= 0.5 else None, core=(c["box"], c["core"]),
                              p_castle=float(pc)))
            continue
        v = str(value)
        bx, by = castle_base(tx, ty, v, model, nadir_px)
        rs, cs = blob_box(blobs, i)
        yy, xx = np.arange(rs.start, rs.stop)[:, None], np.arange(cs.start, cs.stop)[None, :]   # (np.ogrid[rs, cs])
        owned[rs, cs] |= (blobs.labels[rs, cs] == i) & \
            ((xx - bx) ** 2 + (yy - by) ** 2 <= (cfg.radius_slack * cm["radius_px"][v]) ** 2)
        g = A.groove_at(bx, by)
        out.append(Castle(player=p, value=value, x=bx, y=by, core_x=tx, core_y=ty, groove=g, p_value=pv,
                          p_owner=c["p_owner"], p_groove=groove_posterior((by + 0.5) / A.ppm, g, A, model),
                          cues=c["cues"], cost=cost, p_castle=float(pc)))


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
        _SHELL_CACHE[key] = _Classes.widened(A, [f"shell/{c}" for c in A.shell_colours], A.shell_colours, residual_ab)
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

    def __init__(self, models: dict | None = None):
        if models is not None:
            self.names = list(models)
            self.mu = np.array([g[0] for g in models.values()])
            self.inv = np.array([g[1] for g in models.values()])
            self.logdet = np.array([g[2] for g in models.values()])

    @classmethod
    def widened(cls, A, classes: list, names: list, residual_ab: float) -> "_Classes":
        """``_Classes({name: _widened(model class, residual_ab)})`` of the learned ``classes``, the
        covariances inverted in one batched call (the same LAPACK routine per matrix: the same values)."""
        cache = A.__dict__.setdefault("_class_stacks", {})
        key = tuple(classes)
        if key not in cache:            # the learned means and covariances, once per calibration
            cache[key] = (np.array([np.asarray(A.model["classes"][k]["mean"], np.float64) for k in classes]),
                          np.array([np.asarray(A.model["classes"][k]["cov"], np.float64) for k in classes]))
        mu, cov = cache[key]
        cov = cov + np.diag([0.0, residual_ab ** 2, residual_ab ** 2])[None]
        out = cls()
        out.names, out.mu, out.inv = list(names), mu, np.linalg.inv(cov)
        out.logdet = np.linalg.slogdet(cov)[1]
        return out

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
