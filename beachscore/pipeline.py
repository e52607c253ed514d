"""The scan pipeline: decode → locate the board → read → score. Used by the command line and the station.

Vision never scores and scoring never sees pixels; this module is where the two meet. The board
stage (lens, markers, outline motion, board identity) is :mod:`vision.board`.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

import scoring
from beachscore.checks import (check_colours, check_corners, check_output_folder, check_photo, check_setup,
                               doubt_unrecognised_board)
from beachscore.errors import BadInputError, UnreadableBoardError
from beachscore.games import reader
from beachscore.marked_areas import settle_unmarked
from calibration import store
from calibration.files import load_calibration_request
from calibration.light_check import light_check
from calibration.shot_check import check_shot
from calibration.shot_notes import corners_moved_note, shot_notes
from vision.appearance import board_layout
from vision.board import locate
from vision.board.ecc import reference_image
from vision.board.geometry import board_corners_mm, board_px_per_mm, homography_from_corners, project
from vision.board.identity import identity_layout, identity_profiles
from vision.board.markers import detect_markers
from vision.board.references import (IDENTITY_PNG, OUTLINE_PNG, REFERENCE_DOWNSCALE, identity_grow_mm,
                                     identity_reference, outline_layout, outline_ppm, outline_reference)
from vision.board.outline_fit import OUTLINE_FIT, fit_outline
from vision.board.strips import sample_bands, strip_layout
from vision.board.undistort import find_lens, undistorted_request, view_outline_mm
from vision.image.decode import decode_image, read_image
from vision.types import CalibrationShot, Photo, Reader, Reading, Registration


def learned_classes(cal: store.Calibration, calibration_json: str) -> list[str]:
    """The classes a calibration knows, sorted: the labels of calibration.json's samples and those the
    reader learned besides them (``cal.model["classes"]``); what ``calibrate`` and the wizard report.
    A learned name that is a label's last part (the grid reader's ``black`` for ``cell/black``) is
    that label's class, listed once as the user wrote it."""
    model = cal.model if isinstance(getattr(cal, "model", None), dict) else {}
    learned = model.get("classes") if isinstance(model.get("classes"), (dict, list)) else []
    labels = {label for label, _ in load_calibration_request(calibration_json).samples}
    tails = {label.rsplit("/", 1)[1] for label in labels if "/" in label}
    return sorted(labels | {name for name in learned if name not in tails})


