"""Checks of what a user hands the pipeline, run before (or right after) registration.

Each raises the contract's error with a message that names what was measured: exit 2
(:class:`BadInputError`) for input that is wrong, exit 3 (:class:`UnreadableBoardError`) for a
photo whose board cannot be read as calibrated.
"""

from __future__ import annotations

import dataclasses
import os
import re

import cv2
import numpy as np

import scoring
from beachscore.errors import BadInputError, UnreadableBoardError
from calibration import store
from vision.appearance import SWAPPED_CORRELATION, blue_red_correlation, board_layout
from vision.image.quality import check_light
from vision.types import Registration

#: Board corners must enclose at least this share of the calibration photo.
MIN_BOARD_SHARE = 0.02
#: A photo's width/height ratio may differ from the calibration shot's by this share.
ASPECT_TOLERANCE = 0.01
#: Pixels at least this bright (any channel, 0–255) tell whether a photo has colour …
LIT_LEVEL = 40
#: … when at least this share of the photo is that bright.
MIN_LIT_SHARE = 0.2
#: How many problems of a bad setup the one-line error lists.
MAX_PROBLEMS_SHOWN = 5


def check_output_folder(out_dir: str, calibration_json: str) -> None:
    """Refuse a calibration output folder that would destroy something the user made.

    Raises:
        BadInputError: ``output-unwritable`` when ``out_dir`` is a file, or holds a
            ``calibration.json`` that is not a beachscore calibration (e.g. the user's own input).
    """
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise BadInputError("output-unwritable", f"--out {out_dir}: is a file, not a folder")
    target = os.path.join(out_dir, "calibration.json")
    if os.path.exists(target):
        if os.path.realpath(target) == os.path.realpath(calibration_json) or not store.is_calibration(target):
            raise BadInputError("output-unwritable", f"--out {out_dir}: already holds a calibration.json that is "
                                "not a learned calibration (your input?); choose another folder")


def check_corners(corners_px, image_size: tuple[int, int]) -> None:
    """Check the four clicked board corners before they become a homography.

    Args:
        corners_px: (4, 2) image px, TL, TR, BR, BL.
        image_size: (width_px, height_px) of the calibration photo.
    Raises:
        BadInputError: ``invalid-corners`` when a corner is not finite, lies far outside the photo,
            or the four do not make a convex quadrilateral of a sensible size in that order (clockwise
            in the photo: anticlockwise is a mirror image or the corners given backwards).
    """
    pts = np.asarray(corners_px, dtype=np.float64)
    w, h = image_size
    if not np.isfinite(pts).all():
        raise BadInputError("invalid-corners", "corners_px: every corner must be a finite number pair")
    margin = 0.25 * max(w, h)
    if (pts[:, 0] < -margin).any() or (pts[:, 0] > w + margin).any() or (pts[:, 1] < -margin).any() or \
            (pts[:, 1] > h + margin).any():
        raise BadInputError("invalid-corners", f"corners_px: a corner lies far outside the {w}x{h} px photo")
    edges = np.roll(pts, -1, axis=0) - pts
    cross = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    if not ((cross > 0).all() or (cross < 0).all()):
        raise BadInputError("invalid-corners", "corners_px: the corners must go round the board in the order "
                            "top-left, top-right, bottom-right, bottom-left (a convex quadrilateral)")
    if (cross < 0).all():  # anticlockwise in the photo: a mirror image, or the corners given backwards
        raise BadInputError("invalid-corners", "corners_px: the corners go round the board anticlockwise; give them "
                            "as top-left, top-right, bottom-right, bottom-left (or turn off the camera's mirror "
                            "image)")
    area = abs(cv2.contourArea(pts.astype(np.float32)))
    if area < MIN_BOARD_SHARE * w * h:
        raise BadInputError("invalid-corners", f"corners_px: the board would cover only {100 * area / (w * h):.1f}% "
                            "of the photo; click the four board corners")


