"""The board stage: where the board is in a photo, and whether it is the calibrated board.

undistort → markers → outline → motion → identity, behind :func:`locate`. The camera is fixed, so
"nothing moved" is tested first; a motion is fitted only to the strips across the board's outline
(:mod:`vision.board.motion`) and counts only when it is larger than :data:`BOARD_MOVED`. Whether
the photo shows the calibrated board at all (:mod:`vision.board.identity`) is asked only when it
matters: when the photo cannot be read, and of every reading.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.board.geometry import SIDES, board_motion, project
from vision.board.identity import Identity, check_calibrated_board
from vision.board.identity import board_identity as strips_identity
from vision.board.markers import detect_markers
from vision.board.motion import BOARD_MOVED, coarse_motion, measure_motion
from vision.board.references import identity_reference, outline_reference, photo_homography
from vision.board.strips import OUTLINE
from vision.errors import UnreadableBoardError
from vision.image.quality import check_board_in_view
from vision.types import Calibration, Reader, Registration

def fixed_sides(cal: Calibration, which: str, strips, reader: Reader | None = None) -> np.ndarray:
    """bool (n_strips,): the strips of a layout (``which``: ``"identity"`` or ``"outline"``) on the sides
    the game keeps fixed (``Reader.registration_sides``), once per loaded calibration (read-only)."""
    sides = tuple(reader.registration_sides) if reader is not None else SIDES
    key = ("fixed-sides", which, sides)
    usable = cal.cache.get(key)
    if usable is None or len(usable) != len(strips.sides):
        usable = np.isin(strips.sides, sides)
        usable.setflags(write=False)
        cal.cache[key] = usable
    return usable


def read_area(cal: Calibration, reader: Reader | None = None):
    """The part of the board the reader reads (:meth:`Reader.read_area`; None: the whole board),
    derived from the profile once per loaded calibration."""
    if "read-area" not in cal.cache:
        cal.cache["read-area"] = reader.read_area(cal.profile) if reader is not None else None
    return cal.cache["read-area"]


#: ``markers_H`` of :func:`board_identity` and :func:`register` when the caller has not looked for
#: the profile's markers yet (they look themselves).
NOT_LOOKED = object()


def markers_homography(image: np.ndarray, cal: Calibration):
    """The homography from the profile's ArUco markers in this photo (:func:`detect_markers`), or None
    (no markers declared, or too few seen): looked for once per scan by :func:`locate`, which
    hands it to :func:`board_identity` and :func:`register` (a detection costs a few ms)."""
    markers = cal.profile.get("markers") or []
    return detect_markers(image, markers) if markers else None


def board_identity(image: np.ndarray, cal: Calibration, reader: Reader | None = None, exhaustive: bool = False,
                   markers_H=NOT_LOOKED) -> Identity | None:
    """Is the board in this (undistorted, reader-scale) photo the calibrated one?
    (:func:`vision.board.identity.board_identity` on the sides the game keeps fixed, ``Reader.registration_sides``.)

    A board whose profile declares ArUco markers is identified by them when they are seen (the
    registration then places it by them, however far it moved); only a photo without them is
    compared strip by strip. ``exhaustive``: as :func:`vision.board.identity.board_identity`.
    ``markers_H``: :func:`markers_homography` of this photo, when already looked for.

    Returns:
        :class:`~vision.board.identity.Identity`, or None when the calibration has no colour strips or
        the board's markers are seen.
    """
    ref = identity_reference(cal)
    if ref is None:
        return None
    if cal.profile.get("markers"):
        if (markers_homography(image, cal) if markers_H is NOT_LOOKED else markers_H) is not None:
            return None
    H0 = photo_homography(cal, image)
    usable = fixed_sides(cal, "identity", ref.strips, reader)

    def coarse_guess():
        return coarse_motion(outline_reference(cal), cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), H0)

    return strips_identity(ref, image, H0, usable, coarse_guess, exhaustive)


def registration_matches_board(reg: Registration, cal: Calibration, reader: Reader | None = None) -> bool:
    """Whether the game's own registration already showed that the photo holds the calibrated
    board, so that :func:`board_identity` would add nothing (the reader's ``registration_matches_board``;
    without a reader: False, the board check is made).

    Args:
        reg: the photo's registration; cal: its calibration; reader: the game's :class:`~vision.types.Reader`.
    Returns:
        bool.
    """
    return reader is not None and reg is not None and bool(reader.registration_matches_board(reg, cal))


def identity_unless_matched(image: np.ndarray, cal: Calibration, reader: Reader | None, reg: Registration | None,
                            looked: dict) -> Identity | None:
    """:func:`board_identity` of the photo, or None (no verdict) when its registration ``reg``
    already matched the calibrated board (:func:`registration_matches_board`). ``looked``: the
    markers already looked for (:func:`locate`)."""
    return None if registration_matches_board(reg, cal, reader) else board_identity(image, cal, reader, **looked)


def register(image: np.ndarray, cal: Calibration, reader: Reader | None = None,
             markers_H=NOT_LOOKED) -> Registration:
    """Find the board in a photo: markers, else the calibrated corners, moved only when the
    board's outline says so (:func:`vision.board.motion.measure_motion`).

    The camera is fixed, so "nothing moved" is tested first; a motion is fitted only to strips
    across the board's outline (rim, edge, table edge: what pieces do not change) and accepted only
    when it explains them clearly better than no motion. New pieces never move the board.

    Args:
        image: photo, BGR uint8 (H, W, 3).
        cal: loaded calibration.
        reader: the game's :class:`~vision.types.Reader` (for its registration hints), optional.
        markers_H: :func:`markers_homography` of this photo, when already looked for.
    Raises:
        UnreadableBoardError: ``registration-lost`` when the board's outline is found neither where
            it was calibrated nor moved.
    """
    H = markers_homography(image, cal) if markers_H is NOT_LOOKED else markers_H
    if H is not None:
        return Registration(H, "markers")
    own = reader.register(image, cal) if reader is not None else None
    if own is not None:  # the game registers itself (e.g. a cloth that hides parts of the outline)
        return own
    H0 = photo_homography(cal, image)
    if cal.reference is None:
        return Registration(H0, "corners")
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    ref = outline_reference(cal)
    usable = fixed_sides(cal, "outline", ref.strips, reader).copy()
    exclude = reader.registration_exclude(image, cal) if reader is not None else None
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
    if not BOARD_MOVED.is_moved(shift_mm, rotation):
        return Registration(H0, "corners", shift_mm=shift_mm, rotation_deg=rotation, score=float(share))
    reg = Registration(H, "refined", shift_mm=shift_mm, rotation_deg=rotation, score=float(share))
    reg.warnings.append(f"the board moved {shift_mm:.1f} mm / {rotation:+.1f}° since calibration; "
                        "its new position was found in the photo")
    return reg


@dataclass
class Located:
    """One photo after the board stage.

    Attributes:
        image: the photo undistorted (the calibration's lens), BGR uint8 (H, W, 3): what the
            registration's homography and the reader work on.
        taken: the photo as handed in, before the lens correction.
        registration: where the board is (homography board mm → ``image`` px).
        undistort_ms: time the lens correction took (ms; 0 without a lens).
    """

    image: np.ndarray
    taken: np.ndarray
    registration: Registration | None
    undistort_ms: float
    calibration: Calibration = field(repr=False)
    reader: Reader | None = field(default=None, repr=False)
    looked: dict = field(default_factory=dict, repr=False)
    _identity: tuple = field(default=(), repr=False)

    def identity(self) -> Identity | None:
        """Is the board the calibrated one? (:func:`identity_unless_matched`, made once.)"""
        if not self._identity:
            self._identity = (identity_unless_matched(self.image, self.calibration, self.reader, self.registration,
                                                      self.looked),)
        return self._identity[0]

    def check_identity(self) -> None:
        """Refuse a photo that does not show the calibrated board (:func:`check_calibrated_board`).

        Raises:
            UnreadableBoardError: ``board-not-found``.
        """
        check_calibrated_board(self.identity())


def locate(image: np.ndarray, cal: Calibration, reader: Reader | None = None) -> Located:
    """The board stage: undistort the photo, look for the profile's markers, register the board
    (markers, else the calibrated corners moved only when the outline says so) and check that it
    lies in view. Whether it is the calibrated board is asked later (:meth:`Located.identity`).

    Args:
        image: photo, BGR uint8 (H, W, 3), at the reader's scale, as taken.
        cal: loaded calibration.
        reader: the game's reader (its registration hints), optional.
    Returns:
        :class:`Located`.
    Raises:
        UnreadableBoardError: ``registration-lost`` (:func:`register`), a board out of view
            (:func:`vision.image.quality.check_board_in_view`), or ``board-not-found`` when,
            besides, the photo does not show the calibrated board.
    """
    taken = image
    t_lens = time.perf_counter()
    if cal.lens is not None:  # the homography holds in the undistorted photo (vision.lens)
        image = cal.lens.undistort_image(image)
    undistort_ms = (time.perf_counter() - t_lens) * 1e3
    # a profile's markers are looked for once: the board check and the registration share them
    looked = {"markers_H": markers_homography(image, cal)} if cal.profile.get("markers") else {}
    located = Located(image=image, taken=taken, registration=None, undistort_ms=undistort_ms, calibration=cal,
                      reader=reader, looked=looked)
    try:
        located.registration = register(image, cal, reader, **looked)
        check_board_in_view(located.registration.H_px_from_mm, cal.profile["board_mm"],
                            (image.shape[1], image.shape[0]), area_mm=read_area(cal, reader))
    except UnreadableBoardError:
        located.check_identity()
        raise
    return located
