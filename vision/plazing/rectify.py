"""Plażing rectification: the two top views a reading needs, warped from the photo.

Input: the photo and its homography (board mm → px). Output: :class:`Rectified`: the grid crop at
``RECTIFY.px_per_mm`` and the whole board small.

Idea: a fixed camera gives the same homography scan after scan, so each warp goes through
fixed-point remap tables cached per (homography, size), and the large arrays a scan fills are
reused from scan to scan (:class:`Scratch`) instead of being allocated afresh.
"""

from __future__ import annotations

import threading

import cv2
import numpy as np

from vision.plazing.cells import Grid
from vision.plazing.config import QUALITY, RECTIFY
from vision.plazing.seam_config import SEAM

#: Photos are decoded at 1/DECODE_REDUCE size; the pipeline scales the calibrated homography.
DECODE_REDUCE = RECTIFY.decode_reduce

_MAPS: dict = {}  #: remap tables of recent warps: a fixed camera gives the same homography scan after scan


class Scratch:
    """Arrays reused from scan to scan by name: a fresh multi-megabyte array costs its page faults
    on every scan, a noticeable part of a 20 ms budget. One reading at a time (the station scans
    in one thread); calibration does not use it."""

    def __init__(self):
        self.arrays: dict = {}

    def __call__(self, name: str, shape, dtype) -> np.ndarray:
        a = self.arrays.get(name)
        if a is None or a.shape != tuple(shape) or a.dtype != np.dtype(dtype):
            a = self.arrays[name] = np.empty(tuple(shape), dtype)
        return a


_THREAD = threading.local()


def scratch_arrays() -> Scratch:
    """This thread's scratch arrays."""
    if not hasattr(_THREAD, "scratch"):
        _THREAD.scratch = Scratch()
    return _THREAD.scratch


def photo_px_per_mm(H_px_from_mm: np.ndarray, point_mm) -> float:
    """The photo's scale at a board point: photo px per board mm (the square root of the area
    ratio of the homography's local linear map there; ``H_px_from_mm`` maps board mm to the photo
    as decoded, so a photo decoded at half size has half the scale)."""
    H = np.asarray(H_px_from_mm, np.float64)
    x, y = float(point_mm[0]), float(point_mm[1])
    w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
    u = (H[:2, 0] * x + H[:2, 1] * y + H[:2, 2]) / w
    J = (H[:2, :2] - np.outer(u, H[2, :2])) / w
    return float(np.sqrt(abs(np.linalg.det(J))))


def _warp(image: np.ndarray, M: np.ndarray, size, dst: np.ndarray | None = None) -> np.ndarray:
    """``cv2.warpPerspective(image, M, size, WARP_INVERSE_MAP)`` (M: output px → image px), bilinear,
    borders replicated — through fixed-point remap tables cached per (M, size, image size)."""
    key = (np.round(M, 9).tobytes(), tuple(size), image.shape[:2])
    maps = _MAPS.get(key)
    if maps is None:
        w, h = size
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        den = M[2, 0] * xs + M[2, 1] * ys + M[2, 2]
        mx = ((M[0, 0] * xs + M[0, 1] * ys + M[0, 2]) / den).astype(np.float32)
        my = ((M[1, 0] * xs + M[1, 1] * ys + M[1, 2]) / den).astype(np.float32)
        maps = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        if len(_MAPS) >= 8:
            _MAPS.pop(next(iter(_MAPS)))
        _MAPS[key] = maps
    return cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, dst=dst, borderMode=cv2.BORDER_REPLICATE)


def _crop_frame(grid: Grid, ppm: float = RECTIFY.px_per_mm):
    """The grid crop's frame at ``ppm``: (S: crop px → board mm, 3×3; (w, h) px; the margin in mm,
    that of the reading's crop at every scale)."""
    m0 = int(np.ceil(RECTIFY.margin_mm * RECTIFY.px_per_mm))
    margin = m0 / RECTIFY.px_per_mm
    m = int(round(margin * ppm))
    x0, y0 = grid.origin_mm[0] - margin, grid.origin_mm[1] - margin
    w = int(round(grid.cols * grid.cell_mm * ppm)) + 2 * m
    h = int(round(grid.rows * grid.cell_mm * ppm)) + 2 * m
    return np.array([[1 / ppm, 0, x0 + 0.5 / ppm], [0, 1 / ppm, y0 + 0.5 / ppm], [0, 0, 1]]), (w, h), margin


