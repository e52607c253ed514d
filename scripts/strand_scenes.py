"""The scenes of rendered Strand unter folders with their truth, each set-up calibrated once: the
walk the fitting and checking scripts share."""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402



def calibrated_truths(folder: str, skip_refused: bool = False):
    """Yield (scene photo path, its truth (the whole ``.truth.json``), its set-up's calibration) for
    every scene of ``folder``'s ``setup*`` folders that hold a ``calibration.json``; each set-up is
    calibrated into a temporary folder that lives while its scenes are yielded. A refused
    calibration raises, or with ``skip_refused`` skips its set-up."""
    for sd in sorted(glob.glob(os.path.join(folder, "setup*"))):
        if not os.path.exists(os.path.join(sd, "calibration.json")):
            continue
        with tempfile.TemporaryDirectory() as out:
            try:
                cal = pipeline.calibrate(os.path.join(sd, "calibration.json"), out)
            except (UnreadableBoardError, BadInputError):
                if skip_refused:
                    continue
                raise
            for img in sorted(glob.glob(os.path.join(sd, "scene_*.jpg"))):
                with open(img[:-4] + ".truth.json") as f:
                    truth = json.load(f)
                yield img, truth, cal


def calibrated_scenes(folder: str):
    """:func:`calibrated_truths` with the true state alone: (scene photo path, true state, calibration)."""
    for img, truth, cal in calibrated_truths(folder):
        yield img, truth["state"], cal


#: the judges' evaluate.py beside the repository (a worktree under ``../wt/`` looks one level further up)
EVALUATE = next((p for p in (os.path.join(ROOT, *[".."] * k, "shared", "tools", "evaluate.py") for k in (1, 2, 3))
                 if os.path.exists(p)), os.path.join(ROOT, "..", "shared", "tools", "evaluate.py"))


def compare_strand():
    """``compare_strand(truth, state) -> (errors, stats)`` of the judges' evaluate.py (:data:`EVALUATE`)."""
    spec = importlib.util.spec_from_file_location("evaluate", EVALUATE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.compare_strand


def scan_outcomes(folders: list[str], seen: dict):
    """Scan every calibrated scene of ``folders`` once, clearing ``seen`` before each scan.

    Yields (scene path, hand over the board in truth: bool, outcome: "read" or the refusal's code);
    ``seen`` is the dict a script's capture hooks fill during the scan.
    """
    for folder in folders:
        for img, truth, cal in calibrated_truths(folder):
            seen.clear()
            try:
                pipeline.scan_file(img, cal)
                outcome = "read"
            except (UnreadableBoardError, BadInputError) as err:
                outcome = getattr(err, "code", type(err).__name__)
            yield img, bool(truth.get("occluded")), outcome


def print_scan_rows(description: str, capture, header: str, figures) -> None:
    """The ``main`` of a script that scans every scene of the folders on its command line with the
    capture hooks ``capture()`` installs and prints one row per scene: "scene hand outcome" and
    ``figures(seen)`` (a string of the figures the hooks recorded), under ``header``'s column names."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("folders", nargs="+")
    args = ap.parse_args()
    seen = capture()
    print(f"scene hand outcome {header}")
    for img, hand, outcome in scan_outcomes(args.folders, seen):
        print(f"{img} {hand} {outcome} {figures(seen)}", flush=True)


def write_fitted_part(path: str, key: str, part: dict, folders: list[str], **extra) -> None:
    """Put ``part`` (a fitted model, with the folders it was fitted on and ``extra`` fields) under
    ``key`` in the JSON file ``path`` (the reader's ``fitted.json``), keeping every other key."""
    with open(path) as f:
        data = json.load(f)
    data[key] = {**part, "fitted_on": [os.path.basename(os.path.normpath(f)) for f in folders], **extra}
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


def fit_and_held(rows_path: str, fit_folders: list[str], needs: str) -> tuple[list[dict], list[dict]]:
    """The rows of a JSON-lines dump (one castle each, ``scripts/strand_castle_value_misses.py
    --dump``) that carry ``needs``, split into those of the ``fit_folders`` (basenames) and the rest."""
    with open(rows_path) as f:
        rows = [r for r in (json.loads(line) for line in f if line.strip()) if r.get(needs)]
    fit = set(fit_folders)
    return [r for r in rows if r["folder"] in fit], [r for r in rows if r["folder"] not in fit]
