"""Every tunable number of the Plażing reader, one frozen dataclass per stage.

Units are in the names (``_mm``, ``_px``, share of a cell ``_share``, colour differences in
8-bit BGR levels ``_bgr``). None of them is tuned to one photo: they describe the geometry of a
cell and the statistics of a decision. Colours, printed patterns and sizes of pieces are never
here: appearance comes from the calibration shot, geometry from the board profile.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class RectifyConfig:
    """Stage 1: decode and warp the photo to a top view of the board."""

    #: JPEG decoded at 1/decode_reduce size (``cv2.IMREAD_REDUCED_COLOR_2``): a 1920 px photo
    #: still gives ≈1.45 px/mm on a 46 cm board, and decoding is faster.
    decode_reduce: int = 2
    #: Resolution of the rectified grid (px per mm). 1.5 → a 20 mm cell is 30 px, about what the
    #: half-size photo resolves.
    px_per_mm: float = 1.5
    #: Band around the grid that is rectified with it (mm): seams and patterns of pieces on the
    #: outer cells look a few mm beyond them.
    margin_mm: float = 10.0


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
    #: Bits kept per B, G, R channel in the lookup table (5 → 32³ entries). Only the colour
    #: *label* goes through the table; token features and seams use exact colour values.
    lut_bits: int = 5
    #: Calibration check (leave-one-out): a piece sample farther than this (Lab ΔE) from the median
    #: of the other samples of its player … (the samples' own spread is ≲ 8)
    bad_sample_delta_e: float = 25.0
    #: … and this many times closer to another player's median is labelled wrong.
    bad_sample_ratio: float = 2.0


@dataclass(frozen=True)
class CoverConfig:
    """Stage 3: which cells a player's pieces cover."""

    #: Each cell is summarised by ``blocks_per_cell``² block means; every square below is a
    #: whole number of blocks of the same parity (shares are rounded to it). 15 → 2 px blocks at
    #: 1.5 px/mm (a fast, exact 2×2 area reduction).
    blocks_per_cell: int = 15
    #: Central square of a cell used to measure cover (share of the cell side); the margin
    #: tolerates pieces a few mm off the grid.
    inner_share: float = 0.85
    #: Central square left out of the cover measure (printed decorations, tokens): share of a cell.
    hole_share: float = 0.6
    #: Share of the inner square in one player's colour above which the cell is covered.
    covered_share: float = 0.33
    #: Logistic slope of the cover posterior around ``covered_share`` (per unit share).
    posterior_slope: float = 25.0


@dataclass(frozen=True)
class SeamConfig:
    """Stage 4a: the cut between two same-colour pieces that touch.

    A cut leaves a thin line (≲ 1 mm of sand or shadow, blurred) across which the colour dips
    and comes back; inside one piece the colour runs on. The dip is measured on exact colour
    values (not the quantised palette) as a *ridge/valley* response: at a position x across the
    edge, the smaller of the two colour differences to x − d and x + d when both point the same
    way. A step (a printed square, a stripe ending at the edge) answers 0.
    """

    #: How far across the grid line the cut may lie (pieces a few mm off the grid), mm.
    search_mm: float = 3.0
    #: Half-widths of the ridge/valley detector, mm (narrow cuts and cuts next to a stripe).
    lags_mm: tuple[float, ...] = (1.5, 3.0)
    #: Share of the edge (centred) examined; corners and printed dots are left out.
    along_share: float = 0.6
    #: Sd of the dip inside one piece (JPEG ripple, shading; BGR levels) when the calibration shot
    #: has no labelled screen to measure it on, and its floor.
    default_joined_sd_bgr: float = 2.5
    min_joined_sd_bgr: float = 1.5
    #: Degrees of freedom of the dip inside one piece (a half Student t: a crease or double JPEG
    #: now and then dips deeper than Gaussian noise would).
    joined_t_dof: float = 4.0
    #: Share of cuts between pieces pressed together that show no line at all (2 of 49 on the
    #: shared and development samples): a faint dip is never better evidence than this for "one
    #: piece" …
    invisible_cut_share: float = 0.05
    #: … and a visible cut's dip is spread this wide (BGR levels; the samples' cuts 10–170).
    cut_sd_bgr: float = 80.0
    #: The outline's jog where two cells meet (one piece has straight sides): each side's edge is
    #: looked for this far (mm) either side of the grid line …
    jog_reach_mm: float = 4.0
    #: … located to within this (mm: a tenth of a pixel's worth of blur at 1.5 px/mm is ≈ 0.1–0.2)
    #: when the calibration shot has no labelled screen to measure it on, and at least this …
    default_jog_sd_mm: float = 0.25
    min_jog_sd_mm: float = 0.15
    #: … two pieces pressed together line up within that noise about half the time …
    aligned_cut_share: float = 0.5
    #: … else lie this far apart (mm, half-normal: pieces put down by hand).
    placed_sd_mm: float = 1.0
    #: Largest group of same-colour touching cells that is split exactly (bigger: unknown piece).
    max_exact_cells: int = 24
    #: Most tilings enumerated per group.
    max_tilings: int = 4000
    #: Placements whose log-likelihood per cell is this much below the best placement over one of
    #: their cells are left out of the enumeration (their tilings have posterior < e^-20).
    prune_per_cell: float = 20.0


