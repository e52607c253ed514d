"""Plażing: a meeple and a resource told apart by how much of the cell their colour covers.

Input: the rectified, light-normalised board, the cells' boxes, the free cells' token posteriors;
at calibration the labelled meeples and resources. Output: per cell the area (mm²) near its centre
whose chromaticity differs from the sand around (:func:`coloured_area`); per class that area as
the calibration shot shows it (:func:`learn_footprint`); the posteriors of the cells read as a
meeple or a resource weighed by it (:func:`weigh_footprint`): around the set-up's own calibration
values when it learned both classes (``FootprintConfig.setup_spread``), else the global Gaussians.

Idea: a meeple, arms spread and standing, covers most of its 20 mm cell seen from above (its
parallax stretches it further away from the camera's nadir); an amber is a pebble-sized lump. The
area of the cell's colour that is not the sand's (a shadow, darker sand of the same chromaticity,
does not count) tells them apart where their colours meet.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.plazing.config import FOOTPRINT, FootprintConfig
from vision.plazing.measures import channel_medians
from vision.plazing.pair_weight import share_pair


def chroma_from_sand(windows: np.ndarray) -> np.ndarray:
    """float32 (n, S, S): each pixel's Lab chroma distance (a, b of OpenCV's 8-bit Lab) from the
    median a, b of its window's outer 2 px ring (the sand around the cell).

    Args:
        windows: BGR uint8 (n, S, S, 3), S > 4.
    """
    w = np.asarray(windows)
    n, s = w.shape[0], w.shape[1]
    if n == 0:
        return np.zeros((0, s, s), np.float32)
    lab8 = cv2.cvtColor(w.reshape(n * s, s, 3), cv2.COLOR_BGR2LAB).reshape(n, s, s, 3)
    ring = np.ones((s, s), bool)
    ring[2:-2, 2:-2] = False
    sand = channel_medians(lab8[:, ring, 1:])  # float32 (n, 2): np.median of the float32 a, b, by counting
    lab = lab8.astype(np.float32)
    return np.linalg.norm(lab[..., 1:] - sand[:, None, None, :], axis=-1)


def disc(side: int, px_per_mm: float, radius_mm: float) -> np.ndarray:
    """bool (side, side): the pixels within ``radius_mm`` of the window's centre ((side − 1)/2 px)."""
    c = (side - 1) / 2.0
    yy, xx = np.mgrid[0:side, 0:side]
    return ((xx - c) ** 2 + (yy - c) ** 2) <= (radius_mm * px_per_mm) ** 2


def coloured_area(windows: np.ndarray, px_per_mm: float, radius_mm: float, chroma_floor: float,
                  core_mm: float | None = None) -> np.ndarray:
    """float64 (n,): the area, mm², within ``radius_mm`` of each window's centre whose chroma
    distance from the sand around (:func:`chroma_from_sand`) exceeds ``chroma_floor``; with
    ``core_mm``, only the parts of it (8-connected) that reach within ``core_mm`` of the centre
    (a neighbour's piece reaching into the disc is no part of this cell's token).

    Args:
        windows: BGR uint8 (n, S, S, 3) centred on the cells; px_per_mm: their scale.
    """
    ch = chroma_from_sand(windows)
    if not len(ch):
        return np.zeros(0, np.float64)
    side = ch.shape[1]
    on = (ch > chroma_floor) & disc(side, px_per_mm, radius_mm)[None]
    if core_mm is not None:
        # every window side by side, a blank column between (no 8-connected part crosses it): one labelling
        n = len(on)
        strip = np.zeros((side, n, side + 1), np.uint8)
        strip[:, :, :side] = on.transpose(1, 0, 2)
        _, lab = cv2.connectedComponents(strip.reshape(side, n * (side + 1)), connectivity=8)
        lab = lab.reshape(side, n, side + 1)[:, :, :side].transpose(1, 0, 2)
        core = disc(side, px_per_mm, core_mm)[None] & on
        keep = np.unique(lab[core])
        on = np.isin(lab, keep[keep > 0])
    return on.sum(axis=(1, 2)).astype(np.float64) / px_per_mm ** 2


