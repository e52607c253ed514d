"""Splitting touching same-colour cells into pieces: seams, catalogue tilings, ambiguity."""

import numpy as np
import pytest

from beachscore.errors import BadInputError
from vision.plazing import parse_label
from vision.plazing.cells import CellBlocks, Grid, cover_posteriors, cover_shares, player_masks
from vision.plazing.config import COVER
from vision.plazing.patterns import PatternModel
from vision.plazing.pieces import catalogue_shapes, groups, split_group
from vision.plazing.screens import long_axis_facings, screen_cells
from vision.plazing.seams import edge_jogs, seam_contrasts, seam_log_likelihoods

PROFILE = {"pieces": {"screen": [[[0, 0], [0, 1], [0, 2]]], "blanket": [[[0, 0], [0, 1], [1, 0], [1, 1]]],
                      "gear": [[[0, 0]], [[0, 0], [0, 1]]]}}
GRID = Grid((10.0, 10.0), 20.0, 4, 6)
PPM = 1.5
SAND, RED = (150, 205, 240), (60, 75, 225)


def _paint(pieces, offset_mm=(0.0, 0.0), gap_mm=1.0):
    """BGR board (uint8) with red pieces inset by gap_mm/2 and shifted, and its labels (0 = red, 255 = sand)."""
    h, w = int(100 * PPM), int(140 * PPM)
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = SAND
    for cells in pieces:
        r0, r1 = min(r for r, _ in cells), max(r for r, _ in cells) + 1
        c0, c1 = min(c for _, c in cells), max(c for _, c in cells) + 1
        x0 = (10 + 20 * c0 + gap_mm / 2 + offset_mm[0]) * PPM
        x1 = (10 + 20 * c1 - gap_mm / 2 + offset_mm[0]) * PPM
        y0 = (10 + 20 * r0 + gap_mm / 2 + offset_mm[1]) * PPM
        y1 = (10 + 20 * r1 - gap_mm / 2 + offset_mm[1]) * PPM
        img[int(round(y0)):int(round(y1)), int(round(x0)):int(round(x1))] = RED
    labels = np.where((img == RED).all(axis=-1), 0, 255).astype(np.uint8)
    return img, labels


def _read(img, labels):
    cells = CellBlocks(GRID, PPM)
    owner, _ = cover_posteriors(cover_shares(cells.blocks(player_masks(labels, 1)).reshape(-1, 6 * cells.k, 1), cells))
    seams = seam_contrasts(img, owner, GRID, PPM)
    out = []
    for _, group in groups(owner):
        split = split_group(group, seams, catalogue_shapes(PROFILE))
        out += [(k, tuple(c)) for k, c, _, _ in split.pieces]
    return sorted(out)


@pytest.mark.parametrize("offset", [(0.0, 0.0), (2.5, -2.0)])
def test_cuts_between_touching_same_colour_pieces_are_seams(offset):
    pieces = [[(0, 0), (0, 1), (0, 2)], [(1, 0), (1, 1), (2, 0), (2, 1)], [(1, 2)], [(0, 3), (1, 3)]]
    got = _read(*_paint(pieces, offset))
    want = sorted([("screen", ((0, 0), (0, 1), (0, 2))), ("blanket", ((1, 0), (1, 1), (2, 0), (2, 1))),
                   ("gear", ((1, 2),)), ("gear", ((0, 3), (1, 3)))])
    assert got == want


def test_no_seam_means_one_piece():
    assert _read(*_paint([[(2, 2), (2, 3)]])) == [("gear", ((2, 2), (2, 3)))]
    assert _read(*_paint([[(2, 2)], [(2, 3)]])) == [("gear", ((2, 2),)), ("gear", ((2, 3),))]


def _even_dip(sd=2.5):
    """The dip as likely on a cut as inside one piece (bisection on the log likelihood ratio)."""
    lo, hi = 0.0, 100.0
    for _ in range(60):
        mid = (lo + hi) / 2
        cut, joined = seam_log_likelihoods(mid, sd)
        lo, hi = (mid, hi) if joined > cut else (lo, mid)
    return lo


def test_equal_tilings_give_a_posterior_of_at_most_one_half():
    # a seam exactly as likely as not: one domino or two singles explain it equally
    split = split_group({(0, 0), (0, 1)}, {((0, 0), (0, 1)): _even_dip()}, catalogue_shapes(PROFILE),
                        joined_sd_bgr=2.5)
    assert split.posterior <= 0.5 + 1e-6 and split.runner_up is not None


def test_untileable_group_is_flagged():
    blankets_only = catalogue_shapes({"pieces": {"blanket": PROFILE["pieces"]["blanket"]}})
    split = split_group({(0, 0), (0, 1), (1, 1)}, {}, blankets_only)
    assert not split.exact and split.posterior == 0.0


def test_catalogue_rotations():
    shapes = catalogue_shapes(PROFILE)
    assert ("screen", ((0, 0), (1, 0), (2, 0))) in shapes and ("screen", ((0, 0), (0, 1), (0, 2))) in shapes
    assert sum(1 for k, _ in shapes if k == "blanket") == 1


