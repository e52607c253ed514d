"""Is the board in this photo the calibrated one? Colour strips across the outline.

The strips above tell *how far* the outline moved; strips laid the same way also tell *whether
it is the calibrated board at all*. A plain board edge on a table looks like any other board
edge in grey (a step), so each strip is compared in colour: the mean B, G, R profile across the
outline, in log units with each channel's mean removed (a lamp's gain, a colour temperature or
an exposure change cancel; the contrast between the board's rim, its printed frame and the table
does not). Each strip's evidence is graded by how closely its best shift within the search range
brings it to the calibration's profile (Tukey's biweight of the residual). Then the matches must
agree on where the board is: where it was calibrated (nothing moved: the camera is fixed), or
where one bump put it (a shift and turn fitted to the matched strips, which counts only when
strips across both directions pin it, as :func:`measure_motion` requires of a motion). The
statistic is the share of the usable strips that position explains. Another board may share a
plain edge with the calibrated one, even near the same place, but not the printed frames, rails
and rims all round it at the places one position of the board explains.

Before saying "not the board" the strips are compared once more with the calibration blurred (a
photo less sharp than the calibration shot), around the coarse phase-correlation shift (a board
pushed beyond the search range) and with red and blue swapped (a camera delivering RGB as BGR,
refused later as such). A photo far darker than the calibration shot, or one whose strips are
mostly out of view, gets no verdict: the readers' own checks say what is wrong with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.board.motion import fit_motion, motion_matrix, predicted_shifts
from vision.errors import UnreadableBoardError
from vision.board.strips import SIDES, OutlineConfig, Strips, project, strip_layout

@dataclass(frozen=True)
class IdentityConfig:
    """Constants of :func:`board_identity` (log units: natural logs of grey levels 0–255).

    The thresholds come from ``scripts/board_identity_stats.py``: the statistic measured on every
    right-board scene of the shared samples, the new set-ups, the real photos and lens-distorted
    copies, and on every pair "photo of game A, calibration of game B" of them (README, "Is this
    the calibrated board?", gives both distributions).
    """

    #: Strip geometry: as the registration's (:data:`OUTLINE`), with a wider search, so that a
    #: board bumped up to this far (mm, at any strip) is still found without the coarse search,
    #: and a strip every 12 mm (half the work of the registration's 8 mm, the same verdicts).
    strips: OutlineConfig = OutlineConfig(search_mm=24.0, spacing_mm=12.0)
    #: Sampling resolution (px/mm): the profiles are smoothed to ``smooth_mm`` anyway …
    ppm: float = 1.0
    #: … and across a strip's width every this many samples are averaged (2: every 2 mm).
    width_step: int = 2
    #: Added to every grey level (at the calibration's exposure) before the log, so that the noise
    #: of dark pixels does not count.
    eps: float = 8.0
    #: Both profiles are smoothed across the outline by a Gaussian of this σ (mm): a photo
    #: sampled at another resolution, or slightly blurred, still matches.
    smooth_mm: float = 2.0
    #: A photo less sharp than the calibration shot (focus, a shaking camera: σ = 6 px of a
    #: 1920 px photo is 2.7 mm on a Strand unter board) is compared once more with the
    #: calibration's profiles blurred by this much more (Gaussian σ, mm on the board).
    blur_mm: float = 3.0
    #: A photo that needs more than this gain (calibration / now, in every channel: one channel
    #: alone may differ because of what lies on the board) to reach the calibration's exposure
    #: gets no verdict: too dark to compare; the readers refuse it as such (this is their own
    #: limit, :attr:`vision.image.quality.QualityConfig.max_gain`).
    max_exposure_gain: float = 3.5
    #: A reference strip is usable when its profile varies at least this much (RMS, log units):
    #: a featureless strip would match any featureless photo.
    min_contrast: float = 0.03
    #: A strip's RMS residual (log units) at the best shift is compared with this …
    max_residual: float = 0.08
    #: … and with this share of the reference profile's own RMS (it must explain its structure):
    #: the larger of the two ratios, ``u``, gives the strip's evidence, Tukey's biweight
    #: ``(1 − u²)²`` (0 from ``u = 1``). Right boards' strips match far closer (typical residual
    #: 0.005–0.02; the real Go board's faint rim strips, relative to their RMS, about 0.2).
    max_relative_residual: float = 0.5
    #: The statistic: the evidence one position of the board (unmoved, or bumped) explains, as a
    #: share of the usable strips. Measured (``scripts/board_identity_stats.py``, 230 right-board
    #: scans and 2896 other-game scans, both paths): right boards ≥ 0.307 (Strand unter with the sea
    #: cloth over both rails), other games ≤ 0.084. The threshold is their geometric mean.
    min_share: float = 0.16
    #: A fitted position counts only when the evidence it explains across each direction is at
    #: least this (strips' weights). Measured: bumped right boards ≥ 2.56 (Strand unter, cloth over
    #: the rails), motions fitted to other games' boards ≤ 0.02.
    min_pinning: float = 1.0
    #: With fewer usable strips than this (a board filling the photo, no table round it) no
    #: verdict is given.
    min_usable: int = 12


IDENTITY = IdentityConfig()


def strip_samples_mm(strips: Strips, step: int = 1) -> np.ndarray:
    """Board mm of the samples of every strip, every ``step``-th column across its width: float64
    (n_across, n_strips · width samples, 2), strip after strip (:func:`colour_profiles` samples them)."""
    per = int(strips.cols[0, 1] - strips.cols[0, 0])            # every strip has the same width
    return strips.grid_mm[:, (strips.cols[:, :1] + np.arange(0, per, max(1, step))[None, :]).ravel()]


def colour_profiles(bgr: np.ndarray, H_px_from_mm: np.ndarray, strips: Strips,
                    samples_mm: np.ndarray | None = None, px: np.ndarray | None = None) -> np.ndarray:
    """Mean colour of each strip across the outline.

    Args:
        bgr: photo, BGR uint8 (H, W, 3).
        H_px_from_mm: homography board mm → px of ``bgr``.
        strips: the layout (:func:`strip_layout`).
        samples_mm: :func:`strip_samples_mm` of ``strips``, when already at hand.
        px: :func:`strip_samples_px` of them through ``H_px_from_mm``, when already at hand.
    Returns:
        float32 (n_strips, n_across, 3): mean B, G, R (grey levels) over each strip's width, from
        ``-(inside + search)`` mm (in) to ``outside + search`` mm (out).
    """
    if px is None:
        px = strip_samples_px(strip_samples_mm(strips) if samples_mm is None else samples_mm, H_px_from_mm)
    bands = cv2.remap(bgr, px, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)   # px: a 2-channel map
    # each strip's ``per`` columns averaged: an area resize by an integer factor is exactly that
    means = cv2.resize(bands.astype(np.float32), (len(strips.cols), bands.shape[0]), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(means.transpose(1, 0, 2))


def strip_samples_px(samples_mm: np.ndarray, H_px_from_mm: np.ndarray) -> np.ndarray:
    """Where the samples (:func:`strip_samples_mm`) lie in a photo seen through ``H_px_from_mm``:
    float32 (n_across, N, 2), contiguous (the map :func:`colour_profiles` remaps the photo by)."""
    flat = np.ascontiguousarray(samples_mm, np.float32).reshape(-1, 1, 2)   # float32: ample for 1/1000 px
    return cv2.perspectiveTransform(flat, np.asarray(H_px_from_mm, np.float64)).reshape(samples_mm.shape)


def strips_in_view(H_px_from_mm: np.ndarray, strips: Strips, size: tuple[int, int]) -> np.ndarray:
    """Strips whose profile (``inside_mm`` in to ``outside_mm`` out; the search range may leave the
    photo) lies inside a photo of ``size`` (w, h) px: bool (n_strips,)."""
    w, h = size
    grid = strips.grid_mm
    ends = np.stack([grid[strips.pad], grid[-1 - strips.pad]], 0)         # (2, n_along, 2): the in and out ends
    px = project(H_px_from_mm, ends)
    inside = (px[..., 0] >= 0) & (px[..., 1] >= 0) & (px[..., 0] <= w - 1) & (px[..., 1] <= h - 1)
    csum = np.concatenate([[0], np.cumsum(~inside.all(axis=0))])
    return (csum[strips.cols[:, 1]] - csum[strips.cols[:, 0]]) == 0


def identity_frame(board_mm, grow_mm: float = 0.0) -> tuple[tuple[float, float], np.ndarray]:
    """The outline the identity strips lie along: the board's, grown by ``grow_mm`` on every side.

    Returns:
        ``(grown_mm, S)``: the grown rectangle's (width_mm, height_mm) and the (3, 3) map from its
        mm to board mm (``H_px_from_mm @ S`` maps the grown rectangle into a photo).
    """
    w, h = (float(v) for v in board_mm)
    m = float(grow_mm)
    return (w + 2 * m, h + 2 * m), np.array([[1.0, 0, -m], [0, 1.0, -m], [0, 0, 1.0]])


def identity_strips(board_mm, grow_mm: float = 0.0, cfg: IdentityConfig = IDENTITY) -> tuple[Strips, np.ndarray]:
    """The identity strips' layout and the map ``S`` of :func:`identity_frame`."""
    grown, S = identity_frame(board_mm, grow_mm)
    return strip_layout(grown, cfg.ppm, SIDES, cfg.strips), S


def identity_profiles(bgr: np.ndarray, H_px_from_mm: np.ndarray, board_mm, grow_mm: float = 0.0,
                      cfg: IdentityConfig = IDENTITY) -> np.ndarray:
    """The :func:`colour_profiles` an :class:`IdentityReference` is built from (a calibration shot).

    Args:
        bgr: the calibration shot (or its empty-board shot), BGR uint8, undistorted.
        H_px_from_mm: its homography board mm → px.
        board_mm: (width_mm, height_mm).
        grow_mm: the strips lie along the board's outline grown by this (:func:`identity_frame`).
    Returns:
        float32 (n_strips, n_across, 3).
    """
    strips, S = identity_strips(board_mm, grow_mm, cfg)
    return colour_profiles(bgr, np.asarray(H_px_from_mm, np.float64) @ S, strips)


def identity_layout(cfg: IdentityConfig = IDENTITY) -> list[float]:
    """The strip geometry stored identity profiles were sampled with (other ones are not used)."""
    c = cfg.strips
    return [c.inside_mm, c.outside_mm, c.search_mm, c.width_mm, c.spacing_mm, cfg.ppm]  # width_step: photo side only


def _log_profiles(profiles: np.ndarray, cfg: IdentityConfig, extra_blur_mm: float = 0.0) -> np.ndarray:
    """Log colour profiles smoothed across the outline (σ = ``smooth_mm``, and ``extra_blur_mm``
    more in quadrature): float32 (n_strips, n_across, 3)."""
    lg = np.log(profiles.astype(np.float32) + np.float32(cfg.eps))
    sigma = np.hypot(cfg.smooth_mm, extra_blur_mm) * cfg.ppm
    return _smooth_across(lg, sigma) if sigma >= 0.3 else lg


def _smooth_across(lg: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian smoothing (σ in samples) of (n, A, 3) along A, edges replicated."""
    r = int(np.ceil(3 * sigma))
    return cv2.GaussianBlur(lg, (2 * r + 1, 1), sigmaX=sigma, sigmaY=0, borderType=cv2.BORDER_REPLICATE)


@dataclass
class Identity:
    """Outcome of :func:`board_identity`.

    Attributes:
        usable: strips that can tell (varied in the calibration, in view, on the game's fixed sides).
        matched: strips whose colour profile matches the calibration's at some shift (weight > 0).
        explained: the evidence (sum of the strips' weights, :meth:`IdentityReference.matches`) at
            the places one board position (unmoved or bumped) puts the strips.
        moved: whether that position is a fitted one (a bump; "nothing moved" is tried first, and no
            motion is fitted once it explains enough).
        share: ``explained / usable`` (0 when nothing is usable): the statistic.
        verdict: True: the calibrated board; False: not it; None: cannot tell (too few usable
            strips, or the photo far darker than the calibration shot).
        fitted: evidence explained by the shift and turn fitted to the matched strips (0: none).
        fewest: of that, the part across the direction with less (a fitted position counts from
            :attr:`IdentityConfig.min_pinning` on).
        swapped: the board was recognised only with the photo's red and blue swapped (a camera
            delivering RGB as BGR: the calibrated board, refused later as ``colours-swapped``).
    """

    usable: int
    matched: int
    explained: float
    moved: bool
    share: float
    verdict: bool | None
    fitted: float = 0.0
    fewest: float = 0.0
    swapped: bool = False


class IdentityReference:
    """The calibration shot's colour strips, ready for :func:`board_identity`.

    Args:
        profiles: (n_strips, n_across, 3) the calibration shot's :func:`identity_profiles` (uint8
            or float) with the same ``board_mm`` and ``grow_mm``.
        board_mm: (width_mm, height_mm).
        grow_mm: how far outside the board's outline the strips lie (pieces that may stand on the
            outline, a Go board's edge stones, must not reach them; 0 for boards whose pieces
            stand inside, beyond ``inside_mm``).
    Raises:
        ValueError: ``profiles`` does not fit the layout.
    """

    def __init__(self, profiles: np.ndarray, board_mm, grow_mm: float = 0.0, cfg: IdentityConfig = IDENTITY):
        self.cfg = cfg
        self.board_mm, self.S = identity_frame(board_mm, grow_mm)
        self.strips, _ = identity_strips(board_mm, grow_mm, cfg)
        self.samples_mm = strip_samples_mm(self.strips, cfg.width_step).astype(np.float32)
        n_across = self.strips.grid_mm.shape[0]
        if profiles.shape != (len(self.strips.cols), n_across, 3):
            raise ValueError(f"colour strips {profiles.shape} do not fit the layout "
                             f"{(len(self.strips.cols), n_across, 3)}")
        pad = self.strips.pad
        self.levels = profiles.astype(np.float32)
        # cores kept channel-major, (n, 3, K): every sum below runs along the last, contiguous axis
        core = _log_profiles(self.levels, cfg)[:, pad:n_across - pad].transpose(0, 2, 1)
        self.core = np.ascontiguousarray(core - core.mean(axis=2, keepdims=True))
        self.contrast = np.sqrt((self.core.astype(np.float64) ** 2).mean(axis=(1, 2)))
        self.structured = self.contrast >= cfg.min_contrast
        blurred = _log_profiles(self.levels, cfg, cfg.blur_mm)[:, pad:n_across - pad].transpose(0, 2, 1)
        self.blurred_core = np.ascontiguousarray(blurred - blurred.mean(axis=2, keepdims=True))
        self._energy = {False: (self.core * self.core).sum(axis=(1, 2)),           # Σ core² per strip
                        True: (self.blurred_core * self.blurred_core).sum(axis=(1, 2))}
        self.mean_levels = self.levels[:, pad:n_across - pad].mean(axis=1)        # (n, 3)
        self._views: dict = {}      # (H, photo size) → (samples' px, strips in view): the calibrated homographies

    def view(self, H_px_from_mm: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """Where the strips' samples lie in a photo of ``size`` (w, h) seen through ``H_px_from_mm``
        (:func:`strip_samples_px`) and which strips it shows (:func:`strips_in_view`); kept for a
        few homographies (the calibrated one every photo of this size is first seen through)."""
        key = (np.asarray(H_px_from_mm, np.float64).tobytes(), tuple(size))
        got = self._views.get(key)
        if got is None:
            got = (strip_samples_px(self.samples_mm, H_px_from_mm), strips_in_view(H_px_from_mm, self.strips, size))
            if len(self._views) >= 4:
                self._views.clear()
            self._views[key] = got
        return got

    def exposure(self, profiles: np.ndarray, usable: np.ndarray | None = None) -> np.ndarray:
        """Per-channel gain (3,) that brings a photo's strips to the calibration's exposure: the
        ratio of the mean levels of the ``usable`` strips (default: the structured ones), each
        strip's mean taken over the calibration's profile and over the whole searched photo profile."""
        use = self.structured if usable is None else usable
        if not use.any():
            return np.ones(3)
        return self.mean_levels[use].mean(axis=0) / np.maximum(profiles[use].mean(axis=(0, 1)), 0.5)

    def residuals(self, profiles: np.ndarray, usable: np.ndarray | None = None,
                  blurred: bool = False, gain: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Best shift and RMS log residual of every strip of a photo's :func:`colour_profiles`.

        The photo is first brought to the calibration's exposure (:meth:`exposure`), so that
        :attr:`IdentityConfig.eps` is the same share of the light in both (a photo 3 times darker is
        compared as if it were lit; its quantisation noise is averaged over each strip's width).

        Args:
            profiles: the photo's :func:`colour_profiles`, float32 (n_strips, n_across, 3).
            usable: bool (n_strips,) strips whose levels set the exposure (default: the structured).
            blurred: compare with the calibration's profiles blurred by :attr:`IdentityConfig.blur_mm`
                (a photo less sharp than the calibration shot).
        Returns:
            ``(shift_mm, residual)``: float64 (n_strips,) the sub-sample shift (mm, + outward) of
            the smallest residual, NaN where it lies on the search range's end (the best match may
            be beyond it), and that residual (log units, each channel's mean removed).
        """
        gain = self.exposure(profiles, usable) if gain is None else gain
        profiles = profiles * gain.astype(np.float32)
        lg = np.ascontiguousarray(_log_profiles(profiles, self.cfg).transpose(0, 2, 1))      # (n, 3, A)
        lg -= lg.mean(axis=2, keepdims=True)           # centred: the window sums below stay exact in float32
        core, pad = (self.blurred_core if blurred else self.core), self.strips.pad
        K = core.shape[2]
        c1 = np.zeros(lg.shape[:2] + (lg.shape[2] + 1,), np.float32)
        c2 = np.zeros_like(c1)
        np.cumsum(lg, axis=2, out=c1[..., 1:])
        np.cumsum(lg * lg, axis=2, out=c2[..., 1:])
        s1, s2 = c1[..., K:] - c1[..., :-K], c2[..., K:] - c2[..., :-K]           # (n, 3, S) window sums
        win = np.lib.stride_tricks.sliding_window_view(lg, K, axis=2)         # (n, 3, S, K)
        cross = np.einsum("ncsk,nck->ns", win, core)
        # Σ (w − mean(w) − core)² over the window, per channel mean removed (the core's mean is 0)
        sq = (s2 - s1 * s1 / K).sum(axis=1) - 2 * cross + self._energy[bool(blurred)][:, None]
        r2 = np.maximum(sq, 0) / (3 * K)
        best = r2.argmin(axis=1)
        n = np.arange(len(best))
        last = r2.shape[1] - 1
        a, b, c = r2[n, np.clip(best - 1, 0, last)], r2[n, best], r2[n, np.clip(best + 1, 0, last)]
        den = a - 2 * b + c
        frac = np.where(den > 0, 0.5 * (a - c) / np.where(den > 0, den, 1), 0.0)
        shift = (best + np.clip(frac, -0.5, 0.5) - pad) / self.strips.ppm
        shift[(best == 0) | (best == last)] = np.nan
        return shift, np.sqrt(b)

    def matches(self, profiles: np.ndarray, usable: np.ndarray | None = None,
                blurred: bool = False, gain: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """How well every strip of a photo matches, at its best shift (``blurred``: as :meth:`residuals`).

        Returns:
            ``(shift_mm, weight)``: float64 (n_strips,) as :meth:`residuals`, and each strip's
            evidence in [0, 1]: Tukey's biweight ``(1 − u²)²`` of ``u``, the larger of the residual
            over :attr:`IdentityConfig.max_residual` and the residual over
            :attr:`IdentityConfig.max_relative_residual` times the reference's own RMS; 0 from
            ``u = 1`` on, at a shift on the search range's end, or for an unusable strip. A close
            match counts almost fully, a borderline one hardly.
        """
        cfg = self.cfg
        shift, res = self.residuals(profiles, usable, blurred, gain)
        u = np.maximum(res / cfg.max_residual, res / (cfg.max_relative_residual * np.maximum(self.contrast, 1e-9)))
        weight = np.where(u < 1, (1 - np.minimum(u, 1) ** 2) ** 2, 0.0)
        weight[~np.isfinite(shift) | ~self.structured] = 0.0
        return shift, weight


def _agreeing(ref: IdentityReference, shift_mm: np.ndarray, weight: np.ndarray,
              fitted_only: bool = False, enough: float = np.inf) -> tuple[float, bool, float, float]:
    """How much matching evidence (sum of the strips' weights) one board position explains: the
    calibrated one (nothing moved), or one shift and turn fitted to the matched strips. A fitted
    position counts only when strips across both directions pin it (evidence of at least
    :attr:`IdentityConfig.min_pinning` each): strips along one side alone leave a fitted board free
    to slide along it, and a plain edge of another board may well lie near where the calibrated
    board's edge was.

    Args:
        fitted_only: the position ``shift_mm`` is measured from was itself found in the photo (a
            coarse guess): "nothing moved" from there must be pinned too.
        enough: evidence of "nothing moved" from which no motion is fitted (the verdict is made).
    Returns:
        ``(evidence, moved, fitted, fewest)``: the evidence of the position chosen; whether it is a
        fitted one; the evidence the fitted position explains and, of that, the part across the
        direction with less (0, 0 when none could be fitted).
    """
    st = ref.strips
    tol = max(ref.cfg.strips.tolerance_mm, 1.0 / st.ppm)
    d = np.nan_to_num(shift_mm, nan=1e6)
    across = np.abs(st.normals[:, 0]) > 0.5

    def explained(ok):
        w = np.where(ok, weight, 0.0)
        return float(w.sum()), float(min(w[across].sum(), w[~across].sum()))

    matched = weight > 0
    still, still_fewest = explained(matched & (np.abs(d) <= tol))
    if fitted_only and still_fewest < ref.cfg.min_pinning:
        still = 0.0
    params = fit_motion(np.where(matched, d, 0.0), st, matched, ref.board_mm, 3, tol) \
        if still < enough and (matched & (np.abs(d) > tol)).any() else None
    if params is None:
        return still, False, 0.0, 0.0
    pred = predicted_shifts(motion_matrix(params, ref.board_mm), st, np.ones(len(d), bool))
    fitted, fewest = explained(matched & (np.abs(d - pred) <= tol))
    if fewest >= ref.cfg.min_pinning and fitted > still:
        return fitted, True, fitted, fewest
    return still, False, fitted, fewest


def board_identity(ref: IdentityReference, bgr: np.ndarray, H0: np.ndarray, usable: np.ndarray | None = None,
                   coarse_guess=None, exhaustive: bool = False) -> Identity:
    """Is the board in this photo the calibrated one? (the comment above :class:`IdentityConfig`).

    Args:
        ref: the calibration's :class:`IdentityReference`.
        bgr: photo, BGR uint8 (H, W, 3), undistorted, at the size ``H0`` is for.
        H0: the calibrated homography board mm → this photo's px.
        usable: optional bool (n_strips,) strips that may be used (e.g. the game's fixed sides).
        coarse_guess: optional callable returning a board motion T ((3, 3), board mm) or None
            (e.g. :func:`coarse_motion`): when the strips do not find the board within their
            search range, they are compared once more around ``H0 @ T`` (a board pushed further).
        exhaustive: always fit a motion, even once "nothing moved" explains enough for the
            verdict (the verdict is the same; ``share`` is then the statistic's full value, as
            ``scripts/board_identity_stats.py`` measures it).
    Returns:
        :class:`Identity`.
    """
    cfg = ref.cfg
    size = (bgr.shape[1], bgr.shape[0])
    board_H0 = np.asarray(H0, np.float64)

    def measure(T, fitted_only, blurred=False, swapped=False):
        H = board_H0 @ T @ ref.S
        if fitted_only:
            px, in_view = strip_samples_px(ref.samples_mm, H), strips_in_view(H, ref.strips, size)
        else:                                                          # the calibrated position: kept
            px, in_view = ref.view(H, size)
        use = ref.structured & in_view                                 # strips off the photo tell nothing
        if usable is not None:
            use &= usable
        profiles = colour_profiles(bgr, H, ref.strips, px=px)
        if swapped:
            profiles = np.ascontiguousarray(profiles[..., ::-1])
        gain = ref.exposure(profiles, use)
        shift, weight = ref.matches(profiles, use, blurred, gain)
        weight = np.where(use, weight, 0.0)
        enough = np.inf if exhaustive else cfg.min_share * use.sum()
        evidence, moved, fitted, fewest = _agreeing(ref, shift, weight, fitted_only, enough)
        return (int(use.sum()), int((weight > 0).sum()), evidence, moved or fitted_only, fitted, fewest,
                float(gain.min()))

    n_use, matched, evidence, moved, fitted, fewest, gain = measure(np.eye(3), False)
    if n_use < cfg.min_usable or gain > cfg.max_exposure_gain:
        return Identity(n_use, 0, 0.0, False, 0.0, None)
    if evidence < cfg.min_share * n_use:       # a photo less sharp than the calibration shot?
        again = measure(np.eye(3), False, blurred=True)
        if again[2] > evidence:
            n_use, matched, evidence, moved, fitted, fewest, _ = again
    if evidence < cfg.min_share * n_use and coarse_guess is not None:
        T = coarse_guess()
        if T is not None:
            again = measure(T, True)
            if again[0] >= cfg.min_usable and again[2] / again[0] > evidence / n_use:
                n_use, matched, evidence, moved, fitted, fewest, _ = again
    swapped = False
    if evidence < cfg.min_share * n_use:       # the calibrated board, its red and blue swapped (RGB as BGR)?
        again = measure(np.eye(3), False, swapped=True)
        if again[2] >= cfg.min_share * again[0]:
            (n_use, matched, evidence, moved, fitted, fewest, _), swapped = again, True
    share = evidence / n_use
    return Identity(n_use, matched, round(evidence, 2), moved, share, share >= cfg.min_share, round(fitted, 2),
                    round(fewest, 2), swapped)


def check_calibrated_board(identity) -> None:
    """Refuse a photo that does not show the calibrated board (:func:`board_identity`):
    another game's board, or a camera that moved so far the board is not where it was calibrated.
    Called when the game's reader refused the photo, so that such a photo gets this one reason on
    every path instead of whatever a game's reader makes of a board it does not know; a photo the
    reader reads is kept, unsure (:func:`doubt_unrecognised_board`): the check's statistic overlaps
    on right boards it was not measured on (a sea cloth and a lamp over a Strand unter board).

    Args:
        identity: a :class:`Identity`, or None (no verdict: nothing is refused).
    Raises:
        UnreadableBoardError: ``board-not-found``.
    """
    if identity is None or identity.verdict is not False:
        return
    raise UnreadableBoardError("board-not-found", "this photo does not show the board this calibration was made for "
                               "(another game's board, or the camera moved); put that board under the camera, "
                               "or calibrate for this one")
