"""Errors of the calibration files: a profile, calibration.json or calibration folder that is wrong."""

from __future__ import annotations

from vision.errors import BadInputError


class CalibrationError(BadInputError):
    """A calibration file the user handed in, or a calibration folder, is wrong or unreadable (exit 2).

    Codes in use: ``invalid-json`` (not JSON), ``invalid-calibration`` (a calibration.json whose JSON
    is sound but whose fields are missing or wrong), ``invalid-profile``, ``bad-sample``, ``calibration-missing``,
    ``calibration-outdated``, ``output-unwritable`` and the file codes of :mod:`vision.files`.
    """
