"""Read the JSON files a user hands in: profile.json, calibration.json, setup.json, state.json.

Every failure becomes a one-line :class:`~calibration.errors.CalibrationError` (exit 2).
Schemas: ``shared/contracts/README.md`` and the per-game pages.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.errors import CalibrationError
from vision.errors import SampleError, sample_slot
from vision.files import load_object

GAMES = ("strand-unter", "plazing", "seashells", "sand-castles", "grid")


def _points_problem(value: object, n: int | None, field: str) -> str | None:
    """What is wrong with a list of ``n`` [x, y] number pairs (any count when None), or None."""
    ok = isinstance(value, list) and (n is None or len(value) == n) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p)
        for p in value)
    return None if ok else f"'{field}' must be a list of {f'{n} ' if n else ''}[x, y] number pairs"


def _points(value: object, n: int | None, field: str, where: str, code: str) -> list[list[float]]:
    """``value`` as float [x, y] pairs.

    Raises:
        CalibrationError: ``code`` when it is not a list of ``n`` [x, y] number pairs.
    """
    problem = _points_problem(value, n, field)
    if problem:
        raise CalibrationError(code, f"{where}: {problem}")
    return [[float(x), float(y)] for x, y in value]


def validate_profile(profile: dict, where: str = "profile") -> dict:
    """Check the fields every profile shares (game, board_mm, optional markers).

    Game-specific geometry is checked by the game's own reader.

    Raises:
        CalibrationError: ``invalid-profile``.
    """
    game = profile.get("game")
    if game not in GAMES:
        raise CalibrationError("invalid-profile", f"{where}: unknown game {game!r}; expected one of {', '.join(GAMES)}")
    size = profile.get("board_mm")
    if not (isinstance(size, list) and len(size) == 2 and all(_is_number(v) and BOARD_MM[0] <= v <= BOARD_MM[1]
                                                                for v in size)):
        raise CalibrationError("invalid-profile", f"{where}: 'board_mm' must be [width_mm, height_mm], each "
                               f"{BOARD_MM[0]:g}–{BOARD_MM[1]:g} mm")
    markers = profile.get("markers") or []
    if not isinstance(markers, list):
        raise CalibrationError("invalid-profile", f"{where}: 'markers' must be a list")
    for i, m in enumerate(markers):
        if not isinstance(m, dict) or not isinstance(m.get("id"), int) or not isinstance(m.get("dictionary"), str):
            raise CalibrationError("invalid-profile", f"{where}: marker {i} needs 'dictionary' (str) and 'id' (int)")
        if not m["dictionary"].startswith("DICT_") or not hasattr(cv2.aruco, m["dictionary"]):
            raise CalibrationError("invalid-profile", f"{where}: marker {i}: unknown ArUco dictionary "
                                   f"{m['dictionary']!r} (e.g. DICT_4X4_50)")
        _points(m.get("corners_mm"), 4, "corners_mm", f"{where}: marker {i}", "invalid-profile")
    if "grid" in profile:
        _check_grid(profile["grid"], size, where)
    return profile


#: Accepted board sides (mm): from a coaster to a large table.
BOARD_MM = (10.0, 5000.0)
#: Largest grid a profile may declare (places in all).
MAX_PLACES = 10_000


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _check_grid(grid, board_mm, where: str) -> None:
    """Rows, columns, pitch and origin of a grid profile: positive, bounded, on the board."""
    if not isinstance(grid, dict):
        raise CalibrationError("invalid-profile", f"{where}: 'grid' must be an object")
    rows, cols = grid.get("rows"), grid.get("cols")
    if not (isinstance(rows, int) and isinstance(cols, int) and rows >= 1 and cols >= 1 and rows * cols <= MAX_PLACES):
        raise CalibrationError("invalid-profile", f"{where}: grid 'rows' and 'cols' must be whole numbers ≥ 1 with "
                               f"at most {MAX_PLACES} places in all")
    pitch = grid.get("pitch_mm", grid.get("cell_mm"))
    pitch = [pitch, pitch] if _is_number(pitch) else pitch
    origin = grid.get("origin_mm", [0, 0])
    if not (isinstance(pitch, list) and len(pitch) == 2 and all(_is_number(v) and v >= 1 for v in pitch)):
        raise CalibrationError("invalid-profile", f"{where}: grid pitch ('pitch_mm' or 'cell_mm') must be ≥ 1 mm")
    if not (isinstance(origin, list) and len(origin) == 2 and all(_is_number(v) for v in origin)):
        raise CalibrationError("invalid-profile", f"{where}: grid 'origin_mm' must be [x_mm, y_mm]")
    # grid.md: places are checked by their centres; a board whose outer places sit on its edge
    # (a Go board described by its outer intersections) is valid.
    first = (origin[0] + 0.5 * pitch[0], origin[1] + 0.5 * pitch[1])
    last = (origin[0] + (cols - 0.5) * pitch[0], origin[1] + (rows - 0.5) * pitch[1])
    tol = 1e-6 * max(board_mm)
    for axis, side_lo, side_hi, count, what in ((0, "left", "right", cols, "column"), (1, "top", "bottom", rows, "row")):
        if first[axis] < -tol:
            raise CalibrationError("invalid-profile", f"{where}: the grid's first {what} is centred at "
                                   f"{first[axis]:g} mm, beyond the board's {side_lo} edge; raise origin_mm[{axis}] "
                                   f"to at least {-0.5 * pitch[axis]:g} mm")
        if last[axis] > board_mm[axis] + tol:
            raise CalibrationError("invalid-profile", f"{where}: the grid's last {what} (number {count}) is centred "
                                   f"at {last[axis]:g} mm, beyond the board's {side_hi} edge at {board_mm[axis]:g} mm; "
                                   f"check origin_mm, pitch_mm and the {what} count, or widen board_mm")


@dataclass(frozen=True)
class CalibrationRequest:
    """A parsed calibration.json with its paths resolved.

    Attributes:
        game: game name from the contract.
        profile: the board profile dict.
        image_path: the calibration photo.
        empty_image_path: optional photo of the empty board, same view.
        corners_px: four board corners in image px (TL, TR, BR, BL) or None when markers give them.
        samples: list of ``(label, (x_mm, y_mm))``.
        charuco_image_path: optional photo of the printed ChArUco sheet (``beachscore markers
            --charuco``) lying in the camera's view, same camera mode: the lens is measured on it.
    """

    game: str
    profile: dict
    image_path: str
    empty_image_path: str | None
    corners_px: list[list[float]] | None
    samples: list[tuple[str, tuple[float, float]]]
    charuco_image_path: str | None = None


#: Samples of different labels closer than this are on the same spot (a sample is the centre of a
#: piece or a place; the closest different ones in the shared and development calibrations are 20 mm
#: apart), mm.
SAME_SPOT_MM = 1.0


def _check_spots(samples: list, where: str) -> None:
    """Refuse samples of different labels on the same spot (``bad-sample``): nothing tells them apart."""
    if len(samples) < 2:
        return
    xy = np.array([p for _, p in samples], np.float64)
    labels = np.array([label for label, _ in samples])
    order = np.lexsort((xy[:, 1], xy[:, 0]))
    for k, i in enumerate(order):
        for j in order[k + 1:]:
            if xy[j, 0] - xy[i, 0] >= SAME_SPOT_MM:
                break
            if labels[i] != labels[j] and np.hypot(*(xy[j] - xy[i])) < SAME_SPOT_MM:
                raise SampleError("bad-sample", [(labels[i], xy[i]), (labels[j], xy[j])],
                                  f"samples of different labels on the same spot: {sample_slot(0)} and "
                                  f"{sample_slot(1)}; put each sample on the piece or place it names", where=where)


#: The fields every calibration.json gives, with what each is (named when missing).
REQUIRED_FIELDS = {"profile": "the board's profile.json", "image": "the calibration photo",
                   "samples": "the labelled pieces"}
#: ``corners_px`` too, unless the profile declares markers.
CORNERS_FIELD = "'corners_px' (the board's corners in the photo, unless the profile declares markers)"


def _field_problems(data: dict, profile: dict | None) -> list[str]:
    """Every missing or malformed top-level field of a calibration.json document.

    Args:
        data: the parsed document.
        profile: the profile it names, loaded, or None when it names none.
    Returns:
        One phrase per problem (the missing fields together in the first), empty when none.
    """
    missing = [f"'{key}' ({what})" for key, what in REQUIRED_FIELDS.items() if key not in data]
    if data.get("corners_px") is None and not (profile and profile.get("markers")):
        missing.append(CORNERS_FIELD)
    problems = [f"missing {', '.join(missing)}"] if missing else []
    problems += [f"'{key}' must be a file path" for key in ("profile", "image") if key in data
                 and not isinstance(data[key], str)]
    if data.get("charuco_image") is not None and not isinstance(data["charuco_image"], str):
        problems.append("'charuco_image' must be a file path")
    if "samples" in data and not isinstance(data["samples"], list):
        problems.append("'samples' must be a list")
    if data.get("corners_px") is not None:
        problems.append(_points_problem(data["corners_px"], 4, "corners_px"))
    if profile is not None and data.get("game", profile["game"]) != profile["game"]:
        problems.append(f"game {data['game']!r} does not match the profile's {profile['game']!r}")
    return [p for p in problems if p]


def load_calibration_request(path: str) -> CalibrationRequest:
    """Parse and check calibration.json (paths relative to the file).

    Files are named as the user would: the path given, and the paths inside it joined to that
    path's folder.

    Raises:
        CalibrationError: ``file-missing`` (or another file code of :mod:`vision.files`) and
            ``invalid-json`` for a file that cannot be read as JSON; ``invalid-profile``;
            ``invalid-calibration`` naming every missing or malformed field at once;
            ``unknown-label``, ``bad-sample`` for a sample.
    """
    where = path
    data = load_object(path, "calibration file")
    base = os.path.dirname(path)
    profile = None
    if isinstance(data.get("profile"), str):
        profile_path = os.path.join(base, data["profile"])
        profile = validate_profile(load_object(profile_path, "profile"), profile_path)
    problems = _field_problems(data, profile)
    if problems:
        raise CalibrationError("invalid-calibration", f"{where}: {'; '.join(problems)}")
    samples = []
    for i, s in enumerate(data["samples"]):
        if not isinstance(s, dict) or not isinstance(s.get("label"), str):
            raise CalibrationError("invalid-calibration", f"{where}: sample {i} needs a 'label' string")
        if any(part != part.strip() or not part for part in s["label"].split("/")):
            raise CalibrationError("unknown-label", f"{where}: sample {i}'s label {s['label']!r} has an empty part or "
                                   "spaces around a part; write it as the game's labels are written (e.g. piece/red)")
        (xy,) = _points([s.get("board_mm")], 1, "board_mm", f"{where}: sample {i}", "invalid-calibration")
        samples.append((s["label"], (xy[0], xy[1])))
    _check_spots(samples, where)
    game = data.get("game", profile["game"])
    corners = data.get("corners_px")
    corners = None if corners is None else [[float(x), float(y)] for x, y in corners]
    empty = data.get("empty_image")
    charuco = data.get("charuco_image")
    return CalibrationRequest(
        game=game, profile=profile, image_path=os.path.join(base, data["image"]),
        empty_image_path=os.path.join(base, empty) if isinstance(empty, str) else None,
        corners_px=corners, samples=samples,
        charuco_image_path=os.path.join(base, charuco) if charuco else None)
