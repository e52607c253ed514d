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
from vision.image.gradients import sobel_magnitude
from vision.strand_unter import colour as colour
from vision.strand_unter import stats
from vision.board.motion import MoveTolerance
from vision.types import Registration
from vision.strand_unter.config import READING, REGISTRATION
from vision.strand_unter.geometry import (
    board_px_per_mm,
    mm_to_work,
    reduce_homography,
    scale_homography,
    warp_board,
)


@dataclass
class StrandRegistration(Registration):
    """A :class:`~vision.registration.Registration` plus what the reader reuses.

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


def surround_pixels(ext_bgr: np.ndarray, board_mm, reg=REGISTRATION) -> np.ndarray:
    """Pixels (N, 3) of the table strip below the board in an extended rectified image (BGR uint8)."""
    (y0, y1), (x0, x1) = _table_strip(board_mm, reg)
    return ext_bgr[y0:y1:2, x0:x1:2].reshape(-1, 3)


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
        σ ≥ 0 (samples at 1 px/mm: clean photos 0.15–0.39).
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
        The detail ratio (≥ 1; about 2.4 for a sharp sample photo at 1 px/mm).
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


def cloth_edge_mm(ext_bgr: np.ndarray, gains, lut: np.ndarray, sea_index: int, bits: int, board_mm,
                  cfg=REGISTRATION) -> tuple[float, float, float]:
    """Lowest reach of the cloth (board mm, y) near the left rail, near the right rail, and anywhere.

    Only the board's interior columns are looked at (the rails are blue too); the cloth hangs
    from the sea side, so everything above this line may be cloth in the rail strips.

    Args:
        ext_bgr: extended rectified photo (board + ``cfg.margin_mm``), BGR uint8.
        gains: lighting gains (3,) onto the calibration's.
        lut, sea_index, bits: the learned class lookup table and the sea's class index.
    """
    w, h = board_mm
    m, ppm = cfg.margin_mm, cfg.ppm
    # every other row and column: only the strips next to the cloth are left out by it (± 2 mm is plenty)
    crop = ext_bgr[:, int(m * ppm):int((m + w) * ppm)]
    ch, cw = crop.shape[:2]
    # (crop[::2, ::2]: for even sizes a nearest-neighbour halving picks exactly those pixels, without a strided copy)
    inner = cv2.resize(crop, (cw // 2, ch // 2), interpolation=cv2.INTER_NEAREST) if ch % 2 == 0 and cw % 2 == 0 \
        else crop[::2, ::2]
    return _cloth_edge_inner(inner, gains, lut, sea_index, bits, board_mm, cfg)


def _cloth_inner(image: np.ndarray, H_px_from_mm: np.ndarray, board_mm, cfg=REGISTRATION) -> np.ndarray:
    """What :func:`cloth_edge_mm` looks at, straight from the photo: the extended image's board columns
    at every other row and column (its pixels (2i, m·ppm + 2j)), warped alone (a quarter of the pixels)."""
    w, h = board_mm
    m, ppm = cfg.margin_mm, cfg.ppm
    W, Hh = int(round((w + 2 * m) * ppm)), int(round((h + 2 * m) * ppm))
    x0, x1 = int(m * ppm), int((m + w) * ppm)
    size = ((min(x1, W) - x0 + 1) // 2, (Hh + 1) // 2)
    S = np.array([[2.0, 0.0, float(x0)], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]])     # half-size px → extended px
    M = np.asarray(H_px_from_mm, np.float64) @ np.linalg.inv(mm_to_work(ppm, m)) @ S
    return cv2.warpPerspective(image, M, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _warp_strips(image: np.ndarray, H_px_from_mm: np.ndarray, shape, board_mm, cfg=REGISTRATION) -> np.ndarray:
    """The extended rectified grey image (uint8 ``shape``) of a BGR photo where :func:`_fine_fit` reads
    it, the regions of its strips (:func:`_bands`: along each rail and the land-side edge), 0 elsewhere;
    each region warped on its own, then made grey (a fifth of the pixels of the whole extended image)."""
    out = np.zeros(shape, np.uint8)
    M = np.asarray(H_px_from_mm, np.float64) @ np.linalg.inv(mm_to_work(cfg.ppm, cfg.margin_mm))
    for side in ("left", "right", "bottom"):
        regs = [b[2] for b in _bands(shape, board_mm, cfg) if b[0] == side]
        if not regs:
            continue
        r0, r1 = min(r[0].start for r in regs), max(r[0].stop for r in regs)
        c0, c1 = min(r[1].start for r in regs), max(r[1].stop for r in regs)
        r0, c0, r1, c1 = max(r0, 0), max(c0, 0), min(r1, shape[0]), min(c1, shape[1])
        if r1 <= r0 or c1 <= c0:
            continue
        Mt = M @ np.array([[1.0, 0.0, c0], [0.0, 1.0, r0], [0.0, 0.0, 1.0]])
        out[r0:r1, c0:c1] = cv2.cvtColor(cv2.warpPerspective(image, Mt, (c1 - c0, r1 - r0), flags=cv2.INTER_LINEAR |
                                                             cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE),
                                         cv2.COLOR_BGR2GRAY)
    return out


def _cloth_edge_inner(inner: np.ndarray, gains, lut: np.ndarray, sea_index: int, bits: int, board_mm,
                      cfg=REGISTRATION) -> tuple[float, float, float]:
    """:func:`cloth_edge_mm` of its half-size view of the board's columns (:func:`_cloth_inner`)."""
    w, h = board_mm
    m, ppm = cfg.margin_mm, cfg.ppm
    sea = colour.sea_pixels(colour.apply_gains(inner, gains), lut, bits, sea_index, READING.sea_smooth_px // 2 + 1)
    edge = 2.0 * colour.cloth_edge(sea, READING.cloth_edge_window_px // 2)
    depth = np.repeat(np.minimum(edge, 2 * sea.shape[0]), 2)[:int(w * ppm)] / ppm - m   # cloth edge per column, mm
    b = int(cfg.inner_band_mm * ppm)
    return float(depth[b:4 * b].max()), float(depth[-4 * b:-b].max()), float(depth[b:-b].max())


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
    board = cal.profile["board_mm"]
    model = cal.model
    ext = warp_board(image, H0, board, cfg.ppm, cfg.margin_mm)
    gains = colour.channel_gains(surround_pixels(ext, board, cfg), model["surround_bgr"])
    ref = _reference(cal)
    if ref is None or ref.shape != ext.shape[:2]:
        return StrandRegistration(H0, "corners", gains=gains, extended=ext)

    gray = cv2.cvtColor(ext, cv2.COLOR_BGR2GRAY)
    # a grainy photo is refused as such before its noise is taken for pieces or breaks the fit
    noise = surround_noise(gray, board, cfg)
    check_noise(noise, model.get("noise_sigma"))
    lut = class_table(cal)
    edges = np.maximum(cloth_edge_mm(ext, gains, lut, model["class_names"].index("sea"), model["lut_bits"], board, cfg),
                       _ref_cloth_edge(cal, cfg))
    detail = surround_detail(gray, board, float(max(edges[0], edges[1])), cfg)
    # a blurred photo is refused as such before its blurred outline fails to align
    quality.check_blur(detail, model.get("detail_ratio"), READING.min_detail_share)
    w, h = board
    T, ecc, zoom = None, 0.0, float("nan")
    sea = model["class_names"].index("sea")
    coarse_guess: list = []

    def coarse_shift():
        """(Tc, coarse): the coarse translation (:func:`_coarse_shift`) and whether it is trusted; measured
        only when a branch below needs it (when nothing moved, none does)."""
        if not coarse_guess:
            dx, dy, response = _coarse_shift(gray, cal, ref, board, edges, cfg)
            Tc = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
            coarse_guess.extend([Tc, bool(np.hypot(dx, dy) > cfg.coarse_min_mm and response >= cfg.min_coarse_response)])
        return coarse_guess

    def fit_from(T0):
        """Fine fit on the photo rectified with ``H0 @ T0`` (a coarse guess); (T, ecc, scale) or raises.

        Only what the fit looks at is rectified: the strips' regions (:func:`_warp_strips`) and the
        cloth's half-size view (:func:`_cloth_inner`) for the strips the cloth may cover."""
        H1 = H0 @ T0
        edges1 = np.maximum(_cloth_edge_inner(_cloth_inner(image, H1, board, cfg), gains, lut, sea,
                                              model["lut_bits"], board, cfg), _ref_cloth_edge(cal, cfg))
        Tf, e, sc = _fine_fit(_warp_strips(image, H1, ref.shape, board, cfg), cal, ref, board,
                              edges1 + cfg.sea_dilate_mm, cfg)
        return T0 @ Tf, e, sc

    # 1. nothing moved? the strips across the outline at the calibrated place, and the motion they ask for
    first_error, still = None, None
    try:
        still = _fine_fit(gray, cal, ref, board, edges + cfg.sea_dilate_mm, cfg)
        T, ecc, zoom = still
    except UnreadableBoardError as err:
        first_error = err
    # 2. a push larger than the fine search range: a coarse translation by phase correlation of the
    # piece-free surround, then the fine fit around it (on the photo rectified with that offset)
    if (still is None or still.ecc < cfg.zoom_check_ecc or _shift(still.T, board) > cfg.coarse_min_mm) and \
            coarse_shift()[1]:
        Tc = coarse_shift()[0]
        try:
            Tk, ek, zk = fit_from(Tc)
            if ek > ecc:
                T, ecc, zoom, still = Tk, ek, zk, None
        except UnreadableBoardError:            # the coarse offset misled
            pass
    if T is None or ecc < cfg.zoom_check_ecc:
        Tc, coarse = coarse_shift()
        # a board turned further than the strips' search range: try turned starting points
        for deg in cfg.rotation_steps_deg:
            for T0 in ([Tc] if coarse else []) + [np.eye(3)]:
                try:
                    Tr, e, z = fit_from(T0 @ _turn(deg, board))
                except UnreadableBoardError:
                    continue
                if e > ecc:
                    T, ecc, zoom = Tr, e, z
            if T is not None and ecc >= cfg.zoom_check_ecc:
                break
    if T is None:
        Tc, coarse = coarse_shift()
        # the board larger or smaller than at calibration: the camera's height or zoom changed
        for sc in cfg.scale_steps:
            for T0 in ([Tc] if coarse else []) + [np.eye(3)]:
                try:
                    fit_from(T0 @ _zoom(sc, board))
                except UnreadableBoardError:
                    continue
                raise UnreadableBoardError(
                    "registration-lost", f"the board looks about {abs(sc - 1):.0%} {'larger' if sc > 1 else 'smaller'} "
                    "than at calibration: the camera's height or zoom seems to have changed; put the camera back "
                    "or recalibrate")
        raise first_error
    centre = np.array([w / 2, h / 2, 1.0])
    shift_mm = float(np.linalg.norm((T @ centre)[:2] - centre[:2]))
    scales = [zoom] if np.isfinite(zoom) else []
    sure_scale = np.isfinite(zoom) and abs(zoom) < cfg.max_scale_change / 2 and ecc >= cfg.zoom_check_ecc
    if (shift_mm > cfg.coarse_min_mm or ecc < cfg.zoom_check_ecc) and not sure_scale:
        # a far move is also what a changed camera height looks like: fit from zoomed starting points,
        # where both rails can match, and read the change of scale off the 4-parameter fit (not
        # needed when the fit matched every side well and its own scale term says "no zoom")
        zoomed = []                               # (fit quality, change of scale) from zoomed starts
        Tc = coarse_shift()[0]
        for sc in cfg.scale_steps[:2]:
            for T0 in (T, Tc, np.eye(3)):
                try:
                    _, e, z = fit_from(T0 @ _zoom(sc, board))
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


def _fine_fit(gray: np.ndarray, cal, ref: np.ndarray, board_mm, edges, cfg) -> tuple[np.ndarray, float]:
    """Fit the board's motion (shift x, y, rotation) from the strips across its outline.

    Args:
        gray: extended rectified photo, grey uint8 (H, W), rectified with the homography the
            motion is measured from (only its strips' regions are read: :func:`_warp_strips`).
        ref: the calibration's registration reference (same frame and size).
        edges: (3,) cloth reach (board mm, y) near the left rail, the right rail and anywhere,
            already grown by the safety margin: strips the cloth may cover are not used.
    Returns:
        (T float64 (3, 3) board mm → board mm, fit quality in [0, 1], relative change of scale
        the strips suggest (a 4-parameter fit; NaN unless both rails and the front edge fit)),
        searched ±``cfg.max_shift_mm``.
    Raises:
        UnreadableBoardError: ``registration-lost`` when too few strips correlate or they do not
            agree on one motion.
    """
    rows, rhs, sides = [], [], []
    w, h = board_mm
    cx, cy = w / 2, h / 2
    bands = _reference_bands(cal, ref, board_mm, cfg)
    use = [not ((side != "bottom" and c - cfg.band_mm / 2 < edges[0 if side == "left" else 1])   # rail under cloth?
                or (side == "bottom" and edges[2] > h - cfg.inner_band_mm)) for side, c, _, _ in bands]
    profiles = _band_profiles(gray, bands, cfg)
    number = [j for *_, j in _numbered(bands)]
    found: dict = {}
    same = "left" in profiles and "right" in profiles and profiles["left"].shape[1] == profiles["right"].shape[1]
    # profiles of equal length (each side's strips; both rails' when they are alike) shifted at once
    for batch in ((("left", "right"),) if same else (("left",), ("right",))) + (("bottom",),):
        idx = [k for k, b in enumerate(bands) if use[k] and b[0] in batch]
        if not idx:
            continue
        shifts, corrs = _profile_shifts(np.stack([bands[k][3] for k in idx]),
                                        np.stack([profiles[bands[k][0]][number[k]] for k in idx]), cfg)
        found.update(zip(idx, zip(shifts, corrs)))
    for group in ("left", "right", "bottom"):
        idx = [k for k, b in enumerate(bands) if use[k] and b[0] == group]
        for k in idx:
            shift, corr = found[k]
            if not np.isfinite(shift) or corr < cfg.min_profile_corr:
                continue
            side, centre_mm = bands[k][0], bands[k][1]
            if side in ("left", "right"):   # δx = tx − θ (y − cy)
                rows.append([1.0, 0.0, -(centre_mm - cy)])
            else:                           # δy = ty + θ (x − cx)
                rows.append([0.0, 1.0, centre_mm - cx])
            sides.append(side)
            rhs.append(shift / cfg.ppm)
    for group in ("left", "right"):
        usable = sum(1 for k, b in enumerate(bands) if use[k] and b[0] == group)
        if usable >= 3 and group not in sides:
            # a whole rail unlike the calibration's while the other matches: the board looks
            # larger or smaller (camera height, zoom) or something lies along that rail
            raise UnreadableBoardError("registration-lost", f"the board's {group} rail does not match the "
                                       "calibration; is something lying along it, or did the camera move?")
    rows, rhs = np.array(rows), np.array(rhs)
    sides_x = int((rows[:, 0] > 0).sum()) if len(rows) else 0
    if len(rows) < 4 or sides_x < 2 or len(rows) - sides_x < 1:
        raise UnreadableBoardError("registration-lost", "too little of the board's outline is visible to check "
                                   "where the board is; clear the rails and the front edge")
    sol, keep, sigma = robust_motion(rows, rhs, cfg)
    res = np.abs(rows @ sol - rhs)
    if keep.sum() < 4:
        raise UnreadableBoardError("registration-lost", "the board's outline does not fit one position; "
                                   "is something lying against it?")
    tx, ty, theta = sol
    rms = float(np.sqrt(np.mean(res[keep] ** 2)))
    # "nothing moved" (this fit's starting position) against the motion: the robust cost of the strips'
    # shifts as they are against their residuals after the motion, in units of the shifts' noise
    gain = float(tukey(rhs / sigma).sum() - tukey((rhs - rows @ sol) / sigma).sum())
    ecc = float(np.clip(1.0 - rms / (2 * cfg.max_residual_mm), 0, 1)) * float(keep.mean())
    # a change of scale (camera raised/lowered, zoom): the rails move apart or together
    side = np.where(rows[:, 0] > 0, np.where(np.array(sides) == "right", w / 2, -w / 2), h / 2)
    scale = float("nan")
    if keep.sum() >= 5 and len({sd for sd, k in zip(sides, keep) if k}) == 3:
        X4 = np.column_stack([rows, side])[keep]
        scale = float(np.linalg.solve(X4.T @ X4 + 1e-9 * np.eye(4), X4.T @ rhs[keep])[3])
    c, s_ = np.cos(theta), np.sin(theta)
    T = np.array([[c, -s_, cx + tx - c * cx + s_ * cy], [s_, c, cy + ty - s_ * cx - c * cy], [0, 0, 1]])
    return Fit(T, ecc, scale, gain, sigma)


@dataclass
class Fit:
    """One fine fit: the motion ``T`` (board mm → board mm), its quality ``ecc`` in [0, 1], the change
    of scale the strips suggest (NaN unless every side fits), ``gain``: how much better the motion
    explains the strips than no motion (robust cost difference, :func:`tukey` units: a χ²-like
    figure with 3 degrees of freedom), ``sigma``: the strips' shift noise (mm)."""

    T: np.ndarray
    ecc: float
    scale: float
    gain: float
    sigma: float

    def __iter__(self):          # (T, ecc, scale) as before
        return iter((self.T, self.ecc, self.scale))


def tukey(z: np.ndarray, c: float = 4.685) -> np.ndarray:
    """Tukey's biweight loss ρ(z) (Beaton & Tukey 1974), scaled so that ρ ≈ z² near 0 and c²/3 beyond c."""
    z = np.asarray(z, np.float64)
    inside = np.abs(z) < c
    out = np.full(z.shape, c * c / 3.0)
    u = (z[inside] / c) ** 2
    out[inside] = c * c / 3.0 * (1.0 - (1.0 - u) ** 3)
    return out


def robust_motion(rows: np.ndarray, rhs: np.ndarray, cfg=REGISTRATION) -> tuple[np.ndarray, np.ndarray, float]:
    """The board's motion (tx, ty, θ) from the strips' shifts, robustly.

    Least squares with the worst strips trimmed twice as a start, then iteratively re-weighted least
    squares with Tukey's biweight (Holland & Welsch 1977) at the strips' robust noise σ (1.4826 ×
    the median absolute residual, at least ``cfg.shift_noise_floor_mm``): a strip the cloth, a hand
    or a piece against the rail disturbs gets no weight.

    Args:
        rows: float (n, 3) the strips' equations (δx = tx − θ (y − cy), δy = ty + θ (x − cx));
        rhs: float (n,) their measured shifts (mm).
    Returns:
        (solution (3,), inliers bool (n,) (|residual| < 2.5 σ), σ in mm).
    """
    keep = np.ones(len(rows), bool)
    for _ in range(2):
        sol, *_ = np.linalg.lstsq(rows[keep], rhs[keep], rcond=None)
        res = np.abs(rows @ sol - rhs)
        keep = res < max(cfg.max_residual_mm, 2.5 * stats.median(res))
        if keep.sum() < 4:
            return sol, keep, cfg.shift_noise_floor_mm
    sigma = cfg.shift_noise_floor_mm
    for _ in range(5):
        r = rows @ sol - rhs
        sigma = max(1.4826 * stats.median(np.abs(r[keep])), cfg.shift_noise_floor_mm)
        z = r / (4.685 * sigma)
        w = np.where(np.abs(z) < 1, (1 - z * z) ** 2, 0.0)
        if (w > 0).sum() < 4:
            break
        sw = np.sqrt(w)
        sol, *_ = np.linalg.lstsq(rows * sw[:, None], rhs * sw, rcond=None)
    r = rows @ sol - rhs
    return sol, np.abs(r) < 2.5 * sigma, sigma


def _coarse_shift(gray: np.ndarray, cal, ref: np.ndarray, board_mm, cloth_mm, cfg) -> tuple[float, float, float]:
    """The board's translation (mm) by phase correlation (Kuglin & Hines 1975) of edge images.

    Only the piece-free surround counts: the lower rails with the table beside them and the
    land-side edge with the table below (a soft mask; pieces and the cloth change between shots).
    Both gradient images are computed at ``cfg.coarse_ppm``; the reference's once per calibration.

    Args:
        gray: extended rectified photo (calibrated homography), grey uint8 (H, W).
        ref: the calibration's registration reference, same size.
        cloth_mm: (3,) lowest reach of the cloth (board mm, y) near the rails and anywhere.
    Returns:
        (dx, dy in board mm, phase-correlation response in [0, 1]).
    """
    w, h = board_mm
    top = min(max(0.5 * h, float(max(cloth_mm[0], cloth_mm[1])) + cfg.sea_dilate_mm), h - 4 * cfg.inner_band_mm)
    y0 = int((cfg.margin_mm + top) * cfg.ppm)
    key = ("coarse", cal.folder, id(cal), y0)
    cache = _cache_for(cal)
    if key not in cache:
        a = _edge_image(ref[y0:], cfg)
        k = cfg.coarse_ppm
        mask = np.zeros(a.shape, np.float32)
        m, b = cfg.margin_mm, cfg.inner_band_mm
        mask[:, :int((m + 3 * b) * k)] = 1.0
        mask[:, int((m + w - 3 * b) * k):] = 1.0
        mask[max(int((m + h - 2.5 * b) * k) - int(y0 * k / cfg.ppm), 0):, :] = 1.0
        win = cv2.GaussianBlur(mask, (0, 0), 3.0) * cv2.createHanningWindow(a.shape[::-1], cv2.CV_32F)
        cache[key] = (a, win)
    a, win = cache[key]
    (dx, dy), response = cv2.phaseCorrelate(a, _edge_image(gray[y0:], cfg), win)
    scale = 1.0 / cfg.coarse_ppm
    return float(dx) * scale, float(dy) * scale, float(response)


def _edge_image(gray: np.ndarray, cfg) -> np.ndarray:
    """Gradient magnitude (float32) of a grey image, smoothed and resampled to ``cfg.coarse_ppm``."""
    k = cfg.coarse_ppm / cfg.ppm
    g = cv2.resize(cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 0.5 / k), None, fx=k, fy=k,
                   interpolation=cv2.INTER_AREA)
    return sobel_magnitude(g)


def _reference_bands(cal, ref: np.ndarray, board_mm, cfg):
    """:func:`_bands` with the reference's profile across each strip, computed once per calibration."""
    key = ("bands", cal.folder, id(cal))
    if key not in _cache_for(cal):
        bands = _bands(ref.shape, board_mm, cfg)
        prof = _band_profiles(ref, bands, cfg)
        _REF_CACHE[key] = [(side, c, region, prof[side][j]) for side, c, region, j in _numbered(bands)]
    return _REF_CACHE[key]


def _numbered(bands):
    """``(side, centre, region, index among that side's strips)`` for every strip of :func:`_bands`."""
    seen: dict[str, int] = {}
    out = []
    for b in bands:
        out.append((b[0], b[1], b[2], seen.get(b[0], 0)))
        seen[b[0]] = seen.get(b[0], 0) + 1
    return out


def _band_profiles(gray: np.ndarray, bands, cfg) -> dict[str, np.ndarray]:
    """Mean profile across every strip of :func:`_bands`, smoothed along the profile.

    The strips of one side are consecutive and equally wide, so each side is reduced in one call
    (``np.add.reduceat``). Smoothing the 1-D profiles with a Gaussian of ``cfg.blur_sigma_px`` equals
    blurring the image before averaging, away from the strips' ends.

    Args:
        gray: extended rectified image, grey uint8 (H, W).
        bands: :func:`_bands` entries (side, centre, (row slice, column slice), …).
    Returns:
        ``{side: float32 (n_strips, profile length)}`` in the order of ``bands``.
    """
    out = {}
    for side in ("left", "right", "bottom"):
        regs = [b[2] for b in bands if b[0] == side]
        if not regs:
            continue
        if side == "bottom":
            rs = regs[0][0]
            starts = np.array([r[1].start for r in regs])
            sub = gray[rs, starts[0]:regs[-1][1].stop].astype(np.float32).T        # (columns, rows)
            widths = np.array([r[1].stop - r[1].start for r in regs], np.float32)
        else:
            cs = regs[0][1]
            starts = np.array([r[0].start for r in regs])
            sub = gray[starts[0]:regs[-1][0].stop, cs].astype(np.float32)          # (rows, columns)
            widths = np.array([r[0].stop - r[0].start for r in regs], np.float32)
        prof = np.add.reduceat(sub, starts - starts[0], axis=0) / widths[:, None]
        out[side] = cv2.GaussianBlur(prof, (0, 0), sigmaX=cfg.blur_sigma_px, sigmaY=1e-3,
                                     borderType=cv2.BORDER_REPLICATE)
    return out


def _bands(shape, board_mm, cfg):
    """Strips across the board's outline, in extended px: ``(side, centre along the edge in mm, slices)``.

    Left/right strips cross the rails (table, rail, sand); bottom strips cross the land-side edge.
    """
    w, h = board_mm
    m, ppm, b, step = cfg.margin_mm, cfg.ppm, cfg.inner_band_mm, cfg.band_mm
    out = []
    for y0 in np.arange(step / 2, h - step / 2, step):
        ys = slice(int((m + y0) * ppm), int((m + y0 + step) * ppm))
        out.append(("left", y0 + step / 2, (ys, slice(int((m - cfg.rail_mm) * ppm), int((m + b) * ppm)))))
        out.append(("right", y0 + step / 2, (ys, slice(int((m + w - b) * ppm), int((m + w + cfg.rail_mm) * ppm)))))
    for x0 in np.arange(step, w - step, step):
        xs = slice(int((m + x0) * ppm), int((m + x0 + step) * ppm))
        out.append(("bottom", x0 + step / 2, (slice(int((m + h - 2 * b) * ppm), int((m + h + 2 * b) * ppm)), xs)))
    return out


def _profile_shifts(ref: np.ndarray, now: np.ndarray, cfg) -> tuple[np.ndarray, np.ndarray]:
    """Shifts (px, sub-pixel) of 1-D profiles ``now`` against ``ref`` by normalised cross-correlation.

    Args:
        ref, now: float (k, n) profiles, one per row.
    Returns:
        (shift float (k,), NaN when a profile is too short; correlation float (k,)), searched within
        ±``cfg.max_shift_mm`` on the profiles' derivatives, refined by a parabola through the peak.
    """
    a, b = np.diff(ref, axis=1), np.diff(now, axis=1)
    L = int(cfg.max_shift_mm * cfg.ppm)
    k, n = a.shape
    if n <= 2 * L + 4:
        return np.full(k, np.nan), np.zeros(k)
    core = a[:, L:n - L]
    core = core - core.mean(axis=1, keepdims=True)
    cn = np.linalg.norm(core, axis=1) + 1e-6
    segs = np.lib.stride_tricks.sliding_window_view(b, n - 2 * L, axis=1)   # (k, 2L + 1, n − 2L), lag −L … L
    segs = segs - segs.mean(axis=2, keepdims=True)
    scores = np.einsum("kln,kn->kl", segs, core) / (cn[:, None] * (np.linalg.norm(segs, axis=2) + 1e-6))
    j = np.argmax(scores, axis=1)
    best = scores[np.arange(k), j]
    shift = (j - L).astype(np.float64)
    inner = (j > 0) & (j < 2 * L)
    jj = np.clip(j, 1, 2 * L - 1)
    y0, y1, y2 = (scores[np.arange(k), jj + d] for d in (-1, 0, 1))
    den = y0 - 2 * y1 + y2
    ok = inner & (den < 0)
    shift[ok] += 0.5 * (y0[ok] - y2[ok]) / den[ok]
    return shift, best


_REF_CACHE: dict = {}
_REF_OWNER: list = [None]


def _cache_for(cal) -> dict:
    """The per-calibration cache, emptied when another calibration is used (a station recalibrates)."""
    owner = (cal.folder, id(cal))
    if _REF_OWNER[0] != owner:
        _REF_CACHE.clear()
        _REF_OWNER[0] = owner
    return _REF_CACHE


def class_table(cal) -> np.ndarray:
    """The calibration's class lookup table (uint8 (2**(3·bits),)), loaded once per calibration.

    Raises:
        UnreadableBoardError: ``calibration-incomplete`` when the table is missing (recalibrate).
    """
    key = ("lut", cal.folder, id(cal))
    if key not in _cache_for(cal):
        name = cal.model.get("pictures", {}).get("classes")
        img = cal.image(name) if (name and cal.folder) else None
        if img is None or "class_names" not in cal.model:
            raise UnreadableBoardError("calibration-incomplete", "the calibration has no colour table "
                                       "(made by an older version); recalibrate")
        _REF_CACHE[key] = colour.lut_from_image(img)
    return _REF_CACHE[key]


def _reference(cal) -> np.ndarray | None:
    key = (cal.folder, id(cal))
    if key not in _cache_for(cal):
        name = cal.model.get("pictures", {}).get("registration", "strand_registration.png")
        img = cal.image(name) if cal.folder else None
        if img is not None and img.ndim == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        _REF_CACHE[key] = img
    return _REF_CACHE[key]


def _ref_cloth_edge(cal, cfg) -> np.ndarray:
    """:func:`_cloth_edge` of the calibration's registration reference (cached per calibration)."""
    key = ("cloth", cal.folder, id(cal))
    if key not in _cache_for(cal):
        _REF_CACHE[key] = np.asarray(cal.model.get("reference_cloth_mm", [0.0, 0.0, 0.0]))
    return _REF_CACHE[key]
