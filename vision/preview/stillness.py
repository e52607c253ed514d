"""Scan when the board is still: one decision per preview frame.

Each frame (the camera's low-resolution preview, BGR or its Y plane) is compared twice, inside the
region of interest around the board (:mod:`vision.preview.region`):

- with the **anchor**, the first frame of the current still spell: when more than
  :attr:`StillnessConfig.min_change_mm2` of board and surroundings differ, something moves, and
  the current frame becomes the anchor. The board is still once the anchor is
  :attr:`StillnessConfig.settle_s` old.
- with the **reference**, the frame of the last scan (the first frame when there was none),
  after mapping the reference's grey levels onto the frame's (histogram matching, so a light
  that drifts is not a change): the changed pixels are grouped into connected regions. A region that
  reaches both onto the board and farther than :attr:`StillnessConfig.reach_mm` outside it (or
  the frame's border) is an arm with its hand: a piece lies on the board, a bumped board's edge
  moves a few mm, only an arm crosses the outline that far.

A pixel differs when its 3×3 mean absolute difference exceeds :attr:`StillnessConfig.noise_k`
times the frame's own noise (the median of that mean difference on the board between two still
frames, followed as a running mean over still frames), and at least
:attr:`StillnessConfig.min_threshold_grey`. Areas are board-plane mm² through the calibrated
homography.

States (:class:`Preview`): ``watching`` (still, nothing changed since the last scan),
``changing`` (something moves, or the board changed and has not been still long enough),
``hand`` (an arm over the board: never scans), ``scan`` (changed and still for ``settle_s``,
reported once: the frame becomes the new reference).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.preview.region import BoardGeometry, PreviewRegion, preview_region

WATCHING, CHANGING, HAND, SCAN = "watching", "changing", "hand", "scan"

#: Frames are shrunk (by a whole factor, averaging) to at most this width before they are
#: compared: a 640 px preview to 320, where a 20 mm piece still covers ~80 px on a 460 mm board
#: seen across 400 preview px, and the averaging lowers the noise.
WORK_WIDTH_PX = 320


@dataclass(frozen=True)
class StillnessConfig:
    """The still-board check's thresholds; evidence and seeds in docs/tuning.md (§ Still board).

    Attributes:
        settle_s: seconds the board must stay still after a change before it is scanned.
        noise_k: a pixel differs above this many times the frame's measured noise (median 3×3
            mean absolute difference of two still frames, grey levels). Fitted by
            scripts/fit_stillness.py.
        min_threshold_grey: grey levels a pixel must differ by at least, whatever the noise
            (8-bit steps and the camera's compression).
        min_change_mm2: board-plane area that must differ to count as a change or a motion, mm²
            (fitted: below the smallest move of a piece on the development tables, above what
            noise and light changes leave).
        reach_mm: how far outside the board's outline a changed region must reach to be an arm
            (mm; a bumped board's edge moves less).
        margin_mm: how far outside the outline the check looks (mm).
        min_arm_mm2: changed area outside the reach an arm needs at least (mm², a finger's
            width by a few cm).
        min_region_mm2: a changed region smaller than this is a speck of noise, not counted (mm²).
        noise_rate: weight of a new still frame in the running noise estimate.
    """

    settle_s: float = 1.0
    noise_k: float = 6.0
    min_threshold_grey: float = 4.0
    min_change_mm2: float = 40.0
    reach_mm: float = 15.0
    margin_mm: float = 60.0
    min_arm_mm2: float = 150.0
    min_region_mm2: float = 10.0
    noise_rate: float = 0.2


@dataclass(frozen=True)
class Preview:
    """The check's answer for one frame.

    Attributes:
        state: ``watching``, ``changing``, ``hand`` or ``scan``.
        changed_mm2: board area that differs from the reference (mm²).
        moving_mm2: board and surroundings' area that differs from the anchor (mm²).
        still_s: seconds since the anchor (0 when the frame moved).
        noise_grey: the noise estimate the threshold used (grey levels).
    """

    state: str
    changed_mm2: float
    moving_mm2: float
    still_s: float
    noise_grey: float

    def to_json(self) -> dict:
        return {"state": self.state, "changed_mm2": round(self.changed_mm2, 1),
                "moving_mm2": round(self.moving_mm2, 1), "still_s": round(self.still_s, 2),
                "noise_grey": round(self.noise_grey, 2)}


def grey_of(frame: np.ndarray) -> np.ndarray:
    """A preview frame as grey uint8 (H, W): BGR (H, W, 3) converted, a Y plane (H, W) as is.

    Raises:
        ValueError: not a uint8 (H, W) or (H, W, 3) array.
    """
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3) \
            or (frame.ndim == 3 and frame.shape[2] != 3):
        raise ValueError("a preview frame is a uint8 (H, W) Y plane or (H, W, 3) BGR array")
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


class StillBoard:
    """The still-board check of one calibrated board; feed it every preview frame in order.

    Args:
        geometry: the calibration's board geometry (:class:`vision.preview.region.BoardGeometry`).
        config: thresholds.
    """

    def __init__(self, geometry: BoardGeometry, config: StillnessConfig | None = None):
        self.geometry = geometry
        self.config = config or StillnessConfig()
        self._region: PreviewRegion | None = None
        self._size: tuple[int, int] | None = None
        self._reference: np.ndarray | None = None
        self._anchor: np.ndarray | None = None
        self._anchor_t = 0.0
        self._noise: float | None = None

    # -- what the station tells it ----------------------------------------------------------
    def rescan(self) -> None:
        """Forget the reference: the next frame becomes it (a scan was taken another way, e.g. the button)."""
        self._reference = None

    def region(self, size: tuple[int, int]) -> PreviewRegion:
        """The board's masks for frames of ``size`` = (width_px, height_px), built once per size."""
        if self._size != size:
            c = self.config
            self._region = preview_region(self.geometry, size, margin_mm=c.margin_mm, reach_mm=c.reach_mm)
            self._size = size
            self._reference = self._anchor = None
        return self._region

    # -- one frame -----------------------------------------------------------------------------
    def update(self, frame: np.ndarray, t_s: float) -> Preview:
        """Judge one preview frame taken at ``t_s`` (seconds, any monotonic clock).

        Args:
            frame: uint8 BGR (H, W, 3) or grey/Y plane (H, W).
            t_s: the frame's time, s.
        Returns:
            :class:`Preview`; ``state == "scan"`` once per settled change (the frame is then the
            new reference).
        Raises:
            ValueError: a frame that is not uint8 (H, W[, 3]), or a preview the board is not in.
        """
        grey = shrink(grey_of(frame))
        region = self.region((grey.shape[1], grey.shape[0]))
        x0, y0, x1, y1 = region.crop
        roi = grey[y0:y1, x0:x1]
        if self._anchor is None:
            self._anchor, self._anchor_t = roi.copy(), t_s
        if self._reference is None:
            self._reference = roi.copy()
        moving_mm2 = self._motion(roi, region, t_s)
        still_s = t_s - self._anchor_t
        changed = self._changed_mask(roi)
        changed_mm2, arm = self._changed_regions(changed, region)
        state = self._state(changed_mm2, moving_mm2, still_s, arm)
        if state == SCAN:
            self._reference = roi.copy()
        return Preview(state, changed_mm2, moving_mm2, still_s, self.noise_grey)

    @property
    def noise_grey(self) -> float:
        """The running noise estimate (grey levels); 0 before two frames were compared."""
        return float(self._noise or 0.0)

    def threshold(self) -> float:
        """Grey levels a pixel's 3×3 mean absolute difference must exceed to differ."""
        return max(self.config.noise_k * self.noise_grey, self.config.min_threshold_grey)

    def _motion(self, roi: np.ndarray, region: PreviewRegion, t_s: float) -> float:
        """Area (mm²) differing from the anchor; moves the anchor when it is a motion, follows the noise."""
        diff = _mean_diff9(roi, self._anchor)
        moving = diff > 9 * self.threshold()
        moving_mm2 = float(np.count_nonzero(moving)) * region.mm2_per_px
        if self._anchor_t != t_s:
            # the median is the noise's while most of the board holds still
            noise = _median(diff, region.board_u8) / 9
            if self._noise is None:
                self._noise = noise
            elif noise <= self.threshold():
                self._noise += self.config.noise_rate * (noise - self._noise)
        if moving_mm2 > self.config.min_change_mm2:
            self._anchor, self._anchor_t = roi.copy(), t_s
        return moving_mm2

    def _changed_mask(self, roi: np.ndarray) -> np.ndarray:
        """uint8 (h, w) 0/1: pixels that differ from the reference in the frame's light (:func:`light_map`)."""
        ref = self._reference
        fitted = cv2.LUT(ref, light_map(ref, roi))
        return (_mean_diff9(roi, fitted) > 9 * self.threshold()).astype(np.uint8)

    def _changed_regions(self, changed: np.ndarray, region: PreviewRegion) -> tuple[float, bool]:
        """(changed board area mm², whether a changed region is an arm over the board)."""
        c = self.config
        n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        big = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= max(c.min_region_mm2 / region.mm2_per_px, 2))
        big = big[big > 0]
        if big.size == 0:
            return 0.0, False
        keep = np.zeros(n, bool)
        keep[big] = True
        on_board = np.bincount(labels[region.board], minlength=n)
        far = np.bincount(labels[region.far], minlength=n)
        arm = bool(np.any(keep & (on_board > 0) & (far * region.mm2_per_px >= c.min_arm_mm2)))
        changed_mm2 = float(on_board[keep].sum()) * region.mm2_per_px
        return changed_mm2, arm

    def _state(self, changed_mm2: float, moving_mm2: float, still_s: float, arm: bool) -> str:
        c = self.config
        if arm:
            return HAND
        if moving_mm2 > c.min_change_mm2:
            return CHANGING
        if changed_mm2 <= c.min_change_mm2:
            return WATCHING
        return SCAN if still_s >= c.settle_s else CHANGING


def shrink(grey: np.ndarray) -> np.ndarray:
    """``grey`` shrunk by the smallest whole factor that makes it at most :data:`WORK_WIDTH_PX` wide."""
    factor = -(-grey.shape[1] // WORK_WIDTH_PX)
    if factor <= 1:
        return grey
    size = (grey.shape[1] // factor, grey.shape[0] // factor)
    return cv2.resize(grey[: size[1] * factor, : size[0] * factor], size, interpolation=cv2.INTER_AREA)


def _mean_diff9(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Nine times the 3×3 mean absolute difference of two uint8 pictures, uint16 (sums keep the
    ninths a uint8 mean would round away)."""
    return cv2.boxFilter(cv2.absdiff(a, b), cv2.CV_16U, (3, 3), normalize=False)


def _median(values: np.ndarray, mask: np.ndarray) -> float:
    """Median of the uint16 ``values`` (below 2304: nine grey levels) where ``mask`` (uint8) is set."""
    hist = cv2.calcHist([values], [0], mask, [2304], [0, 2304]).ravel()
    total = hist.sum()
    return float(np.searchsorted(np.cumsum(hist), total / 2)) if total else 0.0


def light_map(ref: np.ndarray, cur: np.ndarray) -> np.ndarray:
    """A grey-level look-up table taking ``ref``'s light to ``cur``'s (histogram matching).

    Any steady change of the light that keeps the order of grey levels (gain, offset, clipped
    highlights) maps each level of ``ref`` onto the level of ``cur`` at the same rank; the few
    pixels a moved piece or a hand changes barely move the ranks.

    Returns:
        uint8 (256,) table for ``cv2.LUT``.

    >>> ref = np.arange(0, 200, dtype=np.uint8).reshape(10, 20)
    >>> lut = light_map(ref, np.clip(ref * 1.1 + 5, 0, 255).astype(np.uint8))
    >>> int(lut[100]), int(lut[10])
    (115, 16)
    """
    lut = np.interp(_ranks(ref), _ranks(cur), np.arange(256, dtype=np.float64))
    return np.clip(np.round(lut), 0, 255).astype(np.uint8)


def _ranks(grey: np.ndarray) -> np.ndarray:
    """Each grey level's rank in a uint8 picture: the middle of its step of the cumulative
    distribution, float64 (256,) in [0, 1], non-decreasing."""
    cdf = np.cumsum(cv2.calcHist([np.ascontiguousarray(grey)], [0], None, [256], [0, 256]).ravel()).astype(np.float64)
    cdf /= cdf[-1]
    return (cdf + np.concatenate([[0.0], cdf[:-1]])) / 2
