"""The scenes of rendered Strand unter folders with their truth, each set-up calibrated once: the
walk the fitting and checking scripts share."""

from __future__ import annotations

import glob
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402


def calibrated_scenes(folder: str):
    """Yield (scene photo path, its true state, its set-up's calibration) for every scene of
    ``folder``'s ``setup*`` folders that hold a ``calibration.json``; each set-up is calibrated into
    a temporary folder that lives while its scenes are yielded."""
    for sd in sorted(glob.glob(os.path.join(folder, "setup*"))):
        if not os.path.exists(os.path.join(sd, "calibration.json")):
            continue
        with tempfile.TemporaryDirectory() as out:
            cal = pipeline.calibrate(os.path.join(sd, "calibration.json"), out)
            for img in sorted(glob.glob(os.path.join(sd, "scene_*.jpg"))):
                with open(img[:-4] + ".truth.json") as f:
                    state = json.load(f)["state"]
                yield img, state, cal


def scan_outcomes(folders: list[str], seen: dict):
    """Scan every calibrated scene of ``folders`` once, clearing ``seen`` before each scan.

    Yields (scene path, hand over the board in truth: bool, outcome: "read" or the refusal's code);
    ``seen`` is the dict a script's capture hooks fill during the scan.
    """
    for folder in folders:
        for img, _state, cal in calibrated_scenes(folder):
            seen.clear()
            with open(img[:-4] + ".truth.json") as f:
                hand = bool(json.load(f).get("occluded"))
            try:
                pipeline.scan_file(img, cal)
                outcome = "read"
            except (UnreadableBoardError, BadInputError) as err:
                outcome = getattr(err, "code", type(err).__name__)
            yield img, hand, outcome


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
