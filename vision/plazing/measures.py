"""Plażing: one scan's per-cell measurements of the rectified board, each taken once.

Input: the light-normalised rectified board of one reading and its cells' boxes. Output: the
measurements the token cues take of single cells (the median of the outer band, the centre's
spread, the centre's dark percentile), memoised per cell, so that the first token pass, the
drifted second pass and the occlusion check share them instead of measuring again.

Every value is the one the cue's own function gives for that cell (each is a function of the cell's
pixels alone, whatever other cells are measured with it), so the readings do not change.
"""

from __future__ import annotations

import numpy as np


class CellMemo:
    """Per-cell values of one measurement, each cell measured at most once.

    ``measure(cells) -> ndarray (len(cells), ...)`` measures a list of (row, col) cells at once;
    :meth:`get` returns the values of any cells, measuring only those not seen before.
    """

    def __init__(self, measure):
        self._measure = measure
        self._seen: dict = {}

    def get(self, cells) -> np.ndarray:
        """ndarray (len(cells), ...): the values of ``cells`` [(row, col)], in their order."""
        cells = [tuple(c) for c in cells]
        todo = list(dict.fromkeys(c for c in cells if c not in self._seen))
        if todo:
            for c, v in zip(todo, self._measure(todo)):
                self._seen[c] = v
        if not cells:
            return self._measure([])
        return np.stack([self._seen[c] for c in cells])


class CellMeasures:
    """The memoised per-cell measurements of one reading's ``board`` (BGR uint8 (H, W, 3)) with
    ``boxes`` (int (rows, cols, 4), each cell's ``(u0, v0, u1, v1)`` px at ``RECTIFY.px_per_mm``).
    The cues measure ``board`` and ``boxes`` through it (the board they are given is this one); a
    board changed or replaced needs new measures.

    Attributes (each a :class:`CellMemo`, created on first use):
        band_grey: float32 (n,) the median grey of each cell's outer band
            (:func:`~vision.plazing.darkness.band_grey_medians`).
        band_bgr: float32 (n, 3) the median BGR of each cell's outer band
            (:func:`~vision.plazing.read_tokens.band_colours`).
        spread: float64 (n,) the centre's spread (:func:`~vision.plazing.flatness.centre_spread`),
            for one centre share.
        dark: float64 (n,) the centre's dark percentile (:func:`~vision.plazing.darkness.centre_percentiles`),
            for one darkness configuration.
    """

    def __init__(self, board: np.ndarray, boxes: np.ndarray):
        self.board, self.boxes = board, boxes
        self._memos: dict = {}

    def memo(self, key, measure) -> CellMemo:
        """The :class:`CellMemo` of ``key`` (created with ``measure`` the first time)."""
        if key not in self._memos:
            self._memos[key] = CellMemo(measure)
        return self._memos[key]


#: float32 (766,): the grey (mean of B, G, R, as float32, the way ``ndarray.mean`` takes it) of a
#: pixel whose B + G + R is the index (the float32 sum of three 8-bit levels is exact).
GREY_OF_SUM = np.stack([np.arange(766), np.zeros(766), np.zeros(766)], axis=1).astype(np.float32).mean(axis=1)

#: float32 (256,): an 8-bit level as float32.
LEVEL = np.arange(256).astype(np.float32)


def kth_smallest(values: np.ndarray, ks, top: int) -> list:
    """Each row's ``k``-th smallest value (0-based) for every ``k`` of ``ks``, by counting.

    Args:
        values: int (n, m), each in [0, ``top``].
    Returns:
        [int64 (n,)] one per ``k``.
    """
    n = values.shape[0]
    bins = top + 1
    flat = (np.arange(n, dtype=np.int64)[:, None] * bins + values).ravel()
    cum = np.bincount(flat, minlength=n * bins).reshape(n, bins).cumsum(axis=1)
    return [np.count_nonzero(cum <= k, axis=1) for k in ks]


def row_medians(values: np.ndarray, top: int, lut: np.ndarray) -> np.ndarray:
    """float32 (n,): ``np.median(lut[values], axis=1)``, bit for bit, taken by counting instead of
    partitioning (``lut``: float32 (top + 1,), increasing; ``values``: int (n, m), m > 0, each in
    [0, ``top``]): the middle order statistic, or the float32 mean of the middle two, as
    ``np.median`` takes it."""
    m = values.shape[1]
    if m % 2:
        (mid,) = kth_smallest(values, [m // 2], top)
        return lut[mid][:, None].mean(axis=1)
    lo, hi = kth_smallest(values, [m // 2 - 1, m // 2], top)
    return np.stack([lut[lo], lut[hi]], axis=1).mean(axis=1)


def grey_medians(pixels: np.ndarray) -> np.ndarray:
    """float32 (n,): ``np.median(pixels.astype(np.float32).mean(axis=2), axis=1)`` bit for bit;
    ``pixels``: uint8 (n, m, 3) BGR (with m = 0 or n = 0, ``np.median`` itself)."""
    if not pixels.shape[0] or not pixels.shape[1]:
        return np.median(pixels.astype(np.float32).mean(axis=2), axis=1)
    sums = pixels.astype(np.int64).sum(axis=2)
    return row_medians(sums, 765, GREY_OF_SUM)


def channel_medians(pixels: np.ndarray) -> np.ndarray:
    """float32 (n, 3): ``np.median(pixels.astype(np.float32), axis=1)`` bit for bit; ``pixels``:
    uint8 (n, m, 3) (with m = 0 or n = 0, ``np.median`` itself)."""
    n, m, c = pixels.shape
    if not n or not m:
        return np.median(pixels.astype(np.float32), axis=1)
    per = pixels.transpose(0, 2, 1).reshape(n * c, m)
    return row_medians(per, 255, LEVEL).reshape(n, c)
