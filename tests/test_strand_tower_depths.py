"""scripts/strand_tower_depths.py: the candidate minima of the tower counter, their depth and inset,
and the agreement of a counting rule with value + 1."""

import numpy as np

from tests.script_module import load_script


def _castle() -> tuple[np.ndarray, np.ndarray]:
    """A 31 × 31 grey crop: a disc of radius 8 at grey 150 on sand at 200, a deep spot (grey 90)
    at its centre and a one-pixel speck (grey 146) half-way out, which the blur flattens."""
    yy, xx = np.mgrid[:31, :31]
    core = (yy - 15) ** 2 + (xx - 15) ** 2 <= 64
    g = np.where(core, 150, 200).astype(np.uint8)
    g[14:17, 14:17] = 90
    g[15, 20] = 146
    return g, core


def test_each_minimum_has_its_depth_below_the_median_and_its_inset():
    mod = load_script("strand_tower_depths")
    g, core = _castle()
    depths, median = mod.minima_depths(g, core)
    assert abs(median - 150.0) < 3.0                # the blurred disc's median grey
    deep = max(depths, key=lambda d: d[0])
    assert deep[0] > 30 and deep[1] >= 7           # the centre spot: deep, well inside the disc
    assert all(d[1] >= 0 for d in depths)


def test_the_reader_counts_only_the_minima_deeper_than_its_depth():
    mod = load_script("strand_tower_depths")
    g, core = _castle()
    depths, median = mod.minima_depths(g, core)
    from vision.strand_unter.castle_cues import count_towers
    from vision.strand_unter.config import CASTLES
    assert count_towers(g, core) == sum(d > CASTLES.tower_depth for d, _ in depths)


def test_agreement_counts_value_plus_one():
    mod = load_script("strand_tower_depths")
    rows = [{"true": 1, "n": 2}, {"true": 1, "n": 3}, {"true": 2, "n": 1}, {"true": 0, "n": 1}]
    agree, many, few = mod.agreement(rows, lambda r: r["n"])
    assert (agree, many, few) == (0.5, 0.25, 0.25)
