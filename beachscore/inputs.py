"""Checks of the paths a user hands the command line and the station."""

from __future__ import annotations

import os

from calibration import store as cal_store
from calibration.errors import CalibrationError


def check_calibration_dir(path: str) -> None:
    """Refuse a ``--calibration`` that is a file: the folder written by ``beachscore calibrate`` is wanted.

    Raises:
        CalibrationError: ``calibration-missing`` naming what was given and what to pass instead.
    """
    if not os.path.isfile(path):
        return
    if cal_store.is_calibration(path):
        raise CalibrationError("calibration-missing", f"--calibration {path}: that is the file inside a calibration "
                               f"folder; pass the folder: --calibration {os.path.dirname(path) or '.'}")
    raise CalibrationError("calibration-missing", f"--calibration {path}: that is the input file; pass the folder "
                           "written by 'beachscore calibrate {path} --out CAL_DIR'".replace("{path}", path))
