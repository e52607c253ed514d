"""Does the calibration shot's light let the reader tell its classes apart? Said before the first game.

Input: the game, profile, calibration shot (undistorted BGR uint8) with its homography board mm →
px, the labelled samples and the model the reader learned from them.
Output: the JSON kept in the calibration folder (``separability``): every colour pair's
Bhattacharyya distance and error bound (:mod:`calibration.separability`), the threshold used,
and ``confusable``: the pairs above it, each with the game's words and what helps
(:mod:`calibration.advice`), after the labelled samples the reader kept although they look like
another class (``model["doubted_samples"]``) and the places the shot shows blown out by a lamp's
reflection (``model["glared_cells"]``, Seashells). A good table gives an empty ``confusable``.
"""

from __future__ import annotations

import numpy as np

from calibration.advice import glare_advice, pair_advice
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
    pairs = [{"classes": list(p.classes), "advice": pair_advice(game, *p.classes), "error_bound": round(p.error, 4)}
             for p in confusable(found, limit)]
    named = [doubted_sample_pair(game, d) for d in model.get("doubted_samples", [])]
    if model.get("glared_cells"):
        named.append({"classes": ["shell", "empty"], "advice": glare_advice(game, model["glared_cells"]),
                      "glared_cells": list(model["glared_cells"])})
    seen = {frozenset(p["classes"]) for p in named}
    return {"threshold": limit, "pairs": [p.to_json() for p in found],
            "confusable": named + [p for p in pairs if frozenset(p["classes"]) not in seen]}


def doubted_sample_pair(game: str, doubted: dict) -> dict:
    """A kept calibration sample that looks like another class (``model["doubted_samples"]``) as a
    confusable pair whose advice names the sample."""
    x, y = doubted["board_mm"]
    label, other = doubted["label"], doubted["looks_like"]
    advice = (f"calibration sample {label!r} at {x:g},{y:g} mm looks more like {other!r} than like the other "
              f"{label!r} samples; check its label and point. If they are right, "
              f"{pair_advice(game, label, other)}")
    return {"classes": [label, other], "advice": advice, "sample_mm": [x, y]}
