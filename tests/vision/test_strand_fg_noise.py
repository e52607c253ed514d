"""``scripts/strand_fg_noise.py``: the foreground's noise figures as the reader computes them, and how
a sample crowded with pieces raises them (docs/tuning.md, "Blind batch 25's wrongs")."""


import numpy as np

from vision.strand_unter import colour
from vision.strand_unter.blobs import foreground
from vision.strand_unter.config import READING
from tests.script_module import load_script


def _script():
    return load_script("strand_fg_noise")


def _board(rng, pieces: int, h: int = 120, w: int = 400):
    """An empty sand board and a scan of it with camera noise and ``pieces`` white squares."""
    sand = np.array([200, 245, 250], np.float64)
    empty = np.clip(sand + rng.normal(0, 1.0, (h, w, 3)), 0, 255).astype(np.uint8)
    now = np.clip(empty.astype(np.float64) + rng.normal(0, 1.0, (h, w, 3)), 0, 255)
    for i in range(pieces):
        x = 10 + i * 36
        now[5:115, x:x + 28] = (250, 251, 249)
    return empty, now.astype(np.uint8), colour.change_basis(sand)


def test_noise_figures_match_the_reader():
    mod = _script()
    rng = np.random.default_rng(5)
    empty, now, basis = _board(rng, 3)
    valid = np.ones(empty.shape[:2], bool)
    abs_p, chroma = colour.change_magnitudes(now, empty, basis)
    fig = mod.noise_figures(abs_p, chroma, valid, READING)
    _, noise = foreground(now, empty, basis, valid=valid, cfg=READING)
    assert np.isclose(max(fig["noise_p"], fig["noise_c"]), noise)
    assert fig["n"] == valid[::4, ::4].sum()
    assert fig["t_c"] >= READING.fg_chroma and fig["t_p"] >= READING.fg_brightness
    assert fig["chroma_pct"] == sorted(fig["chroma_pct"])


def test_a_crowded_sample_raises_the_chroma_threshold():
    mod = _script()
    rng = np.random.default_rng(6)
    valid = np.ones((120, 400), bool)
    figs = []
    for pieces in (2, 11):            # a few pieces, and one groove crowded with them
        empty, now, basis = _board(rng, pieces)
        abs_p, chroma = colour.change_magnitudes(now, empty, basis)
        figs.append(mod.noise_figures(abs_p, chroma, valid, READING))
    assert figs[0]["t_c"] == READING.fg_chroma     # bare sand's quartile: the floor holds
    assert figs[1]["noise_c"] >= 2 * figs[0]["noise_c"]
    assert figs[1]["t_c"] > READING.fg_chroma
