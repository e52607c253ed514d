"""Two one-square gears side by side against one two-square gear: the print pitch across the edge
(:func:`vision.plazing.seams.print_offsets`, :func:`~vision.plazing.seams.print_log_ratios`)."""

import dataclasses

import cv2
import numpy as np

from vision.plazing.cells import Grid
from vision.plazing.seam_config import SEAM
from vision.plazing.pieces import catalogue_shapes, split_group
from vision.plazing.seams import _otsu, _window_medians, print_log_ratios, print_offsets, print_pitch, print_residuals

PROFILE = {"pieces": {"screen": [[[0, 0], [0, 1], [0, 2]]], "blanket": [[[0, 0], [0, 1], [1, 0], [1, 1]]],
                      "gear": [[[0, 0]], [[0, 0], [0, 1]]]}}
GRID = Grid((10.0, 10.0), 20.0, 4, 6)
PPM = 1.5


SAND, RED, PALE = (150, 205, 240), (60, 75, 225), (200, 210, 235)
YELLOW, CREAM = (40, 180, 225), (170, 220, 235)


def _board(dots, speck=None, piece=RED, ink=PALE):
    """A BGR board (H, W, 3) whose rows 1–2 of the grid are covered by one player's colour, with a
    4 mm dot of ``ink`` at each (x, y) mm in ``dots`` and a one-pixel speck of it at ``speck``."""
    h, w = int(100 * PPM), int(140 * PPM)
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = SAND
    ys, xs = (np.arange(h) + 0.5) / PPM, (np.arange(w) + 0.5) / PPM
    img[np.ix_((ys >= 30) & (ys < 70), (xs >= 10) & (xs < 130))] = piece
    for x, y in dots:
        img[((ys[:, None] - y) ** 2 + (xs[None] - x) ** 2) <= 16.0] = ink
    if speck is not None:
        img[int(speck[1] * PPM), int(speck[0] * PPM)] = ink
    return img


def _owner(cells):
    owner = np.full((GRID.rows, GRID.cols), -1)
    for r, c in cells:
        owner[r, c] = 0
    return owner


def test_a_print_is_found_where_it_lies_and_the_offset_is_split_along_and_across():
    # cells (1, 1) and (1, 2): centres at (40, 40) and (60, 40) mm; the second print 1.2 mm further
    # on and 0.9 mm lower than one cell's pitch
    for piece, ink in ((RED, PALE), (YELLOW, CREAM)):      # a pale print on a pale piece too
        off = print_offsets(_board([(40.0, 40.0), (61.2, 40.9)], piece=piece, ink=ink), _owner([(1, 1), (1, 2)]),
                            GRID, PPM)
        (along, across), = off.values()
        assert list(off) == [((1, 1), (1, 2))]
        assert abs(along - 1.2) < 0.25 and abs(across - 0.9) < 0.25


def test_a_speck_beside_the_print_is_no_second_print_but_a_missing_print_gives_nothing():
    off = print_offsets(_board([(40.0, 40.0), (60.0, 40.0)], speck=(45.0, 45.0)), _owner([(1, 1), (1, 2)]), GRID, PPM)
    assert len(off) == 1 and abs(off[((1, 1), (1, 2))][0]) < 0.25
    assert print_offsets(_board([(40.0, 40.0)]), _owner([(1, 1), (1, 2)]), GRID, PPM) == {}
    # only the edges between the cells asked for (the reader asks for gear-like cells)
    board, owner = _board([(40.0, 40.0), (60.0, 40.0), (80.0, 40.0)]), _owner([(1, 1), (1, 2), (1, 3)])
    assert set(print_offsets(board, owner, GRID, PPM)) == {((1, 1), (1, 2)), ((1, 2), (1, 3))}
    assert set(print_offsets(board, owner, GRID, PPM, cells={(1, 2), (1, 3)})) == {((1, 2), (1, 3))}


def test_the_scene_pitch_is_what_most_edges_agree_on():
    assert abs(print_pitch([-0.6, -0.62, -0.58, 1.4]) - (-0.6)) < 0.03
    assert print_pitch([-0.6]) is None                       # one edge: no pitch to judge it against
    assert print_pitch([-0.6, 0.9, 2.0, -1.8]) is None        # no majority
    res = print_residuals({1: (-0.6, 0.0), 2: (-0.62, 0.1), 3: (-1.2, 0.0)})
    assert abs(res[3][0] - (-0.59)) < 0.03 and res[2][1] == 0.1


def test_an_edge_off_the_scenes_pitch_speaks_for_a_cut_one_on_it_for_one_piece():
    offsets = {1: (-0.61, 0.02), 2: (-0.60, -0.03), 3: (-0.62, 0.0), 4: (-1.19, -0.01)}   # 20333 set-up 2 scene 0
    lr = print_log_ratios(offsets)
    assert all(lr[k] > 2.0 for k in (1, 2, 3))
    assert lr[4] < -1.5
    assert print_log_ratios({1: (-0.6, 1.2)})[1] < -3.0     # alone, judged across only: a step sideways
    assert print_log_ratios({1: (-2.0, 0.0)})[1] > 1.0       # alone, no pitch: along says nothing


def test_a_print_measured_wrong_never_proves_a_cut_by_more_than_the_outlier_share():
    cfg = dataclasses.replace(SEAM, print_outlier_share=0.01)
    lr = print_log_ratios({1: (-0.6, 0.0), 2: (-0.6, 0.0), 3: (40.0, 40.0)}, cfg)
    assert lr[3] >= np.log(0.01) - 1e-9