@dataclass(frozen=True)
class PatternConfig:
    """Stage 4b: the printed pattern of each piece kind (stripe, dots, squares), learned.

    A covered cell is described by a small map of blocks (``blocks`` × ``blocks``) of two values:
    the share of the block not in the player's colour, and how much lighter/darker it is than the
    player's colour. Each kind's cells are learned from the calibration pieces whose kind is
    certain (labelled screens, pieces split with no doubt).
    """

    #: Blocks per cell side in the pattern map.
    blocks: int = 6
    #: Lightness difference (grey levels) that maps to 1.0 in the pattern map.
    lightness_scale: float = 60.0
    #: Largest shift (blocks) tried when matching a cell's map to a template: pieces off the grid.
    max_shift_blocks: int = 2
    #: Cost (χ² units per cell) of shifting a template by one block (squared in blocks): pieces
    #: are usually on their cells, and a free shift lets a template match what lies beside them.
    shift_cost: float = 1.0
    #: Floor on the per-element standard deviation of a template (pattern-map units).
    sd_floor: float = 0.12
    #: A calibration piece teaches its kind's pattern only when its split is at least this sure.
    min_teach_posterior: float = 0.9
    #: Tempering of the pattern log-likelihood (the map's elements are not independent): the
    #: sum of squared residuals is divided by this many "effective" elements per element.
    dependence: float = 4.0
    #: A piece cell whose print costs this many times the photo's typical piece cell is as likely
    #: hidden (a meeple standing on it) as not: clean development photos reach ≈ 10, a meeple
    #: pushed onto a gear ≈ 30–40 …
    hidden_ratio: float = 20.0
    #: … with this slope (per unit of log ratio) …
    hidden_slope: float = 4.0
    #: … and the typical cost floored here (a photo of near-perfect prints would make any speck
    #: look like a hidden print).
    min_typical_cost: float = 2.0


@dataclass(frozen=True)
class FacingConfig:
    """Stage 4c: which long side of a screen is its outer side."""

    #: Bins across the screen's short axis in the learned cross-profile.
    profile_bins: int = 24
    #: Largest shift (bins, 1 bin = cell/profile_bins) tried when matching a profile: off-grid screens.
    max_shift_bins: int = 4
    #: Logistic slope of the facing posterior per unit of correlation difference.
    posterior_slope: float = 8.0