def cell_windows(board: np.ndarray, boxes: np.ndarray, cells, share: float) -> np.ndarray:
    """BGR uint8 (len(cells), S, S, 3): the square of side ``share`` of a cell (S px) centred on
    each cell of ``board`` (BGR uint8 (H, W, 3)); ``boxes``: int (rows, cols, 4) every cell's
    ``(u0, v0, u1, v1)`` px. Beyond the board's edge its edge pixels are repeated."""
    if not len(cells):
        return np.zeros((0, 1, 1, 3), np.uint8)
    b0 = boxes[tuple(cells[0])]
    side = int(round(share * (b0[2] - b0[0])))
    h = side // 2
    rc = np.asarray([tuple(c) for c in cells], int).reshape(-1, 2)
    b = boxes[rc[:, 0], rc[:, 1]].astype(np.int64)
    # each centre rounded half to even, as Python's round of the cell's 0.5 (u0 + u1) − 0.5
    cu = np.round(0.5 * (b[:, 0] + b[:, 2]) - 0.5).astype(np.int64)
    cv = np.round(0.5 * (b[:, 1] + b[:, 3]) - 0.5).astype(np.int64)
    d = np.arange(side) - h
    ys = np.clip(cv[:, None] + d[None, :], 0, board.shape[0] - 1)  # (n, S)
    xs = np.clip(cu[:, None] + d[None, :], 0, board.shape[1] - 1)
    return board[ys[:, :, None], xs[:, None, :]]


def learn_footprint(areas) -> dict:
    """Each meeple and resource class's footprint as the calibration's labelled samples show it.

    Args:
        areas: [(class name, ln(1 + coloured area in mm², :func:`coloured_area`))] of the labelled
            tokens.
    Returns:
        {class: [mean, sd, count]} of ln(1 + mm²) (sd 0 for one sample); other classes left out.
    """
    by: dict = {}
    for name, x in areas:
        if name.startswith(("meeple/", "resource/")) and np.isfinite(x):
            by.setdefault(name, []).append(float(x))
    return {k: [round(float(np.mean(v)), 4), round(float(np.std(v)), 4), len(v)] for k, v in sorted(by.items())}


def calibration_footprint(board: np.ndarray, boxes: np.ndarray, samples, px_per_mm: float,
                          cfg: FootprintConfig = FOOTPRINT) -> dict:
    """:func:`learn_footprint` of the labelled ``samples`` [(label, (row, col))] measured on the
    calibration's ``board`` (BGR uint8 (H, W, 3)) as a scan measures its cells."""
    kept = [(lab, tuple(rc)) for lab, rc in samples if lab.startswith(("meeple/", "resource/"))]
    if not kept:
        return {}
    x = np.log1p(coloured_area(cell_windows(board, boxes, [rc for _, rc in kept], cfg.window_share), px_per_mm,
                               cfg.radius_mm, cfg.chroma_floor, cfg.core_mm))
    return learn_footprint([(lab, v) for (lab, _), v in zip(kept, x.tolist())])


def pair_stats(ka: str, kb: str, learned: dict | None, cfg: FootprintConfig = FOOTPRINT):
    """The Gaussians ([mean, sd] of ln(1 + mm²)) a meeple class ``ka`` and a resource class ``kb``
    are weighed with, and the cap on |ln LR|: the set-up's calibration values, each sd widened by
    its kind's ``cfg.setup_spread``, capped at ``cfg.setup_cap``, when the calibration learned both
    and the spreads are fitted; else the global fitted classes (``cfg.classes``, widened by
    ``cfg.floor``, capped at ``cfg.cap``); None when neither is there."""
    sp = cfg.setup_spread
    if learned and ka in learned and kb in learned and sp.get("meeple/", 0) > 0 and sp.get("resource/", 0) > 0:
        a, b = learned[ka], learned[kb]
        return ((a[0], float(np.hypot(a[1], sp["meeple/"]))), (b[0], float(np.hypot(b[1], sp["resource/"]))),
                cfg.setup_cap)
    a, b = stats_of(ka, cfg.classes), stats_of(kb, cfg.classes)
    if a is None or b is None or cfg.cap <= 0:
        return None
    return ((a[0], float(np.hypot(a[1], cfg.floor))), (b[0], float(np.hypot(b[1], cfg.floor))), cfg.cap)


