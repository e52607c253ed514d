"""Plażing: a neutral marker told from a resource by how flat its centre is.

Input: the rectified, light-normalised board (marks painted over) and the cells' boxes; at
calibration the labelled neutral markers and resources and their pasted variants; at a scan the
token posteriors of the free cells. Output: per class the spread of its centre as the calibration
shows it (:func:`learn_flatness`); at a scan, the posteriors of the cells torn between a neutral
marker and a resource weighed by how likely their centre's spread is under each
(:func:`weigh_flatness`).

Idea: a neutral marker is a flat cardboard disc, one ink over the cell's whole centre; a shell, an
amber or a pebble is a small solid object whose highlight and shade lie inside that centre. Their
colours can meet (a grey marker turns pink where the sand's red channel is clipped and the light
normalisation overshoots it; a shell on a printed spot is a disc of the spot's size), their
centre's spread does not: at 720p (0.8–0.9 px/mm) the development tables' markers show an
L* spread under 1 inside 3 mm of the centre, shells 1.4–10.
"""

from __future__ import annotations

import numpy as np

from vision.plazing.config import FLATNESS, FlatnessConfig

NEUTRAL = "neutral"
RESOURCE = "resource/"


def weighed(name: str) -> bool:
    """Whether a token class is one the flatness weighs: a neutral marker or a resource."""
    return name == NEUTRAL or name.startswith(RESOURCE)


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
            pasted variants.
    Returns:
        {class: [mean, sd, count]} for every neutral-marker or resource class seen (sd 0 for one value).
    """
    by: dict = {}
    for name, x in spreads:
        if weighed(name):
            by.setdefault(name, []).append(float(x))
    return {k: [float(np.mean(v)), float(np.std(v)), len(v)] for k, v in sorted(by.items())}


def flatness_log_ratio(x: float, a: list, b: list, cfg: FlatnessConfig = FLATNESS) -> float:
    """ln p(x | class a) − ln p(x | class b): Gaussians of each class's learned mean and sd
    (``[mean, sd, count]``, :func:`learn_flatness`) widened by ``cfg.floor`` (a scene's centre
    varies more than the calibration's variants of one sample show)."""
    va, vb = a[1] ** 2 + cfg.floor ** 2, b[1] ** 2 + cfg.floor ** 2
    return float(-0.5 * ((x - a[0]) ** 2 / va - (x - b[0]) ** 2 / vb) - 0.5 * np.log(va / vb))


def torn_cells(post: np.ndarray, names: list, model: dict) -> list:
    """The cells read as a neutral marker or a resource, both learned in ``model``, to weigh: per
    cell of ``post`` (float (N, K + 2), [empty, classes …, unknown]) whose most probable known class
    is one of them, ``(i, k_neutral, k_resource)``: its index, and the class indexes of the neutral
    marker and of its most probable resource."""
    kn = names.index(NEUTRAL) if NEUTRAL in names and NEUTRAL in model else -1
    res = [k for k, n in enumerate(names) if n.startswith(RESOURCE) and n in model]
    if kn < 0 or not res:
        return []
    top = np.argmax(post[:, :-1], axis=1)
    kr = np.array(res)[np.argmax(post[:, res], axis=1)]
    return [(i, kn, int(kr[i])) for i in range(len(post)) if top[i] == kn or top[i] in res]


def weigh_flatness(post: np.ndarray, names: list, free, board: np.ndarray, boxes: np.ndarray, model: dict | None,
                   share: float, cfg: FlatnessConfig = FLATNESS) -> list:
    """Weigh, in place, the posteriors of the free cells read as a neutral marker or a resource
    (:func:`torn_cells`) by their centre's spread (:func:`centre_spread`): the neutral marker
    against the most probable resource, the two keeping their joint mass.

    Args:
        post: float (N, K + 2) token posteriors of the ``free`` cells, names: their class names.
        board, boxes: as :func:`centre_spread`; model: :func:`learn_flatness`'s (None: nothing
            learned, nothing weighed); share: the centre square's side, share of a cell.
    Returns:
        [(cell, spread, log ratio neutral : resource)] of the cells weighed.
    """
    if not model or cfg.floor <= 0:
        return []
    torn = torn_cells(post, names, model)
    if not torn:
        return []
    xs = centre_spread(board, boxes, [free[i] for i, _, _ in torn], share)
    out = []
    for (i, kn, kr), x in zip(torn, xs.tolist()):
        lr = flatness_log_ratio(x, model[NEUTRAL], model[names[kr]], cfg)
        total = post[i, kn] + post[i, kr]
        pn = total / (1.0 + np.exp(-np.clip(lr + np.log(max(post[i, kn], 1e-300) / max(post[i, kr], 1e-300)), -700, 700)))
        post[i, kn], post[i, kr] = pn, total - pn
        out.append((free[i], x, lr))
    return out
