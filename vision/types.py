"""What flows between the pipeline and a game reader."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.files import CalibrationRequest
from calibration.store import Calibration
from vision.registration import Registration


@dataclass
class CalibrationShot:
    """Input of a reader's ``learn``.

    Attributes:
        request: the parsed calibration.json (profile, labelled samples in board mm).
        image: calibration photo, BGR uint8 (H, W, 3).
        empty_image: the same view with the board empty, BGR uint8, or None.
        H_px_from_mm: homography board mm → calibration photo px.
    """

    request: CalibrationRequest
    image: np.ndarray
    empty_image: np.ndarray | None
    H_px_from_mm: np.ndarray
    pictures: dict[str, np.ndarray] = field(default_factory=dict)  # learner may add PNGs for CAL_DIR


@dataclass
class Photo:
    """Input of a reader's ``read``: one registered photo.

    Attributes:
        image: the photo, BGR uint8 (H, W, 3).
        registration: where the board is (homography board mm → photo px).
        calibration: the loaded calibration (profile, learned model).
        setup: the optional setup.json dict.
    """

    image: np.ndarray
    registration: Registration
    calibration: Calibration
    setup: dict | None = None


@dataclass
class Reading:
    """Output of a reader's ``read``.

    Attributes:
        state: the game state JSON of the contract.
        confidence: in [0, 1], the reader's estimate that the whole state is right.
        warnings: human-readable strings.
        details: anything the annotator needs (positions in board mm, per-item scores).
        alternatives: the next most likely readings, most likely first, each with its confidence
            given that the ones before it were rejected; the pipeline scores the first one the
            game's rules accept when they reject this one (empty: no alternative offered).
    """

    state: dict
    confidence: float
    warnings: list[str] = field(default_factory=list)
    details: dict = field(default_factory=dict)
    alternatives: list = field(default_factory=list)
