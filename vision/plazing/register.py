"""Registration — where the board is in this photo; it moved only when its fixed parts say so.

Input: the photo (BGR uint8, decoded at any 1/2ᵏ of the calibration shot's size) and the
calibration (its homography and its reference picture, the calibration shot in grey at 1/4).
Output: a :class:`~vision.types.Registration` (board mm → this photo's px).

Pieces and tokens change from scan to scan and may cover the whole grid, so they never vote. Only
what no game changes does: the board's printed frame (sea strip, dunes, score track) outside the
grid with a margin (a piece pushed a few mm off its cells, a standing meeple's top), and a band of
table around the board's outline (:func:`fixed_parts`).

1. **Nothing moved?** The edges of the fixed parts under the calibrated homography correlate with
   the calibration's (ECC correlation, Evangelidis & Psarakis 2008) at least as well as the
   calibration's own edges do with themselves shifted by ``BOARD_MOVED.shift_mm`` (measured once per
   calibration): not moved — whatever lies on the grid.
2. **The last bump** is checked next (a bumped board stays where it was bumped): kept when the
   edges correlate under it clearly better than under "nothing moved" and better than under the
   same alignment moved by ``MOVED_MM`` either way along either axis or turned by
   ``REGISTER.moved_deg`` either way (the board is nearer to it than to any of those, whatever
   the light: all six are measured on this photo).
3. **A motion hypothesis** from keypoints on the fixed parts (ORB, Rublee et al. 2011) matched to
   the calibration's, fitted with RANSAC (a rotation, a shift, a slight scale: a board slid on the
   table); the motion must explain clearly more of them than "nothing moved" does
   (``REGISTER.min_inlier_gain``), else (a hand on the frame, a reflection) nothing moved —
   unless a motion explains more of them, not clearly more (a turn about a point near most of the
   keypoints, the score track's): with ``REGISTER.retry_motions`` ECC then decides (step 4).
   When too few keypoints are found, a phase correlation of the fixed parts' edges gives the shift.
4. **Refined** by ECC on the fixed parts' edges (a Euclidean fit, then again without the pixels it
   explains worst: a hand or a card on the frame does not pull it; Huber-like trimming) and
   **accepted** only when it raises the correlation clearly above "nothing moved"
   (``REGISTER.min_ecc_gain``) and moves the board more than ``MOVED_MM``. When the keypoints'
   motion does not (matches on the score track's stripes can agree on a slide one stripe off),
   ECC is also started from the phase correlation's shift and from no motion, and the best kept
   (``REGISTER.retry_motions``, :func:`_retried`).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.image.gradients import sobel_magnitude
from vision.plazing.cells import Grid
from vision.plazing.config import REGISTER, RegisterConfig
from vision.plazing.model import ReaderModel
from vision.board.geometry import board_motion, project
from vision.board.motion import BOARD_MOVED, MoveTolerance
from vision.board.references import photo_homography
from vision.types import Registration


def fixed_parts(shape, H_px_from_mm: np.ndarray, profile: dict, cfg: RegisterConfig = REGISTER) -> np.ndarray:
    """Mask of what no game changes, in the image of ``shape`` seen through ``H_px_from_mm``.

    The board's frame outside the grid (less ``cfg.grid_margin_mm`` around it) and a band of
    ``cfg.table_band_mm`` of table outside the board's outline.

    Returns:
        uint8 (H, W), 255 on the fixed parts.
    """
    w, h = profile["board_mm"]
    grid = Grid.from_profile(profile)
    t, m = cfg.table_band_mm, cfg.grid_margin_mm
    x0, y0 = grid.origin_mm[0] - m, grid.origin_mm[1] - m
    x1, y1 = grid.origin_mm[0] + grid.cols * grid.cell_mm + m, grid.origin_mm[1] + grid.rows * grid.cell_mm + m

    def poly(pts):
        return np.round(project(H_px_from_mm, np.array(pts, float))).astype(np.int32)

    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [poly([[-t, -t], [w + t, -t], [w + t, h + t], [-t, h + t]])], 255)
    cv2.fillPoly(mask, [poly([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])], 0)
    return mask


def edges(gray: np.ndarray) -> np.ndarray:
    """Gradient magnitude of a lightly blurred grey image, float32: what ECC aligns (edges do not
    change with the light's level)."""
    g = cv2.GaussianBlur(gray, (0, 0), 1.5)
    return sobel_magnitude(g)


class _Reference:
    """The calibration's fixed parts at the reference size: edges, mask, keypoints (cached)."""

    def __init__(self, cal, H0_ref: np.ndarray, cfg: RegisterConfig, moved_px: float):
        self.image = cal.reference
        self.shape = self.image.shape
        self.edges = edges(self.image)
        self.mask = fixed_parts(self.shape, H0_ref, cal.profile, cfg)
        self.cfg = cfg
        self._keypoints = None
        # what a shift of ``moved_px`` does to the correlation of these very edges: the smallest
        # move that counts (both ways, along both axes; the lowest of the four)
        shifted = [cv2.warpAffine(self.edges, np.float32([[1, 0, dx], [0, 1, dy]]), (self.shape[1], self.shape[0]))
                   for dx, dy in ((moved_px, 0), (-moved_px, 0), (0, moved_px), (0, -moved_px))]
        self.unmoved_ecc = min(float(cv2.computeECC(self.edges, b, self.mask)) for b in shifted)
        # the smallest moves that count, as motions of the reference (3×3): ``moved_px`` either way
        # along either axis, ``cfg.moved_deg`` either way about the board's centre
        w, h = cal.profile["board_mm"]
        cx, cy = (float(v) for v in project(H0_ref, np.array([[w / 2, h / 2]]))[0])
        self.nearby = [np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
                       for dx, dy in ((moved_px, 0), (-moved_px, 0), (0, moved_px), (0, -moved_px))]
        self.nearby += [np.vstack([cv2.getRotationMatrix2D((cx, cy), deg, 1.0), [0.0, 0.0, 1.0]])
                        for deg in (cfg.moved_deg, -cfg.moved_deg)]
        self._derived: dict = {}

    def derived(self, name: str, make):
        """What the alignment derives from the reference alone (its edges at half size, the mask
        grown by the largest bump, …): ``make()`` on first use, then kept (read-only)."""
        got = self._derived.get(name)
        if got is None:
            got = self._derived[name] = make()
            for a in (got if isinstance(got, tuple) else (got,)):
                if isinstance(a, np.ndarray):
                    a.flags.writeable = False
        return got

    def keypoints(self):
        """(ORB detector, keypoints, descriptors) of the fixed parts, found on first use."""
        if self._keypoints is None:
            orb = cv2.ORB_create(nfeatures=self.cfg.keypoints, fastThreshold=10)
            self._keypoints = (orb,) + orb.detectAndCompute(self.image, self.mask)
        return self._keypoints


def register(image: np.ndarray, cal, cfg: RegisterConfig = REGISTER) -> Registration:
    """Find the board in a photo (see the module docstring).

    Args:
        image: photo, BGR uint8 (H, W, 3), decoded at full or reduced size.
        cal: loaded calibration.
    Returns:
        :class:`Registration`: source ``"corners"`` (not moved: the calibrated homography) or
        ``"refined"`` (moved; H maps board mm → ``image`` px, with a warning saying how far).
    Raises:
        UnreadableBoardError: ``registration-lost`` when the board moved and cannot be aligned.
    """
    H0 = photo_homography(cal, image)
    if cal.reference is None:
        return Registration(H0, "corners")
    model = ReaderModel.of(cal)
    S, ppm_ref, ref = _reference(cal, model, H0, image.shape, cfg)
    small = cv2.resize(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (ref.shape[1], ref.shape[0]),
                       interpolation=cv2.INTER_AREA)
    b = edges(small)
    still = float(cv2.computeECC(ref.edges, b, ref.mask))
    if still >= ref.unmoved_ecc:
        return Registration(H0, "corners", score=still)
    last = model.last_refined.get(image.shape[:2])
    if last is not None:  # a bumped board usually stays where it was bumped: check the last alignment first
        W = S @ last.H_px_from_mm @ np.linalg.inv(S @ H0)
        back = cv2.warpPerspective(b, W, (ref.shape[1], ref.shape[0]), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        again = float(cv2.computeECC(ref.edges, back, ref.mask))
        if again > still + cfg.min_ecc_gain and _best_nearby(ref, b, W, again):
            return Registration(last.H_px_from_mm, "refined", shift_mm=last.shift_mm, rotation_deg=last.rotation_deg,
                                score=again, warnings=list(last.warnings))
    verdict, init = _keypoint_motion(ref, small, ppm_ref, cfg)
    if verdict == "still":  # the frame's keypoints sit where they were: something obscures it, nothing moved …
        if not (cfg.retry_motions and init is not None):
            return Registration(H0, "corners", score=still)
        # … unless a motion explains more of them (not clearly more: a turn about a point near most
        # of the keypoints leaves them where they were); ECC on the whole frame then decides
        warp, score = _robust_ecc(ref, b, init, cfg)
        if warp is None or score < max(cfg.min_score, still + cfg.min_ecc_gain):
            return Registration(H0, "corners", score=still)
    else:
        if init is None:
            init = _phase_motion(ref, b, cfg)
            if init is None:
                return Registration(H0, "corners", score=still)
        warp, score = _robust_ecc(ref, b, init, cfg)
        if cfg.retry_motions and (warp is None or score < max(cfg.min_score, still + cfg.min_ecc_gain)):
            warp, score = _retried(ref, b, cfg, warp, score)
        if warp is None or score < cfg.min_score:
            if _moved_by(init, S, H0, cal.profile["board_mm"])[0] < BOARD_MOVED.shift_mm:
                return Registration(H0, "corners", score=still)  # nothing moved after all: the frame is only obscured
            raise UnreadableBoardError("registration-lost", "the board has moved since calibration and could not be "
                                       "found again: put it back where it was, or recalibrate")
    shift, rotation = _moved_by(warp, S, H0, cal.profile["board_mm"])
    moved = MoveTolerance(BOARD_MOVED.shift_mm, cfg.moved_deg)  # Plażing's turn, the board stage's shift
    if score < still + cfg.min_ecc_gain or not moved.is_moved(shift, rotation):
        return Registration(H0, "corners", shift_mm=shift, rotation_deg=rotation, score=still)
    H = np.linalg.inv(S) @ np.vstack([warp, [0, 0, 1]]) @ S @ H0
    reg = Registration(H, "refined", shift_mm=shift, rotation_deg=rotation, score=score,
                       warnings=[f"the board moved {shift:.1f} mm / {rotation:+.1f}° since calibration; "
                                 "its new position was found in the photo"])
    model.last_refined[image.shape[:2]] = reg
    return reg


def _reference(cal, model: ReaderModel, H0: np.ndarray, shape, cfg: RegisterConfig):
    """(S 3×3 photo px → reference px, reference px per board mm, the :class:`_Reference`) for a
    photo of ``shape`` whose calibrated homography is ``H0``; the reference is built on first use
    and kept in ``model``."""
    s = cal.reference.shape[1] / shape[1]
    S = np.diag([s, s, 1.0])
    ends = project(S @ H0, np.array([[0.0, 0.0], [100.0, 0.0]]))
    ppm_ref = float(np.linalg.norm(ends[1] - ends[0])) / 100.0  # reference px per board mm
    ref = model.registration_levels.get("reference")
    if ref is None:
        ref = model.registration_levels["reference"] = _Reference(cal, S @ H0, cfg, BOARD_MOVED.shift_mm * ppm_ref)
    return S, ppm_ref, ref


def prepare_reference(cal, shape, cfg: RegisterConfig = REGISTER) -> None:
    """Build now what :func:`register` derives from the calibration alone for photos of ``shape``
    ((H, W) as decoded): the fixed parts' reference, its keypoints, its half-size edges and mask, its
    normalised edges and the keypoint mask grown by the largest bump, the very arrays the first
    scan of a moved board would otherwise build. For a station or a benchmark, once per loaded
    calibration; a scan reads the same arrays either way.

    Raises:
        BadInputError: ``calibration-outdated`` (:meth:`ReaderModel.of`).
    """
    if cal.reference is None:
        return
    image = np.empty((shape[0], shape[1], 0), np.uint8)  # photo_homography needs only the size
    _, ppm_ref, ref = _reference(cal, ReaderModel.of(cal), photo_homography(cal, image), shape, cfg)
    ref.keypoints()
    _grown_mask(ref, ppm_ref, cfg)
    _half(ref)
    _normalised(ref)


def _grown_mask(ref: _Reference, ppm_ref: float, cfg: RegisterConfig) -> np.ndarray:
    """The fixed parts' mask grown by the largest bump (where a moved photo's keypoints may lie)."""
    grow = int(np.ceil(cfg.largest_bump_mm * ppm_ref))
    return ref.derived(("grown", grow), lambda: cv2.dilate(ref.mask, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8)))


def _half(ref: _Reference) -> tuple[np.ndarray, np.ndarray]:
    """The reference's edges and mask at half size (ECC's coarse level)."""
    h, w = ref.shape
    half = (w // 2, h // 2)
    return ref.derived("half", lambda: (cv2.resize(ref.edges, half, interpolation=cv2.INTER_AREA),
                                        cv2.resize(ref.mask, half, interpolation=cv2.INTER_NEAREST)))


def _normalised(ref: _Reference) -> tuple[np.ndarray, np.ndarray]:
    """(bool mask of the fixed parts, the reference's edges over their sd there)."""
    mask = ref.mask
    return ref.derived("normalised", lambda: (mask > 0, ref.edges / max(float(ref.edges[mask > 0].std()), 1e-6)))


def _best_nearby(ref: _Reference, b: np.ndarray, W: np.ndarray, score: float) -> bool:
    """Is the alignment ``W`` (3×3, reference px → photo px at the reference size), which scores
    ``score`` on the photo's edges ``b``, better than itself moved by each of ``ref.nearby`` (the
    smallest moves that count)? Then the board lies within about half a ``MOVED_MM`` of it."""
    for T in ref.nearby:
        back = cv2.warpPerspective(b, W @ T, (ref.shape[1], ref.shape[0]), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        if float(cv2.computeECC(ref.edges, back, ref.mask)) >= score:
            return False
    return True


def _keypoint_motion(ref: _Reference, small: np.ndarray, ppm_ref: float, cfg: RegisterConfig):
    """What the fixed parts' keypoints say: ``("moved", similarity 2×3 reference px → photo px)``
    fitted with RANSAC when it explains clearly more matches than no motion (``cfg.min_inlier_gain``);
    ``("still", None)`` when no motion explains more of them, ``("still", similarity)`` when one
    explains more but not clearly more (a turn about a point near most keypoints, or a few chance
    matches: :func:`register` lets ECC decide when ``cfg.retry_motions``); ``("unknown", None)`` when
    too few are found."""
    unknown = ("unknown", None)
    orb, ref_kp, ref_desc = ref.keypoints()
    if ref_desc is None or len(ref_kp) < cfg.min_inliers:
        return unknown
    # the photo's fixed parts may have moved: look for keypoints in the mask grown by the largest bump
    mask = _grown_mask(ref, ppm_ref, cfg)
    kp, desc = orb.detectAndCompute(small, mask)
    if desc is None or len(kp) < cfg.min_inliers:
        return unknown
    matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(ref_desc, desc)
    if len(matches) < cfg.min_inliers:
        return unknown
    a = np.float32([ref_kp[m.queryIdx].pt for m in matches])
    p = np.float32([kp[m.trainIdx].pt for m in matches])
    tol = cfg.match_tolerance_mm * ppm_ref
    still = int((np.linalg.norm(p - a, axis=1) < tol).sum())
    M, inl = cv2.estimateAffinePartial2D(a, p, method=cv2.RANSAC, ransacReprojThreshold=tol, maxIters=2000,
                                         confidence=0.999)
    moved = int(inl.sum()) if M is not None else 0
    if moved >= cfg.min_inliers and moved >= cfg.min_inlier_gain * still:
        return "moved", M.astype(np.float32)
    if still >= cfg.min_inliers:
        return "still", (M.astype(np.float32) if moved > still else None)
    return unknown


def _phase_motion(ref: _Reference, b: np.ndarray, cfg: RegisterConfig):
    """A shift (2×3) from the phase correlation of the fixed parts' edges, or None when it is weak."""
    m = ref.mask > 0
    (dx, dy), response = cv2.phaseCorrelate(ref.edges * m, b * m)
    if response < cfg.min_phase_response:
        return None
    return np.float32([[1, 0, dx], [0, 1, dy]])


def _retried(ref: _Reference, b: np.ndarray, cfg: RegisterConfig, warp, score: float):
    """The best of an alignment that did not convince (``warp``, 2×3 float32 reference px → photo px,
    or None; ``score``, its ECC correlation) and ECC refinements from the two other starts a bump
    allows: the phase correlation's shift (:func:`_phase_motion`) and no motion at all. Keypoint
    matches on a periodic print (the score track's stripes) can agree on a motion one period off,
    which ECC cannot bring back; a start near the truth can.

    Returns:
        (warp or None, score): the highest-scoring of the three (the first kept on ties).
    """
    best = (warp, score if warp is not None else 0.0)
    starts = [_phase_motion(ref, b, cfg), np.float32([[1, 0, 0], [0, 1, 0]])]
    for init in starts:
        if init is None:
            continue
        w, s = _robust_ecc(ref, b, init, cfg)
        if w is not None and s > best[1]:
            best = (w, s)
    return best


def _robust_ecc(ref: _Reference, b: np.ndarray, init: np.ndarray, cfg: RegisterConfig):
    """ECC Euclidean fit of the fixed parts' edges from ``init``: at half the reference size first
    (fast), then at the reference size without the pixels the fit explains worst
    (``cfg.trim_share``: a hand, a card, a cable on the frame do not pull it).

    Returns:
        (warp 2×3 float32 reference px → photo px, ECC correlation over all the fixed parts), or
        (None, 0.0) when ECC does not converge.
    """
    h, w = ref.shape
    half = (w // 2, h // 2)
    a2, m2 = _half(ref)
    b2 = cv2.resize(b, half, interpolation=cv2.INTER_AREA)
    warp = init.copy()
    warp[:, 2] *= 0.5
    try:
        _, warp = cv2.findTransformECC(a2, b2, warp, cv2.MOTION_EUCLIDEAN, (cv2.TERM_CRITERIA_EPS
                                       | cv2.TERM_CRITERIA_COUNT, cfg.iterations, cfg.epsilon), m2, 1)
        warp[:, 2] *= 2.0
        mask = ref.mask
        inside, an = _normalised(ref)
        back = cv2.warpAffine(b, warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        bn = back / max(float(back[inside].std()), 1e-6)
        res = np.abs(an - bn)
        cut = float(np.quantile(res[inside], 1.0 - cfg.trim_share))
        trimmed = np.where(res <= cut, mask, 0).astype(np.uint8)
        _, warp = cv2.findTransformECC(ref.edges, b, warp, cv2.MOTION_EUCLIDEAN, (cv2.TERM_CRITERIA_EPS
                                       | cv2.TERM_CRITERIA_COUNT, cfg.fine_iterations, cfg.epsilon), trimmed, 1)
        back = cv2.warpAffine(b, warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        score = float(cv2.computeECC(ref.edges, back, mask))
    except cv2.error:
        return None, 0.0
    return warp, score


def _moved_by(warp: np.ndarray, S: np.ndarray, H0: np.ndarray, board_mm) -> tuple[float, float]:
    """How far a warp (reference px) moves the board's centre (mm) and turns it (degrees)."""
    H = np.linalg.inv(S) @ np.vstack([warp, [0, 0, 1]]).astype(np.float64) @ S @ H0
    return board_motion(H0, H, board_mm)
