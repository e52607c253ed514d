"""Registration: the homography between the board frame (mm) and the photo (px).

Sources, tried in this order by :func:`beachscore.pipeline.register`:
1. ArUco markers declared in the profile, when at least two are visible (the board may have
   moved freely);
2. the calibrated corners (fixed camera, board where it was at calibration), moved only when the
   board's outline says it was bumped (:mod:`vision.outline`: strips across the rim and edges,
   which pieces never change).

:func:`align_to_reference` (ECC intensity alignment of the photo's edges against the calibration
shot over a band along the outline, Evangelidis & Psarakis 2008, ``cv2.findTransformECC``) is kept
for the readers that call it; the pipeline no longer does, as the band also holds pieces.

Homographies here map board millimetres to image pixels: ``p_px ~ H_px_from_mm @ [x_mm, y_mm, 1]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.image.gradients import sobel_magnitude


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
#: leave the homography poorly constrained across a whole board.
MIN_MARKERS = 2


def detect_markers(image: np.ndarray, markers: list[dict]) -> np.ndarray | None:
    """Homography board mm → image px from the profile's ArUco markers, or None if too few are seen.

    Args:
        image: photo, BGR uint8.
        markers: profile ``markers`` entries ``{"dictionary": "DICT_4X4_50", "id": int, "corners_mm": 4×[x, y]}``.
    Returns:
        (3, 3) float64 homography fitted with RANSAC over every seen marker corner, or None when
        fewer than :data:`MIN_MARKERS` declared markers are visible.
    """
    if not markers:
        return None
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    src, dst, found = [], [], 0
    for name in sorted({m["dictionary"] for m in markers}):
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
        detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
        corners, ids, _ = detector.detectMarkers(gray)
        if ids is None:
            continue
        seen = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}
        for m in markers:
            if m["dictionary"] == name and m["id"] in seen:
                src.extend(m["corners_mm"])
                dst.extend(seen[m["id"]].tolist())
                found += 1
    if found < MIN_MARKERS:
        return None
    H, _ = cv2.findHomography(np.float32(src), np.float32(dst), cv2.RANSAC, 3.0)
    return H


@dataclass
class Registration:
    """Where the board is in one photo.

    Attributes:
        H_px_from_mm: (3, 3) homography board mm → image px.
        source: ``"markers"``, ``"corners"`` or ``"refined"``.
        shift_mm: how far the board centre moved against the calibration (mm), 0 when not refined.
        rotation_deg: rotation against the calibration (degrees).
        score: quality of the alignment in [−1, 1]: the share of the outline strips explained
            (:mod:`vision.outline`), or an ECC correlation; 1 for markers.
    """

    H_px_from_mm: np.ndarray
    source: str
    shift_mm: float = 0.0
    rotation_deg: float = 0.0
    score: float = 1.0
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """JSON summary: source, shift_mm, rotation_deg, score (the homography stays internal)."""
        return {"source": self.source, "shift_mm": round(self.shift_mm, 2),
                "rotation_deg": round(self.rotation_deg, 2), "score": round(self.score, 3)}


SIDES = ("top", "right", "bottom", "left")
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