@dataclass(frozen=True)
class TerrainConfig:
    """Stage 2: the terrain read from the photo (no ``terrain`` in the setup), by its nearest
    calibration cells (:mod:`vision.plazing.terrain`)."""

    #: Floor on each standardised feature's scale (feature units), so a feature constant at
    #: calibration does not dominate.
    scale_floor: float = 3.0
    #: Posterior slope per unit of (squared-distance margin / 2) between the best two classes (the
    #: log-likelihood ratio of two Gaussians of unit variance).
    margin_slope: float = 1.0
    #: A closing object is accepted where its mean squared standardised difference per feature is
    #: below this (a third of a standard deviation per feature) …
    object_max: float = 0.35
    #: … and this many times smaller than that of the best placeable looks of the same cells …
    object_ratio: float = 2.0
    #: … with this posterior slope per unit of log(alt / d) around log(``object_ratio``).
    object_slope: float = 4.0


@dataclass(frozen=True)
class PrintConfig:
    """Stage 3: printed marks (± discs, crossed sticks) painted over with the cell's sand.

    Shares are of a cell side; colour distances in 8-bit BGR levels after illumination
    normalisation."""

    #: The sand ring of a cell starts this far inside its edge (neighbours' edges, the grid line) …
    ring_inset_share: float = 0.07
    #: … and is this wide.
    ring_width_share: float = 0.07
    #: A pixel is print (or token) rather than sand farther than this from the cell's sand: ten
    #: times the sand's pixel noise (≈ 3 levels), well below any print's contrast (≳ 60).
    deviation_bgr: float = 30.0
    #: A mark is seen in a cell when at least this many pixels deviate (a disc of a third of a cell
    #: is ≈ 80 px at 1.5 px/mm).
    min_ink_px: int = 12
    #: Distance from the sand–ink line within which a pixel is explained by the print: the pixel
    #: noise and JPEG error of a flat print (≈ 3 levels sd, 5 sd).
    noise_bgr: float = 15.0
    #: A cell's own print is the mark's ink (a shade of it) when its offset from sand points within
    #: ≈ 18° of the photo's mark colour (cos 0.95); a token on the mark points elsewhere.
    same_ink_cos: float = 0.95
    #: A cell whose deviating pixels lie on one ink line for at least this share is a flat print
    #: (printed marks ≥ 0.97; meeples, figures with shading and a shadow, ≤ 0.8 on the development
    #: set-ups).
    flat_print_share: float = 0.9
    #: A pixel is painted over only with at least this share of ink in it (the rest is sand noise) …
    min_alpha: float = 0.15
    #: … and at most this (a print's pixels a shade deeper than its median colour are print too).
    max_alpha: float = 1.6


@dataclass(frozen=True)
class TokenConfig:
    """Stage 5: meeples, neutral markers, resources, trash, surprises on free cells."""

    #: Side of the central square of a cell whose features describe a token (share of a cell).
    core_share: float = 0.6
    #: Side of the smaller centre square (share of a cell) that sees the token, not its background.
    centre_share: float = 0.3
    #: Floor added to the pooled feature covariance's diagonal (feature units²).
    covariance_floor: float = 6.0
    #: Relative drift of brightness between shots and across the board that the global
    #: illumination normalisation leaves (a standard deviation, share of the typical brightness).
    brightness_drift: float = 0.05
    #: Degrees of freedom of the Student t likelihood around each prototype (heavy tails: one odd
    #: feature does not decide; Lange, Little & Taylor 1989) …
    t_dof: float = 4.0
    #: … and how much more (in variance) a cell of a scene spreads around its class than the
    #: calibration shot's own leave-one-out spread says (another light, another day). Both fitted
    #: by maximum likelihood of the true classes of the development set-ups' free cells
    #: (``scripts/fit_plazing.py``: shared set-up 0, new set-ups 0 and 1).
    scene_spread: float = 11.0
    #: Prior of "unknown" (a hand, an object no calibration class explains): about one cell in a
    #: hundred holds something unforeseen.
    unknown_prior: float = 0.01
    #: EM rounds estimating how common bare sand and each token are in the photo (the classes'
    #: priors): the proportions settle within two or three.
    prior_iterations: int = 3
    #: Floor on the leave-one-out spreads (squared base distance per feature): JPEG and sensor noise
    #: never vanish, however alike the calibration's cells are.
    min_scale: float = 0.01
    #: Token prototypes closer than this (squared base distance: about the noise between two
    #: looks of one cell) to one already kept are dropped: they change no likelihood, only time.
    prototype_spacing_d2: float = 2.0
    #: A pixel belongs to a token (for pasting calibration tokens onto other backgrounds) when its
    #: colour differs from the cell's background by this share of the token's own contrast …
    token_share_of_contrast: float = 0.4
    #: … and by at least this much (BGR levels, above JPEG noise).
    token_contrast_bgr: float = 10.0
    #: Typical empty backgrounds (k-means medoids) every labelled token is pasted onto.
    background_kinds: int = 5
    #: A labelled token whose cut-out is smaller than this share of its class's largest cut-out
    #: is not pasted (it was cut out only in part).
    min_cut_share: float = 0.5
    #: The calibration's tokens and bare cells are also read in held-out light (:data:`HELD_OUT`,
    #: :func:`vision.plazing.tokens.held_out_decisions`): the sand's light is normalised at scan
    #: time, so what is left is the cell's brightness drift (``brightness_drift``, either way) …
    test_brightness: tuple[float, ...] = (1.0, 0.97, 1.03)
    #: … and a token's colour shifted unlike the sand's (another lamp's spectrum: a cast of a few
    #: percent per channel, B and R opposite ways) …
    test_token_gains_bgr: tuple = ((1.04, 1.0, 0.96), (0.96, 1.0, 1.04))


