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
    for i, (r, c) in enumerate(cells):
        u0, v0, u1, v1 = (int(x) for x in boxes[r, c])
        half = max(1, int(round(0.5 * share * (u1 - u0))))
        cu, cv = (u0 + u1) // 2, (v0 + v1) // 2
        patch = board[max(cv - half, 0):cv + half, max(cu - half, 0):cu + half].reshape(-1, 3).astype(np.float64)
        out[i] = np.log1p(patch.std(axis=0).mean()) if len(patch) else 0.0
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


def log_likelihood(x: float, stats: list, floor: float) -> float:
    """ln p(x | a class) up to a constant: a Gaussian of the class's learned mean and sd
    (``[mean, sd, count]``, :func:`learn_flatness`) widened by ``floor`` (a scene's centre varies
    more than the calibration's variants of one sample show)."""
    v = stats[1] ** 2 + floor ** 2
    return float(-0.5 * (x - stats[0]) ** 2 / v - 0.5 * np.log(v))


def torn_cells(post: np.ndarray, names: list, model: dict) -> list:
    """The cells to weigh: per cell of ``post`` (float (N, K + 2), [empty, classes …, unknown])
    whose most probable known class is bare sand, a neutral marker or a resource,
    ``(i, k_resource)``: its index and that of its most probable resource learned in ``model``."""
    res = [k for k, n in enumerate(names) if n.startswith(RESOURCE) and n in model]
    if not res:
        return []
    top = np.argmax(post[:, :-1], axis=1)
    kr = np.array(res)[np.argmax(post[:, res], axis=1)]
    return [(i, int(kr[i])) for i in range(len(post)) if weighed(names[top[i]])]


def weigh_pair(p: float, q: float, x: float, a: list, b: list, floor: float) -> tuple[float, float]:
    """Two classes' posteriors ``p``, ``q`` weighed by the likelihoods of the spread ``x`` under each
    (``a``, ``b``: their ``[mean, sd, count]``, :func:`log_likelihood`), keeping their sum."""
    z = log_likelihood(x, a, floor) - log_likelihood(x, b, floor) + np.log(max(p, 1e-300)) - np.log(max(q, 1e-300))
    pa = (p + q) / (1.0 + np.exp(-np.clip(z, -700.0, 700.0)))
    return float(pa), float(p + q - pa)


def weigh_flatness(post: np.ndarray, names: list, free, board: np.ndarray, boxes: np.ndarray, model: dict | None,
                   share: float, cfg: FlatnessConfig = FLATNESS) -> list:
    """Weigh, in place, the posteriors of the free cells read as bare sand, a neutral marker or a
    resource (:func:`torn_cells`) by their centre's spread (:func:`centre_spread`): the neutral
    marker against the most probable resource, then bare sand against it (each pair keeping its
    joint mass, with its own ``cfg.floors``; bare sand and a marker are both flat, never weighed
    against each other).

    Args:
        post: float (N, K + 2) token posteriors of the ``free`` cells, names: their class names.
        board, boxes: as :func:`centre_spread`; model: :func:`learn_flatness`'s (None: nothing
            learned, nothing weighed); share: the centre square's side, share of a cell.
    Returns:
        [(cell, spread)] of the cells weighed.
    """
    pairs = [(names.index(n), cfg.floors[n]) for n in (NEUTRAL, EMPTY)
             if n in names and model and n in model and cfg.floors.get(n, 0.0) > 0]
    torn = torn_cells(post, names, model) if pairs else []
    if not torn:
        return []
    xs = centre_spread(board, boxes, [free[i] for i, _ in torn], share)
    for (i, kr), x in zip(torn, xs.tolist()):
        for k, floor in pairs:
            post[i, k], post[i, kr] = weigh_pair(post[i, k], post[i, kr], x, model[names[k]], model[names[kr]], floor)
    return [(free[i], x) for (i, _), x in zip(torn, xs.tolist())]