def calibrate(calibration_json: str, out_dir: str) -> store.Calibration:
    """Learn a calibration from calibration.json and write it to ``out_dir``.

    Raises:
        BadInputError: bad files, unknown labels, samples off the board or of different labels on
            one spot (``bad-sample``).
        UnreadableBoardError: markers declared but not visible and no corners given; a shot with
            nothing to learn (``too-dark``, ``glare``, ``no-contrast``: :mod:`calibration.shot_check`).
    """
    req = load_calibration_request(calibration_json)
    check_output_folder(out_dir, calibration_json)
    game_reader = reader(req.game)
    image = read_image(req.image_path)
    empty = read_image(req.empty_image_path) if req.empty_image_path else None
    if empty is not None and empty.shape != image.shape:
        raise BadInputError("image-size-mismatch", "empty_image and image must have the same size")
    markers = req.profile.get("markers") or []
    H = detect_markers(image, markers)
    if H is None:
        if req.corners_px is None:
            raise UnreadableBoardError("board-not-found", "no profile marker is visible in the calibration "
                                       "photo and calibration.json gives no corners_px")
        check_corners(req.corners_px, (image.shape[1], image.shape[0]))
        H = homography_from_corners(req.corners_px, req.profile["board_mm"])
    lens, image, empty, H, corners_moved_mm = _shot_geometry(req, image, empty, H,
                                                             game_reader.fits_outline and not markers)
    w, h = req.profile["board_mm"]
    for label, (x, y) in req.samples:
        if not (-1e-6 * w <= x <= w * (1 + 1e-6) and -1e-6 * h <= y <= h * (1 + 1e-6)):
            raise BadInputError("sample-off-board", f"sample {label!r} at {x:g},{y:g} mm is outside the "
                                f"{w:g}x{h:g} mm board")
    check_shot(image, H, req.profile["board_mm"], req.samples, glare=not game_reader.judges_glare)
    shot = CalibrationShot(request=req, image=image, empty_image=empty, H_px_from_mm=H)
    with tempfile.TemporaryDirectory(prefix="beachscore-undistorted-") as tmp:
        if lens is not None:  # readers that decode the shot themselves read the undistorted copies
            shot.request = undistorted_request(req, lens, game_reader.decode_reduce, tmp)
        model = game_reader.learn(shot)
    gray = cv2.cvtColor(image if empty is None else empty, cv2.COLOR_BGR2GRAY)
    ppm = outline_ppm(H, req.profile["board_mm"], game_reader.decode_reduce)
    layout = strip_layout(req.profile["board_mm"], ppm)
    bands = sample_bands(gray, H, layout)
    grow_mm = identity_grow_mm(req.profile)
    colour = identity_profiles(image if empty is None else empty, H, req.profile["board_mm"], grow_mm)
    pictures = dict(shot.pictures, **{OUTLINE_PNG: np.clip(np.round(bands), 0, 255).astype(np.uint8),
                                      IDENTITY_PNG: np.clip(np.round(colour), 0, 255).astype(np.uint8)})
    extra = {"model_version": model_version(game_reader),
             "board_layout": board_layout(image, H, req.profile["board_mm"]).round(1).tolist(),
             "outline": {"picture": OUTLINE_PNG, "ppm": ppm, "layout": outline_layout()},
             "identity": {"picture": IDENTITY_PNG, "grow_mm": grow_mm, "layout": identity_layout()},
             "separability": light_check(req.game, req.profile, image, H, req.samples, model,
                                           columns=game_reader.light_columns)}
    notes = shot_notes(model) + ([corners_moved_note(corners_moved_mm)] if corners_moved_mm is not None else [])
    if notes:
        extra["notes"] = notes
    cal = store.Calibration(game=req.game, profile=req.profile, image_size=(image.shape[1], image.shape[0]),
                            H_px_from_mm=H, model=model, reference=reference_image(gray, REFERENCE_DOWNSCALE),
                            folder=out_dir, lens=lens, extra=extra)
    created = not os.path.exists(out_dir)
    try:
        store.save(out_dir, cal, pictures)
    except OSError as exc:
        if created:  # a folder this command made and could not fill is not left behind
            shutil.rmtree(out_dir, ignore_errors=True)
        raise BadInputError("output-unwritable", f"cannot write the calibration to {out_dir}: "
                            f"{exc.strerror or exc}") from None
    prepare_calibration(cal)
    return cal


def _undistorted(req, image: np.ndarray, empty: np.ndarray | None, H: np.ndarray):
    """(lens or None, shot, empty shot, H) with the lens the shot shows taken out: the lens found
    around the board ``H`` (board mm → shot px) places, the shots undistorted and H carried over
    (from the markers again when the profile has them); everything is then learned in the
    undistorted shot's pixels."""
    board = req.profile["board_mm"]
    lens = find_lens(req, image, project(H, board_corners_mm(board)))
    if lens is None:
        return None, image, empty, H
    lens.keep_in_view(project(H, view_outline_mm(board)))
    corners = lens.undistort_points(project(H, board_corners_mm(board)), *lens.size)
    image = lens.undistort_image(image)
    empty = lens.undistort_image(empty) if empty is not None else None
    markers = req.profile.get("markers") or []
    H2 = detect_markers(image, markers) if markers else None
    return lens, image, empty, H2 if H2 is not None else homography_from_corners(corners, board)


