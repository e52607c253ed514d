"""A pale piece's outline against a pale towel: the evidence its colour contrast misses.

On the white column a thin white starfish or a faint white shell differs from its towel by a
few ΔE, as little as an unevenly lit empty cell (docs/tuning.md, Seashells). What still shows is
its outline: the shading and edges at a piece's scale, which bare towel lacks. Each cell's
*outline contrast* is the 95th percentile over its core of the lightness' band-pass (difference of
Gaussians at ``outline_scales_mm``) magnitude, less that of its own ring. The calibration shot's
labelled samples give what an empty cell (every column) and each pale column's shell look like
(:func:`learn_outline`); a pale column's cell then weighs this evidence with its colour contrast
(:func:`with_outline`), as an independent feature of the column's shell and empty classes.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.mats.config import SEASHELLS as CFG
from vision.mats.ring_contrast import core_ring_quantiles
from vision.seashells.columns import pale_columns


def outline_contrast(lab: np.ndarray, boxes_mm) -> np.ndarray:
    """Outline contrast of every towel cell, float64 (N,), lightness units (8-bit Lab L).

    Args:
        lab: rectified board, float32 (H, W, 3) Lab at ``CFG.px_per_mm``; boxes_mm: (N, 4) equal cells x0, y0, x1, y1.
    """
    ppm = CFG.px_per_mm
    L = np.ascontiguousarray(lab[..., 0], np.float32)
    fine, coarse = (cv2.GaussianBlur(L, (0, 0), s * ppm) for s in CFG.outline_scales_mm)
    core, ring = core_ring_quantiles(np.abs(fine - coarse), boxes_mm, ppm, CFG.core_inset_mm, CFG.ring_mm,
                                     CFG.outline_quantile)
    return (core - ring).astype(np.float64)


def learn_outline(values, labels, cells, column_shells, n_cols: int) -> dict | None:
    """What an empty cell and each pale column's shell look like in outline contrast.

    Args:
        values: float64 (N,) the towel samples' outline contrast; labels: N ``shell``/``empty``;
            cells: N cell indices (row-major); column_shells: the calibrated shells' mean contrast
            per column (:func:`vision.seashells.columns.column_shell_features`); n_cols: C.
    Returns:
        ``{"empty": [mean, variance], "shells": [[column, mean], …]}`` (JSON), the variance floored at
        ``outline_var_floor``; None without an empty sample or a pale column's shell sample.
    """
    values, labels = np.asarray(values, np.float64), np.asarray(labels)
    columns = np.asarray(cells, int) % n_cols
    pale = pale_columns(column_shells, n_cols)
    empty = values[labels == "empty"]
    shells = [[int(c), round(float(values[(labels == "shell") & (columns == c)].mean()), 4)]
              for c in np.unique(columns[labels == "shell"]) if pale[c]]
    if not len(empty) or not shells:
        return None
    return {"empty": [round(float(empty.mean()), 4), round(max(float(empty.var()), CFG.outline_var_floor), 4)],
            "shells": shells}


def outline_log_ratio(values: np.ndarray, model: dict | None, n_cols: int) -> np.ndarray:
    """Log-likelihood ratio shell : empty of every cell's outline contrast, float64 (N,); 0 outside
    the pale columns with a calibrated shell.

    The empty class is the samples' (mean, floored variance); a column's shell class is centred on its
    calibrated shell and spreads as far as the empty mean (``broadened``'s rule), floored. Contrast is
    one-sided: a cell plainer than an empty one counts as the empty mean, and one with more outline than
    the calibrated shell as that shell.
    """
    values = np.asarray(values, np.float64)
    out = np.zeros(len(values))
    if not model:
        return out
    e_mean, e_var = model["empty"]
    column = np.arange(len(values)) % n_cols
    for c, s_mean in model["shells"]:
        sel = column == c
        x = np.maximum(values[sel], e_mean)
        s_var = max((s_mean - e_mean) ** 2, CFG.outline_var_floor)
        xs = np.minimum(x, s_mean) if s_mean > e_mean else x
        out[sel] = (-0.5 * ((xs - s_mean) ** 2 / s_var + np.log(s_var))
                    + 0.5 * ((x - e_mean) ** 2 / e_var + np.log(e_var)))
    return out


def outline_evidence(lab: np.ndarray, boxes_mm, model: dict | None, n_cols: int) -> np.ndarray:
    """:func:`outline_log_ratio` of every towel cell of a photo, float64 (N,); zeros, and nothing
    measured, for a calibration without outline classes (``lab``, ``boxes_mm``: as
    :func:`outline_contrast`)."""
    if not model:
        return np.zeros(len(np.asarray(boxes_mm).reshape(-1, 4)))
    return outline_log_ratio(outline_contrast(lab, boxes_mm), model, n_cols)


def with_outline(p_shell: np.ndarray, log_ratio: np.ndarray) -> np.ndarray:
    """p(shell) float64 (N,) with the outline evidence ``log_ratio`` (:func:`outline_log_ratio`) added
    to its log odds (the two features independent given the class)."""
    p = np.clip(np.asarray(p_shell, np.float64), 1e-12, 1 - 1e-12)
    return 1.0 / (1.0 + np.exp(-(np.log(p / (1 - p)) + log_ratio)))
