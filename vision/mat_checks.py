"""Shared helpers of the Seashells mat and Sand Castles readers: labels, light, drawing.

Kept small on purpose: the generic photo-quality checks belong to ``vision.quality`` when it
exists; :func:`check_light` is the minimal fallback these two readers need.
"""

from __future__ import annotations

import cv2
import numpy as np

from beachscore.errors import BadInputError, UnreadableBoardError
from vision.registration import project


def check_labels(samples, allowed, required, game: str) -> None:
    """Refuse calibration samples with a label the game does not know, or missing classes.

    Args:
        samples: list of ``(label, (x_mm, y_mm))``.
        allowed: the game's label vocabulary.
        required: labels that need at least one sample.
        game: game name for messages.
    Raises:
        BadInputError: ``unknown-label`` or ``missing-label``.
    """
    for label, (x, y) in samples:
        if label not in allowed:
            raise BadInputError("unknown-label", f"calibration sample {label!r} at {x:g},{y:g} mm is not a "
                                f"{game} label; expected one of {', '.join(sorted(allowed))}")
    have = {label for label, _ in samples}
    missing = [r for r in required if r not in have]
    if missing:
        raise BadInputError("missing-label", f"the {game} calibration needs at least one sample of "
                            f"{', '.join(missing)}")


def mean_lightness(board_bgr: np.ndarray) -> float:
    """Mean grey level of a BGR uint8 board on a 0–100 scale, on a 1/4 subsample."""
    g = cv2.cvtColor(np.ascontiguousarray(board_bgr[::4, ::4]), cv2.COLOR_BGR2GRAY)
    return float(g.mean()) * 100.0 / 255.0


def check_light(board_bgr: np.ndarray, reference_median_bgr, min_L: float) -> None:
    """Refuse a photo the board cannot be read in (too dark, glare, blur).

    Uses the generic :func:`vision.quality.check` with the lighting gain against the calibration
    shot; without that module, a minimal darkness test.

    Args:
        board_bgr: the rectified board before lighting correction, BGR uint8 (H, W, 3).
        reference_median_bgr: (3,) median B, G, R of the calibration board.
        min_L: mean grey (0–100) below which the board is too dark (fallback test only).
    Raises:
        UnreadableBoardError: ``too-dark``, ``glare`` or ``too-blurred``.
    """
    try:
        from vision import quality
    except ImportError:  # the generic checks are optional
        quality = None
    if quality is not None and hasattr(quality, "check"):
        from vision.places import board_median_bgr
        gains = np.asarray(reference_median_bgr, np.float64) / np.maximum(board_median_bgr(board_bgr), 1.0)
        quality.check(board_bgr, gains=gains)
        return
    L = mean_lightness(board_bgr)
    if L < min_L:
        raise UnreadableBoardError("too-dark", f"the board is too dark to read (mean grey {L:.0f} of 100); "
                                   "turn on a light or lengthen the exposure")


def draw_box(img: np.ndarray, H: np.ndarray, box_mm, colour, thickness: int = 2) -> None:
    """Draw a board-mm rectangle ``(x0, y0, x1, y1)`` onto a photo in place (projected by ``H``)."""
    x0, y0, x1, y1 = box_mm
    pts = np.round(project(H, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]])).astype(np.int32)
    cv2.polylines(img, [pts], True, colour, thickness, cv2.LINE_AA)


def draw_label(img: np.ndarray, H: np.ndarray, xy_mm, text: str, colour, radius_px: int = 0) -> None:
    """Draw a circle (when ``radius_px`` > 0) and a short text at a board-mm point of a photo, in place."""
    (u, v), = np.round(project(H, [xy_mm])).astype(int)
    if radius_px:
        cv2.circle(img, (int(u), int(v)), radius_px, colour, 2, cv2.LINE_AA)
    cv2.putText(img, text, (int(u) - 4 * len(text), int(v) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3,
                cv2.LINE_AA)
    cv2.putText(img, text, (int(u) - 4 * len(text), int(v) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1,
                cv2.LINE_AA)
