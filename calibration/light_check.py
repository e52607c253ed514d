"""Does the calibration shot's light let the reader tell its classes apart? Said before the first game.

Input: the game, profile, calibration shot (undistorted BGR uint8) with its homography board mm →
px, the labelled samples and the model the reader learned from them.
Output: the JSON kept in the calibration folder (``separability``): every colour pair's
Bhattacharyya distance and error bound (:mod:`calibration.separability`), the threshold used,
and ``confusable``: the pairs above it, each with the game's words and what helps
(:mod:`calibration.advice`), after the labelled samples the reader kept although they look like
another class (``model["doubted_samples"]``), the places the shot shows blown out by a lamp's
reflection (``model["glared_cells"]``, Seashells) and the colour columns whose shells and bare
towel look alike (Seashells: ``columns``, each column's bare towel doubt,
:mod:`vision.seashells.column_light`, above ``column_threshold``). A good table gives an empty
``confusable``.
"""

from __future__ import annotations

import numpy as np

from calibration.advice import column_advice, glare_advice, pair_advice
from calibration.class_colours import class_colours, colour_pairs
from calibration.separability import confusable, fitted_column_doubt, fitted_threshold, separations


def light_check(game: str, profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray,
                samples: list[tuple[str, tuple[float, float]]], model: dict, threshold: float | None = None,
                column_threshold: float | None = None, columns=None) -> dict:
    """Measure how well each pair of labelled classes separates on the calibration shot.

    Args:
        threshold: error bound above which a pair is confusable (default: the fitted one,
            :func:`~calibration.separability.fitted_threshold`).
        column_threshold: bare towel doubt above which a colour column is named (default: the
            fitted one, :func:`~calibration.separability.fitted_column_doubt`; games without colour
            columns have none).
        columns: the reader's column measure (:meth:`vision.types.Reader.light_columns`), or None.
    Returns:
        ``{"threshold": float, "pairs": [{"classes", "distance", "error_bound"}],
        "confusable": [{"classes": [a, b], "advice": str, "error_bound": float}]}`` (worst first);
        Seashells adds ``"column_threshold": float, "columns": [{"column", "doubt", "empty_samples"}]``,
        and a named column's ``confusable`` entry carries ``"column"`` and ``"doubt"``.
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
    measured = column_check(game, profile, image, H_px_from_mm, samples, model, column_threshold, columns)
    named += measured.pop("named", [])
    seen = {frozenset(p["classes"]) for p in named}
    return {"threshold": limit, "pairs": [p.to_json() for p in found], **measured,
            "confusable": named + [p for p in pairs if frozenset(p["classes"]) not in seen]}


def column_check(game: str, profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray,
                 samples: list[tuple[str, tuple[float, float]]], model: dict, limit: float | None = None,
                 columns=None) -> dict:
    """The colour columns whose shells and bare towel look alike on the calibration shot (Seashells).

    Args:
        limit: bare towel doubt above which a column is named (default: the fitted one).
        columns: ``(profile, image, H, samples, model) -> [{"column", "doubt", "empty_samples"}] | None``,
            the reader's measure (:meth:`vision.types.Reader.light_columns`); None: no colour columns.
    Returns:
        ``{}`` for a game without colour columns (or without a fitted threshold); else
        ``{"column_threshold": float, "columns": [{"column", "doubt", "empty_samples"}], "named":
        [confusable entries, worst first]}`` (a column without an ``empty`` sample names, as
        ``bare_cell_mm``, the free cell its advice suggests labelling). A column whose cells the glare check names already
        (``model["glared_cells"]``, ``shape/column``) is not named twice: the lamp is said there.
    """
    limit = fitted_column_doubt(game) if limit is None else float(limit)
    measured = None if columns is None or limit is None else columns(profile, image, H_px_from_mm, samples, model)
    if measured is None:
        return {}
    glared = {str(cell).rsplit("/", 1)[-1] for cell in model.get("glared_cells", [])}
    weak = sorted((c for c in measured if c["doubt"] > limit and c["column"] not in glared), key=lambda c: -c["doubt"])
    named = [{"classes": ["shell", "empty"], "column": c["column"], "doubt": c["doubt"],
              "advice": column_advice(game, c["column"], c["empty_samples"], c.get("bare_cell_mm")),
              **({"bare_cell_mm": c["bare_cell_mm"]} if c.get("bare_cell_mm") and not c["empty_samples"] else {})}
             for c in weak]
    return {"column_threshold": limit, "columns": measured, "named": named}


def doubted_sample_pair(game: str, doubted: dict) -> dict:
    """A kept calibration sample that looks like another class (``model["doubted_samples"]``) as a
    confusable pair whose advice names the sample."""
    x, y = doubted["board_mm"]
    label, other = doubted["label"], doubted["looks_like"]
    advice = (f"calibration sample {label!r} at {x:g},{y:g} mm looks more like {other!r} than like the other "
              f"{label!r} samples; check its label and point. If they are right, "
              f"{pair_advice(game, label, other)}")
    return {"classes": [label, other], "advice": advice, "sample_mm": [x, y]}
