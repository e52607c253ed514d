"""Strips across the board's outline, in the board plane: their layout, and the bands and profiles
sampled along them from a photo through a homography board mm → px.

The board's rim, its outline, a printed frame along it and the table's edge next to it do not
change between shots; :mod:`vision.board.motion` measures a bump of the board on them and
:mod:`vision.board.identity` checks that it is the calibrated board.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.board.geometry import SIDES


@dataclass(frozen=True)
class OutlineConfig:
    """Geometry of the strips and thresholds of the decision (mm unless said)."""

    #: Strip profile: this far into the board (pieces may stand further in) …
    inside_mm: float = 8.0
    #: … and this far out (rim, table edge).
    outside_mm: float = 16.0
    #: Search range of each strip's shift.
    search_mm: float = 12.0
    #: Strip width along the outline, and spacing between strip centres.
    width_mm: float = 6.0
    spacing_mm: float = 8.0
    #: Largest sampling resolution (px/mm); the photo's own resolution when lower.
    max_ppm: float = 2.0
    #: Smallest sampling resolution (px/mm).
    min_ppm: float = 0.75
    #: A strip's derivative profile must vary this much (grey levels per mm, RMS) to be used.
    min_structure: float = 0.5
    #: A strip matches when its normalised cross-correlation peak is at least this …
    min_ncc: float = 0.6
    #: … and, to count as explained by a motion, its residual shift is at most this (mm; at
    #: least one sample px).
    tolerance_mm: float = 0.6
    #: Share of matching strips with no motion above which the board has not moved (no fit).
    still_share: float = 0.8
    #: A fitted motion must explain this many more strips than no motion (share of usable strips,
    #: and at least ``min_gain_strips``).
    min_gain: float = 0.2
    min_gain_strips: int = 4
    #: Fewer explained strips than this share of the usable ones: the board is not where it was
    #: nor anywhere near (``registration-lost``).
    min_explained: float = 0.3
    #: Resolution of the coarse phase-correlation search (px/mm) and its minimum peak response.
    coarse_ppm: float = 0.5
    coarse_min_response: float = 0.05
    #: A push this far or more (mm) cannot be a bump of a fixed set-up.
    max_shift_mm: float = 60.0


OUTLINE = OutlineConfig()


def project(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a homography to points (..., 2) float64 → (..., 2)."""
    p = np.asarray(pts, np.float64)
    return cv2.perspectiveTransform(p.reshape(-1, 1, 2), np.asarray(H, np.float64)).reshape(p.shape)


@dataclass
class Strips:
    """Sampling layout of the strips for one board (board mm, independent of any photo).

    Attributes:
        ppm: samples per mm.
        grid_mm: float64 (n_across, n_along, 2) board mm of every sample; across runs from
            ``-(inside + search)`` (in) to ``+(outside + search)`` (out).
        centres_mm: float64 (n_strips, 2) strip centres on the outline.
        normals: float64 (n_strips, 2) outward unit normals.
        tangents: float64 (n_strips, 2) unit tangents.
        cols: int (n_strips, 2) column range [start, stop) of each strip in the band image.
        sides: (n_strips,) the side each strip lies on (one of :data:`SIDES`).
        pad: search range in samples.
    """

    ppm: float
    grid_mm: np.ndarray
    centres_mm: np.ndarray
    normals: np.ndarray
    tangents: np.ndarray
    cols: np.ndarray
    sides: np.ndarray
    pad: int