def check_photo(image: np.ndarray, cal: store.Calibration) -> None:
    """Refuse a photo that cannot come from the calibrated camera mode, has almost no light, or no colour.

    Args:
        image: decoded photo, BGR uint8 (H, W, 3), possibly decoded at reduced size.
        cal: the calibration (its shot's size in px).
    Raises:
        BadInputError: ``image-format`` (not BGR uint8), ``image-grayscale`` (no colour to read
            pieces by).
        UnreadableBoardError: ``registration-lost`` (another aspect ratio than the calibration shot:
            another camera mode, the calibrated board position does not apply), ``too-dark`` (almost
            no light: :func:`vision.image.quality.check_light`, before any reader's checks).
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise BadInputError("image-format", "expected a BGR uint8 colour photo")
    cw, ch = cal.image_size
    h, w = image.shape[:2]
    if abs(w / h - cw / ch) > ASPECT_TOLERANCE * cw / ch:
        raise UnreadableBoardError("registration-lost", f"the photo's shape ({w / h:.3f}:1) differs from the calibration "
                            f"shot's ({cw}x{ch} px, {cw / ch:.3f}:1); use the same camera mode or recalibrate")
    check_light(image)
    b, g, r = cv2.split(np.ascontiguousarray(image[::8, ::8]))
    lit = cv2.max(cv2.max(b, g), r) >= LIT_LEVEL  # a dark photo is the readers' "too dark", not grey
    if np.count_nonzero(lit) >= MIN_LIT_SHARE * lit.size and \
            cv2.absdiff(b, g)[lit].max() <= 2 and cv2.absdiff(g, r)[lit].max() <= 2:
        raise BadInputError("image-grayscale", "the photo has no colour; pieces are told apart by colour")


def check_colours(image: np.ndarray, reg: Registration, cal: store.Calibration) -> None:
    """Refuse a photo whose board colours are inverted against the calibration (red and blue swapped).

    Raises:
        UnreadableBoardError: ``colours-swapped``.
    """
    if "board_layout" not in cal.cache:          # the calibration's layout, as an array once per calibration
        stored = cal.extra.get("board_layout")
        cal.cache["board_layout"] = np.asarray(stored, np.float32) if stored else None
    reference = cal.cache["board_layout"]
    if reference is None:
        return
    layout = board_layout(image, reg.H_px_from_mm, cal.profile["board_mm"])
    if reference.shape != layout.shape:
        return
    r = blue_red_correlation(reference, layout)
    if r <= SWAPPED_CORRELATION:
        raise UnreadableBoardError("colours-swapped", "the board's colours are inverted against the calibration: "
                                   "are the camera's red and blue channels "
                                   "swapped (RGB delivered as BGR)?")


#: The most a reading may be trusted when the board check did not recognise the board (below the
#: 0.5 from which a player trusts a reading): the game's reader read it, the surroundings did not match.
UNRECOGNISED_BOARD_CONFIDENCE = 0.4
UNRECOGNISED_BOARD_WARNING = ("the board's surroundings do not look as in the calibration shot (another board, or "
                              "the camera moved?): check this reading")


def doubt_unrecognised_board(reading, identity):
    """A reading of a photo whose board :func:`check_calibrated_board` would refuse, when the game's
    own reader read it all the same: kept, with a warning, its confidence at most
    :data:`UNRECOGNISED_BOARD_CONFIDENCE` (unsure, never silently trusted).

    Args:
        reading: a :class:`vision.types.Reading`.
        identity: a :class:`vision.board.identity.Identity`, or None (no verdict).
    Returns:
        The reading, or a copy with the warning and the lowered confidence.
    """
    if identity is None or identity.verdict is not False:
        return reading
    return dataclasses.replace(reading, confidence=min(float(reading.confidence), UNRECOGNISED_BOARD_CONFIDENCE),
                               warnings=[UNRECOGNISED_BOARD_WARNING, *reading.warnings])


def unlearned_players(setup: dict, cal) -> list[str]:
    """Problems for setup players named by a colour the calibration learned no pieces of (``"Red"``
    for ``red``, a colour the game does not have): such a player would be scored as a player with
    nothing on the board while the real one's facts went missing. Games whose players are not
    piece colours (no ``players`` in the learned model) are not checked.

    Args:
        setup: a setup.json dict; cal: the calibration (anything with a ``model`` dict).
    """
    model = getattr(cal, "model", None)
    learned = model.get("players") if isinstance(model, dict) else None
    players = setup.get("players")
    if not learned or not players:
        return []
    named = list(players) if isinstance(players, (dict, list)) else []
    return [f"players.{who}: not a player colour this calibration knows ({', '.join(learned)})"
            for who in named if isinstance(who, str) and who not in learned]


def game_players(setup: dict | None, cal) -> list[str] | None:
    """The game's players: the setup's ``players`` (a list, or an object keyed by player) when it
    gives them, else the player colours the calibration learned (``cal.model["players"]``); None
    when neither says.

    Args:
        setup: a setup.json dict or None; cal: the calibration (anything with a ``model`` dict).
    """
    named = (setup or {}).get("players") if isinstance(setup, dict) else None
    if isinstance(named, (dict, list)) and named and all(isinstance(who, str) for who in named):
        return list(named)
    model = getattr(cal, "model", None)
    learned = model.get("players") if isinstance(model, dict) else None
    return [str(who) for who in learned] if isinstance(learned, list) and learned else None


def _names_setup_field(problem: str, state: dict, setup: dict | None) -> bool:
    """Whether a rules-engine problem is about a field only the setup gave (``terrain[3]: …``)."""
    field_name = re.split(r"[.\[: ]", problem, maxsplit=1)[0]
    return bool(setup) and (field_name == "setup" or (field_name in setup and field_name not in state))


def check_setup(setup: dict | None, cal: store.Calibration) -> None:
    """Refuse a setup the rules engine rejects, before any photo is read.

    Raises:
        BadInputError: ``invalid-setup`` listing every problem of a setup field.
    """
    if not setup:
        return
    if not isinstance(setup, dict):
        raise BadInputError("invalid-setup", "setup: expected a JSON object")
    probe = {"game": cal.game}
    grid = cal.profile.get("grid")
    if isinstance(grid, dict):
        probe.update(rows=grid.get("rows"), cols=grid.get("cols"))
    bad = [p for p in scoring.problems(probe, setup) if _names_setup_field(p, probe, setup)]
    bad += unlearned_players(setup, cal)
    if bad:
        shown = "; ".join(bad[:MAX_PROBLEMS_SHOWN]) + (f"; … {len(bad) - MAX_PROBLEMS_SHOWN} more"
                                                         if len(bad) > MAX_PROBLEMS_SHOWN else "")
        raise BadInputError("invalid-setup", f"setup: {shown}")
