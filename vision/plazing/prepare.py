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

import cv2

from vision.plazing.cells import CellBlocks, Grid, lut_index
from vision.plazing.checks import check_quality
from vision.plazing.config import QUALITY, RECTIFY
from vision.plazing.lighting import (cell_sands, cells_to_pixels, field_at, frame_mask, lighting_field, lighting_gains,
                                     sand_correction)
from vision.plazing.model import ReaderModel
from vision.plazing.rectify import Rectified, fine_view, scratch_arrays
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
        clipped: bool (rows, cols), cells whose sand is clipped in the photo and was not in the
            calibration shot (a channel at the sensor's top: part of its colour is lost, and no
            correction brings it back; ``QUALITY.clipped_doubt``): tokens read there are doubted.
        overexposed: bool (rows, cols), the cells of ``clipped`` that lost much of it
            (``QUALITY.clipped_excess``): too many of them refuse the photo (glare).
        at_top: bool (rows, cols), cells whose sand is at the sensor's top in a channel where the
            calibration's was not, however little the light is thought to exceed it there (the light
            field, fitted to that very sand, cannot see past the clip): bare sand read there with a
            token not ruled out is doubted.
        white: float32 (rows, cols), the share of each cell's pixels at the sensor's top in every
            channel (:func:`white_share`; zeros where the calibration's sand was itself so).
    """

    rect: Rectified
    view: View
    gains: np.ndarray
    coef: np.ndarray | None
    frame: np.ndarray
    reference: np.ndarray | None
    clipped: np.ndarray | None = None
    overexposed: np.ndarray | None = None
    white: np.ndarray | None = None
    at_top: np.ndarray | None = None


def prepare(photo, model: ReaderModel, grid: Grid, terrain: np.ndarray, on_sand: bool = True) -> Prepared:
    """Rectify, correct the light, label; refuse photos that cannot be read.

    The corrections multiply into one smooth gain field, computed at a fifth of the crop's
    resolution and applied to it in one pass.

    Args:
        on_sand: also even the light out on the bare sand (:func:`even_on_sand`); the terrain is
            then known (cells of closing terrain are no sand).
    Raises:
        UnreadableBoardError: ``too-dark``, ``glare``, ``too-blurred``.
    """
    profile = photo.calibration.profile
    ppm = RECTIFY.px_per_mm
    scratch = scratch_arrays()
    rect = Rectified(photo.image, photo.registration.H_px_from_mm, profile, grid, scratch)
    frame = frame_mask(rect.small.shape, grid, QUALITY.px_per_mm)
    gains = np.asarray(lighting_gains(rect.small, model.reference_small, frame, model.median, cache=model.derived),
                       np.float32)
    # uneven light (a lamp to one side, a vignette, a soft shadow): a smooth gain field fitted on
    # the printed frame evens it out before any cell is judged …
    coef = lighting_field(rect.small, model.reference_small, frame, gains, cache=model.derived)
    hw = rect.crop.shape[:2]
    low = (max(2, hw[0] // FIELD_STEP), max(2, hw[1] // FIELD_STEP))
    field = np.broadcast_to(gains, low + (3,)).copy()
    small = rect.small
    if coef is not None:
        field *= field_at(coef, low, rect.offset_mm, ppm / (hw[1] / low[1]), profile["board_mm"])[..., None]
        fq = field_at(coef, rect.small.shape, (0.0, 0.0), QUALITY.px_per_mm, profile["board_mm"])
        small = np.clip(rect.small * fq[..., None], 0, 255).astype(np.uint8)
    # … and then against what is bare at this moment inside the grid: the sand no piece covers
    # (each cell's sand measured on the crop and brought through the frame's field at its centre)
    blocks = CellBlocks(rect.local, ppm)
    raw = cell_sands(rect.crop, blocks)
    at_cells = cells_to_pixels_inverse(field, rect.local, hw, grid)
    clipped = overexposed = at_top = np.zeros(raw.shape[:2], bool)
    if model.sand is not None:
        # overexposed: saturated in this photo where the calibration's sand, in this photo's light,
        # would lie well above the sensor's top (a channel the calibration had clipped was learned so)
        expected = model.sand / np.maximum(at_cells, 1e-3)
        top = (raw >= QUALITY.clipped_level) & (model.sand < QUALITY.clipped_level)
        at_top = top.any(axis=-1)
        clipped = (top & (expected >= 255.0 * QUALITY.clipped_doubt)).any(axis=-1)
        overexposed = (top & (expected >= 255.0 * QUALITY.clipped_excess)).any(axis=-1)
    white = white_share(rect.crop, blocks, model.sand)
    corr = None
    if on_sand and model.sand is not None:
        corr = _sand_gains(raw * at_cells, model, np.where(clipped, "#", terrain))  # no overexposed sand
        if corr is not None:
            field *= cells_to_pixels(corr, _scaled(rect.local, hw[1] / low[1]), low, ppm)
    out = scratch("board", hw + (3,), np.uint8)
    if coef is None and corr is None:  # even light: the gains alone
        board = cv2.transform(rect.crop, np.diag(gains).astype(np.float32), dst=out)
    else:
        board = cv2.multiply(rect.crop, cv2.resize(field, (hw[1], hw[0]), interpolation=cv2.INTER_LINEAR),
                             dtype=cv2.CV_8U, dst=out)
    view = View(rect, gains, model.table, len(model.players), terrain, board=board, scratch=scratch)
    check_quality(small, view.gains, model, grid)
    return Prepared(rect, view, gains, coef, frame, model.reference_small, clipped, overexposed, white, at_top)


#: The light's gain field is computed every this many pixels of the crop (it is smooth: a lamp's
#: hot spot spans centimetres) and interpolated in between.
FIELD_STEP = 5


def _scaled(grid: Grid, factor: float) -> Grid:
    """The crop's grid as seen in an image ``factor`` times smaller (its mm scaled alike)."""
    return Grid((grid.origin_mm[0] / factor, grid.origin_mm[1] / factor), grid.cell_mm / factor, grid.rows, grid.cols)


def cells_to_pixels_inverse(field: np.ndarray, local: Grid, hw, grid: Grid) -> np.ndarray:
    """The low-resolution gain ``field`` (h, w, 3) of a crop of size ``hw`` at each cell's centre:
    float32 (rows, cols, 3)."""
    ppm = RECTIFY.px_per_mm
    fy, fx = field.shape[0] / hw[0], field.shape[1] / hw[1]
    rr, cc = np.mgrid[0:grid.rows, 0:grid.cols]
    x = ((local.origin_mm[0] + (cc + 0.5) * local.cell_mm) * ppm * fx).astype(np.float32)
    y = ((local.origin_mm[1] + (rr + 0.5) * local.cell_mm) * ppm * fy).astype(np.float32)
    return cv2.remap(field, x, y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _sand_gains(sands: np.ndarray, model: ReaderModel, terrain: np.ndarray) -> np.ndarray | None:
    """Per-cell gains bringing this photo's bare sand (``sands``: each cell's, in the frame's
    light) to the calibration's (:func:`~vision.plazing.lighting.sand_correction`); cells with a
    player's colour on their ring, or closing terrain, are no sand."""
    ring = np.take(model.table, lut_index(np.clip(sands, 0, 255).astype(np.uint8)))
    bare = (ring >= len(model.players)) & (terrain != "#")
    return sand_correction(sands, bare, model.sand, model.sand_bare, cache=model.derived)


def even_on_sand(prep: Prepared, model: ReaderModel, terrain: np.ndarray) -> None:
    """Even the light out against the bare sand once the terrain is known (read from the photo),
    and label the grid again (``prep.view`` is replaced when anything changed)."""
    if model.sand is None:
        return
    view = prep.view
    corr = _sand_gains(cell_sands(view.board, view.cells), model, terrain)
    if corr is None:
        return
    board = cv2.multiply(view.board, cells_to_pixels(corr, prep.rect.local, view.board.shape[:2], RECTIFY.px_per_mm),
                         dtype=cv2.CV_8U)
    prep.view = View(prep.rect, prep.gains, model.table, len(model.players), terrain, board=board,
                     scratch=scratch_arrays())


def fine_board(photo, prep: Prepared):
    """The grid crop for the seams' dips: sampled from the full-size photo (``photo.full()``) where
    it is read (:func:`~vision.plazing.rectify.fine_view`) and brought to the calibration's light by
    the global gains (the dip is a local difference: the light's smooth field changes it by its few
    per cent). A hairline cut the reduced decode averaged away stays.

    Returns:
        (the crop, indexed as a BGR (H, W, 3) array in the frame of ``prep.rect.local``, its px per
        mm), or None when the photo has no larger size than the reading's.
    """
    full = photo.full() if photo.full is not None else None
    grid = Grid.from_profile(photo.calibration.profile)
    return fine_view(full, photo.image.shape, photo.registration.H_px_from_mm, grid, prep.gains)


def white_share(crop: np.ndarray, cells: CellBlocks, calibration_sand: np.ndarray | None) -> np.ndarray:
    """The share of each cell's pixels at or above ``QUALITY.clipped_level`` in all three channels:
    white, no colour left (a light token in a lamp's hot spot, clipped even where the sand around
    it is not). Zero for cells whose sand the calibration itself saw white.

    Args:
        crop: the rectified grid crop as photographed, BGR uint8 (H, W, 3).
        cells: the crop's :class:`~vision.plazing.cells.CellBlocks`.
        calibration_sand: float (rows, cols, 3), the calibration's sand per cell, or None.
    Returns:
        float32 (rows, cols) in [0, 1].
    """
    g = cells.grid
    level = QUALITY.clipped_level
    white = cv2.inRange(crop, (level, level, level), (255, 255, 255))
    if not cv2.countNonZero(white):  # the usual photo: nothing white at all
        return np.zeros((g.rows, g.cols), np.float32)
    share = cells.blocks(white.astype(np.float32) / 255.0).reshape(g.rows, cells.k, g.cols, cells.k).mean(axis=(1, 3))
    if calibration_sand is not None:
        share[calibration_sand.min(axis=-1) >= level] = 0.0
    return share.astype(np.float32)