def test_the_pitch_evidence_splits_two_gears_the_seam_joins_and_only_for_gears():
    shapes = catalogue_shapes(PROFILE)
    edge = ((0, 0), (0, 1))
    faint = {edge: 1.0}            # no line between them: the seam says "one piece"
    joined = split_group({(0, 0), (0, 1)}, faint, shapes, joined_sd_bgr=2.5)
    assert len(joined.pieces) == 1
    cut = split_group({(0, 0), (0, 1)}, faint, shapes, joined_sd_bgr=2.5, prints={edge: -6.0},
                      print_kinds=frozenset({"gear"}))
    assert len(cut.pieces) == 2 and cut.posterior > 0.9
    # a kind whose cells do not share one print is not judged by it
    other = split_group({(0, 0), (0, 1)}, faint, shapes, joined_sd_bgr=2.5, prints={edge: -6.0},
                        print_kinds=frozenset({"blanket"}))
    assert len(other.pieces) == 1 and abs(other.posterior - joined.posterior) < 1e-9


def test_the_batched_median_and_otsu_are_numpys_and_opencvs():
    rng = np.random.default_rng(7)
    for m in (441, 440):                                    # odd and even counts
        wins = rng.integers(0, 256, (5, m, 3), dtype=np.uint8)
        wins[0] = 17                                        # a flat window
        assert np.array_equal(_window_medians(wins)[:, 0], np.median(wins, axis=1).astype(np.float32))
    values = np.concatenate([rng.normal(10, 3, (6, 300)), rng.normal(60, 5, (6, 141))], axis=1)
    values = np.clip(values, 0, 255).astype(np.uint8)
    values[1] = rng.integers(0, 256, 441)
    for row, t in zip(values, _otsu(values)):
        assert t == cv2.threshold(row.reshape(21, 21), 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[0]


def test_a_tie_between_two_clusters_gives_no_pitch():
    # two two-square gears side by side (a 2×2 block) and no other measured gear edge: their two
    # joined edges agree (the pitch) and so do their two cut edges (both between the same two rigid
    # pieces). 2 against 2 is no majority, whichever order the edges come in.
    assert print_pitch([-0.6, -0.6, 0.9, 0.9]) is None
    assert print_pitch([0.9, 0.9, -0.6, -0.6]) is None
    offsets = {((0, 3), (0, 4)): (0.98, 0.4), ((1, 3), (1, 4)): (1.02, 0.4),   # cuts: the same two pieces
               ((0, 3), (1, 3)): (0.05, 0.0), ((0, 4), (1, 4)): (0.08, 0.01)}   # joined: inside each gear
    lr = print_log_ratios(offsets)
    assert lr[((0, 3), (1, 3))] > 0 and lr[((0, 4), (1, 4))] > 0, lr


def test_end_to_end_two_upright_gears_side_by_side_are_not_read_as_four_singles(tmp_path):
    # end to end at the synthetic board's normal resolution (2.9 px/mm, JPEG 92): two upright yellow
    # two-square gears side by side, put down by hand (±0.5 mm, ±0.6 mm off the grid), the scene's
    # only gear edges; with the cuts' offset taken for the pitch they read as four one-square gears
    # at confidence 0.99.
    import json

    from beachscore import pipeline
    from calibration import store
    from tests.synthetic.plazing import Piece as P
    from tests.synthetic.plazing import calibration_samples, scene
    from tests.vision.test_plazing_synthetic import CALIB_PIECES, CALIB_TOKENS, PROFILE, SAND, _key

    sc = scene(PROFILE, CALIB_PIECES, CALIB_TOKENS, spots=[(1, 1), (3, 4), (5, 7), (3, 8), (4, 2)], seed=1)
    cv2.imwrite(str(tmp_path / "calib.jpg"), sc.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (tmp_path / "profile.json").write_text(json.dumps(PROFILE))
    doc = {"game": "plazing", "profile": "profile.json", "image": "calib.jpg", "corners_px": sc.corners_px.tolist(),
           "samples": calibration_samples(PROFILE, CALIB_PIECES, CALIB_TOKENS, sand=[(2, 5)])}
    (tmp_path / "calibration.json").write_text(json.dumps(doc))
    pipeline.calibrate(str(tmp_path / "calibration.json"), str(tmp_path / "cal"))
    cal = store.load(str(tmp_path / "cal"))
    pieces = [P("yellow", "gear", [(0, 3), (1, 3)], offset_mm=(-0.5, 0.6)),
              P("yellow", "gear", [(0, 4), (1, 4)], offset_mm=(0.5, -0.6)),
              P("red", "screen", [(3, 0), (3, 1), (3, 2)], "N"), P("red", "blanket", [(4, 6), (4, 7), (5, 6), (5, 7)])]
    seed = 0
    s = scene(PROFILE, pieces, [], seed=seed, shift_mm=(0.0, 0.8))
    path = str(tmp_path / "scene.jpg")
    cv2.imwrite(path, s.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    res = pipeline.scan_file(path, cal, {"terrain": SAND})
    got, want = {_key(p) for p in res.state["pieces"]}, {_key(p) for p in s.state["pieces"]}
    assert got == want, (f"read {sorted(got - want)} for {sorted(want - got)} "
                         f"(shown confidence {pipeline.shown_confidence(res.confidence):.2f})")
