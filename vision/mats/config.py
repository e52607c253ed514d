"""Every tunable number of the Seashells mat and Sand Castles readers, in one place.

Sizes are in board millimetres or as shares of a profile length (never piece sizes or colours:
those are learned from the calibration shot). Feature scales are in the units of the feature.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeashellsConfig:
    """Tunables of :mod:`vision.seashells.reader` (the player mat)."""

    #: Photos (and the calibration shot, for learning) are decoded at 1/this size.
    decode_reduce: int = 2
    #: Resolution of the rectified mat (px per mm); about the photo's own at half size.
    px_per_mm: float = 1.25
    #: Towel cell core: pixels at least this far inside the cell's edge (mm) are looked at.
    core_inset_mm: float = 5.0
    #: The cell's own background ring: this band inside the cell's edge (mm), inside the grid lines.
    ring_mm: tuple[float, float] = (2.5, 4.5)
    #: Variance floor of each towel contrast feature (log units), see ``vision.mats.ring_contrast``.
    towel_var_floor: tuple[float, ...] = (0.4 ** 2, 0.4 ** 2, 0.2 ** 2)
    #: A colour column's empty cells in this photo: the contrast at this quantile of its cells
    #: (a column is mostly empty: of 7 cells the 3rd faintest) …
    column_empty_quantile: float = 1 / 3
    #: … taken down to the empty class by at most this share of the way from the empty class to the
    #: column's calibrated shells (a column full of shells keeps them).
    column_shift_cap: float = 0.5
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
    #: Scans: the basket's background is estimated locally, averaged over this many mm (Gaussian
    #: sigma) from the pixels near it, so that a light ramp or a vignette over the basket makes no
    #: phantom items (``vision.mats.basket._local_background``).
    basket_bg_sigma_mm: float = 12.0
    #: A blob smaller than this share of the smallest learned item is noise.
    min_item_share: float = 0.3
    #: A blob larger than this multiple of its class's learned area holds several touching items.
    merged_ratio: float = 1.6
    #: Standard deviation of each basket item feature around its learned value:
    #: L, a, b (ΔE units), sd_L, log area, elongation (log of axis ratio).
    item_sd: tuple[float, ...] = (6.0, 4.0, 4.0, 4.0, 0.18, 0.25)
    #: Above this Mahalanobis distance (per feature, RMS) a blob is "like no learned item".
    item_max_rms_z: float = 3.0
    #: A towel cell is "strange" (covered, or something unknown on it) when its contrast features
    #: lie more than this many standard deviations (RMS) from both learned classes …
    strange_rms_z: float = 4.0
    #: … or when its ring (the cell's own towel, around a shell) changed by more than this ΔE (Lab)
    #: from the calibration's, beyond the board-wide change (``vision.mats.checks.ring_change``):
    #: the cell is *covered*. Samples: ≤ 17 (a shell spilling into its ring); a skin-coloured arm ≥ 30.
    ring_change_de: float = 25.0
    #: … unless the change is only its column's shells spilling into it (``shell_spill``): its ring
    #: within this ΔE of the line from its calibrated colour to its column's shell colour. Development
    #: tables: the 13 covered cells of clean scenes lie at 0.7–4.0; synthetic arms at 1.6–36 (docs/tuning.md).
    spill_residual_de: float = 5.0
    #: Above this share of strange towel places, the mat is covered (``occluded``) …
    occluded_share: float = 0.25
    #: … and from this share of covered cells (3 of 49) on; fewer covered cells cap their place
    #: confidence at ``covered_conf``.
    covered_share: float = 0.05
    covered_conf: float = 0.3
    #: Towel features are measured on the board averaged over this many px square (means over
    #: areas, ``vision.mats.ring_contrast.denoised_contrast_features``): 3 px = 2.4 mm.
    smooth_px: int = 3
    #: Glare (blown-out pixels: every channel ≥ ``vision.image.quality.QUALITY.saturated``) is judged
    #: cell by cell, not by the board's share: a lamp's hot spot whitens the pale towel while the
    #: shells on it still show their colour. A cell of a pale column (``vision.seashells.columns``)
    #: whose core is blown out beyond this share may hide a shell: read empty, it is doubted
    #: (``covered_conf``) …
    glare_cell_share: float = 0.1
    #: … and more than ``glare_refuse_share`` of the pale columns' cells blown out beyond
    #: ``glare_lost_share`` (nothing left to see) refuses the photo (``glare``). Development tables
    #: (seashells-rel-20107 setup6, 1280×720, docs/tuning.md): cells blown out up to 90 % read right,
    #: a white shell in a cell 65 % blown out found at p 1.0.
    glare_lost_share: float = 0.95
    glare_refuse_share: float = 0.5
    #: Noise check (``vision.image.quality.board_noise_sigma`` of the rectified board's Lab L, unsmoothed):
    #: the largest excess noise σ over the calibration's. Samples: clean 0.1–0.25; Gaussian
    #: noise σ 8 / 15 / 25 / 35 (0–255, full-size photo) gives 0.4–0.5 / 0.6–0.8 / 1.0–1.2 / 1.4.
    max_excess_noise: float = 0.85
    #: Background noise the towel's rings may show beyond the calibration's before the empty class
    #: is widened: ``ring_power ≤ ring_power_tolerance × calibration's`` (ΔE², smoothed board).
    #: Samples: clean photos 0.7–1.4×; JPEG quality 25–40 and noise up to 3×.
    ring_power_tolerance: float = 1.6
    #: A towel core pixel differs from its ring by more than this ΔE: it belongs to the shell
    #: (its colour is the shell's colour).
    shell_pixel_de: float = 8.0
    #: A shell lying across a grid line shows in both cells, each time near their shared edge: two
    #: adjacent occupied cells whose shell pixels' centroids both lie beyond this share of the
    #: core's half-width toward that edge are one straddling shell (samples: centred shells ≤ 0.25;
    #: a shell moved 12–20 mm across a line 0.59–0.93) …
    straddle_offset: float = 0.45
    #: … reported once, in the cell holding most of its pixels, at this place confidence at most.
    straddle_conf: float = 0.45
    #: A towel cell read with a place confidence below this is "hard to read" (warned); it caps the
    #: reading's confidence at ``straddle_conf``. On 11 956 development cells none read at 0.8 or
    #: more is wrong, but a blind batch had a white starfish missed at 0.8–0.9 (a silent wrong at
    #: 0.80 with 0.8 here): ``scripts/seashells_cell_stats.py``, docs/tuning.md. Seashells' place
    #: confidence is its kind's fitted right share (``vision.seashells.confidence``); a band under
    #: this is lifted only where its cells' 95 % lower bound reaches it.
    unsure_cell_conf: float = 0.9
    #: A pale piece's outline (``vision.seashells.outline``): the lightness' band-pass between these
    #: Gaussian scales (mm: a thin starfish arm's shading against the towel's weave and light), …
    outline_scales_mm: tuple[float, float] = (1.0, 3.0)
    #: … its magnitude at this quantile over a cell's core, less its ring's, …
    outline_quantile: float = 0.95
    #: … judged by classes whose variance is at least this (L units²): fitted on seed 20214's odd set-ups
    #: by ``scripts/seashells_pale_cells.py fit`` (docs/tuning.md, Seashells: pale outlines).
    outline_var_floor: float = 0.02
    #: Uneven light (``vision.seashells.reader._light_field``): a smooth gain field is fitted to the towel
    #: rings' lightness against calibration and applied when its range over the towel exceeds this
    #: (log gain; samples under even light ≤ 0.05, a 0.5→1 ramp ≈ 0.6) …
    light_field_min_range: float = 0.12
    #: … cells whose ring departs from the fitted field by more than this (log gain, or 4 robust sd)
    #: are left out of the fit (a hand, a shell spilling into its ring).
    light_field_tol: float = 0.08
    #: A found shell whose colour lies farther than this ΔE from every calibrated shell of its
    #: colour column (columns without a calibrated shell are not judged) is unlike a shell (a hand, a
    #: stray object, a mirrored photo). Samples: shells ≤ 14 from their column's; a hand ≥ 27.
    shell_colour_de: float = 22.0
    #: With at least this many shells judged, their median colour shift from the calibrated shells
    #: (light of another colour) is taken off before judging each.
    colour_shift_min_shells: int = 4
    #: From this many shells unlike their column's calibrated shells (and half the shells found)
    #: the photo does not show the calibrated layout: mirrored, or another mat.
    layout_min_unlike: int = 3
    #: Calibration check: a labelled sample is refused (``bad-sample``) when, with it left out,
    #: another class explains it better by this log-likelihood margin and its own class is more
    #: than ``bad_sample_rms_z`` standard deviations (RMS per feature) away.
    bad_sample_llr: float = 8.0
    bad_sample_rms_z: float = 3.0
    #: … or when it lies within this many standard deviations (RMS) of another class: a ``shell``
    #: sample that looks just like an empty cell (the broadened shell class also covers empties).
    bad_sample_close_rms_z: float = 1.0
    #: An ``empty`` sample close to the broadened shell class is refused only farther than this (RMS
    #: z) from the other empty cells; nearer, it is kept and named in ``confusable``. Fitted by
    #: ``scripts/seashells_sample_check.py --fit`` on 148 development set-ups (1524 right empty
    #: samples, tail fitted to refuse one right set-up in 1000; docs/tuning.md).
    bad_sample_clear_rms_z: float = 3.5
    #: Mean board lightness (Lab L, 0–100) below which the photo is too dark.
    min_board_L: float = 15.0
    #: Blur check (``vision.image.quality.detail_ratio`` of the rectified board's Lab L): comparison
    #: blur (px of the rectified board) and the share of the calibration's excess detail a photo
    #: must keep. Samples: clean photos keep ≥ 0.7; blurred by σ = 1 px (half-size photo) 0.33–0.43
    #: and still read right; by σ = 1.5 px ≤ 0.29, where silent misreadings begin.
    detail_sigma_px: float = 1.5
    min_detail_share: float = 0.3


@dataclass(frozen=True)
class SandCastlesConfig:
    """Tunables of :mod:`vision.sand_castles.reader`."""

    #: Photos (and the calibration shot, for learning) are decoded at 1/this size.
    decode_reduce: int = 2
    #: Resolution of the rectified board (castle slots are read at it) …
    px_per_mm: float = 2.0
    #: … and of the coarser copy the lane spaces are read at (warped directly from the photo).
    space_px_per_mm: float = 1.0
    #: Square patch at a lane space's centre, as a share of the space's shorter side.
    space_patch_share: float = 0.6
    #: Square patch at a castle slot, as a share of the smallest slot spacing.
    slot_patch_share: float = 0.55
    #: Lane space core / ring (mm inside the space's edge), as for the towel.
    core_inset_mm: float = 10.0
    ring_mm: tuple[float, float] = (2.0, 5.0)
    #: Lane spaces are large: their core and ring are sampled every this many px in x and y.
    space_step_px: int = 2
    #: Variance floor of each space contrast feature (log units).
    space_var_floor: tuple[float, ...] = (0.2 ** 2, 0.2 ** 2, 0.25 ** 2)
    #: A lane's wave must be this much more wave-like (Mahalanobis d², log-odds ×2) than the runner-up.
    wave_margin_d2: float = 12.0
    #: Above this Mahalanobis distance to the wave class the chosen wave is "unlike calibration".
    #: A wave on the sand-coloured wall space sits at d ≈ 7–10 on the samples (its patch sees sand
    #: around the tile where the calibrated waves had sea); waves on sea spaces stay below 5.
    wave_max_d: float = 12.0
    #: Above this Mahalanobis distance to the wall class a "wall" found on the wall space (its
    #: contrast says occupied) is unlike the calibrated walls: an empty space whose contrast rose
    #: under a colour cast or double JPEG (d ≈ 6–7), where real walls stay below 2.5 on the samples
    #: and their light variants.
    wall_max_d: float = 4.0
    #: Above this distance a slot is unlike both piece and empty slot …
    slot_max_d: float = 14.0
    #: … or above the photo's median slot distance plus this.
    slot_rel_d: float = 5.0
    #: A lane whose slots' median distance to their class exceeds this (aligned samples ≤ 2.5; a 3 %
    #: camera tilt 3.8–7) is searched ``slot_search_mm`` around: a median distance below
    #: ``slot_misfit_gain`` times the unshifted one there says the slots are misplaced (confidence
    #: ≤ 0.3); light changes raise the distance wherever the slots are looked at.
    slot_misfit_d: float = 3.0
    slot_search_mm: float = 5.0
    slot_misfit_gain: float = 0.6
    #: A lane space is covered when its ring (its own background) changed by more than this ΔE
    #: since calibration beyond the board-wide change. Samples: ≤ 13; a skin-coloured arm ≥ 45.
    ring_change_de: float = 25.0
    #: From this share of covered spaces plus strange castle slots on, the board is ``occluded``
    #: (2 of 36 places); a single covered space caps its lane's confidence at ``covered_conf``.
    covered_share: float = 0.05
    covered_conf: float = 0.3
    #: Calibration check of every labelled sample, as ``SeashellsConfig.bad_sample_llr``.
    bad_sample_llr: float = 8.0
    bad_sample_rms_z: float = 3.0
    #: ... and lies within this many (RMS z) of the class it looks like: a sample unlike every
    #: class (a glossy wave under a light's reflection) is not a wrong label (docs/tuning.md).
    bad_sample_other_rms_z: float = 3.0
    #: A suspect within this many (RMS z) of the class it looks like is refused; one farther (up to
    #: ``bad_sample_other_rms_z``) is kept and named in the calibration's ``confusable``: 98 % of
    #: made mislabels lie closer, the two true samples suspected (glossy waves) at 2.90 and 3.11
    #: (``scripts/sand_castles_sample_stats.py``, docs/tuning.md).
    bad_sample_clear_rms_z: float = 2.5
    min_board_L: float = 15.0
    #: Blur check on the coarse board (see ``SeashellsConfig``). Samples: clean photos keep ≥ 0.8;
    #: blurred by σ = 1 px (half-size photo) 0.6–0.77, read right and sure; by σ = 1.5 px 0.47–0.59,
    #: read right but with confidence ≤ 0.3.
    detail_sigma_px: float = 1.5
    min_detail_share: float = 0.5


SEASHELLS = SeashellsConfig()
SAND_CASTLES = SandCastlesConfig()
