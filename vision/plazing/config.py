"""Every tunable number of the Plażing reader, one frozen dataclass per stage.

Units are in the names or the comments: ``_mm`` board millimetres, ``_px`` pixels of the rectified
grid, ``_share`` a share of a cell side (or of the pixels named), ``_bgr`` 8-bit BGR levels,
``_lab`` CIE Lab units. Colours, printed patterns and sizes of pieces are never here: appearance
comes from the calibration shot, geometry from the board profile. The constants fitted by
``scripts/fit_plazing.py`` are read from ``fitted.json`` (:data:`FITTED`). Why each value is what
it is, and what it was measured on: ``docs/tuning.md``, "Plażing".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

#: The constants fitted by ``scripts/fit_plazing.py`` (``fitted.json`` beside this module, which
#: also names the set-ups and synthetic seeds they were fitted on).
FITTED_FILE = Path(__file__).with_name("fitted.json")
FITTED = json.loads(FITTED_FILE.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class RectifyConfig:
    """Stage 1: decode and warp the photo to a top view of the board."""

    #: JPEG decoded at 1/decode_reduce size (``cv2.IMREAD_REDUCED_COLOR_2``), a divisor.
    decode_reduce: int = 2
    #: Resolution of the rectified grid, px per mm.
    px_per_mm: float = 1.5
    #: Band around the grid rectified with it (seams and prints of the outer cells), mm.
    margin_mm: float = 10.0


@dataclass(frozen=True)
class PaletteConfig:
    """Stage 2: per-pixel colour labels (learned colour models, looked up through a table)."""

    #: Side of the square around a calibration sample whose pixels train its colour, share of a cell.
    sample_share: float = 0.6
    #: Pixels farther than this from the sample's dominant colour are not the piece, Lab units.
    mode_radius_lab: float = 18.0
    #: Floor on each colour model's standard deviation (lighting drift between shots), Lab units.
    sd_floor_lab: float = 4.0
    #: A pixel belongs to a colour only within this Mahalanobis distance, in standard deviations.
    max_sigma: float = 3.5
    #: Bits kept per B, G, R channel in the colour lookup table (5 → 32³ entries).
    lut_bits: int = 5
    #: A piece sample this far from the median of its player's other samples may be mislabelled, Lab ΔE …
    bad_sample_delta_e: float = 25.0
    #: … and is when it is this many times closer to another player's median (a ratio).
    bad_sample_ratio: float = 2.0


@dataclass(frozen=True)
class CoverConfig:
    """Stage 3: which cells a player's pieces cover."""

    #: Block means per cell side summarising a cell (15 → 2 px blocks at 1.5 px/mm), a count.
    blocks_per_cell: int = 15
    #: Central square of a cell that measures cover (tolerates pieces off the grid), share of a cell.
    inner_share: float = 0.85
    #: Central square left out of the cover measure (printed decorations, tokens), share of a cell.
    hole_share: float = 0.6
    #: Share of the inner square in one player's colour above which the cell is covered: the cover
    #: posterior's logistic midpoint (0.276; fewest cells on the wrong side at 0.255–0.28) on the
    #: development tables' sharp copies, ``scripts/plazing_cover_stats.py``, docs/tuning.md.
    covered_share: float = 0.28
    #: Logistic slope of the cover posterior around ``covered_share``, per unit share: of the cells
    #: at 0.28–0.40 on those tables 16 are covered and 1 is not (≈ 0.89; this slope gives 0.88 at 0.36;
    #: the logistic fit's 53, set by the steep fall under 0.28, made one meeple at 0.36 a sure cover).
    posterior_slope: float = 25.0


