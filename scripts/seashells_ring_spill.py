#!/usr/bin/env python3
"""How far from "its column's shells spilling into it" lies each covered towel cell's ring? (development tables)

    .venv/bin/python scripts/seashells_ring_spill.py SET_FOLDER [SET_FOLDER ...]

Every set-up is calibrated and every scene scanned; for each towel cell whose ring changed by more
than ``ring_change_de`` since calibration, prints its change and its distance (ΔE) from the
segment between its calibrated ring colour and its column's nearest calibrated shell colour (the
residual ``shell_spill`` compares with ``spill_residual_de``), and whether the scene has a hand.
Evidence for ``SeashellsConfig.spill_residual_de`` (docs/tuning.md). A measurement: it prints.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import CodedError  # noqa: E402
from calibration import store  # noqa: E402
from vision.image.decode import read_image  # noqa: E402
from vision.mats.config import SEASHELLS as CFG  # noqa: E402
import vision.seashells.columns as columns  # noqa: E402
from vision.seashells.columns import spill_residual  # noqa: E402


def residuals(moved, reference_lab, shell_colours, n_cols: int) -> list[tuple[int, float, float]]:
    """``(cell, change ΔE, residual ΔE)`` of every cell whose ring changed beyond ``ring_change_de``
    (``moved``: :func:`vision.mats.checks.ring_shift`; residual: :func:`spill_residual`)."""
    ref = np.asarray(reference_lab, np.float64).reshape(np.shape(moved))
    change = np.linalg.norm(moved, axis=1)
    return [(int(k), float(change[k]), spill_residual(moved[k], ref[k], shell_colours, k % n_cols))
            for k in np.flatnonzero(change > CFG.ring_change_de)]


def main(argv=None) -> int:
    sets = (argv if argv is not None else sys.argv[1:])
    seen: list = []
    real = columns.shell_spill

    def record(moved, reference_lab, shell_colours, occupied, n_cols):
        seen.append((np.array(moved), reference_lab, shell_colours, n_cols))
        return real(moved, reference_lab, shell_colours, occupied, n_cols)

    columns.shell_spill = record
    for folder in sets:
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    pipeline.calibrate(os.path.join(setup, "calibration.json"), tmp + "/cal")
                except CodedError as e:
                    print(f"{setup}: calibration refused: {e.code}")
                    continue
                cal = store.load(tmp + "/cal")
                for image in sorted(glob.glob(os.path.join(setup, "scene_*.jpg"))):
                    truth = json.load(open(image[:-4] + ".truth.json"))
                    seen.clear()
                    try:
                        pipeline.scan_image(read_image(image), cal)
                    except CodedError as e:
                        print(f"{image}: refused {e.code}")
                    for k, change, resid in residuals(*seen[0]) if seen else []:
                        print(f"{image}: cell {k} ring change {change:.1f} ΔE, residual {resid:.1f} ΔE"
                              + (" (hand)" if truth.get("occluded") else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
