"""Plażing: one resource told from another by the darkest part of the cell's centre against the sand.

Input: the rectified, light-normalised board and the cells' boxes; at calibration the labelled
resources and the bare cells; at a scan the token posteriors of the free cells and the cells read
as bare sand. Output: per resource class the darkness of its centre as the calibration shows it
(:func:`learn_darkness`); at a scan, the posteriors of the cells read as one of the two resources the
darkness tells apart best (:func:`farthest_pair`) weighed against the other by how likely their
centre's darkness is under each (:func:`weigh_darkness`).

Idea: the token features (mean and spread of the centre, its brightness with an allowance for the
light's drift) can place a dark stone with a soft shadow round it nearer a pale token shadowed
by the lamp than to the stones of a calibration shot without shadows. A low percentile of the
centre's grey (:data:`DarknessConfig.quantile`) over the sand's grey in the same photo is the
token's own shade, whatever the light's level: pebbles and shells lie apart on it in every
development set-up, amber between them. Adopted with the footprint (docs/tuning.md, "The two
resource cues together"; a shell with a dark crease reads as a pebble, "Shell or pebble"); off
unless ``fitted.json`` gives a floor.
"""

from __future__ import annotations

import numpy as np

from vision.plazing.config import DARKNESS, QUALITY, RECTIFY, DarknessConfig
from vision.plazing.measures import grey_medians
from vision.plazing.pair_weight import share_pair

RESOURCE = "resource/"


def sand_grey(board: np.ndarray, boxes: np.ndarray, bare, measures=None) -> float:
    """The median grey (mean of B, G, R) of the outer bands (``QUALITY.faint_band_mm``) of the
    ``bare`` cells, [(row, col)]; ``board``: BGR uint8 (H, W, 3); ``boxes``: int (rows, cols, 4) px;
    ``measures``: the reading's :class:`~vision.plazing.measures.CellMeasures` of that board, when
    given (each cell's band then measured once per reading).
    Returns: float, grey levels (nan without bare cells)."""
    if not len(bare):
        return float("nan")
    if measures is None:
        vals = band_grey_medians(board, boxes, bare)
    else:
        vals = measures.memo("band_grey", lambda cells: band_grey_medians(measures.board, measures.boxes, cells)).get(bare)
    return float(np.median(vals.tolist()))


def band_grey_medians(board: np.ndarray, boxes: np.ndarray, cells) -> np.ndarray:
    """float32 (len(cells),): each cell's median grey (mean of B, G, R) over its outer band
    (``QUALITY.faint_band_mm``); ``board``: BGR uint8 (H, W, 3); ``boxes``: int (rows, cols, 4) px;
    ``cells``: [(row, col)]."""
    out = np.zeros(len(cells), np.float32)
    band = max(1, int(round(QUALITY.faint_band_mm * RECTIFY.px_per_mm)))
    # the cells grouped by their box's shape, each group's bands' medians taken at once
    by: dict = {}
    for i, (r, c) in enumerate(cells):
        u0, v0, u1, v1 = (int(v) for v in boxes[r, c])
        patch = board[v0:v1, u0:u1]
        by.setdefault(patch.shape, []).append((i, patch))
    for shape, got in by.items():
        outer = np.ones(shape[:2], bool)
        outer[band:-band, band:-band] = False
        out[[i for i, _ in got]] = grey_medians(np.stack([p for _, p in got])[:, outer])
    return out


def dark_ratio(board: np.ndarray, boxes: np.ndarray, cells, sand: float,
               cfg: DarknessConfig = DARKNESS, measures=None) -> np.ndarray:
    """The ``cfg.quantile`` percentile of grey in each cell's centred square (side
    ``cfg.centre_share`` of its box) over ``sand`` (:func:`sand_grey`).

    Args:
        board: BGR uint8 (H, W, 3); boxes: int (rows, cols, 4) each cell's ``(u0, v0, u1, v1)`` px;
        cells: [(row, col)]; sand: grey levels.
        measures: the reading's :class:`~vision.plazing.measures.CellMeasures` of that board, when
            given (each cell's percentile then taken once per reading).
    Returns:
        float64 (len(cells),), a ratio (nan where ``sand`` is not positive).
    """
    out = np.full(len(cells), np.nan)
    if not len(cells) or not sand > 0:
        return out
    if measures is None:
        return centre_percentiles(board, boxes, cells, cfg) / sand
    memo = measures.memo(("dark", cfg.quantile, cfg.centre_share),
                         lambda todo: centre_percentiles(measures.board, measures.boxes, todo, cfg))
    return memo.get(cells) / sand


def centre_percentiles(board: np.ndarray, boxes: np.ndarray, cells, cfg: DarknessConfig = DARKNESS) -> np.ndarray:
    """float64 (len(cells),): the ``cfg.quantile`` percentile of grey (mean of B, G, R) in each
    cell's centred square (side ``cfg.centre_share`` of its box), grey levels; arguments as
    :func:`dark_ratio`."""
    out = np.full(len(cells), np.nan)
    by: dict = {}   # the centres grouped by their shape, each group's percentiles taken at once
    for i, (r, c) in enumerate(cells):
        u0, v0, u1, v1 = (int(v) for v in boxes[r, c])
        h = max(1, int(round(0.5 * cfg.centre_share * (u1 - u0))))
        cu, cv = (u0 + u1) // 2, (v0 + v1) // 2
        patch = board[max(cv - h, 0):cv + h, max(cu - h, 0):cu + h]
        by.setdefault(patch.shape, []).append((i, patch))
    for shape, got in by.items():
        grey = np.stack([p for _, p in got]).astype(np.float32).mean(axis=3).reshape(len(got), -1)
        out[[i for i, _ in got]] = np.percentile(grey, cfg.quantile, axis=1).astype(np.float64)
    return out


