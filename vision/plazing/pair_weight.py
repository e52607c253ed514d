"""Plażing: two classes' posteriors weighed by a cue's likelihood ratio, keeping their joint mass.

The flatness, darkness and footprint cues each weigh one class of a cell against another
(:mod:`~vision.plazing.flatness`, :mod:`~vision.plazing.darkness`, :mod:`~vision.plazing.footprint`):
the pair's odds are multiplied by the cue's likelihood ratio and the pair keeps the probability
it had, so no third class gains or loses.
"""

from __future__ import annotations

import numpy as np


def share_pair(p, q, log_ratio):
    """The posteriors of two classes, ``p`` and ``q`` (scalars or float (n,) arrays), after their
    odds are multiplied by exp(``log_ratio``) (ln p(cue | first) − ln p(cue | second)), their sum kept.

    Returns:
        (p', q') as float64, p' + q' = p + q.
    """
    z = log_ratio + np.log(np.maximum(p, 1e-300)) - np.log(np.maximum(q, 1e-300))
    pa = (p + q) / (1.0 + np.exp(-np.clip(z, -700.0, 700.0)))
    return pa, p + q - pa
