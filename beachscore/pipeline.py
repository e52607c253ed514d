"""The scan pipeline: decode → register → read → score. Used by the command line and the station.

Vision never scores and scoring never sees pixels; this module is where the two meet.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

import scoring
from beachscore.errors import BadInputError, UnreadableBoardError
from beachscore.games import reader
from calibration import store
from calibration.files import load_calibration_request
from beachscore.checks import check_colours, check_corners, check_output_folder, check_photo, check_setup
from vision.appearance import board_layout
from vision.image_io import read_image, decode_image
from vision.quality import check_board_in_view
from vision.registration import (Registration, align_to_reference, detect_markers, homography_from_corners,
                                 reference_image, SIDES)

from vision.types import CalibrationShot, Photo, Reading

#: The calibration's reference picture is the calibration shot shrunk by this factor.
REFERENCE_DOWNSCALE = 4
#: A refined registration that moves the board less than this is treated as "not moved".
MOVED_MM = 0.75


def calibrate(calibration_json: str, out_dir: str) -> store.Calibration:
    """Learn a calibration from calibration.json and write it to ``out_dir``.

    Raises:
        BadInputError: bad files, unknown labels, samples off the board.
        UnreadableBoardError: markers declared but not visible and no corners given.
    """
    req = load_calibration_request(calibration_json)
    check_output_folder(out_dir, calibration_json)
    module = reader(req.game)
    image = read_image(req.image_path)
    empty = read_image(req.empty_image_path) if req.empty_image_path else None
    if empty is not None and empty.shape != image.shape:
        raise BadInputError("image-size-mismatch", "empty_image and image must have the same size")
    H = detect_markers(image, req.profile.get("markers") or [])
    if H is None:
        if req.corners_px is None:
            raise UnreadableBoardError("board-not-found", "no profile marker is visible in the calibration "
                                       "photo and calibration.json gives no corners_px")
        check_corners(req.corners_px, (image.shape[1], image.shape[0]))
        H = homography_from_corners(req.corners_px, req.profile["board_mm"])
    w, h = req.profile["board_mm"]
    for label, (x, y) in req.samples:
        if not (0 <= x <= w and 0 <= y <= h):
            raise BadInputError("sample-off-board", f"sample {label!r} at {x:g},{y:g} mm is outside the "
                                f"{w:g}x{h:g} mm board")
    shot = CalibrationShot(request=req, image=image, empty_image=empty, H_px_from_mm=H)
    model = module.learn(shot)
    gray = cv2.cvtColor(image if empty is None else empty, cv2.COLOR_BGR2GRAY)
    cal = store.Calibration(game=req.game, profile=req.profile, image_size=(image.shape[1], image.shape[0]),
                            H_px_from_mm=H, model=model, reference=reference_image(gray, REFERENCE_DOWNSCALE),
                            folder=out_dir, extra={"model_version": model_version(module),
                                                   "board_layout": board_layout(image, H, req.profile["board_mm"])
                                                   .round(1).tolist()})
    try:
        store.save(out_dir, cal, shot.pictures)
    except OSError as exc:
        raise BadInputError("output-unwritable", f"cannot write the calibration to {out_dir}: "
                            f"{exc.strerror or exc}") from None
    return cal


def model_version(module) -> int:
    """Version of a reader's learned-model format (``MODEL_VERSION``, default 1)."""
    return int(getattr(module, "MODEL_VERSION", 1))


def photo_homography(cal: store.Calibration, image: np.ndarray) -> np.ndarray:
    """The calibrated homography board mm → px, scaled to a photo decoded at reduced size.

    Args:
        cal: loaded calibration (its homography is for ``cal.image_size``).
        image: the photo, (H, W[, 3]); same camera mode, possibly decoded at 1/2, 1/4 or 1/8.
    Returns:
        float64 (3, 3).
    """
    k = image.shape[1] / cal.image_size[0]
    return np.diag([k, k, 1.0]) @ cal.H_px_from_mm


def register(image: np.ndarray, cal: store.Calibration, module=None) -> Registration:
    """Find the board in a photo: markers, else calibrated corners refined against the reference.

    Args:
        image: photo, BGR uint8 (H, W, 3).
        cal: loaded calibration.
        module: the game's reader module (for its registration hints), optional.
    Raises:
        UnreadableBoardError: ``registration-lost`` when a moved board cannot be found again.
    """
    H = detect_markers(image, cal.profile.get("markers") or [])
    if H is not None:
        return Registration(H, "markers")
    own = getattr(module, "register", None)
    if own is not None:  # the game registers itself (e.g. a cloth that hides parts of the outline)
        return own(image, cal)
    H0 = photo_homography(cal, image)
    if cal.reference is None:
        return Registration(H0, "corners")
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    sides = getattr(module, "REGISTRATION_SIDES", SIDES)
    exclude_fn = getattr(module, "registration_exclude", None)
    exclude = exclude_fn(image, cal) if exclude_fn else None
    downscale = REFERENCE_DOWNSCALE * image.shape[1] / cal.image_size[0]
    reg = align_to_reference(gray, cal.reference, H0, cal.profile["board_mm"], sides=sides, exclude=exclude,
                             downscale=downscale)
    if reg.shift_mm < MOVED_MM and abs(reg.rotation_deg) < 0.2:
        return Registration(H0, "corners", shift_mm=reg.shift_mm, rotation_deg=reg.rotation_deg, score=reg.score)
    reg.warnings.append(f"the board moved {reg.shift_mm:.1f} mm / {reg.rotation_deg:+.1f}° since calibration; "
                        "registration corrected from the photo")
    return reg


#: How many of the rules engine's problems a refusal lists.
PROBLEMS_SHOWN = 3