@dataclass(frozen=True)
class PatternConfig:
    """Stage 4b: the printed pattern of each piece kind (stripe, dots, squares), learned.

    A covered cell is described by a small map of blocks (``blocks`` × ``blocks``) of two values:
    the share of the block not in the player's colour, and how much lighter/darker it is than the
    player's colour. Each kind's cells are learned from the calibration pieces whose kind is
    certain (labelled screens, pieces split with no doubt).
    """

    #: Blocks per cell side in the pattern map, a count.
    blocks: int = 6
    #: Lightness difference that maps to 1.0 in the pattern map, grey levels.
    lightness_scale: float = 60.0
    #: Largest shift of a template tried (pieces off the grid), blocks.
    max_shift_blocks: int = 2
    #: Cost of shifting a template by one block (squared in blocks), χ² units per cell.
    shift_cost: float = 1.0
    #: Floor on the per-element standard deviation of a template, pattern-map units.
    sd_floor: float = 0.12
    #: A calibration piece teaches its kind's pattern only when its split is at least this sure (a posterior).
    min_teach_posterior: float = 0.9
    #: Effective elements per element of the pattern map (its elements are not independent), a divisor.
    dependence: float = 4.0
    #: A piece cell whose print costs this many times the photo's typical one is as likely hidden as not …
    hidden_ratio: float = 20.0
    #: … with this logistic slope, per unit of log ratio …
    hidden_slope: float = 4.0
    #: … and the typical cost floored here (near-perfect prints make any speck look hidden), χ² units per cell.
    min_typical_cost: float = 2.0
    #: A block is wholly in a player's colour above this share of its pixels …
    whole_block_share: float = 0.98
    #: … and at least this many such blocks give the player's lightness in the photo, blocks.
    min_whole_blocks: int = 4
    #: A piece is doubted (a "print" decision) when the probability that its print is hidden exceeds this …
    hidden_doubt: float = 0.01
    #: … and named in a warning above this (probabilities).
    hidden_warn: float = 0.5


@dataclass(frozen=True)
class FacingConfig:
    """Stage 4c: which long side of a screen is its outer side."""

    #: Bins across the screen's short axis in the learned cross-profile, a count.
    profile_bins: int = 24
    #: Largest shift tried when matching a profile (off-grid screens), bins (1 bin = cell/profile_bins).
    max_shift_bins: int = 4
    #: Logistic slope of the facing posterior, per unit of correlation difference.
    posterior_slope: float = 8.0


@dataclass(frozen=True)
class TerrainConfig:
    """Stage 2: the terrain read from the photo (no ``terrain`` in the setup), by its nearest
    calibration cells (:mod:`vision.plazing.terrain`)."""

    #: Floor on each standardised feature's scale (a feature constant at calibration does not dominate), feature units.
    scale_floor: float = 3.0
    #: Posterior slope per unit of (squared-distance margin / 2) between the best two classes.
    margin_slope: float = 1.0
    #: A closing object is accepted below this mean squared standardised difference per feature …
    object_max: float = 0.35
    #: … this many times smaller than that of the best placeable looks of the same cells (a ratio) …
    object_ratio: float = 2.0
    #: … with this posterior slope, per unit of log(alt / d) around log(``object_ratio``).
    object_slope: float = 4.0
    #: Cells whose terrain is read less sure than this are named in the terrain warning (a posterior).
    doubt_below: float = 0.9
    #: A setup terrain is wrong when at least this many of its closing cells lie in objects that look
    #: placeable (:meth:`~vision.plazing.terrain.TerrainModel.placeable_walls`; a closing object: a
    #: 2×2 stand) and all its objects do, or the photo reads closing terrain on at least this many
    #: cells the setup says are sand (:func:`vision.plazing.checks.wrong_terrain`; dev tables: with the
    #: right terrain at most 3 such cells and 11 of 15 odd cells, ``docs/tuning.md``).
    wrong_wall_cells: int = 4


@dataclass(frozen=True)
class PrintConfig:
    """Stage 3: printed marks (± discs, crossed sticks) painted over with the cell's sand.

    Shares are of a cell side; colour distances in 8-bit BGR levels after illumination
    normalisation."""

    #: The sand ring of a cell starts this far inside its edge, share of a cell …
    ring_inset_share: float = 0.07
    #: … and is this wide, share of a cell.
    ring_width_share: float = 0.07
    #: A pixel farther than this from the cell's sand is print (or token), BGR levels.
    deviation_bgr: float = 30.0
    #: A mark is seen in a cell with at least this many deviating pixels, px.
    min_ink_px: int = 12
    #: A pixel within this of the sand–ink line is explained by the print (pixel noise, JPEG), BGR levels.
    noise_bgr: float = 15.0
    #: A cell's print is the mark's ink when its offset from sand is within this cosine of the mark's (≈ 18°).
    same_ink_cos: float = 0.95
    #: A cell whose deviating pixels lie on one ink line for at least this share is a flat print.
    flat_print_share: float = 0.9
    #: A pixel is painted over only with at least this share of ink in it …
    min_alpha: float = 0.15
    #: … and at most this (a print's pixels a shade deeper than its median colour are print too), share of ink.
    max_alpha: float = 1.6


