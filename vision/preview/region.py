"""Where the board lies in the camera's low-resolution preview: its masks, in the preview's pixels.

The calibrated homography maps board mm to the calibration shot's pixels (of the undistorted shot
when the calibration has a lens); the preview shows the same field of view at another size, so a
point is mapped through the homography, the lens (back to the shot as taken), then scaled by
``preview_w / shot_w`` across and ``preview_h / shot_h`` down. The two scales differ when the
preview's aspect differs from the shot's (picamera2 scales ``lores`` from the same sensor crop as
the still).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.lens.model import Lens, homography_to_photo

#: Points per side of the board's outline sent through the lens (a straight side bends).
OUTLINE_POINTS = 16


@dataclass(frozen=True)
class BoardGeometry:
    """What the preview check needs of a calibration.

    Attributes:
        H_px_from_mm: (3, 3) float64, board mm → calibration-shot px (undistorted when ``lens``).
        image_size: (width_px, height_px) of the calibration shot.
        board_mm: (width_mm, height_mm) of the board (the profile's ``board_mm``).
        lens: the calibration's lens, or None.
    """

    H_px_from_mm: np.ndarray
    image_size: tuple[int, int]
    board_mm: tuple[float, float]
    lens: Lens | None = None


@dataclass(frozen=True)
class PreviewRegion:
    """The board's masks in one preview size, cropped to the region of interest.

    Attributes:
        crop: (x0, y0, x1, y1) preview px of the region of interest: the board's bounding box
            grown by the margin, clipped to the frame.
        board: bool (h, w) of the crop: inside the board's outline.
        far: bool (h, w): farther than the hand reach outside the outline, or on the frame's
            border (where the frame cuts the region, an arm enters through it).
        mm2_per_px: board-plane area of one preview pixel on the board (mean over the board), mm².
        rim: bool (h, w): board pixels within the reach inside the outline.
        far_index: int64 (n,) flat indices of the ``far`` pixels.
        far_mm2: float64 (n,) the area each of them stands for, mm²: its own, and for a pixel on
            the frame's border a strip as deep as the reach (what lies beyond the border unseen).
    """

    crop: tuple[int, int, int, int]
    board: np.ndarray
    far: np.ndarray
    mm2_per_px: float
    rim: np.ndarray
    far_index: np.ndarray
    far_mm2: np.ndarray

    @property
    def rim_px(self) -> int:
        """Number of pixels of the board's rim."""
        return int(np.count_nonzero(self.rim))

    @property
    def board_u8(self) -> np.ndarray:
        """``board`` as a uint8 0/1 mask (OpenCV's masks)."""
        return self.board.view(np.uint8)


def _outline_mm(board_mm, grow_mm: float) -> np.ndarray:
    """(4·OUTLINE_POINTS, 2) mm points around the board rectangle grown by ``grow_mm`` each way."""
    w, h = board_mm
    x0, y0, x1, y1 = -grow_mm, -grow_mm, w + grow_mm, h + grow_mm
    t = np.linspace(0.0, 1.0, OUTLINE_POINTS, endpoint=False)
    sides = [np.column_stack([x0 + (x1 - x0) * t, np.full_like(t, y0)]),
             np.column_stack([np.full_like(t, x1), y0 + (y1 - y0) * t]),
             np.column_stack([x1 - (x1 - x0) * t, np.full_like(t, y1)]),
             np.column_stack([np.full_like(t, x0), y1 - (y1 - y0) * t])]
    return np.concatenate(sides)


def preview_points(geometry: BoardGeometry, points_mm, preview_size: tuple[int, int]) -> np.ndarray:
    """Board mm (N, 2) → preview px (N, 2) float64, through the homography, the lens and the scale."""
    w, h = geometry.image_size
    px = homography_to_photo(geometry.lens, np.asarray(geometry.H_px_from_mm, np.float64), points_mm, w, h)
    return px * np.array([preview_size[0] / w, preview_size[1] / h])


def preview_region(geometry: BoardGeometry, preview_size: tuple[int, int], *, margin_mm: float,
                   reach_mm: float) -> PreviewRegion:
    """The board's masks in a preview of ``preview_size`` = (width_px, height_px).

    Args:
        geometry: the calibration's board geometry.
        margin_mm: how far beyond the outline the region of interest reaches (board plane, mm).
        reach_mm: how far outside the outline a change must reach to be an arm, not the board's
            own edge moved by a bump (mm); also the depth of the board's rim inside the outline.
    Raises:
        ValueError: the board is not in the preview's frame.
    """
    pw, ph = preview_size
    board = preview_points(geometry, _outline_mm(geometry.board_mm, 0.0), preview_size)
    near = preview_points(geometry, _outline_mm(geometry.board_mm, reach_mm), preview_size)
    inner = preview_points(geometry, _outline_mm(geometry.board_mm, -reach_mm), preview_size)
    outer = preview_points(geometry, _outline_mm(geometry.board_mm, margin_mm), preview_size)
    x0, y0 = np.floor(outer.min(axis=0)).astype(int)
    x1, y1 = np.ceil(outer.max(axis=0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, pw), min(y1, ph)
    if x1 - x0 < 8 or y1 - y0 < 8:
        raise ValueError(f"the board is not inside the {pw}x{ph} preview")
    shape = (y1 - y0, x1 - x0)
    offset = np.array([x0, y0])

    def fill(points: np.ndarray) -> np.ndarray:
        mask = np.zeros(shape, np.uint8)
        cv2.fillPoly(mask, [np.round(points - offset).astype(np.int32)], 1)
        return mask.astype(bool)

    board_mask = fill(board)
    far = ~fill(near)
    rim = board_mask & ~fill(inner)
    if not board_mask.any():
        raise ValueError(f"the board is not inside the {pw}x{ph} preview")
    area_mm2 = float(geometry.board_mm[0]) * float(geometry.board_mm[1])
    mm2_per_px = area_mm2 / float(cv2.contourArea(board.astype(np.float32)))
    weight = np.where(far, mm2_per_px, 0.0)
    for clipped, index in ((x0 == 0, (slice(None), 0)), (x1 == pw, (slice(None), -1)),
                           (y0 == 0, (0, slice(None))), (y1 == ph, (-1, slice(None)))):
        if clipped:
            far[index] = True
            weight[index] = max(reach_mm * np.sqrt(mm2_per_px), mm2_per_px)
    far_index = np.flatnonzero(far)
    return PreviewRegion(crop=(int(x0), int(y0), int(x1), int(y1)), board=board_mask, far=far,
                         mm2_per_px=mm2_per_px, rim=rim, far_index=far_index, far_mm2=weight.ravel()[far_index])