def _shot_geometry(req, image: np.ndarray, empty: np.ndarray | None, H: np.ndarray, fits_outline: bool):
    """:func:`_undistorted`, and for a reader that needs its board's own corners (``fits_outline``)
    the clicked ones moved onto the outline's edges (:func:`vision.board.outline_fit.fit_outline`):
    first in the shot as taken (corners clicked far enough off make the lens search find a lens that
    is not there), then in the undistorted shot; when they move there and a lens was found, the
    lens is found again around the fitted corners (its first pass looks for the outline where the
    corners put it). The fit in the shot as taken only tells the lens search where to look: a
    straight line fitted to a side a barrel lens bends lies outside its ends (1–6 mm at 720p through
    a wide lens, ``scripts/outline_fit_error.py``), so whether the clicks are kept is decided in the
    undistorted shot, against the clicks (carried there by the lens), never against that first fit.

    Returns:
        (lens or None, shot, empty shot or None, H board mm → shot px, moved_mm): the shots
        undistorted; ``moved_mm`` how far (board mm) the fit moved the farthest clicked corner, None
        when the clicks were kept.
    """
    board = req.profile["board_mm"]
    if not fits_outline:
        return (*_undistorted(req, image, empty, H), None)
    H_clicked = H
    clicked = project(H, board_corners_mm(board))
    first = fit_outline(image, clicked, board)
    if first.moved:
        H = homography_from_corners(first.corners_px, board)
    lens, shot, empty_shot, H = _undistorted(req, image, empty, H)

    def refit():
        in_shot = clicked if lens is None else lens.undistort_points(clicked, *lens.size)
        return fit_outline(shot, project(H, board_corners_mm(board)), board, clicked_px=in_shot)

    fit = refit()
    searched_elsewhere = first.moved  # H (and the lens) placed by a fit's corners, not by the clicks
    if fit.moved and lens is not None:
        H_shot = homography_from_corners(lens.distort_points(fit.corners_px, *lens.size), board)
        lens, shot, empty_shot, H = _undistorted(req, image, empty, H_shot)
        searched_elsewhere = True
        fit = refit()
    if fit.moved:
        H = homography_from_corners(fit.corners_px, board)
    elif fit.shift_mm is not None and fit.shift_mm < OUTLINE_FIT.keep_clicked_mm and searched_elsewhere:
        # the undistorted shot's outline lies within keep_clicked_mm of the clicks: they are kept, with
        # the lens found around them (as when no fit moves them)
        return (*_undistorted(req, image, empty, H_clicked), None)
    if not (searched_elsewhere or fit.moved):
        return lens, shot, empty_shot, H, None
    final = project(H, board_corners_mm(board))
    if lens is not None:
        final = lens.distort_points(final, *lens.size)
    moved_mm = float(np.linalg.norm(final - clicked, axis=1).max()) / board_px_per_mm(H_clicked, board)
    return lens, shot, empty_shot, H, moved_mm


