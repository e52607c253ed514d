#!/usr/bin/env python3
"""Does the Sand Castles calibration keep right wave labels and refuse wrong ones? (development tables)

    .venv/bin/python scripts/sand_castles_wave_check.py SETUP_FOLDER [SETUP_FOLDER ...]

For each set-up's calibration.json: calibrated as labelled (a refusal is a right label refused),
then once per ``wave`` sample relabelled ``space`` and once per ``space`` sample relabelled
``wave`` (a made mislabel: refused ``bad-sample``, kept and named in ``confusable``, or taken
silently). The evidence for the lane rule of ``vision.sand_castles.reader._check_samples``
(docs/tuning.md). A measurement: it prints.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402


def calibrate_request(request: dict, folder: str, tmp: str):
    """``pipeline.calibrate`` of a calibration request whose paths are relative to ``folder``, into ``tmp``."""
    path = os.path.join(tmp, "calibration.json")
    with open(path, "w") as f:
        json.dump(dict(request, profile=os.path.join(folder, request["profile"]),
                       image=os.path.join(folder, request["image"])), f)
    return pipeline.calibrate(path, os.path.join(tmp, "cal"))


def outcome(request: dict, folder: str) -> str:
    """``refused`` (bad-sample), ``named`` (kept, in confusable) or ``taken``; other errors by code."""
    with tempfile.TemporaryDirectory() as tmp:
        try:
            cal = calibrate_request(request, folder, tmp)
        except (BadInputError, UnreadableBoardError) as e:
            return "refused" if e.code == "bad-sample" else e.code
    named = [p for p in (cal.extra.get("separability") or {}).get("confusable", []) if "sample_mm" in p]
    return "named" if named else "taken"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("setups", nargs="+")
    a = ap.parse_args(argv)
    right, made = Counter(), Counter()
    for folder in a.setups:
        request = json.load(open(os.path.join(folder, "calibration.json")))
        got = outcome(request, folder)
        right[got] += 1
        print(f"{folder}: as labelled: {got}", flush=True)
        for k, s in enumerate(request["samples"]):
            wrong = {"wave": "space", "space": "wave"}.get(s["label"])
            if wrong is None:
                continue
            samples = [dict(t, label=wrong) if j == k else t for j, t in enumerate(request["samples"])]
            got = outcome(dict(request, samples=samples), folder)
            made[got] += 1
            if got != "refused":
                print(f"{folder}: {s['label']} at {s['board_mm']} labelled {wrong}: {got}", flush=True)
    print(f"right labels: {dict(right)}; made mislabels (wave <-> space): {dict(made)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
