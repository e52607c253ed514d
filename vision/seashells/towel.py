"""The towel of a Seashells mat: its cells in board millimetres (checked against the board), their
contrast, and each cell's shell posterior as a scan judges it.

The reader judges each towel cell by its centre (``SeashellsConfig.core_inset_mm`` in from every
side) against a ring around it, so a cell must leave a centre; the towel and the basket must lie
on the board the profile describes.
"""

from __future__ import annotations

import numpy as np

from vision.errors import BadInputError
from vision.mats.config import SEASHELLS as CFG
from vision.mats.ring_contrast import GaussianClasses, denoised_contrast_features
from vision.seashells.columns import column_posterior, level_columns
from vision.seashells.outline import outline_evidence, with_outline

#: The narrowest centre (mm) a cell must leave inside ``core_inset_mm`` on each side.
MIN_CENTRE_MM = 2.0


def towel_geometry(profile: dict) -> tuple[np.ndarray, list[str], list[str]]:
    """Towel cells of a Seashells mat profile.

    Args:
        profile: the mat profile (``board_mm``; ``towel`` with ``origin_mm``, ``cell_mm``, ``rows``,
            ``cols``; ``basket_mm``).
    Returns:
        ``(boxes_mm, rows, cols)``: float64 (R·C, 4) cell boxes x0, y0, x1, y1 in mm, row-major
        (row = shape, column = colour); the shape names; the colour names.
    Raises:
        BadInputError: ``invalid-profile`` when the towel or basket is missing or malformed, a cell
            too small to leave a centre, names repeated, or the towel or basket off the board.
    """
    towel = profile.get("towel")
    try:
        ox, oy = (float(v) for v in towel["origin_mm"])
        cell = float(towel["cell_mm"])
        rows, cols = [str(r) for r in towel["rows"]], [str(c) for c in towel["cols"]]
        basket = np.asarray(profile["basket_mm"], np.float64)
        width, height = (float(v) for v in profile["board_mm"])
    except (TypeError, KeyError, ValueError):
        raise BadInputError("invalid-profile", "seashells profile needs board_mm, towel {origin_mm, cell_mm, rows, "
                            "cols} and basket_mm") from None
    if not rows or not cols or basket.ndim != 2 or basket.shape[1] != 2 or len(basket) < 3:
        raise BadInputError("invalid-profile", "seashells profile: rows and cols non-empty, basket_mm a polygon of "
                            "≥ 3 [x, y] points")
    least = 2 * CFG.core_inset_mm + MIN_CENTRE_MM
    if not np.isfinite([ox, oy, cell]).all() or cell < least:
        raise BadInputError("invalid-profile", f"seashells profile: towel cell_mm is {cell:g}; a cell must be at "
                            f"least {least:g} mm wide for its centre to be read")
    if len(set(rows)) < len(rows) or len(set(cols)) < len(cols):
        raise BadInputError("invalid-profile", "seashells profile: each towel row (shape) and column (colour) "
                            "needs its own name")
    tol = 1e-6 * max(width, height)
    if ox < -tol or oy < -tol or ox + len(cols) * cell > width + tol or oy + len(rows) * cell > height + tol:
        raise BadInputError("invalid-profile", f"seashells profile: the towel ({len(cols)} × {cell:g} mm by "
                            f"{len(rows)} × {cell:g} mm from {ox:g},{oy:g} mm) runs off the {width:g}×{height:g} "
                            "mm board")
    if not (np.isfinite(basket).all() and (basket >= -tol).all() and (basket[:, 0] <= width + tol).all()
            and (basket[:, 1] <= height + tol).all()):
        raise BadInputError("invalid-profile", "seashells profile: basket_mm runs off the board")
    r, c = np.mgrid[0:len(rows), 0:len(cols)]
    x0, y0 = ox + c.ravel() * cell, oy + r.ravel() * cell
    return np.stack([x0, y0, x0 + cell, y0 + cell], axis=1), rows, cols


def cell_of(boxes: np.ndarray, x: float, y: float) -> int | None:
    """The index of the towel cell (``boxes``, (N, 4) mm) holding board point (x, y) mm, or None."""
    inside = (boxes[:, 0] <= x) & (x < boxes[:, 2]) & (boxes[:, 1] <= y) & (y < boxes[:, 3])
    idx = np.flatnonzero(inside)
    return int(idx[0]) if len(idx) else None


def towel_contrast(lab: np.ndarray, boxes: np.ndarray):
    """Noise-corrected contrast of every towel cell (:func:`vision.mats.ring_contrast.denoised_contrast_features`).

    Args:
        lab: the rectified mat, Lab float32 (H, W, 3) at ``CFG.px_per_mm``; boxes: (N, 4) towel cells, mm.
    """
    return denoised_contrast_features(lab, boxes, CFG.px_per_mm, CFG.core_inset_mm, CFG.ring_mm, CFG.smooth_px)


def towel_shell_posterior(judge: GaussianClasses, feats: np.ndarray, lab: np.ndarray, boxes: np.ndarray,
                          model: dict, n_cols: int) -> np.ndarray:
    """p(shell) of every towel cell: each colour column levelled, each cell judged against its own
    column's shells, a pale column's cell with its outline (:mod:`vision.seashells.columns`,
    :mod:`vision.seashells.outline`).

    Args:
        judge: the towel classes; feats: float64 (R·C, F) the cells' contrast features clipped below
            at the empty mean; lab, boxes: as :func:`towel_contrast`; model: the reader's learned
            model; n_cols: C.
    Returns:
        float64 (R·C,), row-major (row = shape, column = colour).
    """
    feats = level_columns(judge, feats, model.get("column_shells"), n_cols)
    return with_outline(column_posterior(judge, feats, model.get("column_shells"), n_cols),
                        outline_evidence(lab, boxes, model.get("outline"), n_cols))
