"""The board's piece-free surround in the extended rectified photo (board plus a margin): the plain
table strip below the board (its colour for the lighting gains, its pixel noise) and the fine
detail of the rails and the land-side edge (blur). No piece ever lies there and the cloth does not
reach there, so these figures depend on the photo and its light, not on the game's position.

Input: the extended rectified photo (:func:`vision.strand_unter.geometry.warp_board`, board +
``REGISTRATION.margin_mm`` at ``REGISTRATION.ppm``). Output: pixels, noise σ, detail ratio;
``too-noisy`` (exit 3) for a photo much noisier than the calibration shot.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.image import quality
from vision.strand_unter import colour
from vision.strand_unter.config import READING, REGISTRATION
from vision.strand_unter.geometry import mm_to_work


def surround_pixels(ext_bgr: np.ndarray, board_mm, reg=REGISTRATION, inside: np.ndarray | None = None) -> np.ndarray:
    """Pixels (N, 3) of the table strip below the board in an extended rectified image (BGR uint8);
    with ``inside`` (:func:`strip_inside`), only those that lie inside the photo."""
    (y0, y1), (x0, x1) = _table_strip(board_mm, reg)
    px = ext_bgr[y0:y1:2, x0:x1:2].reshape(-1, 3)
    return px if inside is None else px[np.asarray(inside, bool).reshape(-1)]


def strip_inside(H_px_from_mm: np.ndarray, image_size, board_mm, reg=REGISTRATION) -> np.ndarray:
    """Which of the table strip's pixels (:func:`surround_pixels`' order) lie inside the photo.

    A board low in the frame (one filling the photo) has part of the strip beyond the photo's
    edge, where the rectified image only repeats the edge's pixels (often the black rows a lens
    correction leaves there). Each strip pixel's centre is mapped into the photo; it is inside when
    at least ``reg.strip_edge_inset`` of the photo's height from every edge.

    Args:
        H_px_from_mm: (3, 3) board mm → photo px of the photo the extended image was warped from.
        image_size: (width, height) px of that photo.
        board_mm: (width, height) of the board, mm.
    Returns:
        bool (N,), N = the number of :func:`surround_pixels`.
    """
    (y0, y1), (x0, x1) = _table_strip(board_mm, reg)
    ys, xs = np.mgrid[y0:y1:2, x0:x1:2]
    ext = np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)]).astype(np.float64)
    p = np.asarray(H_px_from_mm, np.float64) @ np.linalg.inv(mm_to_work(reg.ppm, reg.margin_mm)) @ ext
    u, v = p[0] / p[2], p[1] / p[2]
    w, h = float(image_size[0]), float(image_size[1])
    e = reg.strip_edge_inset * h
    return (p[2] > 0) & (u >= e) & (u <= w - 1 - e) & (v >= e) & (v <= h - 1 - e)


def strip_gains(ext_bgr: np.ndarray, board_mm, ref_bgr, reg=REGISTRATION,
                inside: np.ndarray | None = None) -> np.ndarray:
    """The lighting gains (B, G, R) float (3,) from the table strip below the board onto its colour at
    calibration (``ref_bgr``, the model's ``surround_bgr``; :func:`colour.channel_gains`).

    Only the strip's pixels inside the photo count (``inside``, :func:`strip_inside`) when at least
    ``reg.min_strip_inside`` of them are; with less (or ``inside`` None) the whole strip as
    rectified, beyond the photo the repetition of its edge rows: the nearest table, or the black
    border of a wide lens's corrected photo. A strip whose median channel is below
    ``reg.min_strip_level`` grey levels, now or at calibration, carries no colour ratio (a black
    table, or that border): the gains are then 1 and the lighting takes the light from the sand
    (:func:`vision.strand_unter.lighting.sand_gains`).
    """
    median = colour.channel_medians(surround_pixels(ext_bgr, board_mm, reg, _enough(inside, reg)))
    if min(float(median.min()), float(np.min(ref_bgr))) < reg.min_strip_level:
        return np.ones(3)
    return colour.channel_gains(median[None, :], ref_bgr)


def strip_colour(ext_bgr: np.ndarray, board_mm, inside: np.ndarray | None = None, reg=REGISTRATION) -> list[float]:
    """The table strip's colour at calibration (the model's ``surround_bgr``): the median (B, G, R) of
    its pixels, those inside the photo only when enough are (``inside``, as in :func:`strip_gains`)."""
    return np.median(surround_pixels(ext_bgr, board_mm, reg, _enough(inside, reg)), axis=0).tolist()


def _enough(inside: np.ndarray | None, reg=REGISTRATION) -> np.ndarray | None:
    """``inside`` when at least ``reg.min_strip_inside`` of the strip lies inside the photo, else None (all)."""
    return inside if inside is not None and float(np.mean(inside)) >= reg.min_strip_inside else None


def _table_strip(board_mm, reg=REGISTRATION) -> tuple[tuple[int, int], tuple[int, int]]:
    """Rows ``(y0, y1)`` and columns ``(x0, x1)`` of the plain table strip below the board, extended image px."""
    w, h = board_mm
    m, ppm = reg.margin_mm, reg.ppm
    return (int((m + h + 0.25 * m) * ppm), int((m + h + 0.85 * m) * ppm)), (int(m * ppm), int((m + w) * ppm))


def surround_noise(ext: np.ndarray, board_mm, reg=REGISTRATION) -> float:
    """Pixel noise σ (grey levels) of the plain table strip below the board (:func:`vision.image.quality.noise_sigma`).

    The *mean* response (not the median of :func:`vision.image.quality.board_noise_sigma`) is used: on a
    plain, smooth table most responses of a clean 8-bit photo are 0 and a median would only see
    quantisation.

    Args:
        ext: extended rectified photo (board + ``reg.margin_mm``), grey uint8 (H, W) or BGR.
        board_mm: (width, height) of the board.
    Returns:
        σ ≥ 0, grey levels (typical clean photos: ``docs/tuning.md``).
    """
    (y0, y1), (x0, x1) = _table_strip(board_mm, reg)
    sub = ext[y0:y1, x0:x1]
    if sub.ndim == 3:
        sub = cv2.cvtColor(np.ascontiguousarray(sub), cv2.COLOR_BGR2GRAY)
    return quality.noise_sigma(sub)


def check_noise(sigma: float, sigma_ref: float | None, cfg=READING) -> None:
    """Refuse a photo much noisier than the calibration shot (dim light, high ISO, a damaged file).

    Args:
        sigma: :func:`surround_noise` of the photo; sigma_ref: the calibration shot's, or None (no check).
    Raises:
        UnreadableBoardError: ``too-noisy`` (exit 3) when ``sigma > cfg.max_noise_ratio ·
            max(sigma_ref, cfg.noise_floor)``, giving both figures.
    """
    if sigma_ref is None:
        return
    if sigma > cfg.max_noise_ratio * max(float(sigma_ref), cfg.noise_floor):
        raise UnreadableBoardError("too-noisy", f"the photo is too grainy to read (pixel noise {sigma:.1f} grey levels "
                                   f"on the table beside the board against {float(sigma_ref):.1f} at calibration); "
                                   "add light or lower the camera's ISO")


def surround_detail(ext: np.ndarray, board_mm, cloth_mm: float = 0.0, reg=REGISTRATION,
                    cfg=READING) -> float:
    """Fine detail (:func:`vision.image.quality.detail_ratio`) of the board's piece-free surround.

    Measured on the lower parts of the rails and the land-side edge with the table beyond them:
    no piece ever lies there and the cloth does not reach there, so the figure depends on the
    photo's blur, not on the game's position (the sand between pieces is too smooth to tell).

    Args:
        ext: extended rectified photo (board + ``reg.margin_mm``), BGR uint8 (H, W, 3) or its
            grey image uint8 (H, W) (the same figure).
        board_mm: (width, height) of the board.
        cloth_mm: lowest reach of the cloth near the rails (board mm, y); rows above it are skipped.
    Returns:
        The detail ratio (≥ 1; sharp photos: ``docs/tuning.md``).
    """
    w, h = board_mm
    m, ppm, b = reg.margin_mm, reg.ppm, reg.inner_band_mm
    top = min(max(0.55 * h, cloth_mm + reg.sea_dilate_mm), h - 2 * b)
    y0, y1 = int((m + top) * ppm), min(int((m + h + 0.85 * m) * ppm), ext.shape[0])
    sub = ext[y0:y1]
    if sub.ndim == 3:
        sub = cv2.cvtColor(np.ascontiguousarray(sub), cv2.COLOR_BGR2GRAY)
    H, W = sub.shape
    x0, x1 = int((m - reg.rail_mm) * ppm), min(int((m + w + reg.rail_mm) * ppm), W)
    xl, xr = int((m + b) * ppm), int((m + w - b) * ppm)
    rb = min(max(int((m + h - 2 * b) * ppm) - y0, 0), H)
    # :func:`vision.image.quality.detail_ratio` over the masked strips (both rails above ``rb``, the land-side
    # edge below it), each computed on its own crop with a halo wider than the filters reach (the
    # blur's 4 σ and the Sobel's pixel): the same energies as on the whole image, for half its pixels
    pad = int(np.ceil(4 * cfg.detail_sigma_px)) + 2
    parts = [((0, min(rb + pad, H)), (0, min(xl + pad, W)), (0, rb), (x0, xl)),
             ((0, min(rb + pad, H)), (max(xr - pad, 0), W), (0, rb), (xr, x1)),
             ((max(rb - pad, 0), H), (0, W), (rb, H), (x0, x1))]
    fine = coarse = 0.0
    count = 0
    for (r0, r1), (c0, c1), (m0, m1), (k0, k1) in parts:
        if m1 <= m0 or k1 <= k0:
            continue
        g = sub[r0:r1, c0:c1].astype(np.float32)
        for e, blur in ((g, False), (cv2.GaussianBlur(g, (0, 0), cfg.detail_sigma_px), True)):
            gx, gy = cv2.Sobel(e, cv2.CV_32F, 1, 0), cv2.Sobel(e, cv2.CV_32F, 0, 1)
            en = float((cv2.multiply(gx, gx) + cv2.multiply(gy, gy))[m0 - r0:m1 - r0, k0 - c0:k1 - c0].sum(
                dtype=np.float64))
            if blur:
                coarse += en
            else:
                fine += en
        count += (m1 - m0) * (k1 - k0)
    if count == 0:
        return 1.0
    return fine / coarse if coarse / count > 1e-9 else 1.0
