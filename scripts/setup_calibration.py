"""Calibrate one rendered set-up folder for a measuring script."""

from __future__ import annotations

import os
import sys
import tempfile

from beachscore import pipeline
from beachscore.errors import BadInputError, UnreadableBoardError
from calibration import store


def calibrate_setup(setup: str, prefix: str = "setup-"):
    """The calibration learned from ``setup/calibration.json`` into a fresh temporary folder named
    with ``prefix`` (:func:`calibration.store.load`'s object), or None when the calibration is
    refused (the refusal is named on stderr)."""
    try:
        return store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"),
                                             tempfile.mkdtemp(prefix=prefix)).folder)
    except (UnreadableBoardError, BadInputError) as e:
        print(f"  {setup}: calibration refused ({e})", file=sys.stderr)
        return None