def strip_layout(board_mm, ppm: float, sides=SIDES, cfg: OutlineConfig = OUTLINE) -> Strips:
    """Lay strips along the chosen sides of the board outline.

    Args:
        board_mm: (width_mm, height_mm).
        ppm: samples per mm.
        sides: which of ``SIDES`` carry strips.
    Returns:
        :class:`Strips`.
    """
    w, h = board_mm
    pad = int(np.ceil(cfg.search_mm * ppm))
    t = (np.arange(int(round((cfg.inside_mm + cfg.outside_mm) * ppm)) + 2 * pad) - pad) / ppm - cfg.inside_mm
    end = cfg.search_mm + cfg.width_mm  # keep clear of the corners, where the other side's edge crosses
    step = 1.0 / ppm
    grids, centres, normals, tangents, cols, names = [], [], [], [], [], []
    start = 0
    for side in sides:
        length = w if side in ("top", "bottom") else h
        s = np.arange(end, length - end, step)
        if side == "top":
            base, n, e = np.stack([s, np.zeros_like(s)], -1), (0.0, -1.0), (1.0, 0.0)
        elif side == "bottom":
            base, n, e = np.stack([s, np.full_like(s, h)], -1), (0.0, 1.0), (1.0, 0.0)
        elif side == "left":
            base, n, e = np.stack([np.zeros_like(s), s], -1), (-1.0, 0.0), (0.0, 1.0)
        else:
            base, n, e = np.stack([np.full_like(s, w), s], -1), (1.0, 0.0), (0.0, 1.0)
        n = np.array(n)
        grids.append(base[None, :, :] + t[:, None, None] * n[None, None, :])
        per = max(1, int(round(cfg.width_mm * ppm)))
        every = max(1, int(round(cfg.spacing_mm * ppm)))
        for c0 in range(0, len(s) - per + 1, every):
            centres.append(base[c0:c0 + per].mean(axis=0))
            normals.append(n)
            tangents.append(np.array(e))
            cols.append((start + c0, start + c0 + per))
            names.append(side)
        start += len(s)
    return Strips(ppm=ppm, grid_mm=np.concatenate(grids, axis=1), centres_mm=np.array(centres, float).reshape(-1, 2),
                  normals=np.array(normals, float).reshape(-1, 2), tangents=np.array(tangents, float).reshape(-1, 2),
                  cols=np.array(cols, int).reshape(-1, 2), sides=np.array(names), pad=pad)


def band_maps(H_px_from_mm: np.ndarray, strips: Strips) -> tuple[np.ndarray, np.ndarray]:
    """Where every band sample lies in a photo seen through ``H_px_from_mm``: the x and y maps of
    :func:`sample_bands`, float32 (n_across, n_along) each, contiguous."""
    px = project(H_px_from_mm, strips.grid_mm).astype(np.float32)
    return np.ascontiguousarray(px[..., 0]), np.ascontiguousarray(px[..., 1])


def sample_bands(gray: np.ndarray, H_px_from_mm: np.ndarray, strips: Strips,
                 maps: tuple[np.ndarray, np.ndarray] | None = None, as_float: bool = True) -> np.ndarray:
    """Resample the outline bands of a grey photo through ``H_px_from_mm``: float32 (n_across, n_along)
    (``as_float`` False: the photo's dtype, uint8 for a grey photo). ``maps``: :func:`band_maps` of
    ``H_px_from_mm``, when already at hand."""
    mx, my = band_maps(H_px_from_mm, strips) if maps is None else maps
    bands = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return bands.astype(np.float32) if as_float else bands


def strip_profiles(bands: np.ndarray, strips: Strips) -> np.ndarray:
    """Derivative (across the outline, grey levels per sample) of each strip's mean profile:
    float32 (n_strips, n_across − 1). Bands of uint8 are summed in integers (one integral image:
    the same sums, exactly, several times faster than a float64 running sum)."""
    if bands.dtype == np.uint8 and bands.shape[0] * bands.shape[1] < 2 ** 23:   # sums stay below 2³¹
        table = cv2.integral(bands, sdepth=cv2.CV_32S)
        lo, hi = table[:, strips.cols[:, 0]], table[:, strips.cols[:, 1]]
        sums = (hi[1:] - hi[:-1]) - (lo[1:] - lo[:-1])                     # each row's sum over each strip
        means = sums / (strips.cols[:, 1] - strips.cols[:, 0])
    else:
        csum = np.concatenate([np.zeros((bands.shape[0], 1), np.float64),
                               np.cumsum(bands, axis=1, dtype=np.float64)], 1)
        means = (csum[:, strips.cols[:, 1]] - csum[:, strips.cols[:, 0]]) / (strips.cols[:, 1] - strips.cols[:, 0])
    prof = means.T
    prof = cv2.GaussianBlur(prof, (1, 5), 0, sigmaY=1.0) if prof.shape[1] >= 5 else prof
    return np.diff(prof, axis=1).astype(np.float32)


def structure(ref_profiles: np.ndarray, strips: Strips) -> np.ndarray:
    """RMS derivative (grey levels per mm) of each reference strip's core: float64 (n_strips,)."""
    core = ref_profiles[:, strips.pad:ref_profiles.shape[1] - strips.pad]
    return np.sqrt(np.mean(core.astype(np.float64) ** 2, axis=1)) * strips.ppm
