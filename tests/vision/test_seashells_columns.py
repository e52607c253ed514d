"""Towel cells judged against their own colour column's calibrated shells (vision.seashells.columns).

The features are those measured on a rendered development table (seashells-rel-20107 setup7,
1280×720): the calibration's samples, and a white starfish on the white column that the one
all-column shell class read as empty at p(shell) 0.05.
"""

import numpy as np
import pytest

from vision.errors import UnreadableBoardError
from vision.mats.checks import blown_out_share
from vision.mats.checks import ring_shift
from vision.mats.config import SEASHELLS as CFG
from vision.mats.ring_contrast import GaussianClasses
from vision.seashells.columns import (column_posterior, column_shell_features, glared_cells, glared_shot_cells,
                                      level_columns, pale_columns, shell_spill)

N_COLS = 7
WHITE = 5
#: (column, label, features) of the calibration's towel samples.
SAMPLES = [(0, "shell", (3.35, 3.59, 0.68)), (3, "empty", (0.37, 0.0, -0.51)), (4, "empty", (0.0, 0.0, -0.16)),
           (2, "empty", (0.25, 0.6, -0.14)), (3, "shell", (3.41, 3.72, 1.57)), (5, "empty", (0.0, 0.0, -1.0)),
           (6, "shell", (3.33, 3.51, 0.74)), (0, "empty", (0.65, 0.56, -0.53)), (2, "shell", (3.14, 3.7, 1.54)),
           (1, "empty", (0.88, 0.92, -1.03)), (5, "shell", (1.05, 1.37, -0.26)), (1, "shell", (3.24, 3.86, 1.37)),
           (4, "shell", (2.72, 3.17, 1.56))]
FAINT_STARFISH = (0.70, 1.03, -0.10)


def classes():
    cols, labels, feats = zip(*SAMPLES)
    towel = GaussianClasses.fit(np.array(feats), labels, CFG.towel_var_floor).broadened("shell", toward="empty")
    return towel, column_shell_features(np.array(feats), labels, np.array(cols))


def cells(white_cell, other_cell):
    """One towel row: ``white_cell`` in the white column, ``other_cell`` in every other column."""
    feats = np.array([white_cell if c == WHITE else other_cell for c in range(N_COLS)], np.float64)
    return feats


def test_column_shell_features_are_each_columns_shells():
    _, column_shells = classes()
    assert [row[0] for row in column_shells] == [0, 1, 2, 3, 4, 5, 6]
    assert np.allclose(column_shells[WHITE][1:], (1.05, 1.37, -0.26))


def test_faint_white_shell_on_white_column_is_a_shell():
    towel, column_shells = classes()
    feats = towel.clip_below(cells(FAINT_STARFISH, (0.0, 0.0, -1.0)), "empty")
    assert towel.posterior(feats)[WHITE, towel.classes.index("shell")] < 0.1   # one class for all columns: missed
    p = column_posterior(towel, feats, column_shells, N_COLS)
    assert p[WHITE] > 0.5
    assert (p[np.arange(N_COLS) != WHITE] < 0.05).all()


def test_the_same_faint_contrast_on_a_vivid_column_stays_empty():
    # where the calibrated shells are vivid, that little contrast is no shell
    towel, column_shells = classes()
    feats = towel.clip_below(cells((0.0, 0.0, -1.0), FAINT_STARFISH), "empty")
    p = column_posterior(towel, feats, column_shells, N_COLS)
    assert (p[np.arange(N_COLS) != WHITE] < 0.5).all() and p[WHITE] < 0.1


def test_empty_white_cell_is_empty_and_columns_without_a_calibrated_shell_keep_the_common_class():
    towel, column_shells = classes()
    feats = towel.clip_below(cells((0.0, 0.0, -1.0), (1.0, 1.2, 0.2)), "empty")
    common = towel.posterior(feats)[:, towel.classes.index("shell")]
    p = column_posterior(towel, feats, [row for row in column_shells if row[0] != 2], N_COLS)
    assert p[WHITE] < 0.1
    assert p[2] == common[2] and p[0] != common[0]
    assert np.array_equal(column_posterior(towel, feats, None, N_COLS), common)


def test_pale_columns_are_those_whose_shells_barely_differ_from_their_towel():
    _, column_shells = classes()
    pale = pale_columns(column_shells, N_COLS)
    assert pale.tolist() == [c == WHITE for c in range(N_COLS)]
    assert pale_columns([row for row in column_shells if row[0] != 2], N_COLS)[2]   # no calibrated shell: unknown


def test_glare_doubts_empty_cells_of_pale_columns_and_refuses_only_when_nothing_is_left():
    _, column_shells = classes()
    blown = np.zeros(7 * N_COLS)
    blown[[WHITE, WHITE + 7, 0, 1]] = [0.6, 0.3, 0.9, 0.9]        # two white cells, two vivid ones
    occupied = np.zeros(7 * N_COLS, bool)
    occupied[WHITE + 7] = True
    glared = glared_cells(blown, occupied, column_shells, N_COLS)
    assert np.flatnonzero(glared).tolist() == [WHITE]             # the found shell and vivid columns are not doubted
    blown[WHITE::N_COLS][:4] = 1.0                                # most of the white column blown out entirely
    with pytest.raises(UnreadableBoardError) as e:
        glared_cells(blown, occupied, column_shells, N_COLS)
    assert e.value.code == "glare"


