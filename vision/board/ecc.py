"""ECC alignment of a photo's edges to the calibration shot along the board's outline (Evangelidis &
Psarakis 2008, ``cv2.findTransformECC``), kept for the readers that call it: the board stage
measures a bump on the outline strips (:mod:`vision.board.motion`), as the band also holds pieces.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board.geometry import SIDES, board_motion, project
from vision.errors import UnreadableBoardError
from vision.image.gradients import sobel_magnitude
from vision.types import Registration

#: ECC correlation of the outline band, board not moved, above which no refinement is run
#: (a bump of 1 mm or more drops it well below; measured on the sample set-ups: ≥ 0.95 unmoved).
UNMOVED_ECC = 0.93


def _outline_mask(shape, H_px_from_mm, board_mm, band_mm: float, sides=SIDES) -> np.ndarray:
    """Mask of a band ±band_mm along the chosen sides of the board outline: edges, not pieces."""
    w, h = board_mm
    m = band_mm
    strips = {"top": [[-m, -m], [w + m, -m], [w + m, m], [-m, m]],
              "bottom": [[-m, h - m], [w + m, h - m], [w + m, h + m], [-m, h + m]],
              "left": [[-m, -m], [m, -m], [m, h + m], [-m, h + m]],
              "right": [[w - m, -m], [w + m, -m], [w + m, h + m], [w - m, h + m]]}
    mask = np.zeros(shape[:2], np.uint8)
    for side in sides:
        pts = np.round(project(H_px_from_mm, np.array(strips[side], float))).astype(np.int32)
        cv2.fillPoly(mask, [pts], 255)
    return mask


def _edges(gray: np.ndarray) -> np.ndarray:
    g = cv2.GaussianBlur(gray, (0, 0), 1.5)
    return sobel_magnitude(g)


#: ECC iterations and convergence threshold: a Euclidean fit at half the reference size, then a
#: homography fit there (bumped samples: ≤ 2 px at the corners of a 1920 px photo, under 1 mm; a
#: further step at full reference size halves that but costs ~9 ms, more than the rest of a scan).
ECC_COARSE = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 20, 1e-3)
#: ECC homography iterations at half the reference size (a camera tilted since calibration).
ECC_PERSPECTIVE = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 1e-5)


def _phase_shift(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> tuple[float, float]:
    """Translation (dx, dy) px with ``b(p + d) ≈ a(p)``, by phase correlation of the masked edge images.

    Widens ECC's basin of attraction: a board pushed 10–20 mm is first brought within a pixel or two.
    """
    grow = cv2.dilate(mask, np.ones((9, 9), np.uint8))
    win = cv2.createHanningWindow((a.shape[1], a.shape[0]), cv2.CV_32F)
    (dx, dy), response = cv2.phaseCorrelate(a * (mask > 0), b * (grow > 0), win)
    return (dx, dy) if response > PHASE_MIN_RESPONSE else (0.0, 0.0)


#: Below this phase-correlation peak the translation guess is ignored (ECC starts from no motion).
PHASE_MIN_RESPONSE = 0.05
#: A coarse alignment this good is kept without trying another start.
GOOD_COARSE_ECC = 0.85


def _coarse_to_fine_ecc(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> tuple[float, np.ndarray]:
    """``(ECC correlation, warp W (3×3))`` with ``b(W·p) ≈ a(p)``: a Euclidean fit at half size, then a
    homography."""
    half = lambda im: cv2.resize(im, (a.shape[1] // 2, a.shape[0] // 2), interpolation=cv2.INTER_AREA)  # noqa: E731
    ha, hb, hm = half(a), half(b), (half(mask) > 127).astype(np.uint8) * 255
    guess = np.eye(2, 3, dtype=np.float32)
    guess[:, 2] = _phase_shift(ha, hb, hm)
    best = (-2.0, None)
    for start in (guess, np.eye(2, 3, dtype=np.float32)) if guess[:, 2].any() else (guess,):
        try:
            found = cv2.findTransformECC(ha, hb, start.copy(), cv2.MOTION_EUCLIDEAN, ECC_COARSE, hm, 3)
        except cv2.error:
            continue
        best = max(best, found, key=lambda f: f[0])
        if best[0] >= GOOD_COARSE_ECC:
            break
    if best[1] is None:
        raise cv2.error("ECC did not converge")
    score, rigid = best[0], np.vstack([best[1], [0, 0, 1]]).astype(np.float32)
    # a camera tilted a little since calibration (perspective) is not a rigid change: the places far
    # from the board's centre would land mm off. A homography fit, from the rigid one, models it.
    persp = rigid
    try:
        fitted, found = cv2.findTransformECC(ha, hb, rigid.copy(), cv2.MOTION_HOMOGRAPHY, ECC_PERSPECTIVE, hm, 3)
        found = found / found[2, 2]
        if np.all(np.isfinite(found)):
            score, persp = fitted, found
    except cv2.error:
        pass
    to_full = np.diag([2.0, 2.0, 1.0])  # half size → reference size
    return float(score), to_full @ persp.astype(np.float64) @ np.linalg.inv(to_full)


def reference_image(gray: np.ndarray, downscale: int = 4) -> np.ndarray:
    """Shrink a calibration shot (uint8 (H, W)) to the reference that :func:`align_to_reference` uses."""
    return cv2.resize(gray, None, fx=1 / downscale, fy=1 / downscale, interpolation=cv2.INTER_AREA)


def align_to_reference(photo_gray: np.ndarray, ref_small: np.ndarray, H_ref: np.ndarray, board_mm,
                       downscale: float = 4, min_score: float = 0.6, sides=SIDES,
                       exclude: np.ndarray | None = None) -> Registration:
    """Refine registration by aligning the photo to the calibration shot (ECC on edge images).

    The photo and reference are single-channel images of the same camera view; the board may
    have moved. A homography W with ``photo(W·p) ≈ ref(p)`` is estimated over the board region, and
    the result is ``W @ H_ref``.

    Args:
        photo_gray: photo, uint8 (H, W).
        ref_small: calibration shot shrunk by :func:`reference_image`, uint8 (H/downscale, W/downscale).
        H_ref: homography board mm → calibration-shot px.
        board_mm: (width_mm, height_mm).
        downscale: work at 1/downscale resolution (speed).
        min_score: below this ECC correlation the alignment is not trusted.
        sides: board sides whose outline is fixed (leave out a side where a cloth or
            loose part changes between shots, e.g. Strand unter's sea side).
        exclude: optional uint8 (H, W) mask in photo px, non-zero where pixels must not be used
            (a cloth, a hand, parts that move between shots).
    Returns:
        A :class:`Registration` with source ``"refined"``, or ``"corners"`` with ``H_ref`` when the
        outline already matches (ECC ≥ :data:`UNMOVED_ECC`) and nothing needs refining.
    Raises:
        UnreadableBoardError: ``registration-lost`` when ECC does not converge or correlates poorly.
    """
    s = 1.0 / downscale
    small = lambda im: cv2.resize(im, (ref_small.shape[1], ref_small.shape[0]), interpolation=cv2.INTER_AREA)  # noqa: E731
    expected = (round(ref_small.shape[0] * downscale), round(ref_small.shape[1] * downscale))
    if abs(photo_gray.shape[0] - expected[0]) > downscale or abs(photo_gray.shape[1] - expected[1]) > downscale:
        raise UnreadableBoardError("registration-lost",
                                   f"photo is {photo_gray.shape[1]}x{photo_gray.shape[0]} px but the calibration "
                                   f"shot is {expected[1]}x{expected[0]} px; use the same camera mode or recalibrate")
    a = _edges(ref_small)
    b = _edges(small(photo_gray))
    S = np.diag([s, s, 1.0])
    mask = _outline_mask(a.shape, S @ H_ref, board_mm, band_mm=0.06 * max(board_mm), sides=sides)
    if exclude is not None:
        mask[small(exclude) > 0] = 0
    still = cv2.computeECC(a, b, mask)
    if still >= UNMOVED_ECC:
        return Registration(H_ref, "corners", score=float(still))
    try:
        score, warp = _coarse_to_fine_ecc(a, b, mask)
    except cv2.error:
        raise UnreadableBoardError("registration-lost", "the board moved and could not be found again; "
                                   "put it back or recalibrate") from None
    W = np.linalg.inv(S) @ warp @ S
    H = W @ H_ref
    shift_mm, rotation = board_motion(H_ref, H, board_mm)
    reg = Registration(H, "refined", shift_mm=shift_mm, rotation_deg=rotation, score=float(score))
    if score < min_score:
        raise UnreadableBoardError("registration-lost",
                                   "the board is not where it was calibrated and could not be found again: is it "
                                   "in view, unobstructed, and the board this calibration is for?")
    return reg
