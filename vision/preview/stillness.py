"""Scan when the board is still: one decision per preview frame.

Each frame (the camera's low-resolution preview, BGR or its Y plane) is compared twice, inside the
region of interest around the board (:mod:`vision.preview.region`):

- with the **anchor**, the first frame of the current still spell: when more than
  :attr:`StillnessConfig.min_change_mm2` of board and surroundings differ, something moves, and
  the current frame becomes the anchor. The board is still once the anchor is
  :attr:`StillnessConfig.settle_s` old.
- with the **reference**, the frame of the last scan (the first frame when there was none),
  after fitting the reference's grey levels to the frame's (a gain or an offset, so a light
  that drifts is not a change): the changed pixels are grouped into connected regions. A region that
  reaches both onto the board and farther than :attr:`StillnessConfig.reach_mm` outside it (or
  the frame's border) is an arm with its hand: a piece lies on the board, a bumped board's edge
  moves a few mm, only an arm crosses the outline that far. An arm the table's grey hides, or
  one parted where it crosses the board's rim in the rim's grey, is a hand-sized region
  entering over one short stretch of the rim, or a hand-sized region on the board within twice
  the reach of an arm-sized one outside. Once seen, the arm is taken to stay until nothing
  differs beyond that reach any more.

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
#: Every how many rows and columns a pixel takes part in :func:`light_fit`.
_SUBSAMPLE = 3


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
        min_arm_mm2: changed area beyond the reach an arm needs at least (mm²: a hand's width,
            ~40 mm, by the reach; a piece on a board the frame cuts, touching the frame's border,
            stays below it).
        min_hand_mm2: a changed region on the board at least this large (mm²: half a hand's palm;
            the boxed games' largest piece, a Plażing blanket, covers 1600) that enters over the
            board's rim is a hand even when its arm is not seen outside the board (an arm in
            the table's grey).
        max_rim_share: ... but only when it touches less than this share of the rim (a bumped
            board's edge, or a new Seashells mat, changes all of it) ...
        max_entry_mm: ... along a stretch of the rim no longer than this (mm: an arm's width with
            its slant; a Strand unter sea front touches both sides of the board).
        min_region_mm2: a changed region smaller than this is a speck of noise, not counted (mm²).
        arm_k: an arm is looked for among the pixels that differ by this many times the
            threshold: a hand differs strongly from the board and the table, while a light that
            changed unevenly (a lamp moved) leaves faint speckles that join across the outline.
        noise_rate: weight of a new still frame in the running noise estimate.
    """

    settle_s: float = 1.0
    noise_k: float = 6.0
    min_threshold_grey: float = 4.0
    min_change_mm2: float = 40.0
    reach_mm: float = 15.0
    margin_mm: float = 60.0
    min_arm_mm2: float = 600.0
    min_hand_mm2: float = 3000.0
    max_rim_share: float = 0.25
    max_entry_mm: float = 150.0
    min_region_mm2: float = 10.0
    arm_k: float = 1.5
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
        self._arm = False

    # -- what the station tells it ----------------------------------------------------------
    def rescan(self) -> None:
        """Forget the reference: the next frame becomes it (a scan was taken another way, e.g. the button)."""
        self._reference = None
        self._arm = False

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
        diff9 = self._reference_diff9(roi)
        changed_mm2 = self._changed_area(diff9 > 9 * self.threshold(), region)
        arm, outside_mm2 = self._arm_regions(diff9 > 9 * self.config.arm_k * self.threshold(), region)
        # an arm seen stays until nothing differs outside the board any more: where it crosses
        # the board's rim in the rim's own grey, its region may break in two for a frame
        self._arm = arm or (self._arm and outside_mm2 >= self.config.min_arm_mm2)
        state = self._state(changed_mm2, moving_mm2, still_s, self._arm)
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

    def _reference_diff9(self, roi: np.ndarray) -> np.ndarray:
        """Nine times the 3×3 mean absolute difference from the reference in the frame's light
        (:func:`light_fit`), uint16 (h, w)."""
        a, b = light_fit(self._reference, roi)
        ref = self._reference if (a, b) == (1.0, 0.0) else cv2.convertScaleAbs(self._reference, alpha=a, beta=b)
        return _mean_diff9(roi, ref)

    def _components(self, mask: np.ndarray, region: PreviewRegion) -> tuple[int, np.ndarray, np.ndarray]:
        """(count, int32 labels (h, w), bool (count,) regions large enough to count) of a mask."""
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask.view(np.uint8), connectivity=8)
        keep = stats[:, cv2.CC_STAT_AREA] >= max(self.config.min_region_mm2 / region.mm2_per_px, 2)
        keep[0] = False
        return n, labels, keep

    def _changed_area(self, changed: np.ndarray, region: PreviewRegion) -> float:
        """Board area (mm²) of the changed regions large enough to count."""
        n, labels, keep = self._components(changed, region)
        if not keep.any():
            return 0.0
        return float(np.bincount(labels[region.board], minlength=n)[keep].sum()) * region.mm2_per_px

    def _arm_regions(self, strong: np.ndarray, region: PreviewRegion) -> tuple[bool, float]:
        """(whether a strongly changed region is an arm over the board, strongly changed area beyond
        the reach outside the board mm²)."""
        c = self.config
        n, labels, keep = self._components(strong, region)
        if not keep.any():
            return False, 0.0
        on_board = np.bincount(labels[region.board], minlength=n)
        far = np.bincount(labels.ravel()[region.far_index], weights=region.far_mm2, minlength=n)
        arm = keep & (on_board > 0) & (far >= c.min_arm_mm2)
        # an arm the table's own grey hides: a hand-sized region entering over one short stretch
        # of the board's rim (a bumped board's edge moves along all of it, a Strand unter sea
        # front spans the board from side to side)
        rim = np.bincount(labels[region.rim], minlength=n)
        entering = keep & (on_board * region.mm2_per_px >= c.min_hand_mm2) & (rim > 0) \
            & (rim < c.max_rim_share * region.rim_px) & ~arm
        mm_per_px = float(np.sqrt(region.mm2_per_px))
        for label in np.flatnonzero(entering):
            ys, xs = np.nonzero((labels == label) & region.rim)
            arm[label] = float(np.hypot(np.ptp(xs), np.ptp(ys))) * mm_per_px <= c.max_entry_mm
        # ... or the hand seen on the board and its arm seen outside, parted where the arm
        # crosses the rim in the rim's own grey: the two come within twice the reach
        hand = keep & (on_board * region.mm2_per_px >= c.min_hand_mm2) & (rim < c.max_rim_share * region.rim_px)
        outside = keep & (on_board == 0) & (far >= c.min_arm_mm2)
        if not arm.any() and hand.any() and outside.any():
            gap_px = max(int(round(2 * c.reach_mm / mm_per_px)), 1)
            near_outside = cv2.dilate(outside[labels].view(np.uint8), np.ones((2 * gap_px + 1,) * 2, np.uint8))
            arm[np.unique(labels[(near_outside > 0) & hand[labels]])] = True
        return bool(arm.any()), float(far[keep].sum())

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