def test_the_calibration_shots_glare_is_found_on_pale_columns_only():
    _, column_shells = classes()
    blown = np.zeros(7 * N_COLS)
    blown[[WHITE, WHITE + 7, 0, 2 * 7 + WHITE]] = [0.6, 0.05, 0.9, 0.2]   # two white cells blown out, one barely
    assert glared_shot_cells(blown, column_shells, N_COLS).tolist() == [WHITE, 2 * 7 + WHITE]
    assert glared_shot_cells(np.zeros(7 * N_COLS), column_shells, N_COLS).tolist() == []


def test_blown_out_share_of_cell_cores():
    board = np.full((40, 80, 3), 200, np.uint8)
    board[:, 40:60] = 255                                         # the right cell's core half blown out
    share = blown_out_share(board, [[0, 0, 40, 40], [40, 0, 80, 40]], 1.0, 5.0)
    assert share[0] == 0.0 and share[1] == pytest.approx(15 / 30)


ROWS = 7
VIOLET = 6


def towel_of(column: int, column_cells) -> np.ndarray:
    """Every cell empty (the empty class's mean) but ``column``'s, which take ``column_cells`` row by row."""
    towel, _ = classes()
    feats = np.tile(towel.means[towel.classes.index("empty")], (ROWS * N_COLS, 1))
    feats[column::N_COLS] = column_cells
    return towel.clip_below(feats, "empty")


def test_a_vivid_columns_raised_empty_cells_are_levelled_and_its_shell_kept():
    towel, shells = classes()
    raised = [(1.6, 1.7, -0.8)] * ROWS  # a dim warm lamp: the violet column's empty cells look like faint shells
    raised[2] = (3.33, 3.51, 0.74)
    feats = towel_of(VIOLET, raised)
    assert (column_posterior(towel, feats, shells, N_COLS)[VIOLET::N_COLS] > 0.5).sum() > 1
    levelled = column_posterior(towel, level_columns(towel, feats, shells, N_COLS), shells, N_COLS)
    assert (levelled[VIOLET::N_COLS] > 0.5).tolist() == [i == 2 for i in range(ROWS)]


@pytest.mark.parametrize("column, shell", [(VIOLET, (3.33, 3.51, 0.74)), (VIOLET, (2.6, 2.9, 0.5)),
                                           (WHITE, FAINT_STARFISH)])
def test_a_column_full_of_shells_keeps_them(column, shell):
    towel, shells = classes()
    feats = towel_of(column, [shell] * ROWS)
    levelled = column_posterior(towel, level_columns(towel, feats, shells, N_COLS), shells, N_COLS)
    assert (levelled[column::N_COLS] > 0.5).all()


# a 3-row, 2-column towel: column 0 is blue (its calibrated shell Lab 50, 0, -40), column 1 orange
RING_REF = np.array([[90.0, 0.0, 5.0]] * 6)
SHELLS = [[0, 50.0, 0.0, -40.0], [1, 65.0, 35.0, 55.0]]


def _spill(ring_now, occupied):
    return shell_spill(ring_shift(np.asarray(ring_now), RING_REF), RING_REF, SHELLS, np.asarray(occupied, bool),
                       2).tolist()


def test_a_ring_moved_toward_its_columns_shell_beside_a_shell_is_spilled_into():
    now = RING_REF.copy()
    now[2] += 0.6 * (np.array([50.0, 0.0, -40.0]) - RING_REF[2])    # row 1, blue column: half blue now
    assert _spill(now, [1, 0, 1, 0, 0, 0]) == [False, False, True, False, False, False]


@pytest.mark.parametrize("toward, occupied", [
    ([70.0, 18.0, 20.0], [1, 0, 1, 0, 0, 0]),        # toward skin, not toward the column's blue shells
    ([50.0, 0.0, -40.0], [0, 0, 0, 0, 0, 0]),        # no shell in it, above or below to spill
])
def test_other_ring_changes_are_no_spill(toward, occupied):
    now = RING_REF.copy()
    now[2] += np.array(toward) - RING_REF[2]                         # 31 and 60 ΔE: a ring covered
    assert not any(_spill(now, occupied))


def test_a_shell_spills_into_its_own_ring_when_no_neighbours_ring_changed():
    now = RING_REF.copy()
    now[2] += 0.6 * (np.array([50.0, 0.0, -40.0]) - RING_REF[2])    # row 1, blue column, a big blue shell in it
    assert _spill(now, [0, 0, 1, 0, 0, 0]) == [False, False, True, False, False, False]
    now[3] += np.array([70.0, 18.0, 20.0]) - RING_REF[3]             # its neighbour's ring covered: a hand
    assert not any(_spill(now, [0, 0, 1, 0, 0, 0]))


def test_no_spill_from_a_shell_whose_own_ring_changed_too():
    now = RING_REF.copy()
    skin = np.array([70.0, 18.0, 20.0])
    now[0] = skin                                                    # a hand over the shell above
    now[2] += 0.6 * (np.array([50.0, 0.0, -40.0]) - RING_REF[2])
    assert not any(_spill(now, [1, 0, 1, 0, 0, 0]))