def stats_of(name: str, classes: dict):
    """A class's fitted [mean, sd] of ln(1 + area), else its kind's (``meeple/``, ``resource/``), else None."""
    return classes.get(name) or classes.get(name.split("/")[0] + "/")


def log_ratio(x, a, b, floor: float):
    """ln p(x | a) − ln p(x | b) for Gaussians ``a``, ``b`` ([mean, sd]) each sd widened by ``floor``;
    x a value or float (n,) array."""
    sa, sb = np.hypot(a[1], floor), np.hypot(b[1], floor)
    x = np.asarray(x, np.float64)
    return -0.5 * ((x - a[0]) / sa) ** 2 - np.log(sa) + 0.5 * ((x - b[0]) / sb) ** 2 + np.log(sb)


def weigh_footprint(post: np.ndarray, names: list, free, board: np.ndarray, boxes: np.ndarray,
                    px_per_mm: float, learned: dict | None = None, cfg: FootprintConfig = FOOTPRINT) -> list:
    """Weigh, in place, each free cell read as a meeple or a resource: its most probable meeple
    against its most probable resource by the likelihood ratio of its coloured area
    (:func:`coloured_area`, ln(1 + mm²)) under the pair's Gaussians (:func:`pair_stats`: the
    set-up's calibration values when ``learned`` has both, else the global fits), capped,
    keeping the pair's joint mass. Nothing is weighed unless ``cfg.weigh``.

    Args:
        post: float (N, K + 2) token posteriors of the ``free`` cells ([empty, classes …, unknown]),
            names: their class names; board: the light-normalised rectified board, BGR uint8;
            boxes: int (rows, cols, 4) every cell's px box; px_per_mm: the board's scale.
        learned: the calibration's :func:`learn_footprint` (None: a calibration made without it).
        cfg: the fitted :class:`~vision.plazing.config.FootprintConfig`.
    Returns:
        [(cell, ln(1 + area))] of the cells weighed.
    """
    if not cfg.weigh or not len(free):
        return []
    known = post[:, :-1]
    meeples = [k for k, n in enumerate(names[:-1]) if n.startswith("meeple/")]
    resources = [k for k, n in enumerate(names[:-1]) if n.startswith("resource/")]
    if not meeples or not resources:
        return []
    top = np.argmax(known, axis=1)
    torn = np.nonzero(np.isin(top, meeples + resources))[0]
    if not len(torn):
        return []
    km = np.array(meeples)[np.argmax(known[torn][:, meeples], axis=1)]
    kr = np.array(resources)[np.argmax(known[torn][:, resources], axis=1)]
    stats = [pair_stats(names[a], names[b], learned, cfg) for a, b in zip(km.tolist(), kr.tolist())]
    ok = np.array([s is not None for s in stats])
    if not ok.any():
        return []
    torn, km, kr = torn[ok], km[ok], kr[ok]
    stats = [s for s in stats if s is not None]
    cells = [tuple(free[i]) for i in torn.tolist()]
    x = np.log1p(coloured_area(cell_windows(board, boxes, cells, cfg.window_share), px_per_mm, cfg.radius_mm,
                               cfg.chroma_floor, cfg.core_mm))
    a = np.array([s[0] for s in stats], np.float64).T
    b = np.array([s[1] for s in stats], np.float64).T
    cap = np.array([s[2] for s in stats], np.float64)
    post[torn, km], post[torn, kr] = share_pair(post[torn, km], post[torn, kr],
                                                np.clip(log_ratio(x, a, b, 0.0), -cap, cap))
    return list(zip(cells, x.tolist()))
