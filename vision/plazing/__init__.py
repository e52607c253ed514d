"""Plażing reader: every piece, screen facing and token of a Plażing board from one photo.

The reader (:data:`READER`, a :class:`vision.types.Reader`): :func:`learn` (calibration,
:mod:`vision.plazing.learn`), :func:`register` (:mod:`vision.plazing.register`), :func:`read`
(:mod:`vision.plazing.reader`, which lists the stages, one module each), :func:`annotate`
(:mod:`vision.plazing.draw`). Every tunable number is in :mod:`vision.plazing.config`, with its
physical or statistical meaning; appearance comes from the calibration shot, geometry from the
board profile.

Speed: every image operation works on the rectified grid (≈ 0.25 Mpx) with whole-image OpenCV
calls, cell statistics come from block means (:class:`~vision.plazing.cells.CellBlocks`), warps
and large scratch arrays are reused from scan to scan, and small matrix products stay below the
size at which numpy's BLAS starts threads.

Contract: ``shared/contracts/plazing.md``; rules: ``shared/rules/plazing.md``.
"""

from __future__ import annotations

import numpy as np

from vision.plazing.draw import draw
from vision.plazing.learn import learn, parse_label
from vision.plazing.lighting import lighting_gains
from vision.plazing.model import MODEL_VERSION, ReaderModel
from vision.plazing.reader import read
from vision.plazing.rectify import DECODE_REDUCE
from vision.plazing.register import prepare_reference, register
from vision.types import GameReader, Photo, Reading

__all__ = ["DECODE_REDUCE", "MODEL_VERSION", "READER", "annotate", "learn", "lighting_gains", "parse_label", "read",
           "register", "registration_matches_board"]


def registration_matches_board(registration, cal) -> bool:
    """Whether :func:`register` already matched this photo's printed frame to the calibrated
    board's: the ECC correlation of the fixed parts' edges (unmoved, or after the fitted bump) at
    least as high as the calibration's own edges reach shifted by ``BOARD_MOVED.shift_mm``
    (:mod:`vision.board.motion`). The board stage's check (:func:`vision.board.stage.board_identity`)
    is then not made: another
    game's board under a Plażing calibration correlates at most 0.290, the same game's board seen
    from another set-up's camera 0.917, a right board at least 0.979
    (``scripts/registration_match_stats.py``, README "Is this the calibrated board?").

    Args:
        registration: a :class:`~vision.types.Registration` of this photo; cal: its calibration.
    """
    ref = ReaderModel.of(cal).registration_levels.get("reference")
    return ref is not None and registration.source in ("corners", "refined") and \
        float(registration.score) >= ref.unmoved_ecc


def annotate(photo: Photo, reading: Reading) -> np.ndarray:
    """Draw the reading on the photo, at the calibration shot's full size, for a person to check.

    Every cell is projected through the registration homography: closed areas filled with their
    owner's colour (grey, crossed, for neutral), pieces outlined in their player's colour (thick
    for ring pieces) and labelled with their number and kind in words (screens with their facing),
    tokens written in words, disputes crossed in red, doubtful cells boxed in red; a legend strip
    below gives the confidence, what the marks mean, the players and the first warnings.

    Returns:
        BGR uint8 image: the photo (calibration size) over the legend strip.
    """
    return draw(photo, reading)


#: The Plażing reader (:class:`vision.types.Reader`).
READER = GameReader(game="plazing", learn=learn, read=read, annotate=annotate, decode_reduce=DECODE_REDUCE,
                    model_version=MODEL_VERSION, fits_outline=True, own_registration=register,
                    matches_board=registration_matches_board, prepare_calibration=prepare_reference)
