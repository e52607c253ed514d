"""Registration of a Strand unter photo: has the board been bumped since calibration?

Input: a photo (decoded at 1/``decode_reduce``) and the calibration (homography, the rectified
empty board's surround as reference, the class table for the cloth).
Output: :class:`StrandRegistration` (board mm → photo px, ``"corners"`` when nothing moved,
``"refined"`` with a warning when the board moved, plus the table strip's lighting gains and the
surround's blur/noise figures), or ``registration-lost`` / ``too-blurred`` / ``too-noisy`` /
``too-small`` (exit 3). ArUco markers declared in the profile win over all this (the pipeline
tries them first).

Only what pieces cannot change is used: strips across the rails, the board's outline and the
table edge, in the board plane (the photo rectified with the calibrated homography, board plus a
margin), against the rectified empty board. Each strip's mean profile is shifted onto the
reference's by normalised cross-correlation of their derivatives; strips the cloth may cover
(found by the learned colour table) are skipped. A bump of the board on the table is a rigid
motion in its plane, so three parameters (shift x, y, rotation) are fitted from the shifts with
a robust estimator (:func:`robust_motion`: trimmed least squares, then Tukey-biweight IRLS).

"Nothing moved" is tested first: the strips at the calibrated place, and the motion they ask
for is accepted only when it lowers their robust cost clearly (``moved_gain``, a χ² 99.9%
quantile for 3 parameters) and moves the board more than ``moved_mm`` / ``moved_deg``; a board
full of new pieces under a fixed camera is never "moved", as pieces never lie on the strips.
The strips are searched ±``max_shift_mm``; a push further than that is first measured coarsely
by phase correlation of the piece-free surround's edges, and the fine fit then runs on the photo
rectified with that offset (up to ``max_bump_mm``). A photo whose surround lost most of the
calibration's fine detail is refused as ``too-blurred`` before any fit. A board turned further
than the strips' range (≳ 2.5°) is found by fitting again from turned starting points. A board
that looks larger or smaller (the camera's height or zoom changed) is recognised by a fit with a
scale term and from zoomed starting points, and refused with a message asking to recalibrate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.image import quality
from vision.board.motion import MoveTolerance
from vision.types import Registration
from vision.strand_unter.cloth_reach import cloth_edge_inner, cloth_edge_mm, cloth_inner
from vision.strand_unter.coarse_shift import coarse_translation
from vision.strand_unter.config import READING, REGISTRATION
from vision.strand_unter.geometry import (
    board_px_per_mm,
    reduce_homography,
    scale_homography,
    warp_board,
)
from vision.strand_unter.reference_cache import class_table, reference_cloth_edge, reference_picture
from vision.strand_unter.robust_motion import robust_motion, tukey
from vision.strand_unter.strip_fit import Fit, fine_fit, warp_strips
from vision.strand_unter.surround import (check_noise, strip_gains, strip_inside, surround_detail, surround_noise,
                                          surround_pixels)

__all__ = ["Fit", "StrandRegistration", "check_noise", "class_table", "cloth_edge_mm", "register", "robust_motion",
           "surround_detail", "surround_noise", "surround_pixels", "tukey"]


@dataclass
class StrandRegistration(Registration):
    """A :class:`~vision.types.Registration` plus what the reader reuses.

    Attributes:
        gains: per-channel BGR gains (3,) mapping this photo's lighting onto the calibration's.
        extended: the photo rectified with the *calibrated* homography, board + margin, BGR uint8.
        detail: :func:`surround_detail` of the photo (fine detail of the board's surround), or None.
        extended_gray: ``extended``'s grey image (uint8), or None.
    """

    gains: np.ndarray | None = None
    extended: np.ndarray | None = field(default=None, repr=False)
    extended_gray: np.ndarray | None = field(default=None, repr=False)
    detail: float | None = None
    noise: float | None = None


def register(image: np.ndarray, cal, cfg=REGISTRATION) -> StrandRegistration:
    """Find the board in a photo decoded at 1/``cfg.decode_reduce`` size.

    Args:
        image: photo, BGR uint8 (H, W, 3), the calibration's camera mode decoded reduced, or
            the same view at another resolution (same aspect ratio): the calibrated homography
            is scaled to the image's width, as the other games' ``photo_homography`` does.
        cal: loaded :class:`~calibration.store.Calibration` of strand-unter.
    Returns:
        :class:`StrandRegistration` whose ``H_px_from_mm`` maps board mm → px of *this* image;
        source ``"corners"`` when the board has not moved, else ``"refined"``.
    Raises:
        UnreadableBoardError: ``registration-lost`` when the photo has another shape than the
            calibration shot, the alignment does not converge, correlates poorly or moves implausibly
            far; ``too-small`` when the board has too few pixels per mm (messages give the photo's
            size as taken, i.e. the decoded size × ``cfg.decode_reduce``); ``too-noisy`` /
            ``too-blurred`` when the board's surround is much noisier / lost most of the
            calibration's fine detail.
    """
    H0 = _calibrated_view(image, cal, cfg)
    board = cal.profile["board_mm"]
    model = cal.model
    ext = warp_board(image, H0, board, cfg.ppm, cfg.margin_mm)
    gains = strip_gains(ext, board, model["surround_bgr"], cfg,
                        strip_inside(H0, (image.shape[1], image.shape[0]), board, cfg))
    ref = reference_picture(cal)
    if ref is None or ref.shape != ext.shape[:2]:
        return StrandRegistration(H0, "corners", gains=gains, extended=ext)

    gray = cv2.cvtColor(ext, cv2.COLOR_BGR2GRAY)
    # a grainy photo is refused as such before its noise is taken for pieces or breaks the fit
    noise = surround_noise(gray, board, cfg)
    check_noise(noise, model.get("noise_sigma"))
    lut = class_table(cal)
    edges = np.maximum(cloth_edge_mm(ext, gains, lut, model["class_names"].index("sea"), model["lut_bits"], board, cfg),
                       reference_cloth_edge(cal, cfg))
    detail = surround_detail(gray, board, float(max(edges[0], edges[1])), cfg)
    # a blurred photo is refused as such before its blurred outline fails to align
    quality.check_blur(detail, model.get("detail_ratio"), READING.min_detail_share)
    search = _MotionSearch(image, cal, H0, gray, ref, board, edges, gains, lut, cfg)
    T, ecc, zoom, still = _find_motion(search)
    w, h = board
    centre = np.array([w / 2, h / 2, 1.0])
    shift_mm = float(np.linalg.norm((T @ centre)[:2] - centre[:2]))
    _refuse_scale_change(search, T, ecc, zoom, shift_mm)
    rotation = float(np.degrees(np.arctan2(T[1, 0], T[0, 0])))
    if ecc < cfg.min_ecc or shift_mm > cfg.max_bump_mm:
        raise UnreadableBoardError("registration-lost",
                                   f"the board is not where it was calibrated (about {shift_mm:.0f} mm away) "
                                   "and could not be found again: is it in view, unobstructed, and the board this "
                                   "calibration is for?")
    # the motion is accepted only when it explains the outline clearly better than no motion (a fit
    # from the calibrated place whose gain is small, or a motion within the noise, is "not moved");
    # fits from a coarse or turned start are only made when the calibrated place explains nothing
    explained = still is not None and T is still.T and still.gain < cfg.moved_gain
    if explained or not MoveTolerance(cfg.moved_mm, cfg.moved_deg).is_moved(shift_mm, rotation):
        return StrandRegistration(H0, "corners", shift_mm=shift_mm, rotation_deg=rotation, score=float(ecc),
                                  gains=gains, extended=ext, extended_gray=gray, detail=detail, noise=noise)
    reg = StrandRegistration(H0 @ T, "refined", shift_mm=shift_mm, rotation_deg=rotation, score=float(ecc),
                             gains=gains, extended=None, detail=detail, noise=noise)
    turned = f" and turned {abs(rotation):.1f}°" if abs(rotation) >= 0.1 else ""
    reg.warnings.append(f"the board has moved {shift_mm:.0f} mm{turned} since calibration; "
                        "its new position was found in the photo")
    return reg


def _calibrated_view(image: np.ndarray, cal, cfg) -> np.ndarray:
    """The calibrated homography board mm → px of ``image`` (scaled to its width: another
    resolution of the same camera mode).

    Raises:
        UnreadableBoardError: ``registration-lost`` (another shape than the calibration shot),
            ``too-small`` (too few px per board mm).
    """
    W0, H0px = cal.image_size
    h_img, w_img = image.shape[:2]
    scale = w_img / W0
    shot = f"{w_img * cfg.decode_reduce}x{h_img * cfg.decode_reduce} px"     # the photo as taken (decoded reduced)
    if abs(H0px * scale - h_img) > max(1.0, 0.01 * h_img):
        raise UnreadableBoardError("registration-lost", f"the photo ({shot}) has another shape than the calibration "
                                   f"shot ({W0}x{H0px} px); use the same camera mode or recalibrate")
    # another resolution of the same camera mode: the calibrated view, scaled (as the other games do)
    H0 = reduce_homography(cal.H_px_from_mm, 1) if scale == 1 else scale_homography(cal.H_px_from_mm, scale)
    ppm_photo = board_px_per_mm(H0, cal.profile["board_mm"])
    if ppm_photo < cfg.min_photo_ppm:
        raise UnreadableBoardError("too-small", f"the photo ({shot}) shows the board at only {ppm_photo * cfg.decode_reduce:.1f} "
                                   f"px per mm (at least {cfg.min_photo_ppm * cfg.decode_reduce:.1f} needed to tell the "
                                   f"pieces apart; the calibration shot is {W0}x{H0px} px); use a higher resolution")
    return H0


class _MotionSearch:
    """What every fit of one photo shares: the photo, its calibrated homography ``H0``, the
    extended rectified grey photo, the reference, the cloth's reach, the lighting gains and the
    class table; the coarse translation, measured once when first asked for."""

    def __init__(self, image, cal, H0, gray, ref, board, edges, gains, lut, cfg):
        self.image, self.cal, self.H0, self.gray, self.ref = image, cal, H0, gray, ref
        self.board, self.edges, self.gains, self.lut, self.cfg = board, edges, gains, lut, cfg
        self.sea = cal.model["class_names"].index("sea")
        self._coarse_guess: list = []

    def coarse_shift(self):
        """(Tc, coarse): the coarse translation (:func:`~vision.strand_unter.coarse_shift.coarse_translation`)
        and whether it is trusted; measured only when a branch needs it (when nothing moved, none does)."""
        cfg = self.cfg
        if not self._coarse_guess:
            dx, dy, response = coarse_translation(self.gray, self.cal, self.ref, self.board, self.edges, cfg)
            Tc = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
            self._coarse_guess.extend([Tc, bool(np.hypot(dx, dy) > cfg.coarse_min_mm
                                                and response >= cfg.min_coarse_response)])
        return self._coarse_guess

    def fit_from(self, T0):
        """Fine fit on the photo rectified with ``H0 @ T0`` (a coarse guess); (T, ecc, scale) or raises.

        Only what the fit looks at is rectified: the strips' regions
        (:func:`~vision.strand_unter.strip_fit.warp_strips`) and the cloth's half-size view
        (:func:`~vision.strand_unter.cloth_reach.cloth_inner`) for the strips the cloth may cover."""
        cal, board, cfg = self.cal, self.board, self.cfg
        H1 = self.H0 @ T0
        edges1 = np.maximum(cloth_edge_inner(cloth_inner(self.image, H1, board, cfg), self.gains, self.lut, self.sea,
                                             cal.model["lut_bits"], board, cfg), reference_cloth_edge(cal, cfg))
        Tf, e, sc = fine_fit(warp_strips(self.image, H1, self.ref.shape, board, cfg), cal, self.ref, board,
                             edges1 + cfg.sea_dilate_mm, cfg)
        return T0 @ Tf, e, sc


def _find_motion(search: _MotionSearch):
    """The board's motion since calibration: "nothing moved" first, then from a coarse translation,
    then from turned starting points.

    Returns:
        (T float64 (3, 3) board mm → board mm, fit quality, change of scale (NaN unless every side
        fits), the fit from the calibrated place when it is the one kept, else None).
    Raises:
        UnreadableBoardError: ``registration-lost`` (no fit at all; a board looking larger or
            smaller than at calibration).
    """
    gray, cal, ref, board, edges, cfg = search.gray, search.cal, search.ref, search.board, search.edges, search.cfg
    T, ecc, zoom = None, 0.0, float("nan")
    # 1. nothing moved? the strips across the outline at the calibrated place, and the motion they ask for
    first_error, still = None, None
    try:
        still = fine_fit(gray, cal, ref, board, edges + cfg.sea_dilate_mm, cfg)
        T, ecc, zoom = still
    except UnreadableBoardError as err:
        first_error = err
    # 2. a push larger than the fine search range: a coarse translation by phase correlation of the
    # piece-free surround, then the fine fit around it (on the photo rectified with that offset)
    if (still is None or still.ecc < cfg.zoom_check_ecc or _shift(still.T, board) > cfg.coarse_min_mm) and \
            search.coarse_shift()[1]:
        Tc = search.coarse_shift()[0]
        try:
            Tk, ek, zk = search.fit_from(Tc)
            if ek > ecc:
                T, ecc, zoom, still = Tk, ek, zk, None
        except UnreadableBoardError:            # the coarse offset misled
            pass
    if T is None or ecc < cfg.zoom_check_ecc:
        Tc, coarse = search.coarse_shift()
        # a board turned further than the strips' search range: try turned starting points
        for deg in cfg.rotation_steps_deg:
            for T0 in ([Tc] if coarse else []) + [np.eye(3)]:
                try:
                    Tr, e, z = search.fit_from(T0 @ _turn(deg, board))
                except UnreadableBoardError:
                    continue
                if e > ecc:
                    T, ecc, zoom = Tr, e, z
            if T is not None and ecc >= cfg.zoom_check_ecc:
                break
    if T is None:
        Tc, coarse = search.coarse_shift()
        # the board larger or smaller than at calibration: the camera's height or zoom changed
        for sc in cfg.scale_steps:
            for T0 in ([Tc] if coarse else []) + [np.eye(3)]:
                try:
                    search.fit_from(T0 @ _zoom(sc, board))
                except UnreadableBoardError:
                    continue
                raise UnreadableBoardError(
                    "registration-lost", f"the board looks about {abs(sc - 1):.0%} {'larger' if sc > 1 else 'smaller'} "
                    "than at calibration: the camera's height or zoom seems to have changed; put the camera back "
                    "or recalibrate")
        raise first_error
    return T, ecc, zoom, still


def _refuse_scale_change(search: _MotionSearch, T: np.ndarray, ecc: float, zoom: float, shift_mm: float) -> None:
    """Refuse a board that looks larger or smaller than at calibration (the camera's height or zoom
    changed): the fit's own scale term, or fits from zoomed starting points that explain the outline
    clearly better.

    Raises:
        UnreadableBoardError: ``registration-lost``, naming the change of scale.
    """
    board, cfg = search.board, search.cfg
    scales = [zoom] if np.isfinite(zoom) else []
    sure_scale = np.isfinite(zoom) and abs(zoom) < cfg.max_scale_change / 2 and ecc >= cfg.zoom_check_ecc
    if (shift_mm > cfg.coarse_min_mm or ecc < cfg.zoom_check_ecc) and not sure_scale:
        # a far move is also what a changed camera height looks like: fit from zoomed starting points,
        # where both rails can match, and read the change of scale off the 4-parameter fit (not
        # needed when the fit matched every side well and its own scale term says "no zoom")
        zoomed = []                               # (fit quality, change of scale) from zoomed starts
        Tc = search.coarse_shift()[0]
        for sc in cfg.scale_steps[:2]:
            for T0 in (T, Tc, np.eye(3)):
                try:
                    _, e, z = search.fit_from(T0 @ _zoom(sc, board))
                except UnreadableBoardError:
                    continue
                if e >= cfg.min_ecc:
                    zoomed.append((e, sc * (1 + z) - 1 if np.isfinite(z) else sc - 1))
                    if np.isfinite(z):
                        scales.append(sc * (1 + z) - 1)
                break
        best = max(zoomed, default=None)
        if best is not None and best[0] > ecc + cfg.zoom_better_ecc:
            scales = [best[1]]                   # a zoomed board explains the outline clearly better
    if scales and min(abs(z) for z in scales) > cfg.max_scale_change:
        z = float(np.median(scales))
        raise UnreadableBoardError(
            "registration-lost", f"the board looks about {abs(z):.0%} {'larger' if z > 0 else 'smaller'} than at "
            "calibration: the camera's height or zoom seems to have changed; put the camera back or "
            "recalibrate")


def _shift(T: np.ndarray, board_mm) -> float:
    """How far (mm) a board motion moves the board's centre."""
    c = np.array([board_mm[0] / 2, board_mm[1] / 2, 1.0])
    return float(np.linalg.norm((T @ c)[:2] - c[:2]))


def _turn(deg: float, board_mm) -> np.ndarray:
    """Rotation by ``deg`` about the board's centre, board mm → board mm (3, 3)."""
    w, h = board_mm
    t = np.radians(deg)
    c, s_ = np.cos(t), np.sin(t)
    cx, cy = w / 2, h / 2
    return np.array([[c, -s_, cx - c * cx + s_ * cy], [s_, c, cy - s_ * cx - c * cy], [0.0, 0.0, 1.0]])


def _zoom(factor: float, board_mm) -> np.ndarray:
    """Scaling by ``factor`` about the board's centre, board mm → board mm (3, 3)."""
    w, h = board_mm
    cx, cy = w / 2, h / 2
    return np.array([[factor, 0.0, cx - factor * cx], [0.0, factor, cy - factor * cy], [0.0, 0.0, 1.0]])
