"""Board geometry: the board's corners in mm and homographies between the board frame (mm) and a
photo (px): ``p_px ~ H_px_from_mm @ [x_mm, y_mm, 1]``.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.types import BOARD_SIDES

#: The board's sides, in the order the strips and the readers' hints name them.
SIDES = BOARD_SIDES


def board_corners_mm(board_mm: tuple[float, float]) -> np.ndarray:
    """Board corners TL, TR, BR, BL in mm, float32 shape (4, 2)."""
    w, h = board_mm
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)


def homography_from_corners(corners_px, board_mm) -> np.ndarray:
    """Homography board mm → image px from the four board corners.

    Args:
        corners_px: (4, 2) image pixels, order TL, TR, BR, BL of the board frame.
        board_mm: (width_mm, height_mm).
    Returns:
        float64 (3, 3) ``H_px_from_mm``.
    """
    return cv2.getPerspectiveTransform(board_corners_mm(board_mm), np.asarray(corners_px, dtype=np.float32))


def project(H: np.ndarray, points) -> np.ndarray:
    """Apply homography ``H`` to points of shape (N, 2); returns float64 (N, 2)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, H).reshape(-1, 2)


def board_px_per_mm(H_px_from_mm: np.ndarray, board_mm) -> float:
    """Mean scale (px per mm) at which a photo shows the board: its outline's length in px / in mm."""
    w, h = board_mm
    c = project(H_px_from_mm, board_corners_mm(board_mm))
    return float(np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1).sum() / (2 * (w + h)))


def rectify(image: np.ndarray, H_px_from_mm: np.ndarray, board_mm, px_per_mm: float,
            interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """Warp the photo to a top view of the board.

    Args:
        image: photo, BGR uint8 (H, W, 3) (or single channel).
        H_px_from_mm: homography board mm → image px.
        board_mm: (width_mm, height_mm).
        px_per_mm: resolution of the result.
    Returns:
        Rectified board, same dtype/channels, shape (round(height_mm·ppm), round(width_mm·ppm)[, 3]);
        pixel (u, v) is at board point ((u + 0.5)/ppm, (v + 0.5)/ppm) mm.
    """
    w_mm, h_mm = board_mm
    size = (int(round(w_mm * px_per_mm)), int(round(h_mm * px_per_mm)))
    scale = np.array([[1 / px_per_mm, 0, 0.5 / px_per_mm], [0, 1 / px_per_mm, 0.5 / px_per_mm], [0, 0, 1]])
    M = H_px_from_mm @ scale
    return cv2.warpPerspective(image, M, size, flags=interpolation | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


#: Markers that must be seen before they define the board's position: one small marker's corners


def board_motion(H0: np.ndarray, H: np.ndarray, board_mm) -> tuple[float, float]:
    """How far the board's centre moved (mm) and how much it turned (degrees, counter-clockwise in
    the photo) from homography ``H0`` to ``H`` (both board mm → photo px, (3, 3)), measured with
    ``H0``'s px per mm at the centre.

    >>> board_motion(np.eye(3), np.array([[1, 0, 3.0], [0, 1, 4.0], [0, 0, 1]]), (100, 50))
    (5.0, 0.0)
    """
    w, h = board_mm
    centre = np.array([[w / 2, h / 2], [w / 2 + 100, h / 2]])
    before, after = project(H0, centre), project(H, centre)
    px_per_mm = np.linalg.norm(before[1] - before[0]) / 100
    shift_mm = float(np.linalg.norm(after[0] - before[0]) / px_per_mm)
    ang = lambda p: np.degrees(np.arctan2(p[1, 1] - p[0, 1], p[1, 0] - p[0, 0]))  # noqa: E731
    return shift_mm, float(ang(after) - ang(before))
