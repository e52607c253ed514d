"""Every tunable number of the Strand unter reader, one frozen dataclass per stage.

Units are in the names: ``_mm`` board millimetres, ``_px`` pixels of the rectified work image,
``_ppm`` pixels per millimetre. Colour distances are in 8-bit OpenCV Lab units (L, a, b all 0–255).
Nothing here is a piece colour or a piece size: those are learned from the calibration shot.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RegistrationConfig:
    """Stage 1: find the (possibly bumped) board. See :mod:`vision.strand_unter_register`."""

    decode_reduce: int = 2            # photos are decoded at 1/2 size (cv2.IMREAD_REDUCED_COLOR_2)
    ppm: float = 1.0                  # resolution of the rectified registration image
    margin_mm: float = 60.0           # extra frame around the board (rails and table edge)
    blur_sigma_px: float = 1.5        # both images are smoothed alike: blur differences between shots
    inner_band_mm: float = 8.0        # how far inside the board outline the rigid bands reach
    sea_dilate_mm: float = 6.0        # cloth pixels (and this much around them) are not used
    top_exclude_mm: float = 60.0      # the band above the board's top edge (cloth hanging) is not used
    rail_mm: float = 50.0             # strips reach this far outside the board's sides (rails + table edge)
    band_mm: float = 30.0             # strips across the outline, each this wide along the edge
    min_profile_corr: float = 0.6     # a strip whose profiles correlate less is not used
    max_residual_mm: float = 1.0      # strips that disagree more with the fitted motion are dropped
    min_ecc: float = 0.35             # fit quality (1 − rms/2·max_residual) × inlier share; below: registration-lost
    moved_mm: float = 0.6             # refined motion smaller than this is "not moved"
    moved_deg: float = 0.15
    max_shift_mm: float = 10.0        # the search range of a bump, and the largest motion trusted


@dataclass(frozen=True)
class AppearanceConfig:
    """Stage 0 (calibrate): how sample pixels are gathered. See :mod:`vision.strand_unter_learn`."""

    ppm: float = 1.0                  # resolution of the rectified work image (reading too)
    shell_core_mm: float = 4.5        # radius around a shell sample whose pixels give its colour
    castle_search_mm: float = 16.0    # radius around a castle sample searched for its coloured towers
    bird_search_mm: float = 18.0      # radius around the sandpiper sample searched for its body
    sea_radius_mm: float = 12.0       # radius around a sea sample
    sand_radius_mm: float = 6.0       # radius around a sand sample
    inpaint_radius_mm: float = 22.0   # without empty.jpg: samples are painted out of the calibration shot
    min_cov: float = 4.0              # added to covariance diagonals (Lab units²): noise floor
    castle_chroma_min: float = 9.0    # a castle pixel differs from sand by at least this in (a, b)


@dataclass(frozen=True)
class ReadingConfig:
    """Stage 2: read sea, bird, shells and castles. See :mod:`vision.strand_unter_read`."""

    fg_delta_e: float = 16.0          # a pixel differs from the empty board by this much ΔE: something lies there
    fg_delta_chroma: float = 8.0      # ... or by this much in (a, b) alone (yellow castles on sand)
    open_px: int = 1                  # morphological opening radius of the foreground (noise)
    max_class_dist: float = 5.0       # Mahalanobis distance above which a pixel is no known piece
    sea_coverage: float = 0.5         # a groove more covered than this is under the sea
    sea_band_margin_mm: float = 4.0   # grooves' top/bottom margins ignored when measuring coverage
    cloth_edge_window_px: int = 61   # the cloth edge is median-filtered over this many columns
    stick_mm: float = 9.0             # pieces' pixels this close under the cloth edge may be the stick
    min_piece_fraction: float = 0.35  # a colour blob smaller than this × one shell is noise
    min_castle_fraction: float = 0.65 # a player-coloured blob smaller than this × the smallest castle is no castle
    castle_close_px: int = 3          # towers of one castle are joined by a closing of this radius
    bird_ncc_min: float = 0.45        # template correlation to accept the sandpiper
    bird_area_range: tuple = (0.5, 1.8)


@dataclass(frozen=True)
class ConfidenceConfig:
    """Stage 3: how sure the reading is. Each doubt multiplies the confidence by a factor < 1."""

    shell_count_slack: float = 0.25   # area/shell-area this far from an integer is a doubt
    sea_margin: float = 0.2           # groove coverage within ±this of the threshold is a doubt
    value_margin: float = 0.25        # castle value: relative distance margin between best and second
    bird_margin: float = 0.35         # a sandpiper match below bird_ncc_min + this is a doubt
    doubt_factor: float = 0.6         # multiplied in per doubt
    warn_below: float = 0.5


REGISTRATION = RegistrationConfig()
APPEARANCE = AppearanceConfig()
READING = ReadingConfig()
CONFIDENCE = ConfidenceConfig()