def _score_reading(state: dict, setup: dict | None) -> dict:
    """Score a photo's reading.

    Raises:
        UnreadableBoardError: ``rules-conflict`` when the reading (with the setup's facts) breaks a
            rule of the game: it cannot be what is on the table, so it is not scored.
    """
    try:
        return scoring.score(state, setup)
    except scoring.InvalidStateError as err:
        shown = "; ".join(err.problems[:PROBLEMS_SHOWN]) + ("; …" if len(err.problems) > PROBLEMS_SHOWN else "")
        raise UnreadableBoardError("rules-conflict", f"the reading breaks the game's rules ({shown}); "
                                   "check the photo, and the setup's off-board facts") from None


def _score_lawful(reading: Reading, setup: dict | None) -> tuple[Reading, dict]:
    """Score a reading; when the rules reject it, the first of the reader's next most likely
    readings (``reading.alternatives``, each with its own confidence and warnings) they accept.

    Raises:
        UnreadableBoardError: ``rules-conflict`` when neither the reading nor any alternative obeys
            the rules (the message gives the first reading's problems).
    """
    try:
        return reading, _score_reading(reading.state, setup)
    except UnreadableBoardError as err:
        for alt in reading.alternatives or ():
            try:
                return alt, scoring.score(alt.state, setup)
            except scoring.InvalidStateError:
                continue
        raise err


@dataclass
class ScanResult:
    """One scanned photo: the contract's JSON plus what the annotator needs."""

    game: str
    state: dict
    score: dict
    confidence: float
    warnings: list[str]
    timing_ms: dict
    registration: Registration
    photo: Photo = field(repr=False)
    reading: Reading = field(repr=False)

    def to_json(self) -> dict:
        """The contract's scan object: game, state, score, confidence, warnings, timing_ms (+ registration)."""
        return {"game": self.game, "state": self.state, "score": self.score,
                "confidence": round(float(self.confidence), 3), "warnings": self.warnings,
                "timing_ms": self.timing_ms, "registration": self.registration.to_json()}

    def annotate(self) -> np.ndarray:
        """The photo with the reading drawn on it, BGR uint8."""
        return reader(self.game).annotate(self.photo, self.reading)


def scan_image(image: np.ndarray, cal: store.Calibration, setup: dict | None = None,
               decode_ms: float = 0.0) -> ScanResult:
    """Register, read and score one decoded photo.

    Args:
        image: photo, BGR uint8 (H, W, 3), the same camera mode as the calibration shot.
        cal: loaded calibration.
        setup: optional setup.json dict.
        decode_ms: time spent decoding, reported in ``timing_ms``.
    Raises:
        UnreadableBoardError: the board cannot be read reliably (exit 3).
        BadInputError: the setup does not fit the game (exit 2).
    """
    check_photo(image, cal)
    check_setup(setup, cal)
    module = reader(cal.game)
    image = at_reader_scale(image, cal, module)
    if cal.extra.get("model_version") != model_version(module):
        raise BadInputError("calibration-outdated", f"{cal.folder or 'the calibration'} was learned by another "
                            "version of the reader; recalibrate (beachscore calibrate …)")
    t0 = time.perf_counter()
    reg = register(image, cal, module)
    check_board_in_view(reg.H_px_from_mm, cal.profile["board_mm"], (image.shape[1], image.shape[0]))
    check_colours(image, reg, cal)
    t1 = time.perf_counter()
    photo = Photo(image=image, registration=reg, calibration=cal, setup=setup)
    reading = module.read(photo)
    t2 = time.perf_counter()
    reading, result = _score_lawful(reading, setup)
    state = scoring.complete_state(reading.state, setup)
    t3 = time.perf_counter()
    timing = {"decode": round(decode_ms, 1), "register": round((t1 - t0) * 1e3, 1),
              "detect": round((t2 - t1) * 1e3, 1), "score": round((t3 - t2) * 1e3, 1)}
    return ScanResult(game=cal.game, state=state, score=result, confidence=reading.confidence,
                      warnings=reg.warnings + reading.warnings, timing_ms=timing, registration=reg,
                      photo=photo, reading=reading)


def at_reader_scale(image: np.ndarray, cal: store.Calibration, module) -> np.ndarray:
    """Shrink a photo larger than the reader works at (``DECODE_REDUCE`` of the calibration shot).

    A file is decoded straight at that size; a camera frame or an upload arrives full size and is
    shrunk here (area averaging), so both paths read the same pixels. Smaller photos are left as
    they are (the readers refuse what is too small to read).
    """
    target_w = cal.image_size[0] / int(getattr(module, "DECODE_REDUCE", 1))
    if image.shape[1] <= target_w * 1.01:
        return image
    size = (int(round(target_w)), int(round(image.shape[0] * target_w / image.shape[1])))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def _decode_reduce(cal: store.Calibration) -> int:
    """JPEG decode reduction a game's reader asks for (``DECODE_REDUCE``, default 1: full size)."""
    return int(getattr(reader(cal.game), "DECODE_REDUCE", 1))


def scan_file(path: str, cal: store.Calibration, setup: dict | None = None) -> ScanResult:
    """Decode a photo file and :func:`scan_image` it. Raises as :func:`read_image` and :func:`scan_image`."""
    t0 = time.perf_counter()
    image = read_image(path, reduce=_decode_reduce(cal))
    return scan_image(image, cal, setup, decode_ms=(time.perf_counter() - t0) * 1e3)


def scan_bytes(data: bytes, cal: store.Calibration, setup: dict | None = None) -> ScanResult:
    """Decode encoded photo bytes (JPEG/PNG) and :func:`scan_image` them."""
    t0 = time.perf_counter()
    image = decode_image(data, reduce=_decode_reduce(cal))
    return scan_image(image, cal, setup, decode_ms=(time.perf_counter() - t0) * 1e3)
