"""Calibration stage — each labelled token seen the ways a scene can show it.

Input: the calibration's normalised grid crop (marks painted over), the labelled token cells and
the typical bare cells. Output: cell images of every labelled token cut out and pasted onto those
bare cells, turned, a little larger and smaller and a little off the cell's centre, packed into
synthetic boards of the grid's own size (so their features are computed exactly as a scan's).

Why: one calibration shot shows each token once or twice, on one background, at one angle and
size. A scene shows the same kind of token turned, on a printed spot, pushed off the centre by the
player's hand, and — natural objects — a little larger or smaller. The ranges are physical: a
token is put down by hand within :data:`~vision.plazing.config.AugmentConfig.shift_share` of a cell
of its centre, at any angle, and amber, shells and pebbles differ in size by
:data:`~vision.plazing.config.AugmentConfig.scale_range`. A lamp to one side makes each token cast
a shadow the calibration's light may not have shown: the token is also pasted with its own
outline, shifted by :data:`~vision.plazing.config.AugmentConfig.shadow_mm`, darkening the sand
beside it to :data:`~vision.plazing.config.AugmentConfig.shadow_light` of its light (the ambient
light a shadow keeps).
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from vision.plazing.config import AUGMENT, AugmentConfig


def _variants(patch: np.ndarray, mask: np.ndarray, cfg: AugmentConfig, px_per_mm: float):
    """The cut-out token turned, scaled and shifted, then upright with shadows cast to one side:
    yields (patch BGR uint8, alpha float32 (h, w), shade float32 (h, w): the background's light
    factor, 1 outside a shadow)."""
    h, w = patch.shape[:2]
    none = np.ones((h, w), np.float32)
    centre = ((w - 1) / 2.0, (h - 1) / 2.0)
    s = cfg.shift_share * w
    shifts = [(0.0, 0.0)] + [(dx * s, dy * s) for dx, dy in ((1, 1), (-1, 1), (1, -1), (-1, -1))]
    alpha = mask.astype(np.float32)
    for angle, scale, (dx, dy) in itertools.product(cfg.angles_deg, cfg.scales, shifts):
        M = cv2.getRotationMatrix2D(centre, angle, scale)
        M[:, 2] += (dx, dy)
        p = cv2.warpAffine(patch, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        a = cv2.warpAffine(alpha, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        yield p, a, none
    # a cast shadow: the token's outline shifted away from the light (the features are unchanged by
    # quarter turns and mirroring, so one side and one diagonal cover every direction)
    for length_mm, light in itertools.product(cfg.shadow_mm, cfg.shadow_light):
        d = length_mm * px_per_mm
        for dx, dy in ((d, 0.0), (d / np.sqrt(2.0), d / np.sqrt(2.0))):
            M = np.float32([[1, 0, dx], [0, 1, dy]])
            cast = cv2.warpAffine(alpha, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
            yield patch, alpha, (1.0 - (1.0 - light) * cast).astype(np.float32)


def augmented_boards(board: np.ndarray, boxes: np.ndarray, cuts, backgrounds, px_per_mm: float,
                     cfg: AugmentConfig = AUGMENT):
    """Synthetic boards holding every variant of every cut-out token on every background.

    Args:
        board: the calibration's normalised grid crop, BGR uint8 (H, W, 3) (a template: every
            synthetic board starts as a copy of it).
        boxes: int (rows, cols, 4) whole-cell boxes in ``board`` px.
        cuts: [(label, patch BGR uint8 (h, w, 3), mask bool (h, w))]: labelled tokens cut out of
            their cells (:func:`~vision.plazing.tokens.token_mask`).
        backgrounds: [(row, col)] bare cells to paste onto.
        px_per_mm: resolution of ``board`` (a shadow's length is in mm).
    Yields:
        ``(synthetic board, [(label, (row, col))])``: a board the size of ``board`` and the label of
        each cell filled (cells not listed hold whatever the template has).
    """
    rows, cols = boxes.shape[:2]
    slots = [(r, c) for r in range(rows) for c in range(cols)]
    out, filled = board.copy(), []
    for label, patch, mask in cuts:
        for p, a, shade in _variants(patch, mask, cfg, px_per_mm):
            for br, bc in backgrounds:
                if len(filled) == len(slots):
                    yield out, filled
                    out, filled = board.copy(), []
                r, c = slots[len(filled)]
                u0, v0, u1, v1 = boxes[r, c]
                a0, b0, a1, b1 = boxes[br, bc]
                hh, ww = min(v1 - v0, b1 - b0, p.shape[0]), min(u1 - u0, a1 - a0, p.shape[1])
                bg = board[b0:b0 + hh, a0:a0 + ww].astype(np.float32) * shade[:hh, :ww, None]
                al = a[:hh, :ww, None]
                out[v0:v0 + hh, u0:u0 + ww] = np.clip(bg * (1 - al) + p[:hh, :ww] * al, 0, 255).astype(np.uint8)
                filled.append((label, (r, c)))
    if filled:
        yield out, filled
