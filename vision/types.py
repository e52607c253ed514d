"""What flows between the pipeline, the board stage and a game reader, and what a reader is (:class:`Reader`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

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
        full: the same photo at full size on demand (a call that decodes it, lens-corrected like
            ``image``; BGR uint8), or None: only ``image`` is at hand. A reader that needs a fine
            detail the reduced decode blurs away asks for it.
    """

    image: np.ndarray
    registration: Registration
    calibration: Calibration
    setup: dict | None = None
    full: Callable[[], np.ndarray] | None = None


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


#: The board's sides, in the order the board stage names them.
BOARD_SIDES = ("top", "right", "bottom", "left")


class Reader(Protocol):
    """A game's reader, as the pipeline and the board stage use it.

    Attributes:
        game: the game's name in the contract (``"strand-unter"`` …).
        decode_reduce: JPEG decode reduction the reader works at (1: full size, 2, 4 or 8).
        model_version: version of the learned model's format; a calibration learned with another
            is refused ("recalibrate").
        registration_sides: board sides whose outline never changes between shots (the board
            stage's strips lie only there).
        judges_glare: the reader judges blown-out pixels place by place, in its scans and in its
            ``learn`` (which refuses a shot it cannot learn from), so the calibration shot is not
            refused for the board's blown-out share as a whole.
        fits_outline: the reader needs the board's corners closer than a click places them, and
            its board's outline shows as a colour step all round: calibration moves clicked corners
            onto the outline's edges (:func:`vision.board.outline_fit.fit_outline`).
    """

    game: str
    decode_reduce: int
    model_version: int
    registration_sides: tuple[str, ...]
    judges_glare: bool
    fits_outline: bool

    def learn(self, shot: CalibrationShot) -> dict:
        """The appearance model (JSON-serialisable) learned from the calibration shot."""

    def read(self, photo: Photo) -> Reading:
        """The game state read from one registered photo."""

    def annotate(self, photo: Photo, reading: Reading) -> np.ndarray:
        """The photo with the reading drawn on it for a person to check, BGR uint8."""

    def register(self, image: np.ndarray, cal: Calibration) -> Registration | None:
        """The reader's own registration of a photo without markers, or None: the board stage's."""

    def registration_exclude(self, image: np.ndarray, cal: Calibration) -> np.ndarray | None:
        """uint8 (H, W) mask, non-zero where the board stage's strips must not look, or None."""

    def registration_matches_board(self, registration: Registration, cal: Calibration) -> bool:
        """Whether the reader's own registration already showed the calibrated board (the board
        stage then makes no identity check of its own)."""

    def prepare(self, cal: Calibration, shape: tuple[int, int]) -> None:
        """Build now what scans of photos decoded at ``shape`` ((H, W) px) derive from the
        calibration alone and keep (once per loaded calibration, before the first scan)."""

    def read_area(self, profile: dict) -> tuple[float, float, float, float] | None:
        """The board rectangle ``(x0, y0, x1, y1)`` mm that holds everything the reader reads
        (the photo must show it whole; the board's plain margin may leave the frame), or None:
        the whole board."""

    def light_columns(self, profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray, samples: list,
                      model: dict) -> list[dict] | None:
        """For a reader that judges pieces by colour column: every column's bare towel doubt on the
        calibration shot (``[{"column", "doubt", "empty_samples"}]``,
        :func:`vision.seashells.column_light.column_doubts`); None for the others."""


def _whole_board(profile: dict) -> None:
    return None


def _no_registration(image: np.ndarray, cal: Calibration) -> None:
    return None


def _no_match(registration: Registration, cal: Calibration) -> bool:
    return False


def _no_columns(profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray, samples: list, model: dict) -> None:
    return None


def _nothing_to_prepare(cal: Calibration, shape: tuple[int, int]) -> None:
    return None


@dataclass(frozen=True)
class GameReader:
    """A :class:`Reader` made of a reader package's functions; the optional ones default to "none".

    Attributes:
        game, decode_reduce, model_version, registration_sides, judges_glare, fits_outline: as
            :class:`Reader`.
        learn, read, annotate: the reader's functions (:class:`Reader`).
        own_registration: ``(image, cal) -> Registration`` when the reader registers photos itself.
        exclude: ``(image, cal) -> mask | None`` (:meth:`Reader.registration_exclude`).
        matches_board: ``(registration, cal) -> bool`` (:meth:`Reader.registration_matches_board`).
        prepare_calibration: ``(cal, shape) -> None`` (:meth:`Reader.prepare`).
        reads_within: ``profile -> (x0, y0, x1, y1)`` mm or None (:meth:`Reader.read_area`; None,
            the whole board, by default).
        column_doubts: ``(profile, image, H, samples, model) -> [column doubts] | None``
            (:meth:`Reader.light_columns`; None, no colour columns, by default).
    """

    game: str
    learn: Callable[[CalibrationShot], dict]
    read: Callable[[Photo], Reading]
    annotate: Callable[[Photo, Reading], np.ndarray]
    decode_reduce: int = 1
    model_version: int = 1
    registration_sides: tuple[str, ...] = BOARD_SIDES
    judges_glare: bool = False
    fits_outline: bool = False
    own_registration: Callable[[np.ndarray, Calibration], Registration] = _no_registration
    exclude: Callable[[np.ndarray, Calibration], np.ndarray | None] = _no_registration
    matches_board: Callable[[Registration, Calibration], bool] = _no_match
    prepare_calibration: Callable[[Calibration, tuple[int, int]], None] = _nothing_to_prepare
    reads_within: Callable[[dict], tuple[float, float, float, float] | None] = _whole_board
    column_doubts: Callable[..., list[dict] | None] = _no_columns

    def register(self, image: np.ndarray, cal: Calibration) -> Registration | None:
        """:meth:`Reader.register`."""
        return self.own_registration(image, cal)

    def registration_exclude(self, image: np.ndarray, cal: Calibration) -> np.ndarray | None:
        """:meth:`Reader.registration_exclude`."""
        return self.exclude(image, cal)

    def read_area(self, profile: dict) -> tuple[float, float, float, float] | None:
        """:meth:`Reader.read_area`."""
        return self.reads_within(profile)

    def light_columns(self, profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray, samples: list,
                      model: dict) -> list[dict] | None:
        """:meth:`Reader.light_columns`."""
        return self.column_doubts(profile, image, H_px_from_mm, samples, model)

    def registration_matches_board(self, registration: Registration, cal: Calibration) -> bool:
        """:meth:`Reader.registration_matches_board`."""
        return bool(self.matches_board(registration, cal))

    def prepare(self, cal: Calibration, shape: tuple[int, int]) -> None:
        """:meth:`Reader.prepare`."""
        self.prepare_calibration(cal, shape)
