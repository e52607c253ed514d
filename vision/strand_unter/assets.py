"""Per-calibration lookups of the Strand unter reader, computed once per process.

Input: a loaded strand-unter calibration (:class:`calibration.store.Calibration`).
Output: :class:`Assets`: the rectified empty board, groove maps, the class lookup table, the
learned classes' Lab Gaussians (inverse covariances for blob means), the players' class indices,
the groove borders, the camera's nadir and height — everything a scan reuses.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.strand_unter import colour, stats
from vision.strand_unter.calibrate import EMPTY_PNG, MODEL_VERSION
from vision.strand_unter.castle_values import calibration_view_tan
from vision.strand_unter.config import READING
from vision.strand_unter.geometry import groove_map, groove_polygons
from vision.strand_unter.reference_cache import class_table

_CACHE: dict = {}


class Assets:
    """What a scan reuses from one calibration (see the module docstring)."""

    def __init__(self, cal):
        m = cal.model
        if m.get("version") != MODEL_VERSION:
            raise UnreadableBoardError("calibration-incomplete", "the calibration was made by an older version; "
                                       "recalibrate")
        self.model = m
        self.ppm = float(m["ppm"])
        self.board = cal.profile["board_mm"]
        empty = cal.image(m.get("pictures", {}).get("empty", EMPTY_PNG)) if cal.folder else None
        if empty is None:
            raise UnreadableBoardError("calibration-incomplete",
                                       "the calibration has no empty-board picture; recalibrate")
        self.empty = empty
        self.empty_gray = cv2.cvtColor(empty, cv2.COLOR_BGR2GRAY)
        # the empty board at half size (the weak colour change's scale, :func:`~vision.strand_unter.blobs.weak_change`)
        self.empty_half = cv2.resize(empty, (empty.shape[1] // 2, empty.shape[0] // 2), interpolation=cv2.INTER_AREA)
        self.polygons = groove_polygons(cal.profile)
        self.numbers = list(self.polygons)
        self.gmap = groove_map(cal.profile, self.ppm)
        self.gcore = groove_map(cal.profile, self.ppm, shrink_mm=READING.sea_band_margin_mm)
        self.core_idx = {n: np.nonzero((self.gcore == n).ravel())[0] for n in self.numbers}
        # per groove and column, how many of its core pixels lie above each row (int16 (n, H + 1, W)):
        # the share of a groove a cloth hanging down to a row per column covers, without a mask
        cores = np.stack([(self.gcore == n) for n in self.numbers]).astype(np.int16)
        self.core_above = np.concatenate([np.zeros_like(cores[:, :1]), np.cumsum(cores, axis=1, dtype=np.int16)], 1)
        self.core_len = np.array([len(self.core_idx[n]) for n in self.numbers])
        self.on_grooves = self.gmap > 0
        self.board_px = float(self.on_grooves.sum())
        self.sand_idx = np.nonzero(self.on_grooves[::3, ::3].ravel())[0]      # a sample grid of the grooves
        self.empty_sand = empty[::3, ::3].reshape(-1, 3)[self.sand_idx]
        # the same samples as indices into the full-resolution image's pixels (one gather, no strided copy)
        r3, c3 = np.divmod(self.sand_idx, len(range(0, empty.shape[1], 3)))
        self.sand_flat = 3 * r3 * empty.shape[1] + 3 * c3
        g3 = self.gmap[::3, ::3].reshape(-1)[self.sand_idx]       # the groove of each sample
        self.groove_idx3 = {n: np.nonzero(g3 == n)[0] for n in self.numbers}
        self.sand_idx6 = np.nonzero(self.on_grooves[::6, ::6].ravel())[0]    # a coarser one (the light's colour)
        self.empty_sand6 = empty[::6, ::6].reshape(-1, 3)[self.sand_idx6].astype(np.float32)
        yy, xx = np.mgrid[0:empty.shape[0]:6, 0:empty.shape[1]:6]
        self.sand_xy6 = (xx.ravel()[self.sand_idx6].astype(np.float64), yy.ravel()[self.sand_idx6].astype(np.float64))
        self.lut = class_table(cal)
        self.bits = int(m["lut_bits"])
        self.names = list(m["class_names"])
        self.K = len(self.names)
        self.sea = self.names.index("sea")
        self.sand = self.names.index("sand")
        self.shell_colours = list(m["shell_colours"])
        self.shell_k = [self.names.index(f"shell/{c}") for c in self.shell_colours]
        self.one_shell_px2 = stats.median(np.array(list(m["shell_area_px2"].values())))  # a shell's area, work px²
        self.players = list(m["players"])
        self.player_k = {p: self.names.index(f"castle/{p}") for p in self.players}
        self.is_player = np.zeros(256, bool)          # class index → is it a player's colour (a lookup, not np.isin)
        self.is_player[list(self.player_k.values())] = True
        #: class index → part of the sea cloth (the cloth and, when calibration learned one, its stick):
        #: colours that tell nothing of the light on the sand
        self.is_cloth = np.zeros(256, bool)
        self.is_cloth[[self.sea] + ([self.names.index("stick")] if "stick" in self.names else [])] = True
        self.gauss = {k: (np.asarray(v["mean"], np.float64), np.linalg.inv(np.asarray(v["cov"], np.float64)),
                          float(np.linalg.slogdet(np.asarray(v["cov"], np.float64))[1]))
                      for k, v in m["classes"].items()}
        self.basis = colour.change_basis(m["sand_bgr"])
        self.ref_quality = None
        self.small = None                   # half-resolution empty board etc. for the light field
        self.sea_bgr = _mean_bgr(m["classes"]["sea"])
        #: each player's learned castle colour, BGR float64 (3,) (a part's contrast share is measured against it)
        self.player_bgr = {p: _mean_bgr(m["classes"][f"castle/{p}"]).astype(np.float64) for p in self.players}
        #: each shell colour's learned colour, BGR float64 (3,) (the same for a shell part's contrast share)
        self.shell_bgr = {c: _mean_bgr(m["classes"][f"shell/{c}"]).astype(np.float64) for c in self.shell_colours}
        #: the calibration castles' mean view tangent (the castle lean's reference; None without a camera height)
        self.calibration_view_tan = calibration_view_tan(m)
        self.sea_grey = int(cv2.cvtColor(self.sea_bgr.reshape(1, 1, 3), cv2.COLOR_BGR2GRAY)[0, 0])
        # groove borders (y, mm) and each groove's extent along y
        self.borders = sorted({float(v) for p in self.polygons.values() for v in p[:, 1]})
        self.extent = {n: (float(p[:, 1].min()), float(p[:, 1].max())) for n, p in self.polygons.items()}

    def groove_at(self, x_px: float, y_px: float) -> int:
        """The groove number under a work-px point (0 outside every groove)."""
        h, w = self.gmap.shape
        return int(self.gmap[min(max(int(round(y_px)), 0), h - 1), min(max(int(round(x_px)), 0), w - 1)])

    def where(self, x_px: float, y_px: float) -> str:
        """Where a work-px point lies, in words a player follows."""
        g = self.groove_at(x_px, y_px)
        across = f"{x_px / self.ppm / 10:.0f} cm from the left edge"
        return f"groove {g}, {across}" if g else f"{across}, {y_px / self.ppm / 10:.0f} cm from the sea side"


def _mean_bgr(learned: dict) -> np.ndarray:
    """BGR uint8 (3,) of a learned class's mean Lab colour."""
    lab = np.clip(np.round(np.asarray(learned["mean"], np.float64)), 0, 255).astype(np.uint8)
    return cv2.cvtColor(lab.reshape(1, 1, 3), cv2.COLOR_Lab2BGR).reshape(3)


def assets(cal) -> Assets:
    """The :class:`Assets` of ``cal``, built on first use (one calibration cached at a time)."""
    key = (cal.folder, id(cal))
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = Assets(cal)
    return _CACHE[key]


def grooves_phrase(numbers) -> str:
    """``"groove 7"``, ``"grooves 7 and 8"``, ``"grooves 7, 8 and 9"``."""
    n = [str(v) for v in numbers]
    return f"groove {n[0]}" if len(n) == 1 else f"grooves {', '.join(n[:-1])} and {n[-1]}"