@dataclass(frozen=True)
class AugmentConfig:
    """Calibration: the ways a scene can show a labelled token (:mod:`vision.plazing.augment`)."""

    #: A token is put down by hand up to this share of a cell off its centre (each way).
    shift_share: float = 0.1
    #: Natural tokens (amber, shells, pebbles) differ in size from piece to piece by about ±15 %.
    scales: tuple[float, ...] = (0.85, 1.0, 1.15)
    #: Any angle; the cell features are unchanged by quarter turns, so 0–90° in steps suffice.
    angles_deg: tuple[float, ...] = (0.0, 30.0, 60.0)
    #: A lamp to one side: a token 3–6 mm high under a light 45–60° up casts a shadow this long (mm)
    #: beyond its outline …
    shadow_mm: tuple[float, ...] = (1.5, 3.0)
    #: … where the sand keeps this share of its light (the ambient light: room light and the
    #: table's bounce keep a lamp's shadow at about a third to two thirds of the lit sand).
    shadow_light: tuple[float, ...] = (0.65,)


@dataclass(frozen=True)
class QualityConfig:
    """Stage 0/6: refusing photos that cannot be read (exit 3)."""

    #: Resolution of the small whole-board view used for the photo checks and the lighting
    #: reference (px per mm).
    px_per_mm: float = 0.75
    #: The lighting change is the median ratio over every this-many-th pixel of the frame.
    lighting_stride: int = 10
    #: … and the smooth field of uneven light is fitted on every this-many-th (some 1 500 points for
    #: its 6 coefficients).
    light_field_stride: int = 20
    #: Uneven light (``vision.plazing.lighting.lighting_field``) is corrected only when the smooth
    #: field fits all but this share of the frame (a hard shadow or a flat patch is left to the
    #: checks that name it).
    light_field_max_outliers: float = 0.2
    #: … and its residuals' robust sd on the frame stays below this (log units; samples under ramps,
    #: vignettes and soft shadows ≤ 0.02, a flat patch over half the photo 0.1).
    light_field_max_sd: float = 0.045
    #: Light evened out on the bare sand (:func:`vision.plazing.lighting.sand_correction`):
    #: smoothing scale (cells; a lamp's hot spot spans several), …
    sand_sigma_cells: float = 2.0
    #: … a cell's sand this far (log units: 15 %) off the smooth field is a token or a mark on its
    #: ring, not the light …
    sand_outlier_log: float = 0.15
    #: … at least this many bare cells are needed, and a correction within this share of 1
    #: everywhere (the brightness drift the token model allows for) is not applied.
    sand_min_cells: int = 12
    sand_even_share: float = 0.03
    #: … nor one that would brighten or darken part of the board by more than this factor (a lamp's
    #: hot spot or a vignette change the light by a few tens of percent; more is a shadow or
    #: something over the board, which the checks name).
    sand_most_gain: float = 1.5
    #: A cell's sand at or above this level in any channel of the photo as taken is overexposed: its
    #: colour is clipped at the sensor's top (255, less JPEG noise) and cannot be corrected.
    clipped_level: int = 253
    #: … by this much at least: the calibration's sand in this photo's light would be this many
    #: times the sensor's top. A token read there is doubted from ``clipped_doubt`` (8 % of a channel
    #: lost shifts the colour's share by about one standard deviation of the token features' colour:
    #: a neutral marker and a shell, or bare sand, are then told apart by lost colour; measured on
    #: the shared samples relit to 3000 K with a vignette) …
    clipped_doubt: float = 1.08
    #: … and counts as overexposed from ``clipped_excess`` (a few percent over loses little colour;
    #: a lamp's hot spot much more) …
    clipped_excess: float = 1.15
    #: Bare sand is doubted on a cell where at least this share of the pixels is white (every
    #: channel at ``clipped_level``) though the sand around is not clipped: only something brighter
    #: than sand, a light token clipped, turns white there (no cell read as bare sand had as much as
    #: 0.5 % over 260 scenes of the new set-ups, the samples, their relit and lens copies and synthetic
    #: seeds 200–207; a neutral marker in a strong lamp's hot spot: 28 %).
    white_share: float = 0.02
    #: … and more than this share of the placeable cells overexposed refuses the photo (``glare``).
    max_clipped_share: float = 0.1
    #: Sharpness of the rectified board relative to the calibration's below which it is blurred.
    min_sharpness_ratio: float = 0.35
    #: Share of placeable cells unlike the calibrated board above which the view is blocked.
    max_unexplained_share: float = 0.06
    #: A free cell is odd farther than this from everything seen at calibration (strict Mahalanobis
    #: distance, no brightness-drift allowance): beyond the 99.9 % quantile of χ² with 14 degrees of
    #: freedom (√36.1). A lone odd cell is a token in unusual light; a blob of them is not.
    odd_distance: float = 6.0
    #: Largest 4-connected blob of cells that nothing learned explains (cells) left to a warning:
    #: a stray object covers a cell or two; a hand (≈ 8 × 10 cm) covers some twenty 2 cm cells.
    max_unknown_blob_cells: int = 4
    #: A cell is unlike the calibrated board when its whole look (colour of the cell, its core and
    #: centre, texture) is farther than this from every calibration cell (mean squared difference
    #: per standardised feature; the samples' clean photos stay below ≈ 0.65) …
    unlike_look: float = 1.0
    #: … and a blob of them is a flat patch (part of the board hidden or out of view) when their
    #: texture and their spread from cell to cell are both below this (BGR levels).
    flat_sd_bgr: float = 6.0
    #: … and washed out (uneven light: the lighting correction brightened a lit part too) when
    #: their mean brightness is above this (8-bit levels).
    washed_out_level: float = 235.0
    #: … and in shadow when they are darker than the rest of the board by this ratio or more.
    shadow_ratio: float = 0.7


