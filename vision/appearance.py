"""Does the registered board still look like the calibrated one? A coarse colour-layout check.

The board is reduced to a small grid of mean colours (a "layout"). Against the calibration's
layout, after a per-channel gain that removes the light's strength and colour (grey-world on the
board, as in von Kries adaptation), the blue–red chroma of every grid cell is correlated with the
calibration's. Pieces, the Strand unter cloth and lighting move this correlation between about
0 and 1; a photo whose red and blue channels are swapped (a camera delivering RGB where BGR is
expected) turns it negative, because swapping negates blue–red chroma exactly.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.image.quality import median_last
from vision.board.geometry import rectify

#: Width of the layout grid in cells; the height follows the board's aspect.
LAYOUT_CELLS = 32
#: Below this blue–red chroma correlation with the calibration the colours are taken as swapped
#: (clean sample scenes: ≥ −0.03; photos with red and blue swapped: ≤ −0.6).
SWAPPED_CORRELATION = -0.4


def board_layout(image: np.ndarray, H_px_from_mm: np.ndarray, board_mm) -> np.ndarray:
    """Mean BGR of a coarse grid over the board.

    Args:
        image: photo, BGR uint8 (H, W, 3).
        H_px_from_mm: homography board mm → photo px.
        board_mm: (width_mm, height_mm).
    Returns:
        float32 (rows·cols, 3) mean B, G, R per cell, cols = :data:`LAYOUT_CELLS`.
    """
    ppm = 4 * LAYOUT_CELLS / board_mm[0]
    top = rectify(image, H_px_from_mm, board_mm, ppm)
    rows = max(1, int(round(LAYOUT_CELLS * top.shape[0] / top.shape[1])))
    return cv2.resize(top, (LAYOUT_CELLS, rows), interpolation=cv2.INTER_AREA).reshape(-1, 3).astype(np.float32)


def blue_red_correlation(reference: np.ndarray, layout: np.ndarray) -> float:
    """Pearson correlation of per-cell blue–red chroma, after matching channel gains.

    Args:
        reference: calibration layout, float (N, 3) BGR.
        layout: photo layout, float (N, 3) BGR, same N.
    Returns:
        correlation in [−1, 1]; 0 when either layout has no chroma variation.
    """
    # np.median(·, axis=0), by one partition per channel
    gains = median_last(np.asarray(reference).T) / np.maximum(median_last(np.asarray(layout).T), 1.0)
    adjusted = layout * gains

    def chroma(bgr):
        return (bgr[:, 0] - bgr[:, 2]) / (bgr.sum(axis=1) + 1.0)

    a, b = chroma(reference).astype(np.float64), chroma(adjusted).astype(np.float64)
    a, b = a - a.mean(), b - b.mean()
    sa, sb = float(np.sqrt(a @ a / len(a))), float(np.sqrt(b @ b / len(b)))    # standard deviations
    if sa < 1e-6 or sb < 1e-6:
        return 0.0
    return float(np.clip((a @ b) / len(a) / (sa * sb), -1.0, 1.0))             # Pearson, as np.corrcoef