@dataclass(frozen=True)
class TokenConfig:
    """Stage 5: meeples, neutral markers, resources, trash, surprises on free cells."""

    #: Side of the central square of a cell whose features describe a token, share of a cell.
    core_share: float = 0.6
    #: Side of the smaller centre square that sees the token, not its background, share of a cell.
    centre_share: float = 0.3
    #: Floor added to the pooled feature covariance's diagonal, feature units².
    covariance_floor: float = 6.0
    #: Brightness drift left by the global light normalisation (a standard deviation), share of the typical brightness.
    brightness_drift: float = 0.05
    #: Degrees of freedom of the Student t likelihood around each prototype (fitted: ``fitted.json``).
    t_dof: float = float(FITTED["tokens"]["t_dof"])
    #: How much more a scene's cell spreads around its class than the calibration's leave-one-out spread
    #: says, a variance factor (fitted: ``fitted.json``).
    scene_spread: float = float(FITTED["tokens"]["scene_spread"])
    #: Prior of "unknown" (a hand, an object no calibration class explains), a probability per cell.
    unknown_prior: float = 0.01
    #: EM rounds estimating how common bare sand and each token are in the photo, a count.
    prior_iterations: int = 3
    #: Floor on the leave-one-out spreads (JPEG and sensor noise), squared base distance per feature.
    min_scale: float = 0.01
    #: Token prototypes closer than this to one already kept are dropped, squared base distance.
    prototype_spacing_d2: float = 2.0
    #: A pixel belongs to a token (when pasting calibration tokens) beyond this share of the token's own contrast …
    token_share_of_contrast: float = 0.4
    #: … and beyond this difference from the cell's background (above JPEG noise), BGR levels.
    token_contrast_bgr: float = 10.0
    #: Typical empty backgrounds (k-means medoids) every labelled token is pasted onto, a count.
    background_kinds: int = 5
    #: A labelled token whose cut-out is smaller than this share of its class's largest is not pasted.
    min_cut_share: float = 0.5
    #: Brightness factors of the held-out readings of the calibration's tokens and bare cells
    #: (:func:`vision.plazing.tokens.held_out_decisions`) …
    test_brightness: tuple[float, ...] = (1.0, 0.97, 1.03)
    #: … and per-channel B, G, R gains of a token's colour shifted unlike the sand's (another lamp's spectrum).
    test_token_gains_bgr: tuple = ((1.04, 1.0, 0.96), (0.96, 1.0, 1.04))
    #: A free cell whose "unknown" posterior exceeds this looks like nothing learned at calibration (a probability).
    unknown_posterior: float = 0.5
    #: A token read where the colour is clipped is believed at most this much (a probability).
    clipped_posterior: float = 0.5
    #: Token decisions less sure than this are named in the reading's "not sure of" warning (a posterior) …
    doubt_below: float = 0.9
    #: … at most this many of them, a count.
    doubts_named: int = 4
    #: The scene's colour drift (:func:`vision.plazing.drift.scene_drift`): a free cell informs its
    #: class's drift when it is read this surely (a posterior; fitted: ``fitted.json``, ``drift``) …
    drift_sure: float = float(FITTED.get("drift", {}).get("sure", 0.999))
    #: … a class with fewer sure cells than this borrows the shift of every sure token, cells …
    drift_min_cells: int = int(FITTED.get("drift", {}).get("min_cells", 2))
    #: … and no token drifts when fewer than this many are sure in all, cells …
    drift_min_total: int = int(FITTED.get("drift", {}).get("min_total", 2))
    #: … measured in this many rounds (each round's nearest prototypes those moved by the last round's shift) …
    drift_rounds: int = int(FITTED.get("drift", {}).get("rounds", 1))
    #: … and this share of the measured shift is applied to the class's prototypes (0: no second
    #: pass; fitted: ``fitted.json``).
    drift_share: float = float(FITTED.get("drift", {}).get("share", 0.0))
    #: Whether the second reading keeps, against every token class with no sure cells of its own,
    #: the first reading's odds of the classes that drifted by theirs
    #: (:func:`vision.plazing.drift.hold_unsure_odds`; fitted: ``fitted.json``).
    drift_hold: bool = bool(FITTED.get("drift", {}).get("hold", False))


