"""Splitting touching same-colour cells into pieces, on synthetic label maps."""

import numpy as np
import pytest

from beachscore.errors import BadInputError
from vision.plazing import parse_label
from vision.plazing_cells import Grid, cover_posteriors, cover_shares
from vision.plazing_pieces import catalogue_shapes, groups, seam_shares, split_group

PROFILE = {"pieces": {"screen": [[[0, 0], [0, 1], [0, 2]]], "blanket": [[[0, 0], [0, 1], [1, 0], [1, 1]]],
                      "gear": [[[0, 0]], [[0, 0], [0, 1]]]}}
GRID = Grid((10.0, 10.0), 20.0, 4, 6)
PPM = 2.5


def _paint(pieces, offset_mm=(0.0, 0.0), gap_mm=1.0):
    """Label map (uint8, player 0 = pieces, 255 = sand) with pieces inset by gap_mm/2 and shifted."""
    h, w = int(100 * PPM), int(140 * PPM)
    lab = np.full((h, w), 255, np.uint8)
    for cells in pieces:
        r0, r1 = min(r for r, _ in cells), max(r for r, _ in cells) + 1
        c0, c1 = min(c for _, c in cells), max(c for _, c in cells) + 1
        x0 = (10 + 20 * c0 + gap_mm / 2 + offset_mm[0]) * PPM
        x1 = (10 + 20 * c1 - gap_mm / 2 + offset_mm[0]) * PPM
        y0 = (10 + 20 * r0 + gap_mm / 2 + offset_mm[1]) * PPM
        y1 = (10 + 20 * r1 - gap_mm / 2 + offset_mm[1]) * PPM
        lab[int(round(y0)):int(round(y1)), int(round(x0)):int(round(x1))] = 0
    return lab


def _read(labels):
    owner, _ = cover_posteriors(cover_shares(labels, 1, GRID, PPM))
    seams = seam_shares(labels, owner, GRID, PPM)
    out = []
    for _, cells in groups(owner):
        split = split_group(cells, seams, catalogue_shapes(PROFILE))
        out += [(k, tuple(c)) for k, c in split.pieces]
    return sorted(out)


@pytest.mark.parametrize("offset", [(0.0, 0.0), (2.5, -2.0)])
def test_touching_same_colour_pieces_split_at_seams(offset):
    pieces = [[(0, 0), (0, 1), (0, 2)], [(1, 0), (1, 1), (2, 0), (2, 1)], [(1, 2)], [(0, 3), (1, 3)]]
    got = _read(_paint(pieces, offset))
    want = sorted([("screen", ((0, 0), (0, 1), (0, 2))), ("blanket", ((1, 0), (1, 1), (2, 0), (2, 1))),
                   ("gear", ((1, 2),)), ("gear", ((0, 3), (1, 3)))])
    assert got == want


def test_no_seam_means_one_piece():
    assert _read(_paint([[(2, 2), (2, 3)]])) == [("gear", ((2, 2), (2, 3)))]
    assert _read(_paint([[(2, 2)], [(2, 3)]])) == [("gear", ((2, 2),)), ("gear", ((2, 3),))]


def test_untileable_group_is_flagged():
    split = split_group({(0, 0), (0, 1), (1, 1)}, {}, catalogue_shapes({"pieces": {"blanket": PROFILE["pieces"]["blanket"]}}))
    assert not split.exact and split.posterior == 0.0


def test_catalogue_rotations():
    shapes = catalogue_shapes(PROFILE)
    assert ("screen", ((0, 0), (1, 0), (2, 0))) in shapes and ("screen", ((0, 0), (0, 1), (0, 2))) in shapes
    assert sum(1 for k, _ in shapes if k == "blanket") == 1


@pytest.mark.parametrize("label", ["piece", "screen/red/Q", "resource/gold", "meeple", "castle/red/2"])
def test_unknown_label(label):
    with pytest.raises(BadInputError) as e:
        parse_label(label)
    assert e.value.code == "unknown-label"
