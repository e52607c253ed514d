#!/usr/bin/env python3
"""How often a Seashells towel cell read at a given place confidence is wrong (development tables).

    .venv/bin/python scripts/seashells_cell_stats.py FOLDER [FOLDER ...] [--out cells.csv]

Each FOLDER holds ``setupN/`` folders (calibration.json, scene_XX.jpg + truth). Every scene is
scanned as ``beachscore scan`` does; for each towel cell of each read scene the script keeps the
reader's shell posterior (``details["p_shell"]``), its decision, and whether the truth holds a
shell there, then prints, per band of place confidence max(p, 1 − p), the cells and the wrong ones.
The evidence for ``SeashellsConfig.unsure_cell_conf`` (docs/tuning.md). A measurement: it prints.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fit_seashells_confidence as fsc  # noqa: E402

BANDS = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99, 0.999, 1.0001)


def scene_cells(result, truth: dict) -> list[tuple[float, bool, bool, bool]]:
    """(place confidence, read as shell, truly a shell, flagged strange) per towel cell."""
    d = result.reading.details
    rows, cols = d["shapes"], d["colours"]
    want = {tuple(s) for s in truth["state"]["players"][0]["shells"]}
    p = np.asarray(d["p_shell"], float)
    occ = np.asarray(d["occupied"], bool)
    strange = np.asarray(d["strange"], bool)
    out = []
    for k in range(len(p)):
        cell = (rows[k // len(cols)], cols[k % len(cols)])
        out.append((float(max(p[k], 1 - p[k])), bool(occ[k]), cell in want, bool(strange[k])))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    cells = []
    for setup, _, scenes in fsc.calibrated_setups(a.folders):
        for tpath, truth, res in scenes:
            for conf, read, true, strange in scene_cells(res, truth):
                cells.append((conf, read, true, strange, f"{setup}/{os.path.basename(tpath)[:8]}"))
        print(f"{setup}: {len(cells)} cells so far", flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write("conf,read,true,strange,scene\n")
            for c in cells:
                f.write(",".join(map(str, c)) + "\n")
    conf = np.array([c[0] for c in cells])
    wrong = np.array([c[1] != c[2] for c in cells])
    for lo, hi in zip(BANDS[:-1], BANDS[1:]):
        m = (conf >= lo) & (conf < hi)
        print(f"place confidence {lo:.3f}–{min(hi, 1):.3f}: cells {int(m.sum()):6d}, wrong {int(wrong[m].sum()):4d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
