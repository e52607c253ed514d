"""The towel's empty class is learned over a pixel of the calibration's registration either way
(vision/seashells/phase.py; docs/tuning.md)."""

import numpy as np

from tests.synthetic.mats import SEASHELLS_PROFILE as PROFILE, scale_homography, seashells_mat
from vision.mats.checks import as_scanned
from vision.mats.config import SEASHELLS as CFG
from vision.board.geometry import rectify
from vision.mats.ring_contrast import GaussianClasses, board_lab
from vision.seashells.phase import SHIFT_PX, SHIFTS_PX, phase_pooled_towel, shifted_features, towel_contrast
from vision.seashells.reader import DECODE_REDUCE, towel_geometry

SHELLS = [(0, 0, 0, 0), (1, 3, 0, 0), (2, 6, 0, 0), (4, 5, 0, 0)]
EMPTIES = [(0, 2), (1, 1), (3, 3), (5, 4), (6, 6)]


def test_the_shifts_are_a_pixel_either_way_without_the_shot_itself():
    assert len(SHIFTS_PX) == 8 and (0.0, 0.0) not in SHIFTS_PX
    assert {abs(v) for s in SHIFTS_PX for v in s} == {0.0, SHIFT_PX}


def test_the_empty_class_keeps_its_mean_and_spans_the_shifted_samples_and_shells_are_as_shot():
    image, H = as_scanned(seashells_mat(SHELLS, [], seed=1), scale_homography(), DECODE_REDUCE)
    boxes, _, cols = towel_geometry(PROFILE)
    idx = [r * len(cols) + c for r, c, _, _ in SHELLS] + [r * len(cols) + c for r, c in EMPTIES]
    labels = ["shell"] * len(SHELLS) + ["empty"] * len(EMPTIES)
    shifted = shifted_features(image, H, PROFILE["board_mm"], boxes, idx[len(SHELLS):])
    assert shifted.shape == (len(SHIFTS_PX) * len(EMPTIES), 3)
    lab = board_lab(rectify(image, H, PROFILE["board_mm"], CFG.px_per_mm))
    feats = np.asarray(towel_contrast(lab, boxes).features, np.float64)[idx]
    pooled = phase_pooled_towel(image, H, PROFILE["board_mm"], boxes, idx, labels, feats)
    alone = GaussianClasses.fit(feats, labels, CFG.towel_var_floor)
    e = pooled.classes.index("empty")
    np.testing.assert_allclose(pooled.means, alone.means)
    np.testing.assert_allclose(pooled.variances[e], np.maximum(alone.variances[e],
                                                               ((shifted - alone.means[e]) ** 2).mean(axis=0)))
    assert (pooled.variances[e] >= alone.variances[e]).all()
