"""The scan pipeline: decode → register → read → score. Used by the command line and the station.

Vision never scores and scoring never sees pixels; this module is where the two meet.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

import scoring
from beachscore.errors import BadInputError, UnreadableBoardError
from beachscore.games import reader
from calibration import store
from calibration.files import load_calibration_request
from beachscore.checks import (check_calibrated_board, check_colours, check_corners, check_output_folder, check_photo,
                               check_setup, doubt_unrecognised_board)
from vision.appearance import board_layout
from vision.image.decode import read_image, decode_image
from vision.lens.charuco import lens_from_charuco
from vision.lens.model import Lens
from vision.lens.lines import estimate_lens
from vision.outline import (IDENTITY, OUTLINE, Identity, IdentityReference, OutlineReference, coarse_motion,
                            identity_layout, identity_profiles, measure_motion, sample_bands, strip_layout)
from vision.outline import board_identity as outline_identity
from vision.image.quality import check_board_in_view
from vision.registration import (Registration, board_corners_mm, board_motion, board_px_per_mm, detect_markers,
                                 homography_from_corners, project, reference_image, SIDES)

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
    markers = req.profile.get("markers") or []
    H = detect_markers(image, markers)
    if H is None:
        if req.corners_px is None:
            raise UnreadableBoardError("board-not-found", "no profile marker is visible in the calibration "
                                       "photo and calibration.json gives no corners_px")
        check_corners(req.corners_px, (image.shape[1], image.shape[0]))
        H = homography_from_corners(req.corners_px, req.profile["board_mm"])
    lens = find_lens(req, image, project(H, board_corners_mm(req.profile["board_mm"])))
    if lens is not None:
        lens.keep_in_view(project(H, view_outline_mm(req.profile["board_mm"])))  # from here on everything is learned in the undistorted shot's pixels
        corners = lens.undistort_points(project(H, board_corners_mm(req.profile["board_mm"])), *lens.size)
        image = lens.undistort_image(image)
        empty = lens.undistort_image(empty) if empty is not None else None
        H = detect_markers(image, markers) if markers else None
        if H is None:
            H = homography_from_corners(corners, req.profile["board_mm"])
    w, h = req.profile["board_mm"]
    for label, (x, y) in req.samples:
        if not (-1e-6 * w <= x <= w * (1 + 1e-6) and -1e-6 * h <= y <= h * (1 + 1e-6)):
            raise BadInputError("sample-off-board", f"sample {label!r} at {x:g},{y:g} mm is outside the "
                                f"{w:g}x{h:g} mm board")
    shot = CalibrationShot(request=req, image=image, empty_image=empty, H_px_from_mm=H)
    with tempfile.TemporaryDirectory(prefix="beachscore-undistorted-") as tmp:
        if lens is not None:  # readers that decode the shot themselves read the undistorted copies
            shot.request = undistorted_request(req, lens, int(getattr(module, "DECODE_REDUCE", 1)), tmp)
        model = module.learn(shot)
    gray = cv2.cvtColor(image if empty is None else empty, cv2.COLOR_BGR2GRAY)
    ppm = outline_ppm(H, req.profile["board_mm"], int(getattr(module, "DECODE_REDUCE", 1)))
    layout = strip_layout(req.profile["board_mm"], ppm)
    bands = sample_bands(gray, H, layout)
    grow_mm = identity_grow_mm(req.profile)
    colour = identity_profiles(image if empty is None else empty, H, req.profile["board_mm"], grow_mm)
    pictures = dict(shot.pictures, **{OUTLINE_PNG: np.clip(np.round(bands), 0, 255).astype(np.uint8),
                                      IDENTITY_PNG: np.clip(np.round(colour), 0, 255).astype(np.uint8)})
    cal = store.Calibration(game=req.game, profile=req.profile, image_size=(image.shape[1], image.shape[0]),
                            H_px_from_mm=H, model=model, reference=reference_image(gray, REFERENCE_DOWNSCALE),
                            folder=out_dir, lens=lens, extra={"model_version": model_version(module),
                                                   "board_layout": board_layout(image, H, req.profile["board_mm"])
                                                   .round(1).tolist(),
                                                   "outline": {"picture": OUTLINE_PNG, "ppm": ppm,
                                                               "layout": outline_layout()},
                                                   "identity": {"picture": IDENTITY_PNG, "grow_mm": grow_mm,
                                                                "layout": identity_layout()}})
    try:
        store.save(out_dir, cal, pictures)
    except OSError as exc:
        raise BadInputError("output-unwritable", f"cannot write the calibration to {out_dir}: "
                            f"{exc.strerror or exc}") from None
    return cal


#: Margin round the board (share of its larger side) that stays in the undistorted photo: the
#: registration's strips and the readers' surrounds look that far beyond the outline.
VIEW_MARGIN = 0.15


def view_outline_mm(board_mm) -> np.ndarray:
    """Points (mm, (N, 2)) along the board's outline grown by :data:`VIEW_MARGIN`."""
    w, h = board_mm
    m = VIEW_MARGIN * max(w, h)
    t = np.linspace(0, 1, 9)
    x0, x1, y0, y1 = -m, w + m, -m, h + m
    return np.concatenate([np.column_stack([x0 + t * (x1 - x0), np.full_like(t, y0)]),
                           np.column_stack([x0 + t * (x1 - x0), np.full_like(t, y1)]),
                           np.column_stack([np.full_like(t, x0), y0 + t * (y1 - y0)]),
                           np.column_stack([np.full_like(t, x1), y0 + t * (y1 - y0)])])


