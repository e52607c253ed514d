#!/usr/bin/env python3
"""How far the previous reading helps: photos of Plażing games read alone (``scan``) and as a game
(``game``: each photo with the accepted reading before it as its prior), against their truths.

    python scripts/game_prior_table.py FOLDER [FOLDER ...] [--cmd "beachscore"]

A FOLDER is what ``../shared/render/make_plazing_game.py`` writes (profile.json, setupK/ with
calibration.json and scene_XX.jpg / .truth.json / .setup.json in play order). Prints one row per
folder and mode: photos, right, trusted (right with confidence >= 0.5), doubted (confidence < 0.5
or refused), silent wrong (wrong with confidence >= 0.5), and the photos called impossible. A
refused photo counts as right when its truth says a hand was over the board (as evaluate_game.py).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "tools"))
from evaluate import compare_plazing, compare_plazing_areas  # noqa: E402

TRUST = 0.5


def lines_of(cmd: list[str]) -> list[dict]:
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def tally(rows: dict, truths: list[str], lines: list[dict]) -> None:
    for t, out in zip(truths, lines):
        truth = json.load(open(t))
        rows["photos"] += 1
        if "error" in out or "state" not in out:
            ok = bool(truth.get("occluded"))
            rows["right"] += ok
            rows["trusted"] += ok
            rows["doubted"] += 1
            continue
        errs, _ = compare_plazing(truth, out["state"])
        r, n, extra = compare_plazing_areas(truth, out.get("score"))
        wrong = bool(errs) or r != n or bool(extra)
        conf = out.get("confidence") or 0
        rows["right"] += not wrong
        rows["trusted"] += (not wrong) and conf >= TRUST
        rows["doubted"] += conf < TRUST
        rows["silent wrong"] += wrong and conf >= TRUST
        rows["impossible"] += bool(out.get("impossible"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cmd", default="beachscore")
    a = ap.parse_args()
    cmd = shlex.split(a.cmd)
    tmp = tempfile.mkdtemp(prefix="beachscore-prior-")
    keys = ("photos", "right", "trusted", "doubted", "silent wrong", "impossible")
    print(f"{'folder':<34} {'mode':<18} " + " ".join(f"{k:>12}" for k in keys))
    for folder in a.folders:
        rows = {mode: dict.fromkeys(keys, 0) for mode in ("alone (scan)", "with prior (game)")}
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            cal = os.path.join(tmp, os.path.basename(folder.rstrip("/")) + os.path.basename(setup))
            if subprocess.run(cmd + ["calibrate", os.path.join(setup, "calibration.json"), "--out", cal],
                              capture_output=True).returncode != 0:
                print(f"{setup}: calibrate failed", file=sys.stderr)
                continue
            truths = sorted(glob.glob(os.path.join(setup, "scene_*.truth.json")))
            images = [t.replace(".truth.json", ".jpg") for t in truths]
            setup_file = truths[0].replace(".truth.json", ".setup.json")
            common = ["--calibration", cal, "--setup", setup_file, "--json"]
            tally(rows["alone (scan)"], truths, lines_of(cmd + ["scan", *images] + common))
            game = [x for x in lines_of(cmd + ["game", *images] + common) if not x.get("final")]
            tally(rows["with prior (game)"], truths, game)
        for mode, row in rows.items():
            print(f"{os.path.basename(folder.rstrip('/')):<34} {mode:<18} " + " ".join(f"{row[k]:>12}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