@dataclass(frozen=True)
class FlatnessConfig:
    """Stage 5: bare sand, a neutral marker and a resource told apart by the spread of the cell's centre
    (:mod:`vision.plazing.flatness`)."""

    #: Side of the centre square whose spread is measured, share of a cell.
    centre_share: float = 0.3
    #: Spread of a scene's centre around its class's beyond the calibration's variants, ln(1 + BGR
    #: levels), per class weighed against a resource (``neutral``, ``empty``: bare sand) (fitted:
    #: ``fitted.json``; 0 or absent: that pair is not weighed).
    floors: dict = field(default_factory=lambda: {k: float(v) for k, v in FITTED.get("flatness", {}).get(
        "floors", {}).items()})


@dataclass(frozen=True)
class DarknessConfig:
    """Stage 5: one resource told from another by the darkest part of the cell's centre
    (:mod:`vision.plazing.darkness`)."""

    #: Side of the centre square measured, share of a cell (a resource token spans about half).
    centre_share: float = 0.4
    #: The percentile of the centre's grey taken as the token's shade, percent.
    quantile: float = 25.0
    #: Spread of a scene's darkness around its class's calibration samples, a ratio to the sand's
    #: grey (fitted: ``fitted.json`` ``darkness.floor``, ``scripts/fit_plazing_darkness.py``; 0 or
    #: absent: nothing is weighed).
    floor: float = float(FITTED.get("darkness", {}).get("floor", 0.0))
    #: Degrees of freedom of the Student t the darkness is weighed with (fitted with ``floor``;
    #: infinite: a Gaussian).
    t_dof: float = float(FITTED.get("darkness", {}).get("t_dof", float("inf")))


@dataclass(frozen=True)
class FootprintConfig:
    """Stage 5: a meeple and a resource told apart by how much of the cell their colour covers
    (:mod:`vision.plazing.footprint`; fitted by ``scripts/fit_plazing_parallax.py --area``; no
    ``classes`` in ``fitted.json``: nothing weighed)."""

    #: Whether the reader weighs by it (``fitted.json`` ``footprint.weigh``): adopted together with the
    #: darkness (docs/tuning.md, "The two resource cues together").
    weigh: bool = bool(FITTED.get("footprint", {}).get("weigh", False))
    #: The window read around a cell, in cells (the sand around it is its outer 2 px ring).
    window_share: float = 1.6
    #: Only colour within this distance of the cell's centre counts, mm …
    radius_mm: float = float(FITTED.get("footprint", {}).get("radius_mm", 14.0))
    #: … in parts reaching within this distance of it, mm (a neighbour's piece does not).
    core_mm: float = float(FITTED.get("footprint", {}).get("core_mm", 4.0))
    #: A pixel counts when its Lab chroma distance from the sand exceeds this (a shadow's does not).
    chroma_floor: float = float(FITTED.get("footprint", {}).get("chroma_floor", 15.0))
    #: Per class (and per kind, ``meeple/``, ``resource/``, for a class not fitted): [mean, sd] of
    #: ln(1 + the coloured area in mm²).
    classes: dict = field(default_factory=lambda: {k: tuple(v) for k, v in FITTED.get("footprint", {}).get(
        "classes", {}).items()})
    #: Widening of every sd (ln units), and the cap on |ln likelihood ratio| (0: nothing weighed).
    floor: float = float(FITTED.get("footprint", {}).get("floor", 0.0))
    cap: float = float(FITTED.get("footprint", {}).get("cap", 0.0))
    #: Per kind (``meeple/``, ``resource/``): the sd of a scene cell's ln(1 + area) around its
    #: class's value in its own set-up's calibration shot (fitted: ``fitted.json``
    #: ``footprint.setup``, ``scripts/fit_plazing_footprint_setup.py``; absent: the global
    #: Gaussians are used) …
    setup_spread: dict = field(default_factory=lambda: {k: float(v) for k, v in FITTED.get("footprint", {}).get(
        "setup", {}).get("spread", {}).items()})
    #: … and the cap on |ln likelihood ratio| then.
    setup_cap: float = float(FITTED.get("footprint", {}).get("setup", {}).get("cap", 0.0))


