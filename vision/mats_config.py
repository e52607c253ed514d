"""Every tunable number of the Seashells mat and Sand Castles readers, in one place.

Sizes are in board millimetres or as shares of a profile length (never piece sizes or colours:
those are learned from the calibration shot). Feature scales are in the units of the feature.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeashellsConfig:
    """Tunables of :mod:`vision.seashells` (the player mat)."""

    #: Resolution of the rectified mat (px per mm).
    px_per_mm: float = 2.5
    #: Towel cell core: pixels at least this far inside the cell's edge (mm) are looked at.
    core_inset_mm: float = 5.0
    #: The cell's own background ring: this band inside the cell's edge (mm), inside the grid lines.
    ring_mm: tuple[float, float] = (2.5, 4.5)
    #: Variance floor of each towel contrast feature (log units), see ``vision.ring_contrast``.
    towel_var_floor: tuple[float, ...] = (0.15 ** 2, 0.15 ** 2, 0.2 ** 2)
    #: Basket: pixels this far inside the basket outline (mm) are searched for loose items.
    basket_inset_mm: float = 2.0
    #: Basket foreground: colour distance from the learned basket background above
    #: ``max(k · typical distance, floor)`` (ΔE Lab).
    basket_k: float = 6.0
    basket_floor_de: float = 8.0
    #: Gaussian blur before basket segmentation (mm).
    basket_blur_mm: float = 0.35
    #: Opening / closing radii of the foreground mask (mm).
    basket_open_mm: float = 0.5
    basket_close_mm: float = 1.0
    #: A blob smaller than this share of the smallest learned item is noise.
    min_item_share: float = 0.3
    #: A blob larger than this multiple of its class's learned area holds several touching items.
    merged_ratio: float = 1.6
    #: Standard deviation of each basket item feature around its learned value:
    #: L, a, b (ΔE units), sd_L, log area, elongation (log of axis ratio).
    item_sd: tuple[float, ...] = (6.0, 4.0, 4.0, 4.0, 0.18, 0.25)
    #: Above this Mahalanobis distance (per feature, RMS) a blob is "like no learned item".
    item_max_rms_z: float = 3.0
    #: Above this share of towel places unlike both learned classes, the mat is covered.
    occluded_share: float = 0.25
    #: Mean board lightness (Lab L, 0–100) below which the photo is too dark.
    min_board_L: float = 15.0


@dataclass(frozen=True)
class SandCastlesConfig:
    """Tunables of :mod:`vision.sand_castles`."""

    #: Resolution of the rectified board (castle slots are read at it) …
    px_per_mm: float = 2.0
    #: … and of the coarser copy the lane spaces are read at (must divide ``px_per_mm``).
    space_px_per_mm: float = 1.0
    #: Square patch at a lane space's centre, as a share of the space's shorter side.
    space_patch_share: float = 0.6
    #: Square patch at a castle slot, as a share of the smallest slot spacing.
    slot_patch_share: float = 0.55
    #: Lane space core / ring (mm inside the space's edge), as for the towel.
    core_inset_mm: float = 10.0
    ring_mm: tuple[float, float] = (2.0, 5.0)
    #: Variance floor of each space contrast feature (log units).
    space_var_floor: tuple[float, ...] = (0.2 ** 2, 0.2 ** 2, 0.25 ** 2)
    #: A lane's wave must be this much more wave-like (Mahalanobis d², log-odds ×2) than the runner-up.
    wave_margin_d2: float = 12.0
    #: Above this Mahalanobis distance to the wave class the chosen wave is "unlike calibration".
    wave_max_d: float = 9.0
    #: Above this distance a slot is unlike both piece and empty slot …
    slot_max_d: float = 14.0
    #: … or above the photo's median slot distance plus this.
    slot_rel_d: float = 5.0
    occluded_share: float = 0.25
    min_board_L: float = 15.0


SEASHELLS = SeashellsConfig()
SAND_CASTLES = SandCastlesConfig()
