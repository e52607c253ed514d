"""Plażing registration: find the board in a photo, cheaply when it has not moved.

Same method as :func:`beachscore.pipeline.register`, with the reference's edge images cached per
calibration and the last refined alignment tried first (see :func:`register`).
"""

from __future__ import annotations

import cv2
import numpy as np

from beachscore.errors import UnreadableBoardError
from vision.plazing.config import REGISTER
from vision.plazing.model import ReaderModel
from vision.registration import Registration


def register(image: np.ndarray, cal) -> Registration:
    """Find the board in a photo: the calibrated corners, refined by ECC when the board moved.

    Same method as :func:`beachscore.pipeline.register` (edge images of the photo and of the
    calibration shot correlated over a band along the board's outline, Evangelidis & Psarakis
    2008), with the cheap "has it moved?" correlation cached per calibration, the last refined
    alignment tried next (a bumped board stays where it was bumped: find it once, re-check cheaply),
    and the moved-board alignment run on the reference shrunk ``REGISTER.coarse_factor`` times more
    (a few ms instead of tens; ≈ 0.5 mm at the board, well inside a 20 mm cell).

    Args:
        image: photo, BGR uint8 (H, W, 3), decoded at full or reduced size.
        cal: loaded calibration.
    Returns:
        :class:`Registration` (source ``"corners"`` or ``"refined"``; H maps board mm → ``image`` px).
    Raises:
        UnreadableBoardError: ``registration-lost`` when a moved board cannot be aligned.
    """
    from beachscore.pipeline import MOVED_MM, photo_homography
    from vision import registration as reg_mod

    H0 = photo_homography(cal, image)
    if cal.reference is None:
        return Registration(H0, "corners")
    model = ReaderModel.of(cal)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    board_mm = cal.profile["board_mm"]
    band = 0.06 * max(board_mm)
    levels = model.registration_levels.get(image.shape[:2])
    if levels is None:  # edge images and outline masks of the reference, at two sizes
        levels = []
        for f in (1, REGISTER.coarse_factor):
            ref = cal.reference if f == 1 else cv2.resize(cal.reference, (cal.reference.shape[1] // f,
                                                                          cal.reference.shape[0] // f),
                                                          interpolation=cv2.INTER_AREA)
            s = ref.shape[1] / image.shape[1]
            S = np.diag([s, s, 1.0])
            levels.append((ref.shape, reg_mod._edges(ref), reg_mod._outline_mask(ref.shape, S @ H0, board_mm, band), S))
        model.registration_levels[image.shape[:2]] = levels
    (shape, a, mask, S) = levels[0]
    small = cv2.resize(gray, (shape[1], shape[0]), interpolation=cv2.INTER_AREA)
    edges = reg_mod._edges(small)
    still = cv2.computeECC(a, edges, mask)
    if still >= reg_mod.UNMOVED_ECC:
        return Registration(H0, "corners", score=float(still))
    last = model.last_refined.get(image.shape[:2])
    if last is not None:  # a bumped board usually stays where it was bumped: check the last alignment first
        W = S @ last.H_px_from_mm @ np.linalg.inv(S @ H0)  # reference px → photo px, at this level
        back = cv2.warpPerspective(edges, W, (shape[1], shape[0]), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        again = cv2.computeECC(a, back, mask)
        if again >= reg_mod.UNMOVED_ECC:
            return Registration(last.H_px_from_mm, "refined", shift_mm=last.shift_mm, rotation_deg=last.rotation_deg,
                                score=float(again), warnings=list(last.warnings))
    (shape, a, mask, S) = levels[1]
    b = reg_mod._edges(cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_AREA))
    warp = np.eye(2, 3, dtype=np.float32)
    # a bump is a rigid move: a Euclidean warp, started from the phase-correlation shift so that
    # boards pushed a centimetre or more are found too
    (dx, dy), response = cv2.phaseCorrelate(a * (mask > 0), b * (mask > 0))
    if response > REGISTER.min_phase_response:
        warp[:, 2] = (dx, dy)
    try:
        score, warp = cv2.findTransformECC(a, b, warp, cv2.MOTION_EUCLIDEAN, (cv2.TERM_CRITERIA_EPS
                                           | cv2.TERM_CRITERIA_COUNT, REGISTER.iterations, REGISTER.epsilon), mask, 3)
    except cv2.error:
        raise UnreadableBoardError("registration-lost", "the board moved and could not be found again; "
                                   "put it back or recalibrate") from None
    if score < REGISTER.min_score:
        raise UnreadableBoardError("registration-lost", f"the board could not be aligned with the calibration shot "
                                   f"(ECC {score:.2f}); is it in view and unobstructed?")
    H = np.linalg.inv(S) @ np.vstack([warp, [0, 0, 1]]).astype(np.float64) @ S @ H0
    w, h = board_mm
    centre = np.array([[w / 2, h / 2], [w / 2 + 100, h / 2]])
    before, after = reg_mod.project(H0, centre), reg_mod.project(H, centre)
    ppm = np.linalg.norm(before[1] - before[0]) / 100
    shift = float(np.linalg.norm(after[0] - before[0]) / ppm)
    ang = lambda p: np.degrees(np.arctan2(p[1, 1] - p[0, 1], p[1, 0] - p[0, 0]))  # noqa: E731
    rotation = float(ang(after) - ang(before))
    if shift < MOVED_MM and abs(rotation) < 0.2:
        return Registration(H0, "corners", shift_mm=shift, rotation_deg=rotation, score=float(score))
    reg = Registration(H, "refined", shift_mm=shift, rotation_deg=rotation, score=float(score),
                       warnings=[f"the board moved {shift:.1f} mm / {rotation:+.1f}° since calibration; "
                                 "registration corrected from the photo"])
    model.last_refined[image.shape[:2]] = reg
    return reg
