"""Checks of the paths a user hands the command line and the station."""

from __future__ import annotations

import os

from calibration import store as cal_store
from calibration.errors import CalibrationError
from vision.errors import BadInputError
from vision.files import load_json

#: What makes a calibration folder, as the messages say it.
MADE_BY = "'beachscore calibrate CALIBRATION.json --out CAL_DIR'"


def _is_calibration_request(path: str) -> bool:
    """Whether the file at ``path`` is a calibration.json to learn from (a profile and a photo named)."""
    try:
        doc = load_json(path, "")
    except BadInputError:
        return False
    return isinstance(doc, dict) and cal_store.is_calibration_request(doc)


def check_calibration_dir(path: str) -> None:
    """Refuse a ``--calibration`` that is a file: the folder written by ``beachscore calibrate`` is wanted.

    Raises:
        CalibrationError: ``calibration-missing`` naming what was given and what to pass instead: the
            folder of a learned calibration's own file, the folder to learn from a calibration.json,
            or, for any other file, that a calibration folder is wanted and what makes one.
    """
    if not os.path.isfile(path):
        return
    if cal_store.is_calibration(path):
        raise CalibrationError("calibration-missing", f"--calibration {path}: that is the file inside a calibration "
                               f"folder; pass the folder: --calibration {os.path.dirname(path) or '.'}")
    if _is_calibration_request(path):
        raise CalibrationError("calibration-missing", f"--calibration {path}: that is the input file; pass the folder "
                               f"written by 'beachscore calibrate {path} --out CAL_DIR'")
    raise CalibrationError("calibration-missing", f"--calibration {path} is a file, not a calibration folder "
                           f"(made by {MADE_BY})")
