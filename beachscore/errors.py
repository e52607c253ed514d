"""The errors every part reports, as the command line and the pages see them.

Each layer owns its errors (:mod:`vision.errors`, :mod:`calibration.errors`,
:mod:`hardware.errors`, :mod:`scoring.errors`); the ones that carry a code are gathered here for
the command line (exit codes, ``shared/contracts/README.md`` §Errors: 0 read and scored, 2 bad
input, 3 the photo is readable but the board cannot be read reliably) and the pages (HTTP statuses).
"""

from __future__ import annotations

from hardware.errors import CameraError, HardwareError
from vision.errors import BadInputError, CodedError, SampleError, UnreadableBoardError

#: Base of the errors of the readers, the calibration and the station (``code``, ``message``, ``exit_code``).
BeachscoreError = CodedError

#: Every error with a ``code``, ``message`` and ``exit_code``: what ``except`` catches where an
#: outcome (a failed scan, a command's exit) is reported rather than raised.
CODED_ERRORS = (CodedError, HardwareError)

__all__ = ["BadInputError", "BeachscoreError", "CameraError", "CODED_ERRORS", "CodedError", "HardwareError",
           "SampleError", "UnreadableBoardError"]