class FineView:
    """The grid crop of :class:`Rectified` (the same board millimetres, at ``ppm``) as it would be
    sampled from the full-size photo, read only where it is indexed: the reduced decode averages a
    hairline cut between two pieces away, sampling the full-size photo at about its own scale keeps
    it, and only the strips across the candidate cuts are sampled (a whole crop at 3 px/mm costs
    its remap tables' tens of MB and milliseconds).

    Indexed like the crop, ``view[v, u]`` with integer pixel arrays that broadcast together, it
    gives float32 BGR (…, 3), bilinear, times ``gains`` (the calibration's light); ``shape`` is the
    crop's (H, W, 3). Pixel (u, v) lies at crop mm ((u + 0.5)/ppm, (v + 0.5)/ppm), the frame of
    :attr:`Rectified.local`.

    Args:
        full: the photo at full size, BGR uint8; reduced_shape: the shape of the photo
            ``H_px_from_mm`` maps to (its pixel centres at the full size's (i + 0.5)·k − 0.5).
    """

    def __init__(self, full: np.ndarray, reduced_shape, H_px_from_mm: np.ndarray, grid: Grid, ppm: float,
                 gains=(1.0, 1.0, 1.0)):
        k = full.shape[1] / reduced_shape[1]
        T = np.array([[k, 0, 0.5 * (k - 1)], [0, k, 0.5 * (k - 1)], [0, 0, 1]])
        S, (w, h), _ = _crop_frame(grid, ppm)
        self.M = T @ np.asarray(H_px_from_mm, np.float64) @ S
        self.shape = (h, w, 3)
        self.full = full
        self.gains = np.asarray(gains, np.float32)

    def __getitem__(self, index) -> np.ndarray:
        v, u = np.broadcast_arrays(*index)
        shape = v.shape
        x, y = u.reshape(-1, shape[-1]).astype(np.float64), v.reshape(-1, shape[-1]).astype(np.float64)
        M = self.M
        den = M[2, 0] * x + M[2, 1] * y + M[2, 2]
        mx = ((M[0, 0] * x + M[0, 1] * y + M[0, 2]) / den).astype(np.float32)
        my = ((M[1, 0] * x + M[1, 1] * y + M[1, 2]) / den).astype(np.float32)
        out = cv2.remap(self.full, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return out.reshape(shape + (3,)).astype(np.float32) * self.gains


def fine_view(full: np.ndarray | None, reduced_shape, H_px_from_mm: np.ndarray, grid: Grid,
              gains=(1.0, 1.0, 1.0)) -> tuple[FineView, float] | None:
    """The full-size photo's grid crop for the seams' dips, at ``SEAM.fine_px_per_mm``, with that scale
    (what :func:`vision.plazing.seams.finest_dips` takes), or None when ``full`` is None or no larger
    than the photo ``H_px_from_mm`` maps to (the reading's board then has all the detail there is)."""
    if full is None or full.shape[1] <= reduced_shape[1] * 1.01:
        return None
    return FineView(full, reduced_shape, H_px_from_mm, grid, SEAM.fine_px_per_mm, gains), SEAM.fine_px_per_mm


class Rectified:
    """The two top views a reading needs.

    Attributes:
        crop: the grid and a ``RECTIFY.margin_mm`` band around it at ``RECTIFY.px_per_mm``,
            BGR uint8 (H, W, 3); pixel (u, v) is at board point (x0 + (u + 0.5)/ppm,
            y0 + (v + 0.5)/ppm) mm.
        local: the grid in the crop's own millimetres (its origin is the margin).
        offset_mm: (x0, y0), board mm of the crop's top-left corner.
        small: the whole board at ``QUALITY.px_per_mm`` (photo checks, lighting), BGR uint8.
    """

    def __init__(self, image: np.ndarray, H: np.ndarray, profile: dict, grid: Grid, scratch: Scratch | None = None):
        S, (w, h), margin = _crop_frame(grid)
        self.crop = _warp(image, H @ S, (w, h), scratch("crop", (h, w, 3), np.uint8) if scratch else None)
        self.local = Grid((margin, margin), grid.cell_mm, grid.rows, grid.cols)
        self.offset_mm = (S[0, 2] - 0.5 / RECTIFY.px_per_mm, S[1, 2] - 0.5 / RECTIFY.px_per_mm)
        q = QUALITY.px_per_mm
        bw, bh = profile["board_mm"]
        Sq = np.array([[1 / q, 0, 0.5 / q], [0, 1 / q, 0.5 / q], [0, 0, 1]])
        size = (int(round(bw * q)), int(round(bh * q)))
        self.small = _warp(image, H @ Sq, size, scratch("small", (size[1], size[0], 3), np.uint8) if scratch else None)

    def to_local(self, xy):
        """Board mm → the crop's mm."""
        return (xy[0] - self.offset_mm[0], xy[1] - self.offset_mm[1])