@dataclass(frozen=True)
class AugmentConfig:
    """Calibration: the ways a scene can show a labelled token (:mod:`vision.plazing.augment`)."""

    #: A token put down by hand lies up to this far off its cell's centre (each way), share of a cell.
    shift_share: float = 0.1
    #: Sizes of natural tokens (amber, shells, pebbles) relative to the labelled one, factors.
    scales: tuple[float, ...] = (0.85, 1.0, 1.15)
    #: Turns of the token (the cell features are unchanged by quarter turns), degrees.
    angles_deg: tuple[float, ...] = (0.0, 30.0, 60.0)
    #: Length of a lamp's shadow beyond a token's outline, mm …
    shadow_mm: tuple[float, ...] = (1.5, 3.0)
    #: … where the sand keeps this share of its light (the ambient light).
    shadow_light: tuple[float, ...] = (0.65,)


@dataclass(frozen=True)
class QualityConfig:
    """Stage 0/6: refusing photos that cannot be read (exit 3)."""

    #: Resolution of the small whole-board view for the photo checks and the lighting reference, px per mm.
    px_per_mm: float = 0.75
    #: The lighting change is the median ratio over every this-many-th pixel of the frame, a stride.
    lighting_stride: int = 10
    #: The smooth field of uneven light is fitted on every this-many-th pixel, a stride.
    light_field_stride: int = 20
    #: The global light gains are kept within this range (lower, upper), factors.
    gain_range: tuple = (0.25, 4.0)
    #: Fewer unclipped frame pixels than this: the gains take every frame pixel, px.
    min_gain_pixels: int = 50
    #: Fewer unclipped frame pixels than this: no smooth light field is fitted, px …
    min_field_pixels: int = 200
    #: … the field is refitted without pixels beyond this many robust sigmas of its residuals …
    field_clip_sigmas: float = 3.0
    #: … or this residual, whichever is larger, log units …
    field_clip_floor: float = 0.05
    #: … and given up when fewer than this many pixels are kept, px.
    min_field_kept: int = 100
    #: Uneven light is corrected only when the smooth field fits all but this share of the frame …
    light_field_max_outliers: float = 0.2
    #: … and its residuals' robust sd on the frame stays below this, log units.
    light_field_max_sd: float = 0.045
    #: Light evened out on the bare sand (:func:`vision.plazing.lighting.sand_correction`): smoothing scale, cells …
    sand_sigma_cells: float = 2.0
    #: … a cell's sand this far off the smooth field is a token or a mark, not the light, log units (15 %) …
    sand_outlier_log: float = 0.15
    #: … at least this many bare cells are needed, cells …
    sand_min_cells: int = 12
    #: … a correction within this share of 1 everywhere is not applied …
    sand_even_share: float = 0.03
    #: … nor one that would brighten or darken part of the board by more than this factor.
    sand_most_gain: float = 1.5
    #: A channel at or above this level in the photo as taken is at the sensor's top (clipped), 8-bit level.
    clipped_level: int = 253
    #: Tokens are doubted where the calibration's sand in this photo's light would exceed the top by this factor …
    clipped_doubt: float = 1.08
    #: … and the cell counts as overexposed from this factor.
    clipped_excess: float = 1.15
    #: Bare sand is doubted on a cell with at least this share of white pixels (every channel at ``clipped_level``) …
    white_share: float = 0.02
    #: … and more than this share of the placeable cells overexposed refuses the photo (``glare``).
    max_clipped_share: float = 0.1
    #: Sharpness of the rectified board below this share of the calibration's is blurred (a ratio).
    min_sharpness_ratio: float = 0.35
    #: Share of placeable cells unlike the calibrated board above which the view is blocked.
    max_unexplained_share: float = 0.06
    #: A free cell farther than this from everything seen at calibration is odd, Mahalanobis distance.
    odd_distance: float = 6.0
    #: Largest 4-connected blob of cells nothing learned explains that is left to a warning, cells.
    max_unknown_blob_cells: int = 4
    #: A free cell farther than this from everything seen at calibration is faintly odd (a token in
    #: another light, or a hand whose skin looks like a pale token): more than ``max_unknown_blob_cells``
    #: of them touching is something over the board; Mahalanobis distance in the base metric (light
    #: drift allowed; fitted: docs/tuning.md).
    faint_distance: float = 2.5
    #: … counted only where the cell's outer band (this wide, mm) is not bare sand: something over
    #: the board covers the edges between the cells it spans, a token stands inside its cell with
    #: sand around it …
    faint_band_mm: float = 3.0
    #: … bare sand meaning within this of the bare cells' band colour (median, BGR distance;
    #: fitted: docs/tuning.md).
    faint_band_sand_bgr: float = 5.0
    #: A hand's blurred skin is a little odd on every cell it covers, faintly odd at its heart:
    #: the faintly odd cells grown through touching cells beyond this distance (hysteresis, as
    #: Canny's) and more than ``max_faint_grown_cells`` of them are something over the board.
    #: Fitted on 301 clean development scenes (grown blobs ≤ 5 cells) and 63 with a hand (≥ 11):
    #: ``scripts/faint_blob_stats.py --grow``, docs/tuning.md.
    faint_grow_distance: float = 1.5
    max_faint_grown_cells: int = 8
    #: A faintly odd cell whose outer band lies farther than this from the bare cells' band (BGR
    #: distance) has something across its edges (a token stands inside its cell): more than
    #: ``max_unknown_blob_cells`` such cells touching, corners too (a hand over pieces leaves free
    #: cells that meet only at corners), are something over the board (docs/tuning.md, "A hand
    #: over pieces"; ``faint_span_on`` False: not checked).
    faint_span_bgr: float = 20.0
    faint_span_on: bool = True
    #: A cell is unlike the calibrated board beyond this from every calibration cell (mean squared z per feature) …
    unlike_look: float = 1.0
    #: … a blob of them is a flat patch when its texture and cell-to-cell spread are below this, BGR levels …
    flat_sd_bgr: float = 6.0
    #: … washed out (uneven light) when their mean brightness is above this, 8-bit level …
    washed_out_level: float = 235.0
    #: … and in shadow when darker than the rest of the board by this ratio or more.
    shadow_ratio: float = 0.7
    #: Placeable cells whose confidence is below this are listed as doubtful in the state (a probability) …
    doubtful_cell: float = 0.9
    #: … at most this many of them, cells.
    doubtful_cells_listed: int = 20


