"""The Seashells towel's calibration sample check (``vision.seashells.reader._check_samples``).

Features are the towel contrast features (:data:`vision.mats.ring_contrast.FEATURE_NAMES`) the
reader measured on a development table's calibration shot (seed 20182, set-up 0): vivid shells,
one faint white shell, empty cells, and an empty cell whose ring is a little less even than the
others'. The shell class is broadened toward the empty cells, so it "explains" every empty cell.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.errors import BadInputError
from vision.seashells.reader import _check_samples

SHELLS = [[3.57, 3.82, 1.07], [3.63, 3.94, 1.37], [3.36, 3.50, 0.43], [3.34, 3.90, 1.82],
          [1.35, 1.73, -0.17], [3.45, 4.07, 1.43], [2.92, 3.40, 1.75]]
EMPTIES = [[0.68, 0.48, -1.17], [0.00, 0.00, -0.65], [0.50, 0.25, -1.10], [0.00, 0.00, -0.61],
           [0.64, 0.51, -1.14], [0.59, 0.00, -1.07]]
UNEVEN_EMPTY = [0.00, 0.00, -0.05]


def _check(extra_label: str, extra: list[float]) -> list[dict]:
    feats = np.array(SHELLS + EMPTIES + [extra])
    labels = ["shell"] * len(SHELLS) + ["empty"] * len(EMPTIES) + [extra_label]
    where = [(16.0 * k, 8.0) for k in range(len(labels))]
    return _check_samples(feats, labels, where, "towel")


def test_an_empty_cell_a_little_unlike_the_others_is_kept_and_named():
    # close to the broad shell class, as every empty cell is, and a little unlike the other empties
    assert _check("empty", UNEVEN_EMPTY) == [{"label": "empty", "board_mm": [208.0, 8.0], "looks_like": "shell"}]


def test_a_faint_white_shell_labelled_empty_is_named_not_refused():
    # as near the other empties as a right empty sample may lie (an empty cell of a pale column): named
    assert _check("empty", [1.3, 1.7, -0.2]) == [{"label": "empty", "board_mm": [208.0, 8.0], "looks_like": "shell"}]


def test_plain_samples_name_nothing():
    assert _check("empty", [0.3, 0.2, -0.9]) == []


@pytest.mark.parametrize("label, feats", [("shell", [0.4, 0.2, -0.9]),       # looks just like an empty cell
                                          ("empty", [3.5, 3.9, 1.4])])     # a vivid shell labelled empty
def test_a_mislabelled_towel_sample_is_refused(label, feats):
    with pytest.raises(BadInputError) as e:
        _check(label, feats)
    assert e.value.code == "bad-sample" and f"{label!r} at 208,8 mm" in str(e.value)