def learn_darkness(ratios) -> dict:
    """Each resource class's centre darkness as the calibration's labelled samples show it.

    Args:
        ratios: [(class name, :func:`dark_ratio` value)] of the labelled tokens.
    Returns:
        {resource class: [mean, sd, count]} (sd 0 for one sample); other classes left out.
    """
    by: dict = {}
    for name, x in ratios:
        if name.startswith(RESOURCE) and np.isfinite(x):
            by.setdefault(name, []).append(float(x))
    return {k: [float(np.mean(v)), float(np.std(v)), len(v)] for k, v in sorted(by.items())}


def log_likelihood(x, stats, floor: float, nu: float):
    """ln p(x | a class) up to a constant shared by the classes: a Student t with ``nu`` degrees of
    freedom (heavy tails: a shell's dark crease or a shadow across it does not decide alone; a
    Gaussian when ``nu`` is infinite) around the class's learned mean, its variance the samples'
    sd² + ``floor``². ``stats``: ``[mean, sd, count]`` (:func:`learn_darkness`); ``x``: a ratio."""
    st = np.asarray(stats, np.float64)
    v = st[..., 1] ** 2 + floor ** 2
    d2 = (np.asarray(x, np.float64) - st[..., 0]) ** 2 / v
    if not np.isfinite(nu):
        return -0.5 * d2 - 0.5 * np.log(v)
    return -0.5 * (nu + 1.0) * np.log1p(d2 / nu) - 0.5 * np.log(v)


def weigh_two(p: float, q: float, x: float, a, b, floor: float, nu: float) -> tuple[float, float]:
    """Two classes' posteriors ``p``, ``q`` weighed by the likelihoods of the darkness ``x`` under
    each (``a``, ``b``: their ``[mean, sd, count]``, :func:`log_likelihood`), keeping their sum."""
    return share_pair(p, q, float(log_likelihood(x, a, floor, nu) - log_likelihood(x, b, floor, nu)))


def farthest_pair(model: dict) -> tuple[str, str] | None:
    """The two learned resource classes whose calibration darkness lies farthest apart (their
    means), the pair the darkness tells apart best; None with fewer than two."""
    names = sorted(model)
    if len(names) < 2:
        return None
    return max(((a, b) for i, a in enumerate(names) for b in names[i + 1:]),
               key=lambda ab: abs(model[ab[0]][0] - model[ab[1]][0]))


def resource_pairs(post: np.ndarray, names: list, model: dict) -> list:
    """The cells to weigh: per row of ``post`` (float (N, K + 2), [empty, classes …, unknown])
    whose most probable known class is one of :func:`farthest_pair`, ``(i, k_top, k_other)``: its
    index, that class's and the pair's other class's."""
    pair = farthest_pair(model)
    if pair is None or not all(n in names for n in pair):
        return []
    ka, kb = names.index(pair[0]), names.index(pair[1])
    top = np.argmax(post[:, :-1], axis=1)
    return [(i, int(top[i]), kb if top[i] == ka else ka) for i in np.nonzero(np.isin(top, (ka, kb)))[0].tolist()]


def weigh_darkness(post: np.ndarray, names: list, free, board: np.ndarray, boxes: np.ndarray, model: dict | None,
                   cfg: DarknessConfig = DARKNESS, *, measures=None) -> list:
    """Weigh, in place, each cell read as one of the :func:`farthest_pair` resources against the
    other by its centre's darkness (:func:`dark_ratio` against the sand of the cells read bare), the pair
    keeping its joint mass (:func:`weigh_two`: a Student t of ``cfg.t_dof`` degrees of freedom,
    widened by ``cfg.floor``). Nothing is weighed when ``cfg.floor`` is 0 (not fitted), without a learned
    model, or without a cell read bare.

    Args:
        post: float (N, K + 2) token posteriors of the ``free`` cells; names: their class names.
        board, boxes: as :func:`dark_ratio`; model: :func:`learn_darkness`'s (None: a calibration
            made without it).
        measures: the reading's :class:`~vision.plazing.measures.CellMeasures` of ``board``, when
            given (the cells' bands and centres then measured once per reading).
    Returns:
        [(cell, ratio)] of the cells weighed.
    """
    if not model or cfg.floor <= 0:
        return []
    pairs = resource_pairs(post, names, model)
    if not pairs:
        return []
    known = np.argmax(post[:, :-1], axis=1)
    bare = [free[i] for i in np.nonzero(known == names.index("empty"))[0].tolist()] if "empty" in names else []
    x = dark_ratio(board, boxes, [free[i] for i, _, _ in pairs], sand_grey(board, boxes, bare, measures), cfg,
                   measures)
    out = []
    for (i, a, b), xi in zip(pairs, x.tolist()):
        if not np.isfinite(xi):
            continue
        post[i, a], post[i, b] = weigh_two(float(post[i, a]), float(post[i, b]), xi, model[names[a]], model[names[b]],
                                           cfg.floor, cfg.t_dof)
        out.append((free[i], xi))
    return out
