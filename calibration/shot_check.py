"""Is there anything to learn in the calibration shot? Refuse a blank, black or blown-out one.

Input: the calibration shot (BGR uint8, undistorted), its homography board mm → px, the board's
size and the labelled samples. Output: nothing, or an ``UnreadableBoardError`` (exit 3) saying
what is wrong, before anything is learned from it.

Idea: the board, rectified at 1 px/mm, goes through the photo checks every scan makes
(:func:`vision.image.quality.check`: too dark, glared); then the board must show some texture and
the labels' spots must not all look alike. Figures: every calibration shot of the shared samples
and the development renders (63) has a board whose grey spread is at least 20 levels and whose
labels' mean colours differ by at least 116 levels; a blank shot gives about 0 (``docs/tuning.md``).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.image import quality

#: Rectified board resolution for the checks, px per mm.
PX_PER_MM = 1.0
#: Half-side of the square averaged at each sample's spot, mm.
SPOT_HALF_MM = 2.0
#: A board whose grey standard deviation is below this shows nothing (a flat image), 8-bit levels.
MIN_BOARD_SD = 5.0
#: Labels whose samples' mean colours differ by less than this (the largest per-channel range)
#: all look alike, 8-bit levels.
MIN_SAMPLE_SPREAD = 10.0


def check_shot(image: np.ndarray, H_px_from_mm: np.ndarray, board_mm, samples, *, glare: bool = True) -> None:
    """Refuse a calibration shot with nothing to learn.

    Args:
        image: the calibration shot, BGR uint8 (H, W, 3).
        H_px_from_mm: 3×3 homography board mm → image px.
        board_mm: (width, height) of the board, mm.
        samples: [(label, (x_mm, y_mm))].
        glare: refuse a board whose blown-out share is too large (False: the game's reader judges
            blown-out places itself, :attr:`vision.types.Reader.judges_glare`).
    Raises:
        UnreadableBoardError: ``too-dark``, ``glare`` (the photo checks), ``no-contrast`` (a flat
            board, or samples that all look alike).
    """
    w, h = (float(v) for v in board_mm)
    size = (max(int(round(w * PX_PER_MM)), 1), max(int(round(h * PX_PER_MM)), 1))
    to_board = np.diag([PX_PER_MM, PX_PER_MM, 1.0]) @ np.linalg.inv(np.asarray(H_px_from_mm, np.float64))
    board = cv2.warpPerspective(image, to_board, size, flags=cv2.INTER_AREA)
    try:
        quality.check(board, cfg=quality.QUALITY if glare else quality.QUALITY_WITHOUT_GLARE)
    except UnreadableBoardError as err:
        raise UnreadableBoardError(err.code, f"the calibration shot: {err.message}; take it again") from None
    sd = float(cv2.cvtColor(board, cv2.COLOR_BGR2GRAY).std())
    looks = _label_looks(board, samples)
    spread = float((looks.max(axis=0) - looks.min(axis=0)).max()) if len(looks) >= 2 else None
    if sd < MIN_BOARD_SD or (spread is not None and spread < MIN_SAMPLE_SPREAD):
        labels = sorted({label for label, _ in samples})
        what = (f"its samples' {len(labels)} labels all look alike (their colours differ by {spread:.0f} of "
                "255 levels at most)" if spread is not None and spread < MIN_SAMPLE_SPREAD
                else f"the board is one flat colour (grey spread {sd:.1f} levels)")
        raise UnreadableBoardError("no-contrast", f"the calibration shot shows nothing to learn: {what}; "
                                   "photograph the board with its pieces laid out, in good light")


def _label_looks(board: np.ndarray, samples) -> np.ndarray:
    """Mean BGR of small squares at each label's samples' spots on the rectified board: float64
    (labels, 3)."""
    r = max(int(round(SPOT_HALF_MM * PX_PER_MM)), 0)
    per_label: dict = {}
    for label, (x, y) in samples:
        xi, yi = int(round(x * PX_PER_MM)), int(round(y * PX_PER_MM))
        patch = board[max(yi - r, 0):yi + r + 1, max(xi - r, 0):xi + r + 1].reshape(-1, 3)
        if len(patch):
            per_label.setdefault(label, []).append(patch.mean(axis=0))
    return np.array([np.mean(v, axis=0) for v in per_label.values()], np.float64).reshape(-1, 3)
