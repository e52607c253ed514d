"""Does the calibration shot's light let the reader tell its classes apart? Said before the first game.

Input: the game, profile, calibration shot (undistorted BGR uint8) with its homography board mm →
px, the labelled samples and the model the reader learned from them.
Output: the JSON kept in the calibration folder (``separability``): every colour pair's
Bhattacharyya distance and error bound (:mod:`calibration.separability`), the threshold used,
and ``confusable``: the pairs above it, each with the game's words and what helps
(:mod:`calibration.advice`). A good table gives an empty ``confusable``.
"""

from __future__ import annotations

import numpy as np

from calibration.advice import pair_advice
from calibration.class_colours import class_colours, colour_pairs
from calibration.separability import confusable, fitted_threshold, separations


def light_check(game: str, profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray,
                samples: list[tuple[str, tuple[float, float]]], model: dict, threshold: float | None = None) -> dict:
    """Measure how well each pair of labelled classes separates on the calibration shot.

    Args:
        threshold: error bound above which a pair is confusable (default: the fitted one,
            :func:`~calibration.separability.fitted_threshold`).
    Returns:
        ``{"threshold": float, "pairs": [{"classes", "distance", "error_bound"}],
        "confusable": [{"classes": [a, b], "advice": str, "error_bound": float}]}`` (worst first).
    """
    limit = fitted_threshold(game) if threshold is None else float(threshold)
    colours = class_colours(game, profile, image, H_px_from_mm, samples, model)
    found = separations(colours, colour_pairs(game, sorted(colours)))
    bad = confusable(found, limit)
    return {"threshold": limit, "pairs": [p.to_json() for p in found],
            "confusable": [{"classes": list(p.classes), "advice": pair_advice(game, *p.classes),
                            "error_bound": round(p.error, 4)} for p in bad]}
