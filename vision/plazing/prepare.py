"""Stages 1–2 — a registered photo made into a top view in the calibration's light.

Input: the registered photo, the learned model, the grid, the terrain. Output: :class:`Prepared`:
the rectified views (:class:`~vision.plazing.rectify.Rectified`), the light's correction — global
gains and, for uneven light, a smooth field, both measured on the printed frame that no game
changes, then a field measured on the sand no piece covers (:mod:`vision.plazing.lighting`) — and
the :class:`~vision.plazing.view.View` of the corrected grid (pixel labels, cover per cell). Dark,
glared and blurred photos are refused here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.plazing.cells import Grid
from vision.plazing.checks import check_quality
from vision.plazing.config import QUALITY, RECTIFY
from vision.plazing.lighting import (cell_sands, cells_to_pixels, field_at, frame_mask, lighting_field, lighting_gains,
                                     sand_correction)
from vision.plazing.model import ReaderModel
from vision.plazing.rectify import Rectified, scratch_arrays
from vision.plazing.view import View


@dataclass
class Prepared:
    """A photo ready to be read.

    Attributes:
        rect: the rectified grid crop and small whole-board view.
        view: the light-corrected grid, labelled (:class:`~vision.plazing.view.View`).
        gains: float32 (3,) global B, G, R gains to the calibration's light.
        coef: the smooth light field's coefficients (None when the light is even).
        frame: bool mask of the printed frame in ``rect.small``.
        reference: the calibration's small board view (None for a calibration without it).
    """

    rect: Rectified
    view: View
    gains: np.ndarray
    coef: np.ndarray | None
    frame: np.ndarray
    reference: np.ndarray | None


def prepare(photo, model: ReaderModel, grid: Grid, terrain: np.ndarray) -> Prepared:
    """Rectify, correct the light, label; refuse photos that cannot be read.

    Raises:
        UnreadableBoardError: ``too-dark``, ``glare``, ``too-blurred``.
    """
    profile = photo.calibration.profile
    ppm = RECTIFY.px_per_mm
    scratch = scratch_arrays()
    rect = Rectified(photo.image, photo.registration.H_px_from_mm, profile, grid, scratch)
    frame = frame_mask(rect.small.shape, grid, QUALITY.px_per_mm)
    gains = lighting_gains(rect.small, model.reference_small, frame, model.median)
    # uneven light (a lamp to one side, a vignette, a soft shadow): a smooth gain field fitted on
    # the printed frame evens it out before any cell is judged
    coef = lighting_field(rect.small, model.reference_small, frame, gains)
    board, small = None, rect.small
    if coef is not None:
        fld = field_at(coef, rect.crop.shape, rect.offset_mm, ppm, profile["board_mm"])
        board = np.clip(rect.crop * (np.asarray(gains, np.float32) * fld[..., None]), 0, 255).astype(np.uint8)
        fq = field_at(coef, rect.small.shape, (0.0, 0.0), QUALITY.px_per_mm, profile["board_mm"])
        small = np.clip(rect.small * fq[..., None], 0, 255).astype(np.uint8)
    view = View(rect, gains, model.table, len(model.players), terrain, board=board, scratch=scratch)
    check_quality(small, view.gains, model, grid)
    return Prepared(rect, view, gains, coef, frame, model.reference_small)


def even_on_sand(prep: Prepared, model: ReaderModel, terrain: np.ndarray) -> bool:
    """Even the light out against what is bare at this moment inside the grid — the sand no piece
    covers (:func:`~vision.plazing.lighting.sand_correction`) — and label the grid again
    (``prep.view`` is replaced). Returns whether anything changed."""
    if model.sand is None:
        return False
    view = prep.view
    corr = sand_correction(cell_sands(view.board, view.cells), (view.owner < 0) & (terrain != "#"),
                           model.sand, model.sand_bare)
    if corr is None:
        return False
    fld = cells_to_pixels(corr, prep.rect.local, prep.rect.crop.shape, RECTIFY.px_per_mm)
    board = np.clip(view.board * fld, 0, 255).astype(np.uint8)
    prep.view = View(prep.rect, prep.gains, model.table, len(model.players), terrain, board=board,
                     scratch=scratch_arrays())
    return True