def prepare_calibration(cal: store.Calibration) -> None:
    """Build now, once per loaded calibration, what scans derive from the calibration alone and keep
    (the board stage's outline and identity references, the lens maps, the reader's own references
    for photos of the calibration shot's size, the game's rules engine): the first scan after a
    calibration or a station's start then costs what the others do. A scan reads the same arrays
    whether they were built here or by itself.

    Raises:
        BadInputError: unknown game, or a reader's ``calibration-outdated``.
    """
    game_reader = reader(cal.game)
    w, h = (int(v) for v in cal.image_size)
    r = max(int(game_reader.decode_reduce), 1)
    shape = (-(-h // r), -(-w // r))  # what a JPEG decoded at 1/r has
    if cal.lens is not None:
        cal.lens.undistort_image(np.zeros(shape + (3,), np.uint8))
    if cal.reference is not None:
        outline_reference(cal)
    identity_reference(cal)
    game_reader.prepare(cal, shape)
    scoring.game_module({"game": cal.game})


def model_version(game_reader: Reader) -> int:
    """Version of a reader's learned-model format (:attr:`~vision.types.Reader.model_version`)."""
    return int(game_reader.model_version)


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


def shown_confidence(confidence: float, decimals: int = 3) -> float:
    """A confidence as printed: cut to ``decimals``, never rounded up, so that a reading the
    product doubts (below 0.5, the trust threshold) never shows as 0.5.

    >>> shown_confidence(0.49972), shown_confidence(0.998), shown_confidence(1.0)
    (0.499, 0.998, 1.0)
    """
    k = 10 ** decimals
    return math.floor(float(confidence) * k + 1e-9) / k


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
    #: The photo as taken (at the reader's scale), before the lens correction; None: ``photo.image``.
    taken: np.ndarray | None = field(default=None, repr=False)

    def to_json(self) -> dict:
        """The contract's scan object: game, state, score, confidence, warnings, timing_ms (+ registration)."""
        return {"game": self.game, "state": self.state, "score": self.score,
                "confidence": shown_confidence(self.confidence), "warnings": self.warnings,
                "timing_ms": self.timing_ms, "registration": self.registration.to_json()}

    def annotate(self) -> np.ndarray:
        """The photo with the reading drawn on it, BGR uint8.

        The reader draws on the undistorted photo its homography belongs to; with a lens the
        drawing is carried back into the photo as taken (its own, distorted, pixels): what the
        reader drew is mapped back through the lens and laid over the photo, whose other pixels
        stay untouched. A reader's picture of another size (a rectified board) is left as drawn.
        The reader finds the score in ``reading.details["score"]`` (vision never scores), and draws
        this result's confidence (a followed game's, with the rules and the last accepted reading),
        the one the pages and the text show, not the reader's own.
        """
        scored = replace(self.reading, confidence=self.confidence,
                         details={**self.reading.details, "score": self.score})
        drawn = reader(self.game).annotate(self.photo, scored)
        lens = self.photo.calibration.lens
        if lens is None or self.taken is None or drawn.shape != self.photo.image.shape:
            return drawn
        changed = np.any(drawn != self.photo.image, axis=2).astype(np.uint8) * 255
        back = lens.distort_image(drawn)
        mask = lens.distort_image(changed) > 127
        out = self.taken.copy()
        out[mask] = back[mask]
        return out


def scan_image(image: np.ndarray, cal: store.Calibration, setup: dict | None = None,
               decode_ms: float = 0.0, full=None) -> ScanResult:
    """Register, read and score one decoded photo.

    Args:
        image: photo, BGR uint8 (H, W, 3), the same camera mode as the calibration shot.
        cal: loaded calibration.
        setup: optional setup.json dict.
        decode_ms: time spent decoding, reported in ``timing_ms`` (which also gives ``undistort``, the
            lens correction, when the calibration has a lens; ``register`` includes the test that the
            photo shows the calibrated board).
        full: a call that decodes the photo at full size (a file decoded reduced), or None; a photo
            larger than the reader's scale is its own full size. The reader gets it lens-corrected
            (:attr:`vision.types.Photo.full`).
    Raises:
        UnreadableBoardError: the board cannot be read reliably (exit 3); ``board-not-found`` when
            the game's reader cannot read the photo and the board check does not recognise the
            calibrated board in it (another game's, or the camera moved): one reason on every path.
        BadInputError: the setup does not fit the game (exit 2).
    """
    check_photo(image, cal)
    check_setup(setup, cal)
    game_reader = reader(cal.game)
    if full is None and image.shape[1] > cal.image_size[0] / int(game_reader.decode_reduce) * 1.01:
        given = image
        full = lambda: given  # noqa: E731
    image = at_reader_scale(image, cal, game_reader)
    if cal.extra.get("model_version") != model_version(game_reader):
        raise BadInputError("calibration-outdated", f"{cal.folder or 'the calibration'} was learned by another "
                            "version of the reader; recalibrate")
    t0 = time.perf_counter()
    board = locate(image, cal, game_reader)
    reg = board.registration
    try:
        check_colours(board.image, reg, cal)
        t1 = time.perf_counter()
        photo = Photo(image=board.image, registration=reg, calibration=cal, setup=setup,
                      full=_full_size(full, cal))
        reading = game_reader.read(photo)
    except UnreadableBoardError:
        # is this the calibrated board (unless the registration already matched it)? It names the
        # reason when the game's reader cannot read the photo (the same on every path) …
        board.check_identity()
        raise
    t2 = time.perf_counter()
    # … and makes a reading of a board it does not recognise unsure
    identity = board.identity()
    t_identity = time.perf_counter()
    reading, result = settle_unmarked(*_score_lawful(reading, setup), setup)
    reading = doubt_unrecognised_board(reading, identity)
    state = scoring.complete_state(reading.state, setup)
    t3 = time.perf_counter()
    register_s = t1 - t0 - board.undistort_ms / 1e3 + t_identity - t2
    timing = {"decode": round(decode_ms, 1), "register": round(register_s * 1e3, 1),
              "detect": round((t2 - t1) * 1e3, 1), "score": round((t3 - t_identity) * 1e3, 1)}
    if cal.lens is not None:
        timing["undistort"] = round(board.undistort_ms, 1)
    return ScanResult(game=cal.game, state=state, score=result, confidence=reading.confidence,
                      warnings=reg.warnings + reading.warnings, timing_ms=timing, registration=reg,
                      photo=photo, reading=reading, taken=board.taken)


def at_reader_scale(image: np.ndarray, cal: store.Calibration, game_reader: Reader) -> np.ndarray:
    """Shrink a photo larger than the reader works at (its ``decode_reduce`` of the calibration shot).

    A file is decoded straight at that size; a camera frame or an upload arrives full size and is
    shrunk here (area averaging), so both paths read the same pixels. Smaller photos are left as
    they are (the readers refuse what is too small to read).
    """
    target_w = cal.image_size[0] / int(game_reader.decode_reduce)
    if image.shape[1] <= target_w * 1.01:
        return image
    size = (int(round(target_w)), int(round(image.shape[0] * target_w / image.shape[1])))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def _full_size(full, cal: store.Calibration):
    """The photo at full size on demand, lens-corrected like the reader's photo, decoded once
    (None: ``full`` is None)."""
    if full is None:
        return None
    kept: list = []

    def get() -> np.ndarray:
        if not kept:
            image = full()
            kept.append(cal.lens.undistort_image(image) if cal.lens is not None else image)
        return kept[0]
    return get


def _decode_reduce(cal: store.Calibration) -> int:
    """JPEG decode reduction a game's reader asks for (its ``decode_reduce``; 1: full size)."""
    return int(reader(cal.game).decode_reduce)


def decode_photo(data: bytes, cal: store.Calibration, what: str = "image") -> np.ndarray:
    """Decode an encoded photo (JPEG/PNG…) as a scan of a file decodes it: a JPEG straight at its
    game's reader's reduced size. The command line and the station's photo files both come here, so
    that the same file gives the same pixels, hence the same reading and confidence (a full-size
    frame shrunk by :func:`at_reader_scale` differs slightly from a JPEG decoded reduced).

    Returns:
        BGR uint8 (H, W, 3).
    Raises:
        BadInputError: as :func:`vision.image.decode.decode_image`.
    """
    return decode_image(data, what=what, reduce=_decode_reduce(cal))


def scan_file(path: str, cal: store.Calibration, setup: dict | None = None) -> ScanResult:
    """Decode a photo file and :func:`scan_image` it. Raises as :func:`read_image` and :func:`scan_image`."""
    t0 = time.perf_counter()
    image = read_image(path, reduce=_decode_reduce(cal))
    full = (lambda: read_image(path)) if _decode_reduce(cal) > 1 else None
    return scan_image(image, cal, setup, decode_ms=(time.perf_counter() - t0) * 1e3, full=full)


def scan_bytes(data: bytes, cal: store.Calibration, setup: dict | None = None) -> ScanResult:
    """Decode encoded photo bytes (JPEG/PNG) and :func:`scan_image` them."""
    t0 = time.perf_counter()
    image = decode_photo(data, cal)
    full = (lambda: decode_image(data)) if _decode_reduce(cal) > 1 else None
    return scan_image(image, cal, setup, decode_ms=(time.perf_counter() - t0) * 1e3, full=full)
