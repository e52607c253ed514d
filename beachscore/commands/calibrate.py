"""``beachscore calibrate``."""

from __future__ import annotations

import json
import os

from beachscore.commands.common import EXIT_OK
from beachscore.pipeline import calibrate, learned_classes

#: What a confusable entry of the calibration folder may say besides its classes and advice.
DETAILS = ("column", "doubt", "error_bound", "sample_mm", "glared_cells", "bare_cell_mm")


def run(args) -> int:
    """``beachscore calibrate``: learn CAL_DIR from calibration.json; prints a summary and, when
    the shot's light makes two classes look alike, which and what helps (``confusable``); the
    warnings add what the shot could not teach (:func:`calibration.shot_notes.shot_notes`)."""
    cal = calibrate(args.calibration, args.out)
    classes = learned_classes(cal, args.calibration)
    pairs = (cal.extra.get("separability") or {}).get("confusable", [])
    confusable = [{"classes": list(p["classes"]), "advice": p["advice"], **{k: p[k] for k in DETAILS if k in p}}
                  for p in pairs]
    warnings = [p["advice"] for p in confusable] + list(cal.extra.get("notes") or [])
    summary = {"game": cal.game, "calibration": os.path.abspath(args.out), "classes": classes,
               "confusable": confusable, "warnings": warnings}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"calibrated {cal.game}: {len(classes)} classes learned, written to {args.out}")
        for text in warnings:
            print(f"warning: {text}")
    return EXIT_OK
