"""The constants of the Strand unter reader, one frozen dataclass per stage.

Every number here is either physical (a size in board millimetres, a resolution, a sensor limit)
or statistical (a spread, a prior, a quantile) with its meaning stated; none is a piece colour or
a piece size — those are learned from the user's calibration and empty-board shots. Units are in
the names or the comments: ``_mm`` board millimetres, ``_px`` pixels of the rectified work image
(1 px per mm), ``_ppm`` pixels per millimetre. Colour distances are Mahalanobis distances of the
learned Lab Gaussians, brightness/chroma changes BGR grey levels. Why each value is what it is,
and what it was set and checked on: ``docs/tuning.md``, "Strand unter".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

#: The constants fitted by ``scripts/fit_strand.py`` on rendered development tables (``fitted.json``
#: beside this module, which also names the tables and seeds they were fitted on).
FITTED_FILE = Path(__file__).with_name("fitted.json")
FITTED = json.loads(FITTED_FILE.read_text()) if FITTED_FILE.exists() else {}
_COUNT = FITTED.get("shell_count", {})
_SLOPES = FITTED.get("confidence", {}).get("slopes", {})
_BIRD = FITTED.get("sandpiper_area", {})
_TOWERS = FITTED.get("tower_count", {})
_CONTRAST = FITTED.get("castle_contrast", {})
_LEAN = FITTED.get("castle_lean", {})
_SHELL_CONTRAST = FITTED.get("shell_contrast", {})
_SPREAD = FITTED.get("castle_spread", {})


@dataclass(frozen=True)
class RegistrationConfig:
    """Find the (possibly bumped) board. See :mod:`vision.strand_unter.registration`."""

    decode_reduce: int = 2            # photos are decoded at 1/2 size (cv2.IMREAD_REDUCED_COLOR_2)
    ppm: float = 1.0                  # resolution of the rectified registration image, px per mm
    margin_mm: float = 60.0           # surround kept around the board (rails and table edge)
    min_strip_level: float = 20.0     # a table strip darker than this (grey levels) gives no gains: ±½ level is > 2.5 %
    min_strip_inside: float = 0.1     # a strip less than this share inside the photo: all of it (edge rows repeated)
    strip_edge_inset: float = 0.01    # the photo's outer band this share of its height wide is not "inside" (dark rows)
    blur_sigma_px: float = 1.5        # both images are smoothed alike: blur differences between shots
    inner_band_mm: float = 8.0        # how far inside the board outline the strips reach
    sea_dilate_mm: float = 6.0        # cloth pixels (and this much around them) are not used
    rail_mm: float = 50.0             # strips reach this far outside the board's sides (rails + table edge)
    band_mm: float = 30.0             # strips across the outline, each this wide along the edge
    min_profile_corr: float = 0.6     # a strip whose profiles correlate less (NCC) is not used
    shift_noise_floor_mm: float = 0.15  # the strips' shifts are taken as at least this noisy
    moved_gain: float = 16.3          # a motion must lower the strips' robust cost by this (Tukey units)
    max_residual_mm: float = 1.0      # strips farther than this from the first fit are left out of the robust start
    min_ecc: float = 0.35             # fit quality (1 − rms/2·max_residual) × inlier share; below: registration-lost
    moved_mm: float = 0.6             # a motion smaller than this (0.6 px at the registration's 1 px/mm) …
    moved_deg: float = 0.15           # … and turning less than this (0.5 mm at the board's corners) is no motion
    max_shift_mm: float = 10.0        # the fine fit's search range around the calibrated (or coarse) position
    coarse_ppm: float = 0.5           # resolution of the coarse phase correlation of the surround's edges, px per mm
    coarse_min_mm: float = 6.0        # a coarse offset below this is left to the fine search alone
    min_coarse_response: float = 0.1  # phase-correlation peaks weaker than this (response in [0, 1]) are not trusted
    min_photo_ppm: float = 0.45       # decoded px per board mm below which pieces (14 mm) cannot be told apart
    max_bump_mm: float = 20.0         # a larger motion is the board moved, not bumped: recalibrate
    rotation_steps_deg: tuple = (2.5, -2.5, 5.0, -5.0)  # a poor fit is retried from these turns
    scale_steps: tuple = (1.05, 0.95, 1.1, 0.9)  # no fit at all: zoom factors tried (the camera moved?)
    zoom_check_ecc: float = 0.9       # a fit this poor or a move beyond coarse_min_mm: turned and zoomed fits too
    zoom_better_ecc: float = 0.15     # a zoomed fit this much better than the best unzoomed one: the camera moved
    max_scale_change: float = 0.02    # the board looking this much larger/smaller (every fit agrees): the camera moved


@dataclass(frozen=True)
class AppearanceConfig:
    """Calibrate: how sample pixels are gathered. See :mod:`vision.strand_unter.calibrate`."""

    ppm: float = 1.0                  # resolution of the rectified work image (reading too), px per mm
    lut_bits: int = 5                 # the class lookup table quantises each BGR channel to 2**bits levels
    lut_max_dist: float = 12.0        # BGR cells farther than this (Mahalanobis) from every class: unknown
    sample_search_mm: float = 10.0    # a sample's piece is the foreground blob within this of its point
    sea_radius_mm: float = 12.0       # radius around a sea sample
    sea_fit_margin_mm: float = 4.0    # the whole cloth, this far inside its edge and the board's sides, trains the sea class
    sand_radius_mm: float = 6.0       # radius around a sand sample
    inpaint_radius_mm: float = 22.0   # without empty.jpg: this much around every sample is painted out (row medians)
    min_std: tuple = (10.0, 2.5, 2.5)  # floor of each class's std in L, a, b (Lab units): shading and noise
    shell_min_std: tuple = (10.0, 5.0, 5.0)  # shells look like real shells: each one tinted a little differently
    label_max_distance: float = 6.0   # a sample this far (Mahalanobis) from the rest of its class: mislabelled?
    castle_chroma_min: float = 12.0   # a tower pixel differs from sand by at least this in (a, b)
    player_spread: float = 3.0        # tower pixels farther than this × median spread from the player's (a, b): dropped
    stick_search_mm: float = 20.0     # the sea's stick is looked for this far below the cloth edge
    stick_row_fraction: float = 0.6   # a row under the cloth edge that is this much foreground is stick
    min_castle_px: int = 10           # a castle sample needs at least this many chromatic pixels, px
    min_stick_px: int = 20            # the stick's class is learned from at least this many pixels, px
    min_castle_core_px: int = 5       # a castle sample's coloured core has at least this many pixels, px
    min_nadir_lever_px: float = 20.0  # castles nearer the camera's nadir than this tell nothing of parallax, px
    # a castle value's parallax k = z / Z (coloured part's effective height over the camera's) lies in
    # [0, castle_height_max_mm / camera_height_min_mm]; outside, its fixed offset is used (docs/tuning.md)
    castle_height_max_mm: float = 12.0  # highest effective height of a coloured part: z_v p90 ≤ 11.1 mm, mm
    camera_height_min_mm: float = 400.0  # lowest camera that frames a board over the table, mm


@dataclass(frozen=True)
class ReadingConfig:
    """Light, sea, foreground, occlusion and photo quality. See :mod:`vision.strand_unter.reading`."""

    # foreground against the empty board
    fg_brightness: float = 30.0       # |brightness change| (grey levels) against the empty board: something lies there
    fg_chroma: float = 16.0           # ... or this much chroma change (L1 across the sand direction)
    fg_noise_k: float = 3.0           # thresholds grow to this × the scan's robust noise on bare sand
    open_px: int = 2                  # morphological opening radius of the foreground (noise)
    weak_window_px: int = 9           # a sand-like object: the chroma change averaged over this square …
    weak_chroma: float = 6.0          # … above this many grey levels
    # light
    clipped_level: int = 250          # a channel at or above this grey level is clipped (8-bit sensor limit)
    fine_gain_max_change: float = 40.0  # sand pixels changed less than this give the fine lighting gains
    sand_top_max_fraction: float = 0.1  # a channel clipped on more of the empty board's bare sand is not refined there (1: never)
    sand_top_share: float = 0.9       # ... and its values above this × clipped_level map onto the top (the lens's fall-off)
    sand_top_brighter_only: bool = True  # ... only when the scan is brighter than the calibration
    sand_top_min_residual_ab: float = 8.0  # ... and the sand's gains leave the surround this far off (Lab units)
    light_tile_px: int = 8            # uneven light: the brightness field is measured per tile of this size
    light_chroma_tol: float = 0.12    # ... on sand pixels whose log-chromaticity changed less than this
    light_residual_tol: float = 0.08  # ... and (second pass) whose log brightness ratio is this close to the first field's
    light_refine_range: float = 1.15  # a first field varying less is not refined (it will not be applied)
    light_apply_range: float = 1.25   # a brightness field varying less over the board is left to the per-channel gains
    light_doubt_range: float = 2.6    # a field varying more than this × over the board: a doubt
    light_max_range: float = 4.0      # ... more than this (two stops): uneven-light
    light_occluder_range: float = 1.5  # an unexplained darker/brighter patch under light this uneven: uneven-light
    chroma_tile_mm: float = 30.0      # the light's colour is measured per tile of this size (one groove pitch)
    chroma_lamp_range: float = 0.04   # the brightness field's log varying more over the sand: the colour follows it too
    chroma_apply_range: float = 0.03  # per-channel gains varying less than this (log, 3%) over the sand are not applied
    # sea
    sea_coverage: float = 0.5         # a groove more covered than this is under the sea
    sea_smooth_px: int = 5            # the cloth is found on colours averaged over this square (noise)
    sea_band_margin_mm: float = 4.0   # grooves' top/bottom rims ignored when measuring coverage
    cloth_edge_window_px: int = 61    # the cloth edge is median-filtered over this many columns (a hand on the cloth)
    stick_extra_mm: float = 1.0       # margin added to the learned stick width
    empty_back_sand: float = 0.6      # no cloth found: the back groove's core must be at least this share sand-coloured
    # pieces and things that are none
    min_blob_fraction: float = 0.3    # a blob smaller than this × one shell is noise
    max_unknown_fraction: float = 0.5  # a part with more pixels of no class or of a player's colour than this is no shell
    max_unexplained_shells: float = 3.0  # a thick part that is no shell, this many shells large, may hide pieces
    occluder_min_shells: float = 5.0  # a thick unexplained patch of this many shells' area may hide a castle
    min_occluder_thickness: float = 0.8  # a part thinner than this (shell radii) cannot hide a piece
    cloth_occluder: bool = True       # refuse a patch of no cloth colour on the cloth (occlusion.check_cloth)
    occluder_erode_mm: float = 3.0    # patches are measured after an erosion of this radius (cloth fringes, shadows)
    unexplained_doubt_shells: float = 0.7  # a thick part that is no shell is a doubt from this many shells' area
    faint_min_shells: float = 0.5     # a patch only the weak change sees counts from this many shells' area …
    faint_max_elongation: int = 2     # … when its box is at most this many times as long as wide …
    faint_max_shell_radii: int = 5    # … and at most this many shell radii across
    # photo quality: fine detail (vision.image.quality.detail_ratio) and pixel noise (vision.image.quality.noise_sigma) of
    # the piece-free surround against the calibration shot's
    max_noise_ratio: float = 3.5      # noisier than this × the calibration's: too-noisy
    noise_doubt_ratio: float = 2.0    # noisier than this × the calibration's: a doubt
    noise_floor: float = 0.3          # grey levels: the calibration's figure is taken as at least this (8-bit quantisation)
    detail_sigma_px: float = 1.5      # comparison blur, px of the extended registration image
    min_detail_share: float = 0.45    # keep at least this share of the calibration's excess detail (else too-blurred)


@dataclass(frozen=True)
class CastleConfig:
    """Castles: finding them, their value, owner and groove. See :mod:`vision.strand_unter.castles`."""

    close_px: int = 2                 # the coloured parts of one castle are joined by a closing of this radius
    min_core_fraction: float = 0.5    # player-coloured pixels ≥ this × the smallest learned castle's: a castle
    max_core_ratio: float = 1.8       # a coloured part larger than this × the largest learned one is no castle
    max_colour_distance: float = 4.5  # mean colour farther than this (Mahalanobis) from the player's: no castle
    max_stick_share: float = 0.5      # a coloured part more than this much inside the stick's band is the stick
    radius_slack: float = 1.15        # a castle owns its blob's pixels within this × its learned radius
    tower_sigma_px: float = 1.2       # tower shadows: Gaussian smoothing before looking for dark minima
    tower_window_px: int = 7          # ... a minimum of this neighbourhood
    tower_depth: float = 6.0          # ... darker than the castle's median grey by this (grey levels)
    radial_rays: int = 48             # platform and footprint radii: measured along this many rays (7.5° apart)
    radial_step_px: float = 0.25      # ... sampled every this many px (bilinear; a quarter of the work image's pixel)
    radial_independent: float = 12.0  # ... of which this many vary independently (a 7 mm platform's 44 mm rim over the
    #                                   photo's ~2 px blur and the towers' ~3 mm width: neighbouring rays share pixels)
    radial_inner: tuple = (0.3, 0.7)  # the platform's colour level: between these × the coloured part's radius
    radial_outer: float = 1.6         # the surround's level: beyond this × the coloured part's radius (footprints ≤ 1.4 ×)
    radial_ring_px: float = 4.0       # ... over a ring this wide
    radial_floor_px: float = 0.1      # an edge's radius is never known better than this (a half-maximum edge at 1 px/mm)
    value_dof: float = 4.0            # Student-t degrees of freedom of the size cues (robust: Lange, Little & Taylor 1989)
    size_prior_sigma: float = 0.05    # prior spread (log radius) of one value's castles between photos, worth …
    size_prior_n: float = 2.0         # … this many calibration castles (scaled-inverse-χ² prior of the learned spread)
    max_towers: int = 7               # tower counts are told apart up to this (more count as this many)
    tower_pool_weight: float = 1.0    # the value's pooled count frequencies weigh this much against the castle's own
    #                                   count at calibration (a Dirichlet prior's concentration: as much as one look)
    tower_exponent: float = _TOWERS.get("exponent", 1.0)  # the tower count's likelihood is raised to this power
    #                                   (fitted: dark minima miscount more often than one look at calibration says)
    #: Beta prior (successes, failures) of a player's tower counts being read right, updated by its
    #: calibration castles (fitted; None: always read right)
    tower_reliability_prior: tuple | None = tuple(_TOWERS["reliability_prior"]) if "reliability_prior" in _TOWERS else None
    max_candidates: int = 7           # a player's candidates beyond this many (the least castle-like) are no castles
    #: how much of the player's colour contrast a coloured part shows against the empty board
    #: (:func:`vision.strand_unter.castle_cues.contrast_share`): (mean, std) for castles and for the
    #: shadows and hands that take a player's colour, and the share of such parts among the
    #: candidates (fitted by ``scripts/fit_strand_shadow.py``; None: every candidate is a piece)
    contrast_castle: tuple | None = tuple(_CONTRAST["castle"]) if "castle" in _CONTRAST else None
    contrast_other: tuple | None = tuple(_CONTRAST["other"]) if "other" in _CONTRAST else None
    contrast_other_prior: float = float(_CONTRAST.get("other_prior", 0.0))
    #: how much larger a castle's platform and footprint radii look per unit of the tangent of the
    #: view angle at its coloured part (its distance from the camera's nadir over the camera's
    #: height), relative to the calibration castles' mean tangent: log-radius slopes (the walls and
    #: towers' sides the camera sees far from the nadir widen the coloured part and the foreground
    #: outwards; fitted by ``scripts/fit_strand_lean.py``; 0: no lean)
    lean_platform: float = float(_LEAN.get("platform", 0.0))
    lean_footprint: float = float(_LEAN.get("footprint", 0.0))
    #: the castles' value cues' own spread prior, per cue {"platform": (σ, n), "footprint": (σ, n)}:
    #: the scaled-inverse-χ² prior of :func:`vision.strand_unter.castle_values.size_model`'s
    #: ``sigma_log`` (fitted by ``scripts/fit_strand_spread.py``; None: ``size_prior_sigma``, ``size_prior_n``)
    value_spread_prior: dict | None = field(default_factory=lambda: (
        {k: tuple(v) for k, v in _SPREAD["prior"].items()} if "prior" in _SPREAD else None))
    base_sigma_floor_mm: float = 2.5  # the base's position error is at least this (which towers are seen moves the centroid)


@dataclass(frozen=True)
class ShellConfig:
    """Shells: colour, count and groove models. See :mod:`vision.strand_unter.shells`."""

    unknown_prior: float = 0.05       # prior share of left-over parts that are no shell (hands, cards, specks)
    area_sigma: float = _COUNT.get("area_sigma", 0.14)  # relative spread of one shell's blob area (fitted)
    #: prior weight of a part holding n = 0 … max_count shells, relative to one shell (fitted: how
    #: often shells lie touching on the development tables; 1 for a speck and for one shell)
    count_prior: tuple = tuple(_COUNT.get("count_prior", (1.0,) * 9))
    area_dof: float = _COUNT.get("area_dof", 1e6)  # Student-t degrees of freedom of that spread (fitted: a bumped
    #                                   board's blur, a shadow or a tilted shell make the tails heavier than Gaussian)
    partial_share: float = 0.1        # share of shells only partly standing out from the sand (count model)
    speck_sigma: float = 0.2          # area spread (in shells) of a part that is no shell at all
    area_scale_range: tuple = (0.75, 1.25)  # a photo's own shell area is trusted within this × the learned one
    max_count: int = 8                # the most shells one part is read as
    centre_sigma_mm: float = 1.0      # position error of a shell's centre (it lies flat: no parallax)
    max_thickness: float = 1.6        # the largest disc inside a part, in shell radii (shells side by side stay ≤ 1.1)
    min_solidity: float = 0.45        # a part of ≥ 2 shells filling less of its convex hull is an arc, not a clump
    max_hole: float = 0.5             # a part enclosing more than this × one shell's area is a ring, not shells
    min_purity: float = 0.6           # a part whose main shell colour has less of its pixels is read colour by colour
    min_purity_part: float = 0.2      # ... each colour with at least this share of them
    cloth_share: float = 0.5          # a part with at least this share of cloth-coloured pixels is the cloth
    ring_check_shells: float = 1.5    # parts of at least this many shells' area are checked for holes and arcs
    hull_check_shells: int = 2        # ... and for filling their convex hull from this many shells' area
    #: how much of its colour's contrast with the sand a part read as shells shows against the empty
    #: board (:func:`vision.strand_unter.castle_cues.contrast_share`): (mean, std) per shell colour, and
    #: for sand in a shadow's edge or brightened by the light correction (pooled over colours), and
    #: that kind's prior (fitted by ``scripts/fit_strand_shell_shadow.py``; empty: every part is a shell)
    contrast_shell: dict = field(default_factory=lambda: {c: tuple(v) for c, v in
                                                          _SHELL_CONTRAST.get("shell", {}).items()})
    contrast_other: tuple | None = tuple(_SHELL_CONTRAST["other"]) if "other" in _SHELL_CONTRAST else None
    contrast_other_prior: float = float(_SHELL_CONTRAST.get("other_prior", 0.0))
    single_ratio: tuple = (0.6, 1.35)  # a part this many shells large (by area) is a clear single shell
    min_singles: int = 2              # a photo's own shell area needs at least this many clear singles


@dataclass(frozen=True)
class BirdConfig:
    """The sandpiper's description and its spreads. See :mod:`vision.strand_unter.bird`."""

    l_sigma: float = 8.0              # mean lightness (Lab units): shading and exposure left after correction
    ab_sigma: float = 4.0             # mean a, b (Lab units)
    log_l_std_sigma: float = 0.2      # spread of log (lightness spread): a dark body and a white head vs a plain shell
    log_area_sigma: float = 0.2       # spread of log area (segmentation, a bird seen from another angle)
    composition_sigma: float = 0.25   # spread of the class composition's distance (pixels change class with the light)
    max_d2: float = 27.9              # χ² 99.99% quantile, 6 degrees of freedom
    area_gate_sigmas: float = 4.0     # blobs whose log area is farther than this many sigmas are not looked at
    base_sigma_mm: float = 2.0        # position error of its base
    # a piece touching the bird merges into its blob: the blob's log area over the calibration bird's,
    # alone (Student t around ``alone_log_area`` with ``alone_sigma``) or with one shell's area more
    alone_log_area: float = _BIRD.get("mu", 0.0)     # (fitted: the median bird looks a little smaller than at calibration)
    alone_sigma: float = _BIRD.get("sigma", 0.2)     # (fitted)
    alone_dof: float = _BIRD.get("dof", 4.0)          # (fitted; robust: a bird half hidden by a hand, a shadow joined to it)
    touch_prior: float = _BIRD.get("touch_prior", 0.05)  # prior of a shell touching the bird (fitted: the share
    #                                   of birds whose groove lost a shell, one pseudo-count each way)


