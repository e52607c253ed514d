"""Strand unter reader: the game module ``beachscore.games`` loads for ``"strand-unter"``.

Interface (see :mod:`beachscore.games`): :func:`learn`, :func:`read`, :func:`annotate`, plus
:func:`register` (the game's own registration, robust to the sea cloth) and
``DECODE_REDUCE`` (photos are decoded at half size; all homographies follow the decoded size,
and a photo of another resolution with the calibration's aspect ratio is read with the
calibrated homography scaled to it).

One module per stage, each stating its input and output:

- :mod:`~vision.strand_unter.calibrate`    calibration shot → learned model (class colours, sizes, camera);
- :mod:`~vision.strand_unter.registration` photo → where the board is ("nothing moved" first, then a
  robust motion from the rails, outline and table edge);
- :mod:`~vision.strand_unter.lighting`     photo → board under the calibration's light (+ colour error);
- :mod:`~vision.strand_unter.sea`          board → cloth and sea front;
- :mod:`~vision.strand_unter.blobs`        board → foreground against the empty board, blobs;
- :mod:`~vision.strand_unter.castles`      blobs → castles (owner, value, groove), with
  :mod:`~vision.strand_unter.castle_cues`  (a castle → its sizes in mm and towers) and
  :mod:`~vision.strand_unter.castle_values` (cues → value posteriors, one castle per value);
- :mod:`~vision.strand_unter.bird`         blobs → the sandpiper;
- :mod:`~vision.strand_unter.shells`       what is left → shells (colour, count, groove);
- :mod:`~vision.strand_unter.occlusion`    what nothing explains → ``occluded`` or a doubt;
- :mod:`~vision.strand_unter.confidence`   every decision's posterior → the confidence;
- :mod:`~vision.strand_unter.reading`      the stages in order → the reading;
- :mod:`~vision.strand_unter.draw`         reading → the annotated picture;
- :mod:`~vision.strand_unter.assets`, :mod:`~vision.strand_unter.colour`,
  :mod:`~vision.strand_unter.geometry`, :mod:`~vision.strand_unter.config`: what the stages share.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board.geometry import SIDES
from vision.strand_unter.config import REGISTRATION
from vision.strand_unter.draw import annotate
from vision.strand_unter.assets import assets as reader_assets
from vision.strand_unter.calibrate import MODEL_VERSION, learn, parse_label
from vision.strand_unter.reading import read
from vision.strand_unter import colour as colour
from vision.strand_unter.registration import class_table
from vision.strand_unter.registration import register as _register
from vision.types import GameReader, Photo, Reading  # noqa: F401  (interface types)

DECODE_REDUCE = REGISTRATION.decode_reduce
# MODEL_VERSION (= 4, defined with the learner): the learned model's format. The pipeline
# (:func:`beachscore.pipeline.model_version`) refuses a calibration folder learned with another
# format ("recalibrate", exit 2) instead of crashing on it.
#: for the generic ECC refinement, should it ever be used: the sea side changes between shots
REGISTRATION_SIDES = tuple(s for s in SIDES if s != "top")

__all__ = ["READER", "learn", "read", "annotate", "register", "registration_exclude", "registration_matches_board",
           "parse_label", "DECODE_REDUCE", "REGISTRATION_SIDES", "MODEL_VERSION"]


def register(image: np.ndarray, cal):
    """The reader's own registration (:meth:`vision.types.Reader.register`); see
    :func:`vision.strand_unter.registration.register`."""
    return _register(image, cal)


def registration_matches_board(registration, cal) -> bool:
    """Whether :func:`register` already matched this photo's outline to the calibrated board's: the
    board did not move (source ``"corners"``) and its strips across the rails, the front edge and
    the table edge fitted with quality at least ``REGISTRATION.zoom_check_ecc`` (0.9: every side
    matched). The pipeline's board check (:func:`vision.board.stage.board_identity`) is then not
    made: another game's board under a Strand unter calibration fits at most 0.852, a right board
    at least 0.945 (``scripts/registration_match_stats.py``). A board the registration had to move
    still gets the check: a camera moved since calibration (the same game's board seen from another
    set-up) is fitted as a bump with quality up to 0.98, where only the check tells it apart.

    Args:
        registration: a :class:`~vision.strand_unter.registration.StrandRegistration`; one that
            made no fit (no reference picture at this resolution: it carries no noise figure
            either) or a marker registration gives False; cal: its calibration.
    """
    fitted = registration.source == "corners" and getattr(registration, "noise", None) is not None
    return fitted and float(registration.score) >= REGISTRATION.zoom_check_ecc


def registration_exclude(image_bgr: np.ndarray, cal) -> np.ndarray | None:
    """Mask (uint8 (H, W), 255 = do not use) of the cloth in a photo, for the generic ECC refinement.

    Args:
        image_bgr: photo, BGR uint8 (H, W, 3).
        cal: strand-unter calibration.
    """
    sea = colour.classify(image_bgr, class_table(cal), int(cal.model["lut_bits"])) == \
        cal.model["class_names"].index("sea")
    mask = sea.astype(np.uint8) * 255
    return cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (25, 25)))


def prepare(cal, shape) -> None:
    """:meth:`vision.types.Reader.prepare`: the calibration's :class:`~vision.strand_unter.assets.Assets`
    and class lookup table, built now rather than by the first scan (``shape`` is not needed).

    Raises:
        UnreadableBoardError: ``calibration-incomplete`` (made by an older version).
    """
    reader_assets(cal)
    class_table(cal)


#: The Strand unter reader (:class:`vision.types.Reader`).
READER = GameReader(game="strand-unter", learn=learn, read=read, annotate=annotate, decode_reduce=DECODE_REDUCE,
                    model_version=MODEL_VERSION, registration_sides=REGISTRATION_SIDES, own_registration=register,
                    exclude=registration_exclude, matches_board=registration_matches_board,
                    prepare_calibration=prepare)
