"""What flows between the pipeline and a game reader."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from vision.lens.model import Lens


@dataclass
class Registration:
    """Where the board is in one photo.

    Attributes:
        H_px_from_mm: (3, 3) homography board mm → image px.
        source: ``"markers"``, ``"corners"`` or ``"refined"``.
        shift_mm: how far the board centre moved against the calibration (mm), 0 when not refined.
        rotation_deg: rotation against the calibration (degrees).
        score: quality of the alignment in [−1, 1]: the share of the outline strips explained
            (:mod:`vision.board.motion`), or an ECC correlation; 1 for markers.
    """

    H_px_from_mm: np.ndarray
    source: str
    shift_mm: float = 0.0
    rotation_deg: float = 0.0
    score: float = 1.0
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """JSON summary: source, shift_mm, rotation_deg, score (the homography stays internal)."""
        return {"source": self.source, "shift_mm": round(self.shift_mm, 2),
                "rotation_deg": round(self.rotation_deg, 2), "score": round(self.score, 3)}


class CalibrationRequest(Protocol):
    """What a reader's ``learn`` reads of a parsed calibration.json (``calibration.files.CalibrationRequest``).

    Attributes:
        game: game name from the contract.
        profile: the board profile dict.
        image_path: the calibration photo.
        empty_image_path: optional photo of the empty board, same view.
        corners_px: four board corners in image px (TL, TR, BR, BL) or None when markers give them.
        samples: list of ``(label, (x_mm, y_mm))``.
        charuco_image_path: optional photo of the printed ChArUco sheet, or None.
    """

    game: str
    profile: dict
    image_path: str
    empty_image_path: str | None
    corners_px: list[list[float]] | None
    samples: list[tuple[str, tuple[float, float]]]
    charuco_image_path: str | None


class Calibration(Protocol):
    """What the board stage and the readers read of a loaded calibration (``calibration.store.Calibration``).

    Attributes:
        game: game name.
        profile: the board profile dict.
        image_size: (width_px, height_px) of the calibration shot.
        H_px_from_mm: (3, 3) homography board mm → calibration-shot px (undistorted when ``lens`` is set).
        model: the game reader's learned appearance (JSON).
        reference: the calibration shot, grey uint8 at 1/4 size, or None.
        folder: the calibration folder.
        extra: further saved fields (model version, board layout, outline …).
        lens: the camera's lens distortion, or None for none.
        cache: derived data the scans build once per process (never saved).
    """

    game: str
    profile: dict
    image_size: tuple[int, int]
    H_px_from_mm: np.ndarray
    model: dict
    reference: np.ndarray | None
    folder: str
    extra: dict
    lens: Lens | None
    cache: dict

    def image(self, name: str) -> np.ndarray | None:
        """A picture the learner saved in the calibration folder (BGR or grey uint8), None if absent."""


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
