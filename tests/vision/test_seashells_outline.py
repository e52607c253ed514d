"""A pale piece's outline against a pale towel (vision.seashells.outline).

The outline figures are those measured on a rendered development table (seashells-720-20214
setup7, 1280×720, ``scripts/seashells_pale_cells.py``): its empty samples and its white column's
calibrated shell; a white shell with a clear outline there measures 3.6–5.1, a bare white cell −0.5.
"""

import numpy as np

from vision.mats.config import SEASHELLS as CFG
from vision.seashells.outline import learn_outline, outline_contrast, outline_log_ratio, with_outline

N_COLS, WHITE, CELL_MM = 7, 5, 32.0
#: column_shells as learned: white's shells barely differ from the towel (pale), the others vivid.
COLUMN_SHELLS = [[c, 1.5 if c == WHITE else 3.5, 3.8, 1.0] for c in range(N_COLS)]
#: (cell, label, outline contrast) of the calibration's towel samples.
SAMPLES = [(0, "shell", 1.83), (2, "empty", -0.53), (3, "empty", -0.36), (4, "empty", -0.35), (7, "empty", -0.35),
           (8, "empty", -0.54), (10, "shell", 2.01), (22, "empty", -0.48), (28, "empty", -0.41),
           (33, "shell", -0.28), (36, "shell", 6.07)]


def model():
    cells, labels, values = zip(*SAMPLES)
    return learn_outline(np.array(values), labels, cells, COLUMN_SHELLS, N_COLS)


def board(draw) -> tuple[np.ndarray, np.ndarray]:
    """A plain white towel row of N_COLS cells at the reader's resolution, ``draw(L, u0, v0, side_px)``
    marking cell 1; returns (Lab float32 (H, W, 3), boxes (N_COLS, 4) mm)."""
    ppm, side = CFG.px_per_mm, int(round(CELL_MM * CFG.px_per_mm))
    lab = np.zeros((side, side * N_COLS, 3), np.float32)
    lab[..., 0] = 240.0 + np.random.default_rng(0).normal(0, 0.5, lab.shape[:2])
    lab[..., 1:] = 128.0
    draw(lab[..., 0], side, 0, side)
    boxes = np.array([[c * CELL_MM, 0.0, (c + 1) * CELL_MM, CELL_MM] for c in range(N_COLS)])
    assert abs(boxes[1, 0] * ppm - side) < 1
    return lab, boxes


def test_a_thin_pale_arm_shows_and_bare_towel_or_smooth_light_does_not():
    def arm(L, u0, v0, side):          # a 5 mm white arm as light as the towel, its shaded rim 6 L darker
        c = side // 2
        L[v0 + 8:v0 + side - 8, u0 + c - 3:u0 + c + 3] -= 6.0
        L[v0 + 8:v0 + side - 8, u0 + c - 2:u0 + c + 2] += 6.0

    def light(L, u0, v0, side):        # a smooth brightening across the cell: light, not a piece
        L[v0:v0 + side, u0:u0 + side] += np.linspace(0, 6, side)[None, :]

    values = outline_contrast(*board(arm))
    assert values.shape == (N_COLS,)
    assert values[1] > 0.5 > 0.1 > np.abs(np.delete(values, 1)).max()
    assert outline_contrast(*board(light))[1] < 0.1


def test_learned_from_the_empty_samples_and_the_pale_columns_shells_only():
    m = model()
    empties = [v for _, lab, v in SAMPLES if lab == "empty"]
    assert np.isclose(m["empty"][0], np.mean(empties), atol=1e-3)
    assert m["empty"][1] >= CFG.outline_var_floor
    assert m["shells"] == [[WHITE, -0.28]]
    assert learn_outline([1.0, -0.5], ["shell", "empty"], [0, 1], COLUMN_SHELLS, N_COLS) is None


def test_evidence_is_one_sided_and_only_on_pale_columns():
    m = model()
    row = np.full(N_COLS, 5.0)
    ratio = outline_log_ratio(row, m, N_COLS)
    assert ratio[WHITE] > 0 and np.all(np.delete(ratio, WHITE) == 0)
    at_shell = outline_log_ratio(np.full(N_COLS, -0.28), m, N_COLS)[WHITE]
    assert ratio[WHITE] > at_shell                                # more outline than the shell: surer
    bare = outline_log_ratio(np.full(N_COLS, m["empty"][0]), m, N_COLS)[WHITE]
    plainer = outline_log_ratio(np.full(N_COLS, -3.0), m, N_COLS)[WHITE]
    assert bare < 0 and np.isclose(plainer, bare)                  # plainer than an empty cell: as empty
    assert np.all(outline_log_ratio(row, None, N_COLS) == 0)


def test_a_faint_cell_is_decided_by_its_outline():
    m = model()
    p_colour = np.full(N_COLS, 0.3)            # the white column's hard-to-read band
    with_arm = with_outline(p_colour, outline_log_ratio(np.full(N_COLS, 4.0), m, N_COLS))
    bare = with_outline(p_colour, outline_log_ratio(np.full(N_COLS, -0.5), m, N_COLS))
    assert with_arm[WHITE] > CFG.unsure_cell_conf and bare[WHITE] < 0.25
    assert np.allclose(np.delete(with_arm, WHITE), 0.3) and np.allclose(with_outline(p_colour, np.zeros(N_COLS)),
                                                                       p_colour)