def undistorted_request(req, lens: Lens, reduce: int, folder: str):
    """The calibration request with its photos replaced by undistorted copies in ``folder``.

    Some readers decode the calibration shot themselves at 1/``reduce`` size (as their scans are
    decoded) instead of using the shot handed to them. The copies hold the shot undistorted at full
    size and then shrunk to 1/``reduce`` (area averaging, as a full-size camera frame is): one
    resampling at full resolution softens the picture half as much at the reader's scale as
    undistorting the reduced decode would (scans do that, for speed; a learner fed the softer
    picture misread the Strand unter samples). The reduced image is enlarged ``reduce`` times by
    pixel repetition into a PNG, whose reduced decode (area or nearest pixel) gives it back
    unchanged. Files beside a photo that share its name (``calib.setup.json``) are copied along.
    """
    import dataclasses
    import shutil

    def copy(path):
        if not path:
            return path
        full = lens.undistort_image(read_image(path))
        small = full if reduce == 1 else cv2.resize(full, (-(-full.shape[1] // reduce), -(-full.shape[0] // reduce)),
                                                    interpolation=cv2.INTER_AREA)
        big = cv2.resize(small, (small.shape[1] * reduce, small.shape[0] * reduce), interpolation=cv2.INTER_NEAREST)
        stem = os.path.splitext(os.path.basename(path))[0]
        out = os.path.join(folder, stem + ".png")
        if not cv2.imwrite(out, big):
            raise BadInputError("output-unwritable", f"cannot write a temporary copy of {path}")
        src_dir = os.path.dirname(os.path.abspath(path))
        for name in os.listdir(src_dir):
            if name.startswith(stem + ".") and name.endswith(".json"):
                shutil.copyfile(os.path.join(src_dir, name), os.path.join(folder, name))
        return out

    return dataclasses.replace(req, image_path=copy(req.image_path), empty_image_path=copy(req.empty_image_path))


def find_lens(req, image: np.ndarray, corners_px: np.ndarray) -> Lens | None:
    """The camera's lens distortion, from the ChArUco sheet's photo when calibration.json gives one
    (``charuco_image``), else from the straight lines of the calibration shot; None when it shows none.

    Args:
        req: the parsed calibration request.
        image: the calibration shot, BGR uint8, as taken.
        corners_px: (4, 2) the board's corners in it (clicked, or from the markers).
    Raises:
        BadInputError: ``image-size-mismatch`` when the sheet's photo has another size.
        UnreadableBoardError: ``charuco-not-found`` when the sheet cannot be read in its photo.
    """
    if req.charuco_image_path:
        sheet = read_image(req.charuco_image_path)
        if sheet.shape != image.shape:
            raise BadInputError("image-size-mismatch", "charuco_image and image must have the same size (the same "
                                "camera mode)")
        return lens_from_charuco(sheet)
    return estimate_lens(image, corners_px, req.profile)


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


#: The calibration shot's outline bands (:mod:`vision.outline`), stored in CAL_DIR.
OUTLINE_PNG = "outline.png"
#: The calibration shot's colour strips across the outline (:func:`vision.outline.colour_profiles`),
#: one row per strip: what "is this the calibrated board?" compares a photo with.
IDENTITY_PNG = "identity.png"


def outline_layout() -> list[float]:
    """The strip geometry a stored ``outline.png`` was sampled with (a changed one is rebuilt)."""
    c = OUTLINE
    return [c.inside_mm, c.outside_mm, c.search_mm, c.width_mm, c.spacing_mm]


def outline_ppm(H_px_from_mm: np.ndarray, board_mm, reduce: int) -> float:
    """Sampling resolution of the outline strips (px/mm): the photo's own at the reader's decode
    size, within :attr:`~vision.outline.OutlineConfig.min_ppm` … ``max_ppm``."""
    ppm = board_px_per_mm(H_px_from_mm, board_mm) / max(reduce, 1)
    return float(np.clip(ppm, OUTLINE.min_ppm, OUTLINE.max_ppm))


def outline_reference(cal: store.Calibration) -> OutlineReference:
    """The calibration's :class:`~vision.outline.OutlineReference`, built once per loaded calibration.

    From ``outline.png`` (the calibration shot's bands at full resolution) when it was sampled with
    today's layout; else (a calibration learned before it existed) from the 1/4-size reference.
    """
    ref = cal.cache.get("outline")
    if ref is not None:
        return ref
    board = cal.profile["board_mm"]
    s = cal.reference.shape[1] / cal.image_size[0]
    H_small = np.diag([s, s, 1.0]) @ cal.H_px_from_mm
    info = cal.extra.get("outline") or {}
    bands = cal.image(info["picture"]) if info.get("layout") == outline_layout() and info.get("picture") else None
    ref = None
    if bands is not None and bands.ndim == 2:
        try:
            ref = OutlineReference(bands, cal.reference, H_small, board, float(info["ppm"]))
        except (ValueError, KeyError, TypeError):
            ref = None
    if ref is None:
        ref = OutlineReference.from_image(cal.reference, H_small, board, outline_ppm(H_small, board, 1))
    cal.cache["outline"] = ref
    return ref


def identity_grow_mm(profile: dict) -> float:
    """How far outside the board's outline the identity strips lie (:class:`~vision.outline.IdentityReference`):
    0, or where pieces that may stand on the outline reach no longer (their reach plus the strips'
    ``inside_mm``, so that a strip's inner end starts beyond the furthest piece)."""
    reach = pieces_reach_mm(profile)
    return reach + IDENTITY.strips.inside_mm if reach > 0 else 0.0


def pieces_reach_mm(profile: dict) -> float:
    """How far (mm) pieces may reach beyond the board's outline: a grid whose outer places sit on
    the edge (``origin_mm`` < 0, a Go board described by its outer lines) lets a piece stand up to
    a place's size beyond it; 0 for every other profile (pieces stand inside the board).

    >>> pieces_reach_mm({"board_mm": [396, 426.6], "grid": {"origin_mm": [-11, -11.85], "pitch_mm": [22, 23.7],
    ...                                                    "rows": 19, "cols": 19}})
    11.85
    """
    g = profile.get("grid")
    if not isinstance(g, dict):
        return 0.0
    try:
        ox, oy = (float(v) for v in g["origin_mm"])
        pitch = g.get("pitch_mm", g.get("cell_mm"))
        px, py = (float(pitch), float(pitch)) if np.isscalar(pitch) else (float(v) for v in pitch)
        w, h = (float(v) for v in profile["board_mm"])
        reach = max(0.0, -ox, -oy, ox + int(g["cols"]) * px - w, oy + int(g["rows"]) * py - h)
    except (KeyError, TypeError, ValueError):
        return 0.0
    return round(reach, 3)


def identity_reference(cal: store.Calibration) -> IdentityReference | None:
    """The calibration's :class:`~vision.outline.IdentityReference` (its colour strips), built once per
    loaded calibration; None for a calibration learned before they were stored (no check then)."""
    if "identity" in cal.cache:
        return cal.cache["identity"]
    info = cal.extra.get("identity") or {}
    ref = None
    if info.get("picture") and info.get("layout") == identity_layout():
        picture = cal.image(info["picture"])
        if picture is not None and picture.ndim == 3:
            try:
                ref = IdentityReference(picture, cal.profile["board_mm"], float(info.get("grow_mm", 0.0)))
            except (ValueError, KeyError, TypeError):
                ref = None
    cal.cache["identity"] = ref
    return ref


def fixed_sides(cal: store.Calibration, which: str, strips, module=None) -> np.ndarray:
    """bool (n_strips,): the strips of a layout (``which``: ``"identity"`` or ``"outline"``) on the sides
    the game keeps fixed (``REGISTRATION_SIDES``), once per loaded calibration (read-only)."""
    sides = tuple(getattr(module, "REGISTRATION_SIDES", SIDES))
    key = ("fixed-sides", which, sides)
    usable = cal.cache.get(key)
    if usable is None or len(usable) != len(strips.sides):
        usable = np.isin(strips.sides, sides)
        usable.setflags(write=False)
        cal.cache[key] = usable
    return usable


#: ``markers_H`` of :func:`board_identity` and :func:`register` when the caller has not looked for
#: the profile's markers yet (they look themselves).
NOT_LOOKED = object()


def markers_homography(image: np.ndarray, cal: store.Calibration):
    """The homography from the profile's ArUco markers in this photo (:func:`detect_markers`), or None
    (no markers declared, or too few seen): looked for once per scan by :func:`scan_image`, which
    hands it to :func:`board_identity` and :func:`register` (a detection costs a few ms)."""
    markers = cal.profile.get("markers") or []
    return detect_markers(image, markers) if markers else None


def board_identity(image: np.ndarray, cal: store.Calibration, module=None, exhaustive: bool = False,
                   markers_H=NOT_LOOKED) -> Identity | None:
    """Is the board in this (undistorted, reader-scale) photo the calibrated one?
    (:func:`vision.outline.board_identity` on the sides the game keeps fixed, ``REGISTRATION_SIDES``.)

    A board whose profile declares ArUco markers is identified by them when they are seen (the
    registration then places it by them, however far it moved); only a photo without them is
    compared strip by strip. ``exhaustive``: as :func:`vision.outline.board_identity`.
    ``markers_H``: :func:`markers_homography` of this photo, when already looked for.

    Returns:
        :class:`~vision.outline.Identity`, or None when the calibration has no colour strips or
        the board's markers are seen.
    """
    ref = identity_reference(cal)
    if ref is None:
        return None
    if cal.profile.get("markers"):
        if (markers_homography(image, cal) if markers_H is NOT_LOOKED else markers_H) is not None:
            return None
    H0 = photo_homography(cal, image)
    usable = fixed_sides(cal, "identity", ref.strips, module)

    def coarse_guess():
        return coarse_motion(outline_reference(cal), cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), H0)

    return outline_identity(ref, image, H0, usable, coarse_guess, exhaustive)


def registration_matches_board(reg: Registration, cal: store.Calibration, module=None) -> bool:
    """Whether the game's own registration already showed that the photo holds the calibrated
    board, so that :func:`board_identity` would add nothing (the game's ``registration_matches_board``
    hook; games without one: False, the board check is made).

    Args:
        reg: the photo's registration; cal: its calibration; module: the game's reader module.
    Returns:
        bool.
    """
    hook = getattr(module, "registration_matches_board", None)
    return bool(hook(reg, cal)) if hook is not None and reg is not None else False


def identity_unless_matched(image: np.ndarray, cal: store.Calibration, module, reg: Registration | None,
                            looked: dict) -> Identity | None:
    """:func:`board_identity` of the photo, or None (no verdict) when its registration ``reg``
    already matched the calibrated board (:func:`registration_matches_board`). ``looked``: the
    markers already looked for (:func:`scan_image`)."""
    return None if registration_matches_board(reg, cal, module) else board_identity(image, cal, module, **looked)


def register(image: np.ndarray, cal: store.Calibration, module=None, markers_H=NOT_LOOKED) -> Registration:
    """Find the board in a photo: markers, else the calibrated corners, moved only when the
    board's outline says so (:func:`vision.outline.measure_motion`).

    The camera is fixed, so "nothing moved" is tested first; a motion is fitted only to strips
    across the board's outline (rim, edge, table edge: what pieces do not change) and accepted only
    when it explains them clearly better than no motion. New pieces never move the board.

    Args:
        image: photo, BGR uint8 (H, W, 3).
        cal: loaded calibration.
        module: the game's reader module (for its registration hints), optional.
        markers_H: :func:`markers_homography` of this photo, when already looked for.
    Raises:
        UnreadableBoardError: ``registration-lost`` when the board's outline is found neither where
            it was calibrated nor moved.
    """
    H = markers_homography(image, cal) if markers_H is NOT_LOOKED else markers_H
    if H is not None:
        return Registration(H, "markers")
    own = getattr(module, "register", None)
    if own is not None:  # the game registers itself (e.g. a cloth that hides parts of the outline)
        return own(image, cal)
    H0 = photo_homography(cal, image)
    if cal.reference is None:
        return Registration(H0, "corners")
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    ref = outline_reference(cal)
    usable = fixed_sides(cal, "outline", ref.strips, module).copy()
    exclude_fn = getattr(module, "registration_exclude", None)
    exclude = exclude_fn(image, cal) if exclude_fn else None
    if exclude is not None:
        px = np.round(project(H0, ref.strips.centres_mm)).astype(int)
        inside = (px[:, 0] >= 0) & (px[:, 1] >= 0) & (px[:, 0] < exclude.shape[1]) & (px[:, 1] < exclude.shape[0])
        hit = np.zeros(len(px), bool)
        hit[inside] = exclude[px[inside, 1], px[inside, 0]] > 0
        usable &= ~hit
    motion = measure_motion(ref, gray, H0, usable)
    share = motion.explained / max(motion.usable, 1)
    if motion.usable and share < OUTLINE.min_explained:
        raise UnreadableBoardError("registration-lost", "the board's edges are not where they were at calibration "
                                   "and could not be found nearby; put the board back, clear its edges, or recalibrate")
    if not motion.moved:
        return Registration(H0, "corners", score=float(share))
    H = H0 @ motion.T
    shift_mm, rotation = board_motion(H0, H, cal.profile["board_mm"])
    if shift_mm < MOVED_MM and abs(rotation) < 0.2:
        return Registration(H0, "corners", shift_mm=shift_mm, rotation_deg=rotation, score=float(share))
    reg = Registration(H, "refined", shift_mm=shift_mm, rotation_deg=rotation, score=float(share))
    reg.warnings.append(f"the board moved {shift_mm:.1f} mm / {rotation:+.1f}° since calibration; "
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
        """
        drawn = reader(self.game).annotate(self.photo, self.reading)
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
               decode_ms: float = 0.0) -> ScanResult:
    """Register, read and score one decoded photo.

    Args:
        image: photo, BGR uint8 (H, W, 3), the same camera mode as the calibration shot.
        cal: loaded calibration.
        setup: optional setup.json dict.
        decode_ms: time spent decoding, reported in ``timing_ms`` (which also gives ``undistort``, the
            lens correction, when the calibration has a lens; ``register`` includes the test that the
            photo shows the calibrated board).
    Raises:
        UnreadableBoardError: the board cannot be read reliably (exit 3); ``board-not-found`` when
            the game's reader cannot read the photo and the board check does not recognise the
            calibrated board in it (another game's, or the camera moved): one reason on every path.
        BadInputError: the setup does not fit the game (exit 2).
    """
    check_photo(image, cal)
    check_setup(setup, cal)
    module = reader(cal.game)
    image = at_reader_scale(image, cal, module)
    taken = image
    t_lens = time.perf_counter()
    if cal.lens is not None:  # the homography holds in the undistorted photo (vision.lens.model)
        image = cal.lens.undistort_image(image)
    undistort_ms = (time.perf_counter() - t_lens) * 1e3
    if cal.extra.get("model_version") != model_version(module):
        raise BadInputError("calibration-outdated", f"{cal.folder or 'the calibration'} was learned by another "
                            "version of the reader; recalibrate")
    t0 = time.perf_counter()
    # a profile's markers are looked for once: the board check and the registration share them
    looked = {"markers_H": markers_homography(image, cal)} if cal.profile.get("markers") else {}
    reg = None
    try:
        reg = register(image, cal, module, **looked)
        check_board_in_view(reg.H_px_from_mm, cal.profile["board_mm"], (image.shape[1], image.shape[0]))
        check_colours(image, reg, cal)
        t1 = time.perf_counter()
        photo = Photo(image=image, registration=reg, calibration=cal, setup=setup)
        reading = module.read(photo)
    except UnreadableBoardError:
        # is this the calibrated board (unless the registration already matched it)? It names the
        # reason when the game's reader cannot read the photo (the same on every path) …
        check_calibrated_board(identity_unless_matched(image, cal, module, reg, looked))
        raise
    t2 = time.perf_counter()
    # … and makes a reading of a board it does not recognise unsure
    identity = identity_unless_matched(image, cal, module, reg, looked)
    t_identity = time.perf_counter()
    reading, result = _score_lawful(reading, setup)
    reading = doubt_unrecognised_board(reading, identity)
    state = scoring.complete_state(reading.state, setup)
    t3 = time.perf_counter()
    timing = {"decode": round(decode_ms, 1), "register": round((t1 - t0 + t_identity - t2) * 1e3, 1),
              "detect": round((t2 - t1) * 1e3, 1), "score": round((t3 - t_identity) * 1e3, 1)}
    if cal.lens is not None:
        timing["undistort"] = round(undistort_ms, 1)
    return ScanResult(game=cal.game, state=state, score=result, confidence=reading.confidence,
                      warnings=reg.warnings + reading.warnings, timing_ms=timing, registration=reg,
                      photo=photo, reading=reading, taken=taken)


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