@dataclass(frozen=True)
class RevisitConfig:
    """Stage 8: readings tried when the rules reject the first."""

    #: The least certain decisions (highest runner-up / choice odds) whose runner-ups are tried …
    decisions: int = 6
    #: … alone and in pairs; at most this many alternatives are handed to the pipeline.
    most: int = 12
    #: A decision whose runner-up is less likely than this share of its choice is not worth trying.
    negligible_odds: float = 1e-4


@dataclass(frozen=True)
class ConfidenceConfig:
    """Stage 7: each decision's posterior made a probability of being right (its log-odds scaled
    per kind of decision, ``slopes``), then their product mapped to the probability that the whole
    reading is right (Platt scaling of its log-odds: ``1 / (1 + exp(−(intercept + slope·logit)))``).

    Fitted by ``scripts/fit_plazing.py`` (maximum a posteriori) on development set-ups only: the
    shared samples' set-up 0, new set-ups 0 and 1, and synthetic set-ups (seeds 7, 8, 9 of
    ``scripts/synthetic_plazing_setups.py``): 76 scenes read, 17 048 cover, 13 015 token, 1 286
    split and 694 facing decisions, none of them wrong — so each slope is where its prior
    (log b ~ N(0, 1)) stops it, except the tokens': their slope also counts the 55 521 held-out
    readings of the 15 calibrations' own tokens and bare cells (turned, scaled, shadowed, tinted
    as no prototype shows them; :func:`vision.plazing.tokens.held_out_decisions`), 29 of them
    wrong. The scene map on top is left at the identity (with no wrong reading to fit, it would
    only add optimism). Checked on the held-out set-ups by ``scripts/reliability.py``."""

    intercept: float = 0.0
    slope: float = 1.0
    #: Per kind of decision, the slope that scales its log-odds into a probability of being right
    #: (Platt scaling without intercept; 1: taken as it is). The posteriors are humble on purpose
    #: (a faint seam may be pieces pressed together, a token's look varies from day to day), and
    #: on the development set-ups they are right more often than they say.
    slopes: dict = field(default_factory=lambda: {"cover": 1.63, "token": 1.2, "split": 3.58, "facing": 2.52,
                                                   "print": 1.43})


