"""Plażing: bare sand, a neutral marker and a resource told apart by how flat the cell's centre is.

Input: the rectified, light-normalised board (marks painted over) and the cells' boxes; at
calibration the labelled neutral markers and resources, their pasted variants and the bare cells;
at a scan the token posteriors of the free cells. Output: per class the spread of its centre as
the calibration shows it (:func:`learn_flatness`); at a scan, the posteriors of the cells read as
bare sand, a neutral marker or a resource weighed by how likely their centre's spread is under
each (:func:`weigh_flatness`).

Idea: a neutral marker is a flat cardboard disc, one ink over the cell's whole centre, and bare
sand (a printed resource spot too) is flat; a shell, an amber or a pebble is a small solid whose
highlight and shade lie inside that centre. Their colours can meet (a grey marker turns pink where
the sand's red channel is clipped and the light normalisation overshoots it; a dim shell on a
printed spot has the spot's mean colour), their centre's spread does not: on the development
tables at 720p (0.8–0.9 px/mm) ln(1 + the spread in BGR levels) is 0.4–1.4 on markers, under 1
on bare calibration cells, 1.3–4 on shells (docs/tuning.md, "Flat or not").
"""

from __future__ import annotations

import numpy as np

from vision.plazing.config import FLATNESS, FlatnessConfig
from vision.plazing.pair_weight import share_pair
from vision.plazing.tokens import EMPTY

NEUTRAL = "neutral"
RESOURCE = "resource/"


def weighed(name: str) -> bool:
    """Whether a class is one the flatness weighs: bare sand, a neutral marker or a resource."""
    return name in (EMPTY, NEUTRAL) or name.startswith(RESOURCE)


def centre_spread(board: np.ndarray, boxes: np.ndarray, cells, share: float) -> np.ndarray:
    """How much the centre of each cell varies: ln(1 + the mean over B, G, R of the standard
    deviation inside the cell's centred square of side ``share`` of its box).

    Args:
        board: BGR uint8 (H, W, 3), the rectified board; boxes: int (rows, cols, 4) each cell's
            ``(u0, v0, u1, v1)`` px; cells: [(row, col)].
    Returns:
        float64 (len(cells),), ln of (1 + BGR levels).
    """
    out = np.zeros(len(cells), np.float64)
    if not len(cells):
        return out
    rc = np.asarray(cells, int).reshape(-1, 2)
    b = boxes[rc[:, 0], rc[:, 1]].astype(int)
    half = np.maximum(1, np.round(0.5 * share * (b[:, 2] - b[:, 0])).astype(int))
    cu, cv = (b[:, 0] + b[:, 2]) // 2, (b[:, 1] + b[:, 3]) // 2
    for h in np.unique(half).tolist():  # cells of one size as one stack of patches
        rows = np.nonzero(half == h)[0]
        d = np.arange(-h, h)
        ys = np.clip(cv[rows, None, None] + d[None, :, None], 0, board.shape[0] - 1)
        xs = np.clip(cu[rows, None, None] + d[None, None, :], 0, board.shape[1] - 1)
        patches = board[ys, xs].astype(np.float64).reshape(len(rows), -1, 3)
        out[rows] = np.log1p(patches.std(axis=1).mean(axis=1))
    return out


def learn_flatness(spreads) -> dict:
    """Each weighed class's centre spread as the calibration shows it.

    Args:
        spreads: [(class name, :func:`centre_spread` value)] of the labelled tokens and their
            pasted variants, and of the bare cells (``empty``).
    Returns:
        {class: [mean, sd, count]} for bare sand and every neutral-marker or resource class seen
        (sd 0 for one value).
    """
    by: dict = {}
    for name, x in spreads:
        if weighed(name):
            by.setdefault(name, []).append(float(x))
    return {k: [float(np.mean(v)), float(np.std(v)), len(v)] for k, v in sorted(by.items())}


