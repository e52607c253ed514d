"""How a confidence is shown to a person: one rule for the pictures, the pages and the text."""

from __future__ import annotations

import math


def confidence_percent(confidence: float | None) -> int:
    """A confidence in [0, 1] as a whole percent: cut, never rounded up, so that 0.992 shows 99 %
    and only a sure reading (1.0) shows 100 %; None or NaN shows 0.

    >>> confidence_percent(0.992), confidence_percent(1.0), confidence_percent(0.5749), confidence_percent(None)
    (99, 100, 57, 0)
    """
    if confidence is None or not math.isfinite(float(confidence)):
        return 0
    return min(100, max(0, math.floor(float(confidence) * 100 + 1e-9)))