@dataclass(frozen=True)
class RegisterConfig:
    """Registration (:mod:`vision.plazing.register`): only what no game changes says the board moved."""

    #: The fixed parts: the frame outside the grid less this margin (a piece a few mm off its
    #: cells, the top of a standing meeple seen at an angle) …
    grid_margin_mm: float = 6.0
    #: … and this band outside the board's outline: its edge against the table (the table's own
    #: texture stays put when the board is bumped, so no more of the table is used).
    table_band_mm: float = 4.0
    #: Keypoints (ORB) sought on the fixed parts of the reference (1/4 of the calibration shot).
    keypoints: int = 500
    #: A motion needs at least this many keypoint matches it explains …
    min_inliers: int = 8
    #: … within this distance (mm on the board) …
    match_tolerance_mm: float = 1.5
    #: … and this many times as many as "nothing moved" explains.
    min_inlier_gain: float = 1.5
    #: The farthest a bump is looked for (mm): a board knocked by a hand slides a few cm at most.
    largest_bump_mm: float = 40.0
    #: Below this phase-correlation peak the shift guess is ignored (no keypoints to go by).
    min_phase_response: float = 0.05
    #: ECC iterations of the refinement (Euclidean warp) at half the reference size, then at the
    #: reference size (from a near answer: a few suffice), and the convergence threshold.
    iterations: int = 20
    fine_iterations: int = 6
    epsilon: float = 1e-4
    #: The refinement is fitted again without this share of the fixed parts' pixels it explains
    #: worst (a hand, a card, a cable on the frame).
    trim_share: float = 0.2
    #: A refined alignment must correlate at least this well …
    min_score: float = 0.6
    #: … and this much better than "nothing moved" (a change of light alone gains < 0.01).
    min_ecc_gain: float = 0.03
    #: A turn smaller than this (degrees) and a shift under ``pipeline.MOVED_MM`` is no move.
    moved_deg: float = 0.2


RECTIFY = RectifyConfig()
PALETTE = PaletteConfig()
COVER = CoverConfig()
SEAM = SeamConfig()
PATTERN = PatternConfig()
FACING = FacingConfig()
TERRAIN = TerrainConfig()
PRINTS = PrintConfig()
TOKENS = TokenConfig()
AUGMENT = AugmentConfig()
#: The held-out ways a token is shown to the finished model to measure how often, and how sure, it
#: is wrong (between the prototypes' angles, sizes, shifts and shadows).
HELD_OUT = AugmentConfig(shift_share=0.05, scales=(0.92, 1.08), angles_deg=(45.0,), shadow_mm=(2.25,),
                         shadow_light=(0.65,))
QUALITY = QualityConfig()
REVISIT = RevisitConfig()
CONFIDENCE = ConfidenceConfig()
REGISTER = RegisterConfig()