def log_likelihood(x, stats, floor: float):
    """ln p(x | a class) up to a constant: a Gaussian of the class's learned mean and sd
    (``[mean, sd, count]``, :func:`learn_flatness`; or float (n, 3) of them, one per x) widened by
    ``floor`` (a scene's centre varies more than the calibration's variants of one sample show).
    ``x``: a spread or float (n,) of them."""
    st = np.asarray(stats, np.float64)
    v = st[..., 1] ** 2 + floor ** 2
    return -0.5 * (np.asarray(x) - st[..., 0]) ** 2 / v - 0.5 * np.log(v)


def torn_cells(post: np.ndarray, names: list, model: dict) -> list:
    """The cells to weigh: per cell of ``post`` (float (N, K + 2), [empty, classes …, unknown])
    whose most probable known class is bare sand, a neutral marker or a resource,
    ``(i, k_resource)``: its index and that of its most probable resource learned in ``model``."""
    res = [k for k, n in enumerate(names) if n.startswith(RESOURCE) and n in model]
    if not res:
        return []
    top = np.argmax(post[:, :-1], axis=1)
    kr = np.array(res)[np.argmax(post[:, res], axis=1)]
    sel = np.nonzero(np.array([weighed(n) for n in names[:-1]])[top])[0]
    return list(zip(sel.tolist(), kr[sel].tolist()))


def weigh_pair(p, q, x, a, b, floor: float):
    """Two classes' posteriors ``p``, ``q`` weighed by the likelihoods of the spread ``x`` under each
    (``a``, ``b``: their ``[mean, sd, count]``, :func:`log_likelihood`), keeping their sum. Scalars,
    or float (n,) arrays (``a``, ``b`` then (n, 3) or one class's)."""
    p, q = np.asarray(p, np.float64), np.asarray(q, np.float64)
    return share_pair(p, q, log_likelihood(x, a, floor) - log_likelihood(x, b, floor))


def weigh_flatness(post: np.ndarray, names: list, free, board: np.ndarray, boxes: np.ndarray, model: dict | None,
                   share: float, cfg: FlatnessConfig = FLATNESS, spreads: np.ndarray | None = None, *,
                   measures=None) -> list:
    """Weigh, in place, the posteriors of the free cells read as bare sand, a neutral marker or a
    resource (:func:`torn_cells`) by their centre's spread (:func:`centre_spread`): the neutral
    marker against the most probable resource, then bare sand against it (each pair keeping its
    joint mass, with its own ``cfg.floors``; bare sand and a marker are both flat, never weighed
    against each other).

    Args:
        post: float (N, K + 2) token posteriors of the ``free`` cells, names: their class names.
        board, boxes: as :func:`centre_spread`; model: :func:`learn_flatness`'s (None: nothing
            learned, nothing weighed); share: the centre square's side, share of a cell.
        spreads: float64 (N,) every free cell's :func:`centre_spread` when the caller has them
            (then ``board`` and ``boxes`` are not read).
        measures: the reading's :class:`~vision.plazing.measures.CellMeasures` of ``board``, when
            given (each cell's spread then measured once per reading).
    Returns:
        [(cell, spread)] of the cells weighed.
    """
    pairs = [(names.index(n), cfg.floors[n]) for n in (NEUTRAL, EMPTY)
             if n in names and model and n in model and cfg.floors.get(n, 0.0) > 0]
    torn = torn_cells(post, names, model) if pairs else []
    if not torn:
        return []
    idx, kr = (np.array(v, int) for v in zip(*torn))
    if spreads is not None:
        xs = np.asarray(spreads, np.float64)[idx]
    elif measures is not None:
        xs = measures.memo(("spread", share), lambda cells: centre_spread(measures.board, measures.boxes, cells, share)).get(
            [free[i] for i in idx.tolist()])
    else:
        xs = centre_spread(board, boxes, [free[i] for i in idx.tolist()], share)
    resource = np.array([model[names[k]] for k in kr.tolist()], np.float64)
    for k, floor in pairs:
        post[idx, k], post[idx, kr] = weigh_pair(post[idx, k], post[idx, kr], xs, model[names[k]], resource, floor)
    return [(free[i], x) for i, x in zip(idx.tolist(), xs.tolist())]