@dataclass(frozen=True)
class RevisitConfig:
    """Stage 8: readings tried when the rules reject the first."""

    #: The least certain decisions (highest runner-up / choice odds) whose runner-ups are tried, a count …
    decisions: int = 6
    #: … alone and in pairs; at most this many alternatives are handed to the pipeline, a count.
    most: int = 12
    #: A decision whose runner-up is less likely than this share of its choice is not worth trying (odds).
    negligible_odds: float = 1e-4


@dataclass(frozen=True)
class ConfidenceConfig:
    """Stage 7: each decision's posterior made a probability of being right (its log-odds scaled
    per kind of decision, ``slopes``), then their product mapped to the probability that the whole
    reading is right (Platt scaling of its log-odds: ``1 / (1 + exp(−(intercept + slope·logit)))``).

    The slopes and the scene map are fitted by ``scripts/fit_plazing.py`` (``fitted.json``; a file
    without the scene map keeps the identity). Checked on the held-out set-ups by ``scripts/reliability.py``."""

    #: Intercept of the scene map (Platt scaling of the reading's log-odds; fitted: ``fitted.json``), log-odds.
    intercept: float = float(FITTED["confidence"].get("intercept", 0.0))
    #: Slope of the scene map, a factor on the log-odds (fitted: ``fitted.json``).
    slope: float = float(FITTED["confidence"].get("slope", 1.0))
    #: Per kind of decision, the factor on its log-odds making it a probability of being right
    #: (Platt scaling without intercept; 1: taken as it is; fitted: ``fitted.json``).
    slopes: dict = field(default_factory=lambda: {k: float(v) for k, v in FITTED["confidence"]["slopes"].items()})
    #: Per kind of decision, how its slope changes with the photo's scale (px per board mm as read,
    #: :func:`vision.plazing.rectify.photo_px_per_mm`): ``slopes[kind] · (scale / scale_ref_px_per_mm)
    #: ^ scale_powers[kind]``, a power (dimensionless; a kind not named: 0, no change; fitted:
    #: ``fitted.json``, written by ``scripts/fit_plazing_scale.py``; none adopted so far: docs/tuning.md,
    #: "Slopes by the photo's scale").
    scale_powers: dict = field(default_factory=lambda: {
        k: float(v) for k, v in FITTED["confidence"].get("scale_powers", {}).items()})
    #: The scale at which ``slopes`` hold, px per board mm of the photo as read (fitted: ``fitted.json``).
    scale_ref_px_per_mm: float = float(FITTED["confidence"].get("scale_ref_px_per_mm", 1.0))
    #: The scales the powers were fitted over, px per mm: a photo outside is taken at the nearer end
    #: (the fit says nothing beyond them).
    scale_range_px_per_mm: tuple = tuple(float(v) for v in FITTED["confidence"].get(
        "scale_range_px_per_mm", (0.0, float("inf"))))

    def at_scale(self, px_per_mm: float | None) -> "ConfidenceConfig":
        """This config with every kind's slope for a photo of ``px_per_mm`` (px per board mm as read;
        None or 0: unknown, the slopes as they are). The result has no ``scale_powers`` left: its
        ``slopes`` are final."""
        if not self.scale_powers or not px_per_mm:
            return self
        lo, hi = self.scale_range_px_per_mm
        ratio = min(max(float(px_per_mm), lo), hi) / self.scale_ref_px_per_mm
        slopes = {k: b * ratio ** self.scale_powers.get(k, 0.0) for k, b in self.slopes.items()}
        return replace(self, slopes=slopes, scale_powers={})


