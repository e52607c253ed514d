"""Where to write each point's label on a picture so that no label covers another or a marked point."""

from __future__ import annotations

import numpy as np


def place_labels(points, sizes, gap: float, keep_clear: float, bounds=None) -> list[tuple[int, int]]:
    """The bottom-left corner (px) of each label, for ``cv2.putText``, in the order given.

    Each label tries four spots in turn: right of its point, left, above, below (``gap`` px from the
    point). It takes the first spot that covers no label placed before it, no point's disc of
    radius ``keep_clear`` px and nothing outside the picture; when every spot covers something, the
    one covering the least area.

    Args:
        points: ``(x, y)`` px of the marked points, shape (N, 2).
        sizes: ``(width, height)`` px of each label's text, shape (N, 2).
        gap: distance (px) from a point to its label.
        keep_clear: radius (px) around every point that no label may cover.
        bounds: ``(width, height)`` px of the picture, or None for no edge.
    Returns:
        N ``(x, y)`` integer corners.

    >>> place_labels([(100, 100), (100, 100)], [(50, 10), (50, 10)], gap=10, keep_clear=8)
    [(110, 105), (40, 105)]
    """
    pts = np.asarray(points, float).reshape(-1, 2)
    discs = [(x - keep_clear, y - keep_clear, x + keep_clear, y + keep_clear) for x, y in pts]
    placed: list[tuple[float, float, float, float]] = []
    out = []
    for (x, y), (w, h) in zip(pts, np.asarray(sizes, float).reshape(-1, 2)):
        spots = [(x + gap, y + h / 2), (x - gap - w, y + h / 2), (x - w / 2, y - gap), (x - w / 2, y + gap + h)]
        boxes = [(sx, sy - h, sx + w, sy) for sx, sy in spots]
        covered = [sum(_overlap(b, o) for o in placed + discs) + _outside(b, bounds) for b in boxes]
        k = int(np.argmin(covered))  # the first of the least covered: right when nothing is in the way
        placed.append(boxes[k])
        out.append((int(round(spots[k][0])), int(round(spots[k][1]))))
    return out


def _overlap(a, b) -> float:
    """Area (px²) shared by boxes ``a`` and ``b``, each ``(left, top, right, bottom)``."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _outside(box, bounds) -> float:
    """Area (px²) of ``box`` outside a picture of ``bounds`` (width, height); 0 without bounds."""
    if bounds is None:
        return 0.0
    area = (box[2] - box[0]) * (box[3] - box[1])
    return area - _overlap(box, (0.0, 0.0, float(bounds[0]), float(bounds[1])))