@dataclass(frozen=True)
class ConfidenceConfig:
    """How sure the reading is: the posteriors of decisions that have no model of their own."""

    unsure_cap: float = 0.2           # the confidence of a reading lacking positive evidence (no cloth, no bare back groove)
    sea_edge_sigma_mm: float = 2.5    # position error of the cloth's edge
    sea_hole_posterior: float = 0.3   # an uncovered groove beyond the sea front: the cloth is not where it seems
    unexplained_posterior: float = 0.6  # a small thing that is no piece may hide one (or be a piece misread)
    light_sigma_ab: float = 8.0       # colour error (Lab units) of the corrected surround at which pieces become doubtful (docs/tuning.md)
    faint_posterior: float = 0.5      # a shell-sized patch only the weak colour change sees: a piece or not, a coin toss
    noise_posterior: float = 0.7      # a grainy photo (noise_doubt_ratio): small pieces may be misread
    doubt_below: float = 0.9          # a decision less sure than this is named in a warning
    #: per kind of decision, the slope turning its posterior's log-odds into the probability of being
    #: right (Platt scaling without intercept, fitted: ``fitted.json``); a kind not named keeps 1
    slopes: dict = field(default_factory=lambda: dict(_SLOPES))


CASTLES = CastleConfig()
SHELLS = ShellConfig()
BIRD = BirdConfig()
REGISTRATION = RegistrationConfig()
APPEARANCE = AppearanceConfig()
READING = ReadingConfig()
CONFIDENCE = ConfidenceConfig()
