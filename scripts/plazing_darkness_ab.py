#!/usr/bin/env python3
"""Every scene read with the resources' darkness weighed (``DarknessConfig.floor`` = FLOOR,
``t_dof`` = DOF) and not (floor 0), judged as ``../shared/tools/evaluate.py`` judges: RIGHT (read exactly, or refused with a
hand), TRUSTED (right at shown confidence ≥ 0.5, or refused with a hand), silent wrong (read wrong
at ≥ 0.5), clean refused.

    .venv/bin/python scripts/plazing_darkness_ab.py FOLDER [FOLDER ...] --floor FLOOR [--t-dof DOF] [--out ROWS.json]

Each set-up is calibrated once and every scene read twice in one process. Prints per folder the
four figures off → on and every scene whose verdict or trust changed. Exactness is
``tests.sample_truth.plazing_exact`` (pieces, meeples, resources, neutral markers).
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from tests.sample_truth import plazing_exact  # noqa: E402
from vision.plazing import darkness  # noqa: E402
from vision.plazing.config import DARKNESS  # noqa: E402
from scripts.setup_calibration import calibrate_setup  # noqa: E402


def calibrated_truths(folder: str):
    """Calibrate each set-up of ``folder`` once (a refused calibration is named on stderr and
    skipped) and yield (calibration, scene truth path, truth dict, the scene's game set-up or None)."""
    for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
        cal = calibrate_setup(setup, "plazing-ab-")
        if cal is None:
            continue
        for tpath in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
            with open(tpath) as f:
                truth = json.load(f)
            sp = tpath.replace(".truth.json", ".setup.json")
            setup_doc = None
            if os.path.exists(sp):
                with open(sp) as f:
                    setup_doc = json.load(f)
            yield cal, tpath, truth, setup_doc


def verdict(path: str, cal, setup, truth: dict) -> dict:
    """``{"status", "right", "conf"}`` of one scan: ``status`` read or the refusal's code; ``right``
    as the judge counts it; ``conf`` the shown confidence (None when refused)."""
    hand = bool(truth.get("occluded"))
    try:
        res = pipeline.scan_file(path, cal, setup)
    except (UnreadableBoardError, BadInputError) as e:
        return {"status": e.code, "right": hand, "conf": None}
    conf = pipeline.shown_confidence(res.confidence)
    return {"status": "read", "right": plazing_exact(truth, res.state), "conf": conf}


def figures(rows, key: str, hands) -> tuple[int, int, int, int]:
    """(RIGHT, TRUSTED, silent wrong, clean refused) of ``rows`` under ``key`` (``off``, ``on``)."""
    right = trusted = silent = refused = 0
    for r, hand in zip(rows, hands):
        v = r[key]
        right += v["right"]
        if v["status"] == "read":
            trusted += v["right"] and v["conf"] >= 0.5
            silent += (not v["right"]) and v["conf"] >= 0.5
        else:
            trusted += hand
            refused += not hand
    return right, trusted, silent, refused


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--floor", type=float, required=True)
    ap.add_argument("--t-dof", type=float, default=float("inf"), help="the Student t's degrees of freedom")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    keep = darkness.weigh_darkness.__defaults__
    everything = {}
    for folder in a.folders:
        rows, hands = [], []
        for cal, tpath, truth, setup_doc in calibrated_truths(folder):
            row = {"scene": os.path.relpath(tpath, folder)[:-11]}
            try:
                for key, floor in (("off", 0.0), ("on", a.floor)):
                    darkness.weigh_darkness.__defaults__ = (dataclasses.replace(DARKNESS, floor=floor,
                                                                                t_dof=a.t_dof),)
                    row[key] = verdict(tpath.replace(".truth.json", ".jpg"), cal, setup_doc, truth)
            finally:
                darkness.weigh_darkness.__defaults__ = keep
            rows.append(row)
            hands.append(bool(truth.get("occluded")))
            if row["off"] != row["on"]:
                print(f"  {os.path.basename(folder)} {row['scene']}: off {row['off']} → on {row['on']}", flush=True)
        off, on = figures(rows, "off", hands), figures(rows, "on", hands)
        print(f"{folder}: RIGHT / TRUSTED / silent / clean refused  off {off} → on {on}", flush=True)
        everything[folder] = rows
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(everything, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
