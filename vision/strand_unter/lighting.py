"""Undo the light's change between the calibration and a scan, against surfaces known at that moment.

Input: a registered photo and the calibration's :class:`~vision.strand_unter.assets.Assets`.
Output: :class:`Lit`: the rectified board (work px) as it would look under the calibration's
light — per-channel gains measured on the table strip below the board, refined on the bare
sand of the grooves (pixels unchanged since the empty-board shot; a channel clipped on the pale
sand follows the light instead when the surround shows the sand's ratio wrong,
:mod:`~vision.strand_unter.sand_top`); under uneven light (a
vignette, a lamp on one side, a soft shadow) first divided by a smooth brightness field measured
on the bare sand, the cloth and the table (:func:`light_field`); light whose colour changes over
the board (a warm lamp on one side) by a smooth per-channel field fitted on the bare sand
(:func:`chroma_field`) — plus figures (the fields' ranges) and how far the piece-free surround's
colour still is from the calibration's after the same correction (``residual_ab``, Lab units,
:func:`surround_residual`: it widens the class models).

Raises ``uneven-light`` (exit 3) when the light varies more than ``light_max_range`` × over the board.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.strand_unter import colour, stats
from vision.strand_unter.config import READING, REGISTRATION
from vision.strand_unter.geometry import warp_board
from vision.strand_unter.reference_cache import reference_picture
from vision.strand_unter.sand_top import keep_top, refine
from vision.strand_unter.surround import strip_gains, strip_inside


@dataclass
class Lit:
    """A scan's board under the calibration's light.

    Attributes:
        raw: the rectified board as photographed, BGR uint8 (H, W, 3) (work px).
        image: ``raw`` corrected, BGR uint8 (H, W, 3).
        gains: the final per-channel gains (3,); field: the brightness field float32 (H, W) or None.
        figures: ``{"range", "tiles", "rms", "board_range"}`` of the light field.
        residual_ab: how far the piece-free surround's colour is from the calibration's after the
            same correction (Lab units, ≥ 0; :func:`surround_residual`).
        chroma: the per-channel field (:class:`ChromaField`) applied, or None.
        doubts: sentences for the player.
    """

    raw: np.ndarray
    image: np.ndarray
    gains: np.ndarray
    field: np.ndarray | None
    figures: dict
    residual_ab: float
    doubts: list = field(default_factory=list)
    chroma: object = None


def work_image(photo, A) -> tuple[np.ndarray, np.ndarray]:
    """Rectified board BGR (reusing the registration's warp when the board did not move) and the
    table strip's gains (3,)."""
    reg = photo.registration
    ext = getattr(reg, "extended", None)
    gains = getattr(reg, "gains", None)
    if ext is not None and REGISTRATION.ppm == A.ppm:
        m = int(round(REGISTRATION.margin_mm * A.ppm))
        h, w = A.empty.shape[:2]
        B = ext[m:m + h, m:m + w]
    else:
        B = warp_board(photo.image, reg.H_px_from_mm, A.board, A.ppm)
    if gains is None:
        ext = warp_board(photo.image, reg.H_px_from_mm, A.board, REGISTRATION.ppm, REGISTRATION.margin_mm)
        gains = strip_gains(ext, A.board, photo.calibration.model["surround_bgr"], inside=strip_inside(
            reg.H_px_from_mm, (photo.image.shape[1], photo.image.shape[0]), A.board))
    return np.ascontiguousarray(B), np.asarray(gains, np.float64)


def light_field(photo, B: np.ndarray, gains: np.ndarray, A, cfg=READING):
    """The photo's brightness relative to the empty board, a smooth field over the work image.

    Measured (:func:`vision.strand_unter.colour.illumination_field`, at half the work image's
    resolution) on the bare sand (pixels whose chromaticity, after the table strip's colour cast,
    matches the empty board's: the cloth and coloured pieces drop out), on the cloth (pixels of
    the learned sea colour's chromaticity, against that colour: the cloth is plain) and on the
    table and rails around the board (against the calibration's registration reference, the
    empty board's extended view), all but the sea side. A second pass leaves out the pixels the
    first field does not explain (pieces of the sand's hue).

    Returns:
        (field float32 B.shape[:2], figures ``{"range", "tiles", "rms"}``).
    """
    reg, cal = photo.registration, photo.calibration
    ref = reference_picture(cal)
    m = round(REGISTRATION.margin_mm * REGISTRATION.ppm)
    h, w = B.shape[:2]
    f = 4                                                            # the field is smooth: quarter resolution
    if A.small is None:
        A.small = {"empty": cv2.resize(A.empty, (w // f, h // f), interpolation=cv2.INTER_AREA),
                   "grooves": cv2.resize(A.on_grooves.astype(np.uint8), (w // f, h // f),
                                         interpolation=cv2.INTER_NEAREST) > 0}
        A.small["log_empty"] = np.log(A.small["empty"].astype(np.float32) + 1.0)
        A.small["grey_empty"] = cv2.cvtColor(A.small["empty"], cv2.COLOR_BGR2GRAY)
    cast = gains / float(np.exp(np.mean(np.log(np.maximum(gains, 1e-3)))))
    Bs = cv2.resize(B, (w // f, h // f), interpolation=cv2.INTER_AREA)
    logB = cv2.log(cv2.transform(Bs.astype(np.float32), np.diag(cast.astype(np.float32))) + 1.0)

    def chroma_match(log_ref) -> np.ndarray:
        """Log-chromaticity unchanged: the spread of the three channels' log ratios is small."""
        if log_ref.shape[:2] == (1, 1):                       # a plain colour
            d = [ch - float(k) for ch, k in zip(cv2.split(logB), log_ref.reshape(3))]
        else:
            d = cv2.split(cv2.subtract(logB, log_ref))
        spread = cv2.max(cv2.max(d[0], d[1]), d[2]) - cv2.min(cv2.min(d[0], d[1]), d[2])
        return spread < 1.5 * cfg.light_chroma_tol

    sand_ok = chroma_match(A.small["log_empty"]) & A.small["grooves"]
    sea_ok = chroma_match(np.log(A.sea_bgr.astype(np.float32) + 1.0).reshape(1, 1, 3)) & ~sand_ok
    now_g = cv2.cvtColor(Bs, cv2.COLOR_BGR2GRAY)
    ref_g = A.small["grey_empty"].copy()
    ref_g[sea_ok] = A.sea_grey
    board_ok = sand_ok | sea_ok
    ms = m // f
    hs, ws = now_g.shape
    if ref is not None and REGISTRATION.ppm == A.ppm and ref.shape[0] == h + 2 * m and ref.shape[1] == w + 2 * m:
        ext = getattr(reg, "extended", None)
        size = (ref.shape[1] // f, ref.shape[0] // f)
        if ext is None or ext.shape[:2] != ref.shape:
            now_e = cv2.cvtColor(warp_board(photo.image, reg.H_px_from_mm, A.board, REGISTRATION.ppm / f,
                                            REGISTRATION.margin_mm), cv2.COLOR_BGR2GRAY)
            if now_e.shape[::-1] != size:
                now_e = cv2.resize(now_e, size, interpolation=cv2.INTER_AREA)
        else:
            ext_g = getattr(reg, "extended_gray", None)           # (the registration's grey image of it, when it kept one)
            if ext_g is None or ext_g.shape != ext.shape[:2]:
                ext_g = cv2.cvtColor(ext, cv2.COLOR_BGR2GRAY)
            now_e = cv2.resize(ext_g, size, interpolation=cv2.INTER_AREA)
        if A.small.get("ref_ext") is None:
            A.small["ref_ext"] = cv2.resize(ref, size, interpolation=cv2.INTER_AREA)
        ref_e = A.small["ref_ext"].copy()
        now_e[ms:ms + hs, ms:ms + ws] = now_g
        ref_e[ms:ms + hs, ms:ms + ws] = ref_g
        valid = (ref_e > 10) & (ref_e < 250)
        valid[:ms] = False                                  # the sea side: the cloth hangs there
        valid[ms:ms + hs, ms:ms + ws] = board_ok
        valid &= (now_e > 4) & (now_e < 252)
        crop = (slice(ms, ms + hs), slice(ms, ms + ws))
    else:
        now_e, ref_e, crop = now_g, ref_g, (slice(0, hs), slice(0, ws))
        valid = board_ok & (now_g > 4) & (now_g < 252)
    tile = max(2, cfg.light_tile_px // f)
    o = crop[0].start % tile                                # the tile grid starts at the board's corner
    lr = cv2.log(now_e.astype(np.float32) + 1.0) - cv2.log(ref_e.astype(np.float32) + 1.0)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    valid = cv2.erode(valid.astype(np.uint8), k) > 0             # mixed pixels at pieces' edges
    for rnd in range(2):
        F, fig = colour.illumination_field(lr[o:], valid[o:], (lr.shape[0] - o, lr.shape[1]), tile_px=tile)
        F = np.vstack([np.repeat(F[:1], o, 0), F]) if o else F
        if rnd == 0:
            if fig["range"] < cfg.light_refine_range:
                break                 # even light: the field is not applied, a second pass would not matter
            # second pass without whatever the first field does not explain (pieces of sand's hue)
            off = np.abs(lr - np.log(F)) > cfg.light_residual_tol
            valid &= cv2.dilate(off.astype(np.uint8), k) == 0
    fld = cv2.resize(np.ascontiguousarray(F[crop], dtype=np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    return np.maximum(fld, np.float32(1e-3), out=fld), fig        # (in place: the field is float32 already)


def normalise(photo, A, cfg=READING) -> Lit:
    """The scan's board under the calibration's light (see the module docstring).

    Raises:
        UnreadableBoardError: ``uneven-light`` when the field's range over the board exceeds
            ``cfg.light_max_range``.
    """
    B, gains = work_image(photo, A)
    sand_raw = B.reshape(-1, 3)[A.sand_flat]                  # the sand samples' pixels, gathered once (B is contiguous)
    gains = sand_gains(B, gains, A, cfg, sand_raw=sand_raw)
    doubts: list[str] = []
    fld, light = light_field(photo, B, gains, A, cfg)
    light["board_range"] = float(fld.max() / max(float(fld.min()), 1e-3))
    if light["board_range"] > cfg.light_max_range:
        raise UnreadableBoardError("uneven-light", f"the light is too uneven across the board (one part "
                                   f"{light['board_range']:.1f}x brighter than another); light the board evenly "
                                   "(no lamp from one side, no shadow over it) and take the photo again")
    brightness = fld
    if light["board_range"] < cfg.light_apply_range:
        fld = None                                      # even light: the per-channel gains suffice
    else:
        gains = gains / float(np.exp(np.mean(np.log(np.maximum(gains, 1e-3)))))   # the strip's colour cast only
    sand_now = (sand_raw * gains[None, :]).astype(np.float32)
    if fld is not None:
        sand_now /= fld.reshape(-1)[A.sand_flat][:, None]
    sand_ref = A.empty_sand
    bare = max3(np.abs(sand_now - sand_ref)) < cfg.fine_gain_max_change
    top = np.zeros(3, bool)                             # the sand's clipped channels (:mod:`sand_top`)
    if bare.sum() > 100:
        # (a channel clipped on the sand still gets the gain that maps the sand as it looks onto the
        # empty board: the foreground is judged against it), unless the surround shows that gain
        # wrong: then the clipped channels follow the light (:func:`sand_top.refine`)
        gains, top = refine(gains, sand_now[bare], sand_ref[bare], lambda g: surround_residual(photo, A, g, None), cfg)
    Bc = colour.apply_gains(B, gains) if fld is None else colour.apply_field(B, fld, gains)
    Bc = keep_top(B, Bc, top, cfg.sand_top_share * cfg.clipped_level)
    if light["board_range"] > cfg.light_doubt_range:
        doubts.append(f"the light is uneven across the board (one part {light['board_range']:.1f}x brighter than "
                      "another); it was evened out, but check the reading")
    cfield = chroma_field(Bc, B, A, cfg, brightness)
    if cfield is not None:
        Bc = cv2.multiply(Bc, cfield.scale(Bc.shape[:2]), dtype=cv2.CV_8U)
    residual = surround_residual(photo, A, gains, cfield)
    return Lit(raw=B, image=Bc, gains=gains, field=fld, figures=light, residual_ab=residual, doubts=doubts,
               chroma=cfield)


def sand_gains(B: np.ndarray, gains: np.ndarray, A, cfg=READING, sand_raw: np.ndarray | None = None) -> np.ndarray:
    """The table strip's gains (3,), or the bare sand's when those explain the sand better.

    A lamp over the table beside the board lights the strip, not the board, as the room light
    does: gains measured there may leave most of the bare sand far from the empty board's colour.
    The sand then tells the light itself: each groove's median ratio of the empty board to this
    photo (per channel) is a hypothesis, and the one under which most of the grooves' samples come
    within ``cfg.fine_gain_max_change`` grey levels of the empty board wins (a groove full of pieces
    explains few; the samples of the cloth's colours — the cloth and its stick — and of the players'
    colours are left out: they tell nothing of the light on the sand, and a groove crowded with
    castles or the stick of a cloth lying far forward would otherwise set it).
    The strip's gains are kept while they explain at least half the samples.

    A channel at or above ``cfg.clipped_level`` in this photo only says the light there is at
    least that bright: its corrected value is taken as the empty board's wherever the gains
    would put it below (:func:`_lift_clipped`), for the check, the samples' classes and the
    hypotheses' scores alike (pale sand clipped in a bright photo and corrected darker would
    otherwise class as a pale piece and drop out).
    """
    raw = (B.reshape(-1, 3)[A.sand_flat] if sand_raw is None else sand_raw).astype(np.float32)   # (B is contiguous)
    ref = A.empty_sand.astype(np.float32)
    clipped = raw >= cfg.clipped_level
    if not clipped.any():
        clipped = None

    def corrected(g, step: int = 1) -> np.ndarray:
        """Every ``step``-th sample under gains ``g``, clipped channels lifted (:func:`_lift_clipped`)."""
        return _lift_clipped(raw[::step] * np.asarray(g, np.float32)[None, :], ref[::step],
                             None if clipped is None else clipped[::step])

    if (max3(np.abs(corrected(gains, 4) - ref[::4])) < cfg.fine_gain_max_change).mean() >= 0.5:
        return gains                            # (most of the grooves, cloth and all, fit: no need to look closer)
    # the cloth's and the castles' samples (their colours under the strip's gains) tell nothing about the sand's light
    classes = colour.classify(np.clip(corrected(gains), 0, 255).astype(np.uint8)[None], A.lut, A.bits)[0]
    open_ = ~A.is_cloth[classes] & ~A.is_player[classes]
    if open_.sum() < 50:
        return gains

    def score(g) -> float:
        near = max3(np.abs(corrected(g) - ref)) < cfg.fine_gain_max_change
        return float(near[open_].mean())

    best, best_score = gains, score(gains)
    if best_score >= 0.5:
        return gains
    for n, idx in A.groove_idx3.items():
        idx = idx[open_[idx]]
        if len(idx) < 20:
            continue
        g = np.median(ref[idx] / np.maximum(raw[idx], 1.0), axis=0)
        sc = score(g)
        if sc > best_score:
            best, best_score = g.astype(np.float64), sc
    return np.asarray(best, np.float64)


def _lift_clipped(now: np.ndarray, ref: np.ndarray, clipped: np.ndarray | None) -> np.ndarray:
    """Corrected samples (N, 3) float32 with each clipped channel (``clipped`` bool (N, 3), or None:
    none) raised to the empty board's value ``ref`` (N, 3) where the correction put it below: the
    scene was at least as bright there as the clip level shows, so the empty board's value is as
    consistent with the photo as any higher one."""
    return now if clipped is None else np.where(clipped & (now < ref), ref, now)


@dataclass
class ChromaField:
    """A smooth per-channel gain over the board: light whose colour changes from place to place.

    ``coef`` (3, 4) coefficients of each channel's log gain against 1, u = x/w − ½, v = y/h − ½
    (normalised board coordinates) and the log of the brightness field (``log_brightness``, float32
    (H, W) work px, or None: that term is 0); ``range`` the largest difference of a channel's log
    gain over the sand it was fitted on, ``low``/``high`` (3,) its ends (beyond the fitted sand —
    under the cloth, beside the board — the gains are held within them).
    """

    coef: np.ndarray
    board_px: tuple
    range: float
    low: np.ndarray
    high: np.ndarray
    log_brightness: np.ndarray | None = None

    def log_gain(self, x_px, y_px) -> np.ndarray:
        """Log gains (N, 3) at work-px points (x, y) (N,) each (beyond the board: at its nearest edge)."""
        w, h = self.board_px
        x = np.clip(np.asarray(x_px, np.float64), 0, w - 1)
        y = np.clip(np.asarray(y_px, np.float64), 0, h - 1)
        lf = np.zeros_like(x) if self.log_brightness is None else \
            self.log_brightness[y.astype(np.int64), x.astype(np.int64)].astype(np.float64)
        X = np.stack([np.ones_like(x), x / w - 0.5, y / h - 0.5, lf], -1)
        return np.clip(X @ self.coef.T, self.low, self.high)

    def scale(self, shape) -> np.ndarray:
        """The gains as a float32 (H, W, 3) image."""
        h, w = shape
        ys, xs = np.mgrid[0:h:4, 0:w:4]
        g = np.exp(self.log_gain(xs.ravel() + 2, ys.ravel() + 2)).astype(np.float32).reshape(*xs.shape, 3)
        return cv2.resize(g, (w, h), interpolation=cv2.INTER_LINEAR)


def chroma_field(image: np.ndarray, raw_image: np.ndarray, A, cfg=READING,
                 brightness: np.ndarray | None = None) -> ChromaField | None:
    """What gains and the brightness field left: a smooth per-channel gain fitted on the bare sand.

    Light of any colour mix multiplies each channel by a factor that varies smoothly over the
    board (exactly so in linear RGB, and in gamma-encoded RGB too, a power of it), so the bare sand
    — whose colour the empty-board shot gives everywhere — measures it: each channel's log ratio
    (sand pixels changed less than ``fine_gain_max_change``) minus the three channels' mean (the
    colour of the light, not its strength: that is :func:`light_field`'s), its mean per tile of
    ``chroma_tile_mm`` (tiles at least half bare sand; pixels off their tile's first mean dropped), is fitted by a plane by least
    squares, twice (tiles more than 2.5 robust σ off the first fit dropped).
    Returns None when the fitted gains vary less than ``cfg.chroma_apply_range`` (log units)
    over the sand.
    """
    now = image[::6, ::6].reshape(-1, 3)[A.sand_idx6].astype(np.float32)
    ref = A.empty_sand6
    raw = raw_image[::6, ::6].reshape(-1, 3)[A.sand_idx6]
    ok = (max3(np.abs(now - ref)) < cfg.fine_gain_max_change) & (-max3(-now) > 4) & \
        (max3(raw) < cfg.clipped_level) & (max3(ref) < cfg.clipped_level)
    if ok.sum() < 0.2 * len(ok):
        return None                             # the sand is mostly clipped: its colour cannot tell the light's
    if ok.sum() < 200:
        return None
    xs, ys = A.sand_xy6
    h, w = A.empty.shape[:2]
    lr = np.log(now[ok] + 1.0) - np.log(ref[ok] + 1.0)
    lr -= ((lr[:, 0] + lr[:, 1] + lr[:, 2]) / 3.0)[:, None]        # colour only: brightness (and the ridges' shading) is not its job
    lf = np.zeros(int(ok.sum())) if brightness is None else \
        np.log(brightness[::6, ::6].reshape(-1)[A.sand_idx6][ok])
    # per tile (chroma_tile_mm square) the mean of the sand pixels within 2.5 robust σ of the tile's
    # first mean: tiles mostly bare sand count, stray sand-coloured pixels (castle bases, a light
    # piece on the cloth) do not
    t = cfg.chroma_tile_mm * A.ppm
    ntx = int(np.ceil(w / t))
    key = (ys[ok] // t).astype(np.int64) * ntx + (xs[ok] // t).astype(np.int64)
    nk = int(key.max()) + 1
    cnt = np.bincount(key, minlength=nk).astype(np.float64)
    mean = np.stack([np.bincount(key, weights=lr[:, c], minlength=nk) for c in range(3)], -1) / \
        np.maximum(cnt, 1)[:, None]
    dev = max3(np.abs(lr - mean[key]))
    near = dev < 2.5 * 1.4826 * stats.median(dev) + 1e-3
    cnt = np.bincount(key[near], minlength=nk).astype(np.float64)
    mean = np.stack([np.bincount(key[near], weights=lr[near, c], minlength=nk) for c in range(3)], -1) / \
        np.maximum(cnt, 1)[:, None]
    lfm = np.bincount(key[near], weights=lf[near], minlength=nk) / np.maximum(cnt, 1)
    full_tile = (t / 6.0) ** 2                  # sand grid points a tile holds (every 6th px)
    good = np.nonzero(cnt >= 0.5 * full_tile)[0]
    if len(good) < 6:
        return None
    tiles, tile_lf = mean[good], lfm[good]
    u = (good % ntx + 0.5) * t / w - 0.5
    v = (good // ntx + 0.5) * t / h - 0.5
    # a plane: a lamp's colour changes slowly over the board, while a sand-like object (a hand) is a
    # local bump the plane cannot follow (its tiles drop out as outliers); v is left out when the
    # sand spans less than ~3 grooves (the cloth far down)
    span = float(np.ptp(v))
    # where a lamp makes the board brighter it also makes it warmer: the colour's log gain also
    # follows the brightness field's log (when that varies over the sand)
    lamp = float(np.ptp(tile_lf)) > cfg.chroma_lamp_range
    X = np.stack([np.ones_like(u), u, v if span > 0.25 else np.zeros_like(v),
                  tile_lf if lamp else np.zeros_like(u)], -1)
    keep = np.ones(len(u), bool)
    for _ in range(2):
        coef, *_ = np.linalg.lstsq(X[keep], tiles[keep], rcond=None)          # (terms, 3)
        res = tiles - X @ coef
        s = 1.4826 * median3(np.abs(res[keep])) + 1e-3                        # (np.median(axis=0)'s values)
        keep = (np.abs(res) < 2.5 * s).all(axis=1)
        if keep.sum() < 6:
            break
    g = -(X[keep] @ coef)
    fld = ChromaField(coef=-coef.T, board_px=(w, h), range=float((g.max(axis=0) - g.min(axis=0)).max()),
                      low=g.min(axis=0), high=g.max(axis=0), log_brightness=np.log(brightness) if lamp else None)
    return fld if fld.range >= cfg.chroma_apply_range else None


def median3(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=0)`` of an (N, 3) array, column by column (:func:`vision.strand_unter.stats.median`:
    the same values, in the array's dtype)."""
    return np.array([stats.median(a[:, c]) for c in range(3)], a.dtype)


def max3(a: np.ndarray) -> np.ndarray:
    """Row-wise maximum of an (N, 3) array (three element-wise maxima: much faster than ``max(axis=1)``)."""
    return np.maximum(np.maximum(a[:, 0], a[:, 1]), a[:, 2])


def sample_board(image: np.ndarray, H_px_from_mm: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
    """BGR float32 (N, 3) of a photo at board points (N, 2) mm (bilinear; border replicated)."""
    p = cv2.perspectiveTransform(np.asarray(pts_mm, np.float64).reshape(-1, 1, 2), np.asarray(H_px_from_mm,
                                                                                              np.float64))
    mx = p[:, 0, 0].astype(np.float32).reshape(1, -1)
    my = p[:, 0, 1].astype(np.float32).reshape(1, -1)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3).astype(
        np.float32)


_SIDE_POINTS: dict = {}


def side_points(board_mm) -> dict:
    """Board-mm sample points (N, 2) of the piece-free surround: beside the rails' lower halves
    (``left``, ``right``) and the table below the land-side edge (``bottom``)."""
    key = tuple(float(v) for v in board_mm)
    if key in _SIDE_POINTS:                 # (a function of the board's size only: built once per size)
        return _SIDE_POINTS[key]
    w, h = board_mm
    ys = np.arange(0.55 * h, h - 10.0, 8.0)
    xs = np.arange(20.0, w - 20.0, 12.0)
    out = {}
    for name, cols in (("left", (-22.0, -16.0, -10.0)), ("right", (w + 10.0, w + 16.0, w + 22.0))):
        out[name] = np.array([(x, y) for x in cols for y in ys])
    out["bottom"] = np.array([(x, y) for x in xs for y in (h + 22.0, h + 32.0, h + 42.0)])
    for v in out.values():
        v.flags.writeable = False
    _SIDE_POINTS[key] = out
    return out


def side_colours(image: np.ndarray, H_px_from_mm: np.ndarray, board_mm) -> dict:
    """Median BGR (3,) of each :func:`side_points` strip of a photo."""
    return {k: median3(sample_board(image, H_px_from_mm, p)) for k, p in side_points(board_mm).items()}


def surround_residual(photo, A, gains: np.ndarray, cfield: ChromaField | None) -> float:
    """How far the piece-free surround's colour is from the calibration's after the correction (Lab units).

    The surround (the rails' sides and the table, :func:`side_points`) is of other materials than
    the sand the correction was measured on: after the same gains (and the chroma field,
    extrapolated there), each strip's median colour, brought to the calibration's brightness, is
    compared in (a, b) with the calibration's. A change of light that one gain per channel (per
    place) explains leaves ~0; clipped channels, light of changing colour, a camera that mixes
    channels leave more: every learned colour is that much less certain. The largest of the three;
    0 when the calibration has no figures.
    """
    ref = A.model.get("side_bgr")
    if not ref:
        return 0.0
    now = side_colours(photo.image, photo.registration.H_px_from_mm, A.board)
    worst = 0.0
    pts = side_points(A.board)
    for k, r in ref.items():
        c = now[k] * gains
        if cfield is not None:
            mm = pts[k].mean(axis=0)
            c = c * np.exp(cfield.log_gain([mm[0] * A.ppm], [mm[1] * A.ppm])[0])
        r = np.asarray(r, np.float64)
        c = c * (r.sum() / max(c.sum(), 1.0))
        pair = np.clip(np.stack([r, c]), 0, 255).astype(np.uint8)[None]
        lab = cv2.cvtColor(pair, cv2.COLOR_BGR2Lab).astype(np.float64)[0]
        worst = max(worst, float(np.hypot(*(lab[0, 1:] - lab[1, 1:]))))
    return worst