def test_pattern_placements_give_the_screen_rotation():
    model = PatternModel.for_profile(PROFILE)
    assert [k for k, _ in model.placements("screen", [(3, 4), (3, 5), (3, 6)])] == [0, 2]  # N or S
    assert [k for k, _ in model.placements("screen", [(3, 4), (4, 4), (5, 4)])] == [1, 3]  # E or W
    assert model.placements("screen", [(0, 0), (0, 1)]) == []
    assert long_axis_facings([(3, 4), (4, 4), (5, 4)]) == ("E", "W")
    assert screen_cells((5, 5), "N", [(0, 0), (0, 1), (0, 2)]) == [(5, 4), (5, 5), (5, 6)]


@pytest.mark.parametrize("label", ["piece", "screen/red/Q", "resource/gold", "meeple", "castle/red/2"])
def test_unknown_label(label):
    with pytest.raises(BadInputError) as e:
        parse_label(label)
    assert e.value.code == "unknown-label"


@pytest.mark.parametrize("dip", [0.3, 1.0, 6.0, 10.6])
def test_a_faint_dip_alone_never_decides_for_sure(dip):
    # pieces pressed together show no cut, and double JPEG made a 10.6-level dip inside one 2-cell
    # gear: with nothing but the dip to go by, the split is doubtful either way
    split = split_group({(0, 0), (0, 1)}, {((0, 0), (0, 1)): dip}, catalogue_shapes(PROFILE), joined_sd_bgr=2.5)
    assert split.posterior < 0.97


@pytest.mark.parametrize("dip, sure", [(40.0, 0.99), (120.0, 0.999)])
def test_a_clear_cut_decides(dip, sure):
    split = split_group({(0, 0), (0, 1)}, {((0, 0), (0, 1)): dip}, catalogue_shapes(PROFILE), joined_sd_bgr=2.5)
    assert len(split.pieces) == 2 and split.posterior > sure


def _two_cell_mask(right_top_mm: float, right_bottom_mm: float):
    """Colour mask (H, W, 1) and owner of cells (1, 1) and (1, 2) of one player: the left cell's
    outline on the grid (inset 0.5 mm), the right cell's top and bottom edges moved down by the given mm."""
    h, w = int(100 * PPM), int(140 * PPM)
    mask = np.zeros((h, w, 1), np.uint8)
    ys, xs = (np.arange(h) + 0.5) / PPM, (np.arange(w) + 0.5) / PPM
    left = (xs >= 30.5) & (xs < 50.0)
    right = (xs >= 50.0) & (xs < 69.5)
    mask[np.ix_((ys >= 30.5) & (ys < 49.5), left)] = 255
    mask[np.ix_((ys >= 30.5 + right_top_mm) & (ys < 49.5 + right_bottom_mm), right)] = 255
    owner = -np.ones((GRID.rows, GRID.cols), int)
    owner[1, 1] = owner[1, 2] = 0
    return mask, owner


@pytest.mark.parametrize("top, bottom, want", [(2.0, 2.0, 2.0), (-2.0, 2.0, 0.0), (2.0, -2.0, 0.0), (0.0, 0.0, 0.0)])
def test_a_jog_is_a_piece_slid_against_the_other(top, bottom, want):
    # a second piece slid by 2 mm moves both its sides the same way; a cell whose sides stray each
    # its own way (an edge located badly, a token against one side) is no slid piece
    mask, owner = _two_cell_mask(top, bottom)
    jogs = edge_jogs(mask, owner, GRID, PPM)
    assert jogs[((1, 1), (1, 2))] == pytest.approx(want, abs=0.2)


def test_a_blanket_cell_whose_print_square_fills_much_of_its_ring_stays_covered():
    # a blanket's pale print square, 16 mm of a 20 mm cell (a bumped blanket, a blurred print),
    # leaves under a third of the cell's ring in the player's colour: covered (a meeple's colour
    # stays under 0.28 of it in 99.9 % of the development tables' cells)
    img, labels = _paint([[(1, 1), (1, 2), (2, 1), (2, 2)]])
    x0 = y0 = (10 + 20 * 2 + 1.5) * PPM
    labels[int(y0):int(y0 + 16.0 * PPM), int(x0):int(x0 + 16.0 * PPM)] = 255
    cells = CellBlocks(GRID, PPM)
    shares = cover_shares(cells.blocks(player_masks(labels, 1)).reshape(-1, 6 * cells.k, 1), cells)
    owner, p = cover_posteriors(shares)
    assert COVER.covered_share <= shares[2, 2, 0] < 0.33
    assert owner[2, 2] == 0 and p[2, 2] > 0.5
    assert _read(img, labels) == [("blanket", ((1, 1), (1, 2), (2, 1), (2, 2)))]


def test_a_meeple_sized_patch_of_a_players_colour_is_no_cover():
    labels = np.full((int(100 * PPM), int(140 * PPM)), 255, np.uint8)
    cx, cy = (10 + 20 * 3 + 10) * PPM, (10 + 20 * 1 + 10) * PPM
    half = 6.5 * PPM  # a 13 mm figure seen from above
    labels[int(cy - half):int(cy + half), int(cx - half):int(cx + half)] = 0
    cells = CellBlocks(GRID, PPM)
    owner, _ = cover_posteriors(cover_shares(cells.blocks(player_masks(labels, 1)).reshape(-1, 6 * cells.k, 1), cells))
    assert owner[1, 3] == -1
