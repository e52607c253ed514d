"""Every tunable number of the Plażing reader, one frozen dataclass per stage.

Units are in the names (``_mm``, ``_px``, share of a cell ``_share``). None of them is tuned
to one photo: they describe the geometry of a cell and the statistics of a decision.
Colours and sizes of pieces are never here: appearance comes from the calibration shot,
geometry from the board profile.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RectifyConfig:
    """Stage 1: warp the photo to a top view of the board."""

    #: Resolution of the rectified board (px per mm). 2.5 → a 20 mm cell is 50 px.
    px_per_mm: float = 2.5


@dataclass(frozen=True)
class PaletteConfig:
    """Stage 2: per-pixel colour labels (learned colour models, looked up through a table)."""

    #: Side of the square around a calibration sample whose pixels train the colour (share of a cell).
    sample_share: float = 0.6
    #: Pixels farther than this (Lab units) from the sample's dominant colour are not the piece.
    mode_radius_lab: float = 18.0
    #: Floor on each colour model's standard deviation (Lab units): lighting drift between shots.
    sd_floor_lab: float = 4.0
    #: A pixel belongs to a colour only within this Mahalanobis distance (≈ 3.5 sigma).
    max_sigma: float = 3.5
    #: Bits kept per B, G, R channel in the lookup table (5 → 32³ entries).
    lut_bits: int = 5


@dataclass(frozen=True)
class CoverConfig:
    """Stage 3: which cells a player's pieces cover."""

    #: Central square of a cell used to measure cover (share of the cell side); the margin
    #: tolerates pieces a few mm off the grid.
    inner_share: float = 0.85
    #: Central square left out of the cover measure (printed decorations, tokens): share of a cell.
    hole_share: float = 0.55
    #: Share of the inner square in one player's colour above which the cell is covered.
    covered_share: float = 0.33
    #: Logistic slope of the cover posterior around ``covered_share`` (per unit share).
    posterior_slope: float = 25.0


@dataclass(frozen=True)
class SeamConfig:
    """Stage 4: splitting same-colour cells into physical pieces."""

    #: Half-width (mm) of the band across a shared cell edge searched for a seam: pieces may be
    #: a few mm off the grid.
    band_half_mm: float = 4.0
    #: Share of the edge length (centred) that is examined; corners are left out.
    along_share: float = 0.7
    #: An edge is a seam when at least this share of its positions show a gap in the colour.
    seam_share: float = 0.5
    #: Logistic slope of the seam probability around ``seam_share``.
    posterior_slope: float = 12.0
    #: Largest group of same-colour touching cells that is split exactly (bigger: greedy).
    max_exact_cells: int = 24


@dataclass(frozen=True)
class FacingConfig:
    """Stage 5: which long side of a screen is its outer side."""

    #: Bins across the screen's short axis in the learned cross-profile.
    profile_bins: int = 24
    #: Largest shift (bins, 1 bin = cell/profile_bins) tried when matching a profile: off-grid screens.
    max_shift_bins: int = 4
    #: Logistic slope of the facing posterior per unit of correlation difference.
    posterior_slope: float = 8.0


@dataclass(frozen=True)
class TokenConfig:
    """Stage 6: meeples, neutral markers, resources, trash, surprises on free cells."""

    #: Side of the central square of a cell whose features describe a token (share of a cell).
    core_share: float = 0.6
    #: Side of the smaller centre square (share of a cell) that sees the token, not its background.
    centre_share: float = 0.3
    #: Floor added to the pooled feature covariance's diagonal (feature units²).
    covariance_floor: float = 6.0
    #: A token claimed at more than this Mahalanobis distance from its class is "unexplained".
    max_distance: float = 6.0
    #: Unlabelled free cells of the calibration shot are clustered into at most this many
    #: kinds of empty sand (plain, printed spots, ± marks …).
    empty_clusters: int = 5


@dataclass(frozen=True)
class QualityConfig:
    """Stage 0/7: refusing photos that cannot be read (exit 3)."""

    #: Sharpness of the rectified board relative to the calibration's below which it is blurred.
    min_sharpness_ratio: float = 0.35
    #: Scale of the board the photo checks look at (speed; glare and blur survive halving).
    check_scale: float = 0.5
    #: Share of placeable cells that no class explains above which the view is blocked.
    max_unexplained_share: float = 0.06


RECTIFY = RectifyConfig()
PALETTE = PaletteConfig()
COVER = CoverConfig()
SEAM = SeamConfig()
FACING = FacingConfig()
TOKENS = TokenConfig()
QUALITY = QualityConfig()