def light_fit(ref: np.ndarray, cur: np.ndarray) -> tuple[float, float]:
    """How the light changed from ``ref`` to ``cur``: ``cur ≈ a·ref + b``.

    Three candidates, each from medians: an offset alone, Tukey's resistant line (through the
    medians of the darkest and the brightest third), a gain alone (through the brightest third's
    medians and black); the one leaving the smallest median absolute residual is kept (least
    median of squares). Medians, so whatever covers a small part of the pictures (a hand, moved
    pieces) does not bend it, as a least-squares line or a matched histogram would be bent by a
    large hand.

    >>> ref = np.arange(20, 220, dtype=np.uint8).reshape(10, 20)
    >>> a, b = light_fit(ref, np.round(ref * 1.1).astype(np.uint8))
    >>> round(a, 2), round(b)
    (1.1, 0)
    >>> a, b = light_fit(ref, np.round(ref * 0.9 - 4).astype(np.uint8))
    >>> round(a, 2), round(b)
    (0.9, -4)
    """
    r = ref[::_SUBSAMPLE, ::_SUBSAMPLE].ravel()
    c = cur[::_SUBSAMPLE, ::_SUBSAMPLE].ravel()
    candidates = [(1.0, _median_int(c.astype(np.int16) - r + 255) - 255)]
    cdf = np.cumsum(np.bincount(r, minlength=256)) / r.size
    low, high = np.searchsorted(cdf, [1 / 3, 2 / 3])
    dark, bright = r <= low, r > high
    if dark.any() and bright.any():
        spread = _median_int(r[bright]) - _median_int(r[dark])
        if spread >= 8:
            a = (_median_int(c[bright]) - _median_int(c[dark])) / spread
            b = _median_int(np.clip(np.round(c - a * r.astype(np.float32)), -255, 255).astype(np.int16) + 255) - 255
            candidates.append((a, b))
        candidates.append((_median_int(c[bright]) / max(_median_int(r[bright]), 1.0), 0.0))
    rf, cf = r.astype(np.float32), c.astype(np.float32)
    return min(candidates, key=lambda ab: _median_int(np.abs(np.round(cf - ab[0] * rf - ab[1])).astype(np.int16)))


def _median_int(values: np.ndarray) -> float:
    """Median of small non-negative integers, from their counts, interpolated within its level
    (each integer standing for the values within half a step of it).

    >>> _median_int(np.array([1, 2, 2, 3])), _median_int(np.array([4, 4, 5]))
    (2.0, 4.25)
    """
    counts = np.bincount(values.ravel(), minlength=1)
    cdf = np.cumsum(counts)
    half = cdf[-1] / 2
    level = int(np.searchsorted(cdf, half))
    below = cdf[level - 1] if level else 0
    return float(level - 0.5 + (half - below) / counts[level])