@dataclass(frozen=True)
class RegisterConfig:
    """Registration (:mod:`vision.plazing.register`): only what no game changes says the board moved."""

    #: The fixed parts: the frame outside the grid less this margin (pieces off their cells, standing meeples), mm …
    grid_margin_mm: float = 6.0
    #: … and this band outside the board's outline (its edge against the table), mm.
    table_band_mm: float = 4.0
    #: Keypoints (ORB) sought on the fixed parts of the reference (1/4 of the calibration shot), a count.
    keypoints: int = 500
    #: A motion needs at least this many keypoint matches it explains, a count …
    min_inliers: int = 8
    #: … within this distance on the board, mm …
    match_tolerance_mm: float = 1.5
    #: … and this many times as many as "nothing moved" explains (a ratio).
    min_inlier_gain: float = 1.5
    #: The farthest a bump is looked for (a board knocked by a hand), mm.
    largest_bump_mm: float = 40.0
    #: Below this phase-correlation peak the shift guess is ignored (a response in [0, 1]).
    min_phase_response: float = 0.05
    #: ECC iterations of the refinement (Euclidean warp) at half the reference size, a count …
    iterations: int = 20
    #: … then at the reference size (from a near answer), a count …
    fine_iterations: int = 6
    #: … and the convergence threshold (ECC's epsilon).
    epsilon: float = 1e-4
    #: The refinement is fitted again without this share of the fixed parts' pixels it explains worst.
    trim_share: float = 0.2
    #: A refined alignment must correlate at least this well (ECC correlation) …
    min_score: float = 0.6
    #: … and this much better than "nothing moved" (ECC correlation).
    min_ecc_gain: float = 0.03
    #: A turn smaller than this and a shift under ``pipeline.MOVED_MM`` is no move, degrees.
    moved_deg: float = 0.2
    #: When the keypoints' motion does not convince ECC (or they call the board still though a
    #: motion explains more of them), refine from the phase correlation's shift and from no motion
    #: too, and keep the best (docs/tuning.md, "Registration: a bumped board the keypoints misplace").
    retry_motions: bool = True


RECTIFY = RectifyConfig()
PALETTE = PaletteConfig()
COVER = CoverConfig()
PATTERN = PatternConfig()
FACING = FacingConfig()
TERRAIN = TerrainConfig()
PRINTS = PrintConfig()
TOKENS = TokenConfig()
FLATNESS = FlatnessConfig()
DARKNESS = DarknessConfig()
FOOTPRINT = FootprintConfig()
AUGMENT = AugmentConfig()
#: The held-out ways a token is shown to the finished model to measure how often, and how sure, it
#: is wrong (between the prototypes' angles, sizes, shifts and shadows).
HELD_OUT = AugmentConfig(shift_share=0.05, scales=(0.92, 1.08), angles_deg=(45.0,), shadow_mm=(2.25,),
                         shadow_light=(0.65,))
QUALITY = QualityConfig()
REVISIT = RevisitConfig()
CONFIDENCE = ConfidenceConfig()
REGISTER = RegisterConfig()
