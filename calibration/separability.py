"""How well two labelled classes' colours separate: the Bhattacharyya bound on telling them apart.

Input: two classes' colours as Gaussians in Lab (mean (3,), covariance (3, 3)), learned from the
calibration shot's labelled samples (:mod:`calibration.class_colours`).
Output: the Bhattacharyya distance ``D_B`` and the bound it puts on the error of the best
possible decision between the two classes from one pixel's colour, with equal priors:
``½·exp(−D_B)`` (Fukunaga, *Introduction to Statistical Pattern Recognition*, 2nd ed., §3.4).
The bound is a probability: 0.5 means the light makes the two classes one colour, a bound near
0 means any pixel tells them apart. A pair is *confusable* when its bound exceeds the game's threshold
that ``scripts/fit_confusable.py`` chose on development tables (``confusable.json`` beside this
module, which names the seeds and lights).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

#: The fitted threshold and its evidence (written by ``scripts/fit_confusable.py``).
FITTED_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "confusable.json")


@dataclass(frozen=True)
class ColourClass:
    """One labelled class's colour: a Gaussian in 8-bit OpenCV Lab units.

    Attributes:
        label: the class's name (a calibration label or a reader's class name).
        mean: float64 (3,) L, a, b.
        cov: float64 (3, 3) covariance.
    """

    label: str
    mean: np.ndarray
    cov: np.ndarray


def bhattacharyya(a: ColourClass, b: ColourClass) -> float:
    """Bhattacharyya distance between two Gaussian classes (≥ 0, unitless).

    ``D_B = ⅛ Δμᵀ Σ⁻¹ Δμ + ½ ln(det Σ / √(det Σa · det Σb))`` with ``Σ = (Σa + Σb) / 2``.

    >>> g = ColourClass("x", np.zeros(3), np.eye(3))
    >>> bhattacharyya(g, g)
    0.0
    >>> round(bhattacharyya(g, ColourClass("y", np.array([4.0, 0, 0]), np.eye(3))), 3)
    2.0
    """
    d = np.asarray(b.mean, np.float64) - np.asarray(a.mean, np.float64)
    ca, cb = np.asarray(a.cov, np.float64), np.asarray(b.cov, np.float64)
    s = 0.5 * (ca + cb)
    mean_term = 0.125 * float(d @ np.linalg.solve(s, d))
    _, ld = np.linalg.slogdet(s)
    _, la = np.linalg.slogdet(ca)
    _, lb = np.linalg.slogdet(cb)
    return max(float(mean_term + 0.5 * (ld - 0.5 * (la + lb))), 0.0)


def error_bound(distance: float) -> float:
    """Bhattacharyya bound on the two-class error with equal priors, ``½·exp(−D_B)`` in [0, 0.5].

    >>> error_bound(0.0)
    0.5
    """
    return 0.5 * float(np.exp(-distance))


@dataclass(frozen=True)
class PairSeparation:
    """How well one pair of classes separates on the calibration shot.

    Attributes:
        classes: the two labels, in the order the game lists them.
        distance: Bhattacharyya distance.
        error: its error bound (:func:`error_bound`), a probability in [0, 0.5].
    """

    classes: tuple[str, str]
    distance: float
    error: float

    def to_json(self) -> dict:
        """``{"classes": [a, b], "distance": float, "error_bound": float}`` (rounded)."""
        return {"classes": list(self.classes), "distance": round(self.distance, 3), "error_bound": round(self.error, 4)}


def separations(classes: dict[str, ColourClass], pairs: list[tuple[str, str]]) -> list[PairSeparation]:
    """Every listed pair's separation (pairs naming a class not in ``classes`` are skipped)."""
    out = []
    for a, b in pairs:
        if a in classes and b in classes:
            dist = bhattacharyya(classes[a], classes[b])
            out.append(PairSeparation((a, b), dist, error_bound(dist)))
    return out


def fitted_threshold(game: str, path: str = FITTED_PATH) -> float:
    """The error bound above which a pair of ``game``'s classes is confusable (``confusable.json``:
    ``error_bound`` per game; a game without development tables of its own takes ``default``, the
    bound fitted for the games measured the same way).

    Raises:
        OSError, ValueError, KeyError: the fitted file is missing or malformed (a packaging fault).
    """
    with open(path, encoding="utf-8") as f:
        bounds = json.load(f)["error_bound"]
    return float(bounds.get(game, bounds["default"]))


def fitted_column_doubt(game: str, path: str = FITTED_PATH) -> float | None:
    """The bare towel doubt above which a colour column's shells and bare towel look alike
    (``confusable.json``: ``column_doubt`` per game, fitted by ``scripts/fit_confusable.py
    --seashells-columns``); None for a game whose reader does not judge by colour column.

    Raises:
        OSError, ValueError: the fitted file is missing or malformed (a packaging fault).
    """
    with open(path, encoding="utf-8") as f:
        limits = json.load(f).get("column_doubt", {})
    return float(limits[game]) if game in limits else None


def confusable(found: list[PairSeparation], threshold: float) -> list[PairSeparation]:
    """The pairs whose error bound exceeds ``threshold``, worst first."""
    return sorted((p for p in found if p.error > threshold), key=lambda p: -p.error)
