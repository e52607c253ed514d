"""``np.median`` and ``np.percentile`` of 1-D arrays without their overhead (the same values).

A scan takes a few dozen medians and quantiles of small arrays (a castle's grey levels, a line
fit's residuals, the noise samples of the foreground): numpy's general versions (any axis, NaN
checks, ``np.mean`` of the middle pair) cost several times the partition they rest on. These give
bit for bit what numpy gives for a finite array (flattened) (``tests/vision/test_strand_stats.py``).
"""

from __future__ import annotations

import numpy as np

from vision.image.quality import median_last


def median(a: np.ndarray) -> float:
    """``float(np.median(a))`` of a non-empty finite array, flattened (:func:`vision.image.quality.median_last`)."""
    return float(median_last(np.asarray(a).ravel()))


def percentile(a: np.ndarray, q: float) -> float:
    """``float(np.percentile(a, q))`` (linear interpolation) of a non-empty finite array, flattened."""
    a = np.asarray(a).ravel()
    n = a.shape[0]
    v = (q / 100.0) * (n - 1)
    lo = int(np.floor(v))
    hi = min(lo + 1, n - 1)
    g = v - lo
    p = np.partition(a, (lo, hi)) if hi != lo else np.partition(a, lo)
    x0, x1 = p[lo], p[hi]
    d = x1 - x0
    return float(x1 - d * (1 - g)) if g >= 0.5 else float(x0 + d * g)
