"""Photo-quality checks every game reader can call before trusting a reading.

Each check raises :class:`~vision.errors.UnreadableBoardError` (exit 3) with one code:

- ``too-dark``: the photo has almost no light in it (:func:`check_light`, before anything
  else is judged), or the board is much darker than at calibration (large lighting gain) or
  simply black (median grey below an absolute floor);
- ``glare``: a sizeable part of the board is blown out (all channels saturated) beyond what the
  calibration shot showed;
- ``too-blurred``: the board's fine detail fell far below the calibration's: either the
  variance of the Laplacian (Pech-Pacheco et al. 2000, :func:`check`), or — independent of how
  many pieces lie on the board — the ratio of fine to coarse gradient energy
  (:func:`detail_ratio`, :func:`check_blur`), shared by every reader that stores the
  calibration's figure;
- ``occluded``: a large blob that is none of the learned pieces covers the board (a hand, an arm).

Thresholds are relative to the calibration where a calibration reference is given.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import UnreadableBoardError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class QualityConfig:
    """Thresholds of the photo-quality checks."""

    max_gain: float = 3.5             # lighting gain (calibration / now) above which the photo is too dark
    min_gray: float = 25.0            # median grey (0–255) of the board below which it is too dark
    min_lit_share: float = 0.01       # share of the photo at least min_gray bright below which it is too dark
    saturated: int = 250              # a pixel with every channel ≥ this is blown out
    max_glare_fraction: float = 0.03  # … more than this fraction of the board (beyond the calibration's)
    min_sharpness_ratio: float = 0.2  # Laplacian variance now / at calibration below this: too blurred
    max_occluder_fraction: float = 0.02  # an unknown blob larger than this fraction of the board


QUALITY = QualityConfig()
#: The checks for a reader that judges blown-out pixels place by place itself (no board-wide glare limit).
QUALITY_WITHOUT_GLARE = dataclasses.replace(QUALITY, max_glare_fraction=1.0)


def lit_share(image: np.ndarray, cfg: QualityConfig = QUALITY) -> float:
    """Share of a BGR uint8 photo (H, W, 3) whose grey is at least ``cfg.min_gray``, on every 8th pixel."""
    gray = cv2.cvtColor(np.ascontiguousarray(image[::8, ::8]), cv2.COLOR_BGR2GRAY)
    return float(np.count_nonzero(gray >= cfg.min_gray)) / max(gray.size, 1)


def check_light(image: np.ndarray, cfg: QualityConfig = QUALITY) -> float:
    """Refuse a photo with almost no light in it (the lens cap on, the lamp off), whatever the game.

    Such a frame has no edges, colours or board to find, so any later check would give a wrong
    reason (blurred, the board moved); it is too dark first. Lit photos, however dim a part of
    them, have far more than ``cfg.min_lit_share`` of their pixels above ``cfg.min_gray``.

    Args:
        image: the photo, BGR uint8 (H, W, 3).
    Returns:
        The share of the photo that is lit (:func:`lit_share`).
    Raises:
        UnreadableBoardError: ``too-dark``.
    """
    share = lit_share(image, cfg)
    if share < cfg.min_lit_share:
        log.info("too dark: %.2f%% of the photo at least grey %.0f", 100 * share, cfg.min_gray)
        raise UnreadableBoardError("too-dark", "the photo is almost black (lens cap on, or the light off?); "
                                   "add light and take it again")
    return share


def sharpness(gray: np.ndarray, mask: np.ndarray | None = None) -> float:
    """Variance of the Laplacian of a grey uint8 (H, W) image, optionally over a bool mask (H, W)."""
    lap = cv2.Laplacian(gray, cv2.CV_32F, ksize=3)
    if mask is not None and mask.any():
        _, sd = cv2.meanStdDev(lap, mask=mask.astype(np.uint8))
    else:
        _, sd = cv2.meanStdDev(lap)
    return float(sd[0, 0]) ** 2


def detail_ratio(image: np.ndarray, sigma_px: float, grad: np.ndarray | None = None,
                 mask: np.ndarray | None = None) -> float:
    """How sharp a board is, whatever lies on it: fine over coarse gradient energy (≥ 1).

    For an edge blurred by σ, the mean squared gradient falls as 1/σ; after a further Gaussian
    blur of ``sigma_px`` it falls as 1/√(σ² + sigma_px²). Their ratio depends on the photo's blur
    (and noise), not on how many edges or how much contrast the board shows; a sharp board
    gives about 3–5, a blurred one tends to 1.

    Args:
        image: rectified board, lightness float32 (H, W) (e.g. Lab L) or BGR uint8 (H, W, 3)
            (then its grey level). Compare only ratios measured on the same kind of image.
        sigma_px: the comparison blur, px of ``image``.
        grad: optional precomputed Sobel gradient magnitude of ``image`` (float32 (H, W)),
            e.g. :func:`vision.image.gradients.sobel_magnitude` of Lab L.
        mask: optional bool (H, W): average the energies over these pixels only (e.g. the bare
            part of a board a cloth may cover); None for the whole image.
    Returns:
        The ratio, float (1.0 for a featureless board or an empty mask).
    """
    g = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    g = np.ascontiguousarray(g, dtype=np.float32)
    m = None if mask is None else mask.astype(np.uint8)
    if m is not None and not m.any():
        return 1.0

    def mean(x):
        return float(cv2.mean(x, mask=m)[0])

    def energy(x):
        gx, gy = cv2.Sobel(x, cv2.CV_32F, 1, 0), cv2.Sobel(x, cv2.CV_32F, 0, 1)
        return mean(cv2.multiply(gx, gx) + cv2.multiply(gy, gy))

    fine = energy(g) if grad is None else mean(cv2.multiply(grad, grad))
    coarse = energy(cv2.GaussianBlur(g, (0, 0), sigma_px))
    return fine / coarse if coarse > 1e-9 else 1.0


def check_blur(detail: float, detail_ref: float | None, min_share: float) -> None:
    """Refuse a photo whose fine detail fell far below the calibration's.

    Args:
        detail: :func:`detail_ratio` of the scanned board.
        detail_ref: the same measure of the calibration board (same resolution, same kind of
            image), or None (an older calibration: no check).
        min_share: the photo is too blurred when ``detail − 1 < min_share · (detail_ref − 1)``.
    Raises:
        UnreadableBoardError: ``too-blurred``.
    """
    if detail_ref is None:
        return
    if detail - 1.0 < min_share * (float(detail_ref) - 1.0):
        log.info("too blurred: fine detail %.2f against %.2f at calibration", detail, float(detail_ref))
        raise UnreadableBoardError("too-blurred", "the photo is too blurred to read (much softer than the "
                                   "calibration shot); hold the camera still and refocus")


def glare_fraction(bgr: np.ndarray, mask: np.ndarray | None, cfg: QualityConfig = QUALITY) -> float:
    """Share of the masked pixels (bool (H, W); None: all) of a BGR uint8 image with every channel
    ≥ ``cfg.saturated``."""
    sat = cv2.inRange(bgr, (cfg.saturated,) * 3, (255, 255, 255))
    if mask is None:
        return float(cv2.countNonZero(sat)) / max(sat.size, 1)
    n = cv2.countNonZero(mask.astype(np.uint8))
    return float(cv2.countNonZero(cv2.bitwise_and(sat, sat, mask=mask.astype(np.uint8)))) / max(n, 1)


def check(board_bgr: np.ndarray, *, gains=None, board_mask: np.ndarray | None = None,
          reference: np.ndarray | None = None, reference_figures: dict | None = None,
          cfg: QualityConfig = QUALITY) -> dict:
    """Refuse a photo that is too dark, glared or blurred.

    Args:
        board_bgr: the rectified board (or the photo), BGR uint8 (H, W, 3), *before* lighting correction.
        gains: per-channel gains (3,) that map this photo's lighting onto the calibration's, or None.
        board_mask: bool (H, W) of the pixels to judge (e.g. not under a cloth), or None for all.
        reference: the same view at calibration (e.g. the rectified empty board), BGR uint8, same shape.
        reference_figures: ``{"glare", "sharpness"}`` of the reference measured once (a reader may
            cache them; then ``reference`` is not looked at again), or None.
    Returns:
        The measured figures ``{"gain", "gray", "glare", "sharpness", "sharpness_ref"}``.
    Raises:
        UnreadableBoardError: ``too-dark``, ``glare`` or ``too-blurred``.
    """
    if board_bgr.dtype != np.uint8 or board_bgr.ndim != 3:
        raise ValueError("expected a BGR uint8 image")
    # no mask (or an empty one): every pixel, measured without a mask (the same figures, faster)
    mask = board_mask if board_mask is not None and board_mask.any() else None
    gray = cv2.cvtColor(board_bgr, cv2.COLOR_BGR2GRAY)
    half = gray[::2, ::2]
    figures = {"gain": float(np.max(gains)) if gains is not None else 1.0,
               "gray": median_u8(half if mask is None else half[mask[::2, ::2]])}
    if figures["gray"] < cfg.min_gray or figures["gain"] > cfg.max_gain:
        log.info("too dark: median grey %.0f, gain %.2f", figures["gray"], figures["gain"])
        darker = f" (about {figures['gain']:.0f} times darker than at calibration)" if figures["gain"] >= 1.5 else ""
        raise UnreadableBoardError("too-dark", f"the board is too dark to read{darker}; add light")
    ref = reference_figures
    if ref is None and reference is not None:
        ref = {"glare": glare_fraction(reference, mask, cfg),
               "sharpness": sharpness(cv2.cvtColor(reference, cv2.COLOR_BGR2GRAY), mask)}
    glare = glare_fraction(board_bgr, mask, cfg) - (ref["glare"] if ref else 0.0)
    figures["glare"] = glare
    if glare > cfg.max_glare_fraction:
        raise UnreadableBoardError("glare", f"{glare:.0%} of the board is blown out by glare; "
                                   "move the lamp or shade the board, or lower the camera's exposure")
    figures["sharpness"] = sharpness(gray, mask)
    if ref is not None:
        figures["sharpness_ref"] = ref["sharpness"]
        if figures["sharpness"] < cfg.min_sharpness_ratio * figures["sharpness_ref"]:
            log.info("too blurred: sharpness %.1f against %.1f at calibration", figures["sharpness"],
                     figures["sharpness_ref"])
            raise UnreadableBoardError("too-blurred", "the photo is too blurred to read (much softer than the "
                                       "calibration shot); hold the camera still and refocus")
    return figures


def median_u8(values: np.ndarray) -> float:
    """``np.median`` of uint8 values (any shape), exactly, from their histogram (no sort)."""
    v = np.ascontiguousarray(values, np.uint8).reshape(-1)
    n = v.size
    if n == 0:
        return float("nan")
    cum = np.cumsum(np.bincount(v, minlength=256))
    lo, hi = np.searchsorted(cum, [(n - 1) // 2, n // 2], side="right")   # the middle order statistics
    return (float(lo) + float(hi)) / 2.0


def median_last(values: np.ndarray) -> np.ndarray:
    """``np.median(values, axis=-1)`` for values without NaN, exactly (the same order statistics, the
    same float arithmetic for the mean of the two middle ones), by one partition: numpy selects the
    two middle values of an even count at once, several times slower than one and a max. Integer
    values give float64, as numpy's median does (their middle pair is not summed in the integer type).

    >>> median_last(np.array([[200, 250, 10, 220]], np.uint8)), float(median_last(np.array([3.0, 1.0, 2.0])))
    (array([210.]), 2.0)
    """
    x = np.array(values, order="C")            # a C-ordered copy, partitioned in place
    n = x.shape[-1]
    k = n // 2
    x.partition(k, axis=-1)
    upper = x[..., k]
    as_float = x.dtype.kind != "f"
    if n % 2:
        return upper.astype(np.float64) if as_float else upper
    lower = x[..., :k].max(axis=-1)
    if as_float:
        lower, upper = lower.astype(np.float64), upper.astype(np.float64)
    return (lower + upper) / 2


def check_occlusion(unknown: np.ndarray, *, area_mm2: float | None = None, px_per_mm: float = 1.0,
                    cfg: QualityConfig = QUALITY) -> float:
    """Refuse a board covered by something that is none of the learned pieces (a hand, an arm).

    Args:
        unknown: bool (H, W), pixels that differ from the empty board (and, if the caller can
            tell, match no learned piece). A reader may pass its whole foreground when no piece,
            nor a few touching ones, can make a blob of ``cfg.max_occluder_fraction``.
        area_mm2: board area in mm² (default: the mask's area at ``px_per_mm``).
        px_per_mm: resolution of ``unknown``.
    Returns:
        The largest unknown blob as a fraction of the board.
    Raises:
        UnreadableBoardError: ``occluded``.
    """
    board_px = (area_mm2 * px_per_mm ** 2) if area_mm2 else unknown.size
    n, _, stats, _ = cv2.connectedComponentsWithStats(unknown.astype(np.uint8), connectivity=8)
    largest = float(stats[1:, cv2.CC_STAT_AREA].max() / board_px) if n > 1 else 0.0
    return check_occluder(largest, cfg=cfg)


def check_occluder(largest_fraction: float, *, cfg: QualityConfig = QUALITY) -> float:
    """:func:`check_occlusion` for a caller that already measured its largest unknown blob.

    Args:
        largest_fraction: the largest blob's area as a fraction of the board (0–1).
    Returns:
        ``largest_fraction``.
    Raises:
        UnreadableBoardError: ``occluded`` when it exceeds ``cfg.max_occluder_fraction``.
    """
    if largest_fraction > cfg.max_occluder_fraction:
        raise UnreadableBoardError("occluded", f"something covers {largest_fraction:.0%} of the board (a hand?); "
                                   "take the photo again with the view clear")
    return largest_fraction


def noise_sigma(gray: np.ndarray, mask: np.ndarray | None = None) -> float:
    """Standard deviation (grey levels) of a photo's pixel noise (Immerkær 1996, "Fast noise variance estimation").

    The image is filtered with the difference of two Laplacians,
    ``[[1, −2, 1], [−2, 4, −2], [1, −2, 1]]``, which cancels smooth shading and straight edges; for
    white noise of σ the mean absolute response is σ·√(2/π)·6. Best measured on a plain,
    piece-free area (e.g. the table beside a board).

    Args:
        gray: grey image, uint8 or float (H, W).
        mask: optional bool (H, W): average over these pixels only (their 3 × 3 neighbours are used).
    Returns:
        σ ≥ 0 (0.0 for an image smaller than 3 × 3 or an empty mask).
    """
    g = np.asarray(gray, np.float32)
    if g.shape[0] < 3 or g.shape[1] < 3:
        return 0.0
    k = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
    r = np.abs(cv2.filter2D(g, cv2.CV_32F, k)[1:-1, 1:-1])
    if mask is not None:
        m = np.asarray(mask, bool)[1:-1, 1:-1]
        if not m.any():
            return 0.0
        r = r[m]
    return float(np.sqrt(np.pi / 2.0) / 6.0 * float(cv2.mean(r)[0]))  # cv2.mean: double accumulator


def board_noise_sigma(image: np.ndarray, mask: np.ndarray | None = None) -> float:
    """Standard deviation of a photo's pixel noise, estimated from the photo itself.

    Immerkær's estimator as :func:`noise_sigma`, but robust to a busy board: the *median*
    absolute response of the difference-of-Laplacians filter (×1.4826, the normal scale; white
    noise of σ gives σ·6) keeps the board's print, edges and pieces from counting as noise, so
    it can be measured on the board itself rather than on a plain strip beside it. Compare only figures measured on the same kind of image (same channel,
    same resolution): a rectified board's Lab L here and at calibration.

    Args:
        image: lightness float32 (H, W) (e.g. Lab L) or BGR uint8 (H, W, 3) (then its grey level).
        mask: optional bool (H, W) of the pixels to judge.
    Returns:
        σ in the image's units (≥ 0).
    """
    g = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    g = np.ascontiguousarray(g, dtype=np.float32)
    if g.shape[0] < 3 or g.shape[1] < 3:
        return 0.0
    k = np.float32([[1, -2, 1], [-2, 4, -2], [1, -2, 1]])
    r = np.abs(cv2.filter2D(g, cv2.CV_32F, k)[1:-1, 1:-1])
    # the median of every other response in x and y: as good an estimate, a quarter of the cost
    r = r[::2, ::2] if mask is None else r[np.asarray(mask, bool)[1:-1, 1:-1]]
    return float(median_last(r.reshape(-1))) * 1.4826 / 6.0 if r.size else 0.0


def check_excess_noise(sigma: float, sigma_ref: float | None, max_excess: float) -> float:
    """Refuse a photo much noisier than the calibration shot (exit 3, ``too-noisy``).

    Noise adds in power, so the photo's *excess* noise over the calibration's is
    ``sqrt(max(σ² − σ_ref², 0))``; above ``max_excess`` the readers' contrast features can no
    longer tell a faint piece from noise.

    Args:
        sigma: :func:`board_noise_sigma` of the scanned board.
        sigma_ref: the same measure of the calibration board (same image kind), or None (no check).
        max_excess: largest excess noise σ allowed, in the image's units.
    Returns:
        The excess noise σ (0 without a reference).
    Raises:
        UnreadableBoardError: ``too-noisy``.
    """
    if sigma_ref is None:
        return 0.0
    excess = float(np.sqrt(max(sigma ** 2 - float(sigma_ref) ** 2, 0.0)))
    if excess > max_excess:
        log.info("too noisy: pixel noise %.2f against %.2f at calibration", sigma, float(sigma_ref))
        raise UnreadableBoardError("too-noisy", "the photo is too grainy to read (much noisier than the calibration "
                                   "shot); add light (a dim scene makes the camera amplify noise) or lower the "
                                   "camera's ISO")
    return excess


def board_outside_share(H_px_from_mm, board_mm, image_size, step_mm: float = 5.0, area_mm=None) -> float:
    """Share of the board that lies outside the photo after registration (0 = wholly in view).

    The board's outline and interior are sampled every ``step_mm`` mm and projected into the
    photo by the homography; points outside the image by more than one px (or behind the
    camera) count as out.

    Args:
        H_px_from_mm: (3, 3) homography board mm → photo px (of the photo as decoded).
        board_mm: (width, height) of the board, mm.
        image_size: (width, height) of the photo in px.
        step_mm: sampling step, mm.
        area_mm: ``(x0, y0, x1, y1)`` mm, the part of the board to judge (default: all of it).
    Returns:
        The share in [0, 1].
    """
    x0, y0, x1, y1 = (0.0, 0.0, *(float(v) for v in board_mm)) if area_mm is None else (float(v) for v in area_mm)
    W, Hh = image_size
    # the board is convex and a homography keeps a quad in front of the camera convex: its four
    # corners in view (one px of slack: a board that exactly fills the frame, pixel-corner or
    # pixel-centre conventions) put every sample in view
    c = np.asarray(H_px_from_mm, np.float64) @ np.array([[x0, x1, x1, x0], [y0, y0, y1, y1], [1.0] * 4])
    if (c[2] > 1e-9).all():
        cu, cv = c[0] / c[2], c[1] / c[2]
        if ((cu >= -1.0) & (cu <= W) & (cv >= -1.0) & (cv <= Hh)).all():
            return 0.0
    xs = np.linspace(x0, x1, max(int((x1 - x0) / step_mm), 1) + 1)
    ys = np.linspace(y0, y1, max(int((y1 - y0) / step_mm), 1) + 1)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)])
    q = np.asarray(H_px_from_mm, np.float64) @ pts
    z = q[2]
    ok = z > 1e-9
    u = np.where(ok, q[0] / np.where(ok, z, 1.0), -1.0)
    v = np.where(ok, q[1] / np.where(ok, z, 1.0), -1.0)
    inside = ok & (u >= -1.0) & (u <= W) & (v >= -1.0) & (v <= Hh)
    return float(1.0 - inside.mean())


def check_board_in_view(H_px_from_mm, board_mm, image_size, max_outside: float = 0.01, area_mm=None) -> float:
    """Refuse a photo in which part of the registered board lies outside the frame (exit 3).

    A board pushed partly out of view can still register (the part in view matches), but the
    readers would then read the image's edge, repeated, as pieces or empty places. Any reader
    (or the pipeline, for every game) can call this with the registered homography.

    Args:
        H_px_from_mm: (3, 3) homography board mm → photo px (of the photo as decoded).
        board_mm: (width, height) of the board, mm.
        image_size: (width, height) of the photo in px.
        max_outside: largest share of the board allowed outside the photo.
        area_mm: ``(x0, y0, x1, y1)`` mm, the part of the board the reader reads (default: all
            of it; the margin around it may leave the frame).
    Returns:
        The share outside.
    Raises:
        UnreadableBoardError: ``board-out-of-view``.
    """
    out = board_outside_share(H_px_from_mm, board_mm, image_size, area_mm=area_mm)
    if out > max_outside:
        what = "the board" if area_mm is None else "the part of the board that is read"
        raise UnreadableBoardError("board-out-of-view", f"{out:.0%} of {what} lies outside the photo; "
                                   "put the whole board in the camera's view")
    return out
