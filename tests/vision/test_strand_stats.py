"""The Strand unter reader's faster equivalents give numpy's values bit for bit (the speed round
changed no reading: these are what it rests on)."""

import cv2
import numpy as np
import pytest

from vision.strand_unter import colour, stats


def _arrays(seed, count=400):
    rng = np.random.default_rng(seed)
    for t in range(count):
        n = int(rng.integers(1, 300))
        kind = t % 5
        if kind == 0:
            yield rng.integers(0, 50, n).astype(np.int16)              # the foreground's |change| samples
        elif kind == 1:
            yield np.abs(rng.integers(-300, 300, n)).astype(np.int16)
        elif kind == 2:
            yield rng.normal(100, 30, n).astype(np.float32)             # grey levels of a castle
        elif kind == 3:
            yield rng.normal(0, 1, n)                                   # residuals of a fit
        else:
            yield np.round(rng.normal(0, 3, (n, 2)), 1).astype(np.float32)   # (flattened, as numpy does)


@pytest.mark.parametrize("seed", [0, 1])
def test_median_and_percentile_are_numpys(seed):
    for a in _arrays(seed):
        assert stats.median(a) == float(np.median(a)), a
        for q in (25, 50, 10, 75, 33.3):
            assert stats.percentile(a, q) == float(np.percentile(a, q)), (a, q)


def test_median_leaves_its_input_alone():
    a = np.array([5.0, 1.0, 4.0, 2.0])
    stats.median(a)
    stats.percentile(a, 25)
    assert a.tolist() == [5.0, 1.0, 4.0, 2.0]


def _cloth_edge_reference(sea_px, window_px):
    """The cloth edge as computed before the speed round (np.median, np.linalg.lstsq)."""
    h = sea_px.shape[0]
    S = cv2.integral(sea_px.astype(np.uint8), sdepth=cv2.CV_32S)
    above = np.diff(S[1:], axis=1)
    score = 2 * above - np.arange(1, h + 1, dtype=np.int32)[:, None]
    edge = np.where(score.max(axis=0) > 0, np.argmax(score, axis=0) + 1, 0).astype(np.float32)
    win = max(3, int(window_px) | 1)
    start = np.median(np.lib.stride_tricks.sliding_window_view(np.pad(edge, win // 2, mode="edge"), win), axis=1)
    w = len(edge)
    if w < 8 or not np.any(edge > 0):
        return start
    X = np.column_stack([np.ones(w), np.arange(w, dtype=np.float64) / w])
    coef, *_ = np.linalg.lstsq(X, start, rcond=None)
    sigma = 1.5
    for _ in range(6):
        r = edge - X @ coef
        sigma = max(1.4826 * float(np.median(np.abs(r))), 1.5)
        z = r / (4.685 * sigma)
        wts = np.where(np.abs(z) < 1, (1 - z * z) ** 2, 0.0)
        if (wts > 0).sum() < w // 4:
            return start
        sw = np.sqrt(wts)
        coef, *_ = np.linalg.lstsq(X * sw[:, None], edge * sw, rcond=None)
    line = X @ coef
    return np.where(start - line > 3 * sigma, start, line).astype(start.dtype)


def test_cloth_edge_is_the_lstsq_fit():
    rng = np.random.default_rng(3)
    for _ in range(300):
        h, w = int(rng.integers(20, 300)), int(rng.integers(8, 480))
        tilt = rng.normal(0, 0.05)
        sea = np.arange(h)[:, None] < (rng.integers(0, h) + tilt * np.arange(w))[None, :]
        sea ^= rng.random((h, w)) < rng.choice([0.0, 0.05, 0.3])
        window = int(rng.choice([15, 30, 31, 61]))
        got, want = colour.cloth_edge(sea, window), _cloth_edge_reference(sea, window)
        assert got.dtype == want.dtype and np.array_equal(got, want)
