"""The tunable numbers of the Plażing reader's split of touching same-colour cells into pieces
(stage 4a: the cut between two pieces, the outline's jog, the print pitch), as
:mod:`vision.plazing.config` holds the other stages'. The fitted ones are read from ``fitted.json``
(:data:`vision.plazing.config.FITTED`): ``seams`` written by ``scripts/fit_plazing_seams.py``,
``print_pitch`` by ``scripts/plazing_print_pitch_stats.py``. Why each value is what it is:
``docs/tuning.md``, "Plażing".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vision.plazing.config import FITTED


def _fitted(section: str, name: str, default: float) -> float:
    """A constant ``fitted.json`` holds under ``section`` (``seams`` or ``print_pitch``), else ``default``."""
    return float(FITTED.get(section, {}).get(name, default))


def _fitted_field(section: str, name: str, default: float):
    """A dataclass field whose default is :func:`_fitted`'s, read when the config is made."""
    return field(default_factory=lambda: _fitted(section, name, default))


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
    #: Half-widths d of the ridge/valley detector, mm: a cut ≲ 1 mm wide blurred by a pixel of a
    #: 720p photo (≈ 1.2 mm); at 3 mm the detector also reached a gear's printed dots (docs/tuning.md).
    lags_mm: tuple[float, ...] = (1.5,)
    #: Share of the edge (centred) examined; corners and printed dots are left out.
    along_share: float = 0.6
    #: The dips are measured on the grid crop sampled afresh from the full-size photo at this many
    #: px per mm (:func:`vision.plazing.prepare.fine_board`): a 1080p photo's own scale (≈ 3.5 px/mm
    #: at the board), twice the reading's crop, so that a cut a full-size pixel or two wide, which
    #: the half-size decode averages away, is sampled and not stepped over.
    fine_px_per_mm: float = 3.0
    #: Sd of the dip inside one piece when the calibration has no labelled screen to measure it on, BGR levels …
    default_joined_sd_bgr: float = 2.5
    #: … and its floor, BGR levels.
    min_joined_sd_bgr: float = 1.5
    #: Degrees of freedom of the half Student t of the dip inside one piece (heavy tails: creases, JPEG).
    joined_t_dof: float = 4.0
    #: Share of cuts between pieces pressed together that show no line at all (a probability).
    invisible_cut_share: float = 0.05
    #: Spread of a visible cut's dip, BGR levels (fitted: ``fitted.json``).
    cut_sd_bgr: float = _fitted_field("seams", "cut_sd_bgr", 80.0)
    #: How much more the dip inside a scene's piece spreads than inside the calibration's labelled
    #: screens (other kinds' prints, another place under the lamp), a factor on ``seam_sd`` (fitted: ``fitted.json``).
    joined_spread: float = _fitted_field("seams", "joined_spread", 1.0)
    #: How far either side of the grid line each side's outline edge is looked for (the jog), mm.
    jog_reach_mm: float = 4.0
    #: Sd of an edge's located position when the calibration has no labelled screen to measure it on, mm …
    default_jog_sd_mm: float = 0.25
    #: … and its floor, mm.
    min_jog_sd_mm: float = 0.15
    #: How much more the jog inside a scene's piece spreads than inside the calibration's labelled
    #: screens, a factor on ``jog_sd`` (fitted: ``fitted.json``) …
    jog_spread: float = _fitted_field("seams", "jog_spread", 1.0)
    #: … and the degrees of freedom of its half Student t (fitted: ``fitted.json``).
    jog_t_dof: float = _fitted_field("seams", "jog_t_dof", 4.0)
    #: Share of pieces pressed together whose outlines line up within that noise (a probability;
    #: fitted: ``fitted.json``) …
    aligned_cut_share: float = _fitted_field("seams", "aligned_cut_share", 0.5)
    #: … else the half-normal spread of their offset (pieces put down by hand), mm (fitted: ``fitted.json``).
    placed_sd_mm: float = _fitted_field("seams", "placed_sd_mm", 1.0)
    #: Side of the centred window a cell's print is looked for in (:func:`~vision.plazing.seams.print_offsets`),
    #: a share of the cell side: a gear's dot (8 mm on a 20 mm cell) and a few mm of placement.
    print_window_share: float = 0.7
    #: A cell's print patch is its whole print when its area lies within this factor of the scene's median patch.
    print_area_ratio: float = 1.6
    #: A patch under this share of a cell's largest print patch is a speck (JPEG, a mislabelled pixel).
    print_speck_share: float = 0.25
    #: The pitch of a piece's prints along it is the scene's own: the edges agreeing within this many
    #: ``print_joined_sd_mm`` of one another (a t₄'s 99 % two-sided point is 4.6) …
    print_agree_scales: float = 4.6
    #: … at least this many, and half of the scene's measured edges (:func:`~vision.plazing.seams.print_pitch`).
    print_min_pitch_edges: int = 2
    #: … the scale of the measured offset about one piece's (a Student t), mm (fitted: ``fitted.json``) …
    print_joined_sd_mm: float = _fitted_field("print_pitch", "joined_sd_mm", 0.1)
    #: … its degrees of freedom (heavy tails: a 720p photo's coarse pixels) …
    print_joined_dof: float = _fitted_field("print_pitch", "joined_dof", 4.0)
    #: … and the share of such edges measured wrong (a speck, a token: they look like a cut's), a probability.
    print_outlier_share: float = _fitted_field("print_pitch", "outlier_share", 0.01)
    #: Between two pieces laid side by side, the spread of the offset about one piece's, along and
    #: across (pieces put down by hand), mm.
    print_cut_sd_mm: tuple = field(default_factory=lambda: tuple(FITTED.get("print_pitch", {}).get("cut_sd_mm",
                                                                                                 (1.0, 1.0))))
    #: Largest group of same-colour touching cells split exactly (bigger: unknown piece), cells.
    max_exact_cells: int = 24
    #: Most tilings enumerated per group, a count.
    max_tilings: int = 4000
    #: A split a never-labelled piece kind could also explain is believed at most this much (a posterior).
    untaught_split: float = 0.5
    #: A split this unsure or less (with a runner-up) is named in a warning (a posterior).
    ambiguous_split: float = 0.5
    #: Placements this far below the best over one of their cells are left out, log-likelihood per cell.
    prune_per_cell: float = 20.0


SEAM = SeamConfig()
