"""The calibration wizard's server side: clicks on a calibration shot → calibration.json → calibrate.

The page sends image pixels (the four board corners, and a point per labelled piece); this module
turns sample pixels into board millimetres through the corner homography, writes the contract's
``calibration.json`` beside a copy of the photo and the profile, runs the station's calibrator on
it and switches the station to the result (:func:`calibrate_from_clicks`).
"""

from __future__ import annotations

import json
import logging
import os
import shutil

import cv2
import numpy as np

from beachscore.checks import check_corners
from beachscore.errors import BadInputError, BeachscoreError, SampleError
from beachscore.games import reader
from beachscore.pipeline import learned_classes
from beachscore.station.encoding import encode
from beachscore.station.label_layout import place_labels
from beachscore.station.station import Station
from beachscore.station.store.db import write_problem
from calibration import files as cal_files
from calibration.advice import words_of
from calibration.store import atomic_write_bytes
from vision.board.outline_fit import fit_outline
from vision.image.decode import read_image

log = logging.getLogger("beachscore.station")


def _xy(value, where: str) -> tuple[float, float]:
    if not (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and _finite(v) for v in value)):
        raise BadInputError("invalid-json", f"{where}: expected [x, y] numbers, got {str(value)[:80]}")
    return float(value[0]), float(value[1])


def _finite(v: int | float) -> bool:
    """Whether a JSON number is a finite float (an integer too large for one is not)."""
    try:
        return bool(np.isfinite(float(v)))
    except OverflowError:
        return False


def mm_from_px(corners_px: list, board_mm: list) -> np.ndarray:
    """Homography image px → board mm from the four clicked corners (TL, TR, BR, BL).

    Returns:
        (3, 3) float64 matrix.
    Raises:
        BadInputError: ``invalid-corners`` when the corners do not make a quadrilateral.
    """
    if not isinstance(corners_px, list) or len(corners_px) != 4:
        raise BadInputError("invalid-corners", "click the four board corners: top-left, top-right, "
                            "bottom-right, bottom-left")
    src = np.array([_xy(c, f"corner {i + 1}") for i, c in enumerate(corners_px)], np.float32)
    w, h = board_mm
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    area = cv2.contourArea(src)
    if area < 100:
        raise BadInputError("invalid-corners", f"the four corners enclose only {area:.0f} px²; click the board's corners")
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


def fitted_corners(photo_path: str, profile: dict, corners_px: list, image: np.ndarray | None = None) -> list:
    """The clicked corners, moved onto the board outline's edges in the shot for a game whose reader
    needs them exact (:attr:`vision.types.Reader.fits_outline`, :func:`vision.board.outline_fit.fit_outline`),
    so that the samples clicked on pieces turn into the board millimetres calibration will find them
    at; the clicks as given otherwise (or when the outline is not found).

    Args:
        image: the shot at ``photo_path`` when the caller has decoded it already (BGR uint8 (H, W, 3));
            None: read from the file when needed.
    Returns:
        four [x, y] float px, TL, TR, BR, BL.
    """
    if not reader(profile["game"]).fits_outline:
        return corners_px
    if image is None:
        image = read_image(photo_path)
    clicked = np.array([_xy(c, "corner") for c in corners_px], np.float64)
    # as calibration will: a clear error, not a fit far off the photo
    check_corners(clicked, (image.shape[1], image.shape[0]))
    fit = fit_outline(image, clicked, profile["board_mm"])
    return [[float(x), float(y)] for x, y in fit.corners_px] if fit.moved else corners_px


def write_request(folder: str, photo_path: str, profile: dict, corners_px: list, samples: list,
                  empty_photo_path: str | None = None) -> str:
    """Write ``calibration.json`` (+ the shot as ``calib.jpg|png``, ``profile.json``) for clicked corners and samples.

    Args:
        folder: new folder for the request (created).
        photo_path: the calibration shot on disk (JPEG or PNG), copied byte for byte.
        profile: the board profile dict (contract).
        corners_px: four [x, y] image px, TL, TR, BR, BL of the board frame. The samples turn into
            millimetres through them moved onto the outline's edges for a reader that needs them
            exact (:func:`fitted_corners`); calibration.json gets them as clicked: calibration fits
            them again, and judges the clicks in the undistorted shot, where a lens's bowed sides do
            not put the shot-as-taken fit's corners 3-6 mm outside (``pipeline._shot_geometry``).
        samples: ``[{"label": str, "px": [x, y]}]`` in image px.
        empty_photo_path: optional shot of the empty board, same view; copied as ``empty.jpg|png``
            and named ``empty_image`` in calibration.json.
    Returns:
        the path of the written calibration.json.
    Raises:
        BadInputError: bad corners, bad sample, sample off the board, no samples.
    """
    profile = cal_files.validate_profile(profile, "profile")
    mm_from_px(corners_px, profile["board_mm"])  # the clicks make a quadrilateral
    H = mm_from_px(fitted_corners(photo_path, profile, corners_px), profile["board_mm"])
    if not isinstance(samples, list) or not samples:
        raise BadInputError("no-samples", "click at least one piece and give it a label")
    w, h = profile["board_mm"]
    out = []
    for i, s in enumerate(samples):
        if not isinstance(s, dict) or not isinstance(s.get("label"), str) or not s["label"].strip():
            raise BadInputError("invalid-json", f"sample {i + 1}: needs a label")
        x, y = _xy(s.get("px"), f"sample {i + 1}")
        mx, my = cv2.perspectiveTransform(np.array([[[x, y]]], np.float64), H)[0, 0]
        if not (-1 <= mx <= w + 1 and -1 <= my <= h + 1):
            raise BadInputError("sample-off-board", f"sample {i + 1} ({s['label']}) is off the board")
        out.append({"label": s["label"].strip(), "board_mm": [round(float(np.clip(mx, 0, w)), 1),
                                                              round(float(np.clip(my, 0, h)), 1)]})
    os.makedirs(folder, exist_ok=True)
    image_name = "calib" + os.path.splitext(photo_path)[1].lower()
    shutil.copyfile(photo_path, os.path.join(folder, image_name))
    atomic_write_bytes(os.path.join(folder, "profile.json"), json.dumps(profile, indent=1).encode())
    doc = {"game": profile["game"], "profile": "profile.json", "image": image_name,
           "corners_px": [list(_xy(c, "corner")) for c in corners_px], "samples": out}
    if empty_photo_path:
        empty_name = "empty" + os.path.splitext(empty_photo_path)[1].lower()
        shutil.copyfile(empty_photo_path, os.path.join(folder, empty_name))
        doc["empty_image"] = empty_name
    path = os.path.join(folder, "calibration.json")
    atomic_write_bytes(path, json.dumps(doc, indent=1).encode())
    return path


#: The preview's label font.
LABEL_FONT = cv2.FONT_HERSHEY_SIMPLEX


def sample_captions(game: str, samples: list[dict]) -> list[str]:
    """Each sample's caption on the preview: its number (1-based, as the wizard's list and the
    messages count) and its label as players say it.

    >>> sample_captions("strand-unter", [{"label": "castle/red/2"}, {"label": "shell/brown"}])
    ['1 red castle, value 2', '2 brown shells']
    """
    return [f"{n} {words_of(game, s['label'])}" for n, s in enumerate(samples, 1)]


def preview(photo_path: str, calibration_json: str, classes: list[str], doubted: tuple[int, ...] = (),
            places: tuple = ()) -> np.ndarray:
    """The calibration shot with the board outline, every sample and its caption (:func:`sample_captions`) drawn on it
    (BGR uint8), each label where it covers no other label or sample (:func:`place_labels`).

    Samples whose label (or a parent such as ``castle/red`` for ``castle/red/2``) is among ``classes``
    (the wizard passes :func:`beachscore.pipeline.learned_classes`, the list it shows) are circled
    green, the others red; the samples numbered in ``doubted`` (1-based,
    :func:`confusable_pairs`' ``sample``) get a wider orange ring. ``places``: ``(label, [x, y] board
    mm)`` where the light check suggests a new sample (:func:`confusable_pairs`' ``place``), each
    ringed orange and marked with that label and a question mark.
    """
    with open(calibration_json, encoding="utf-8") as f:
        doc = json.load(f)
    with open(os.path.join(os.path.dirname(calibration_json), doc["profile"]), encoding="utf-8") as f:
        profile = json.load(f)
    img = cv2.imread(photo_path, cv2.IMREAD_COLOR)
    # the samples' millimetres came through the fitted corners (:func:`write_request`; calibration.json
    # keeps the clicks): the outline is drawn, and the samples go back to the pixels clicked, through them
    game = doc.get("game") or profile.get("game", "")
    fitted = (fitted_corners(photo_path, dict(profile, game=game), doc["corners_px"], img) if game
              else doc["corners_px"])
    cv2.polylines(img, [np.array(fitted, np.float64).astype(np.int32)], True, (0, 255, 255), 3)
    H = np.linalg.inv(mm_from_px(fitted, profile["board_mm"]))
    scale = max(img.shape[:2]) / 1500
    size, stroke = 0.6 * scale, max(1, int(2 * scale))
    samples = doc["samples"]
    centres = [cv2.perspectiveTransform(np.array([[s["board_mm"]]], np.float64), H)[0, 0] for s in samples]
    texts = sample_captions(game, samples)
    sizes = [cv2.getTextSize(t, LABEL_FONT, size, stroke)[0] for t in texts]
    corners_at = place_labels(centres, sizes, gap=14 * scale, keep_clear=14 * scale, bounds=img.shape[1::-1])
    for n, (s, px, text, at) in enumerate(zip(samples, centres, texts, corners_at), 1):
        c = (int(px[0]), int(px[1]))
        if n in doubted:
            cv2.circle(img, c, int(22 * scale), (0, 140, 255), max(3, int(4 * scale)))
        learned = not classes or any(s["label"] == c or s["label"].startswith(c + "/") for c in classes)
        colour = (0, 200, 0) if learned else (0, 0, 255)
        cv2.circle(img, c, int(12 * scale), colour, max(2, int(3 * scale)))
        _boxed_text(img, text, at, size, stroke, (255, 255, 255))
    for label, at_mm in places:
        px = cv2.perspectiveTransform(np.array([[at_mm]], np.float64), H)[0, 0]
        c = (int(px[0]), int(px[1]))
        cv2.circle(img, c, int(22 * scale), (0, 140, 255), max(3, int(4 * scale)))
        _boxed_text(img, f"{label}?", (c[0] + int(24 * scale), c[1]), size, stroke, (0, 140, 255))
    return img


def _boxed_text(img: np.ndarray, text: str, at, size: float, stroke: int, colour) -> None:
    """``text`` at ``at`` (bottom-left, px) on a dark box. OpenCV 5 caps a text's stroke width, so a
    thick dark stroke under the text no longer outlines it."""
    (w, h), _ = cv2.getTextSize(text, LABEL_FONT, size, stroke)
    pad = max(2, h // 4)
    cv2.rectangle(img, (at[0] - pad, at[1] - h - pad), (at[0] + w + pad, at[1] + pad), (40, 40, 40), cv2.FILLED)
    cv2.putText(img, text, at, LABEL_FONT, size, colour, stroke, cv2.LINE_AA)


def calibrate_from_clicks(station: Station, photo_id: int, profile: dict, corners_px: list, samples: list,
                          empty_photo_id: int | None = None) -> dict:
    """Calibration wizard: clicks on a stored calibration shot → a new calibration the station uses.

    Writes ``<data>/calibrations/<n>/request/`` (calibration.json, calib.jpg, profile.json) and
    ``<data>/calibrations/<n>/cal/`` (CAL_DIR), then switches the station to it. An optional
    ``empty_photo_id`` (a shot of the empty board, same view) goes in as ``empty_image``.

    The profile goes through ``calibration.files.validate_profile`` (what ``beachscore calibrate``
    checks) before anything is written, and the calibration that comes out through it again before
    the station switches: a calibration that fails in any way leaves the old one in use.

    Returns:
        ``{"game", "classes": [labels learned], "folder", "preview_photo_id", "confusable": [{"classes":
        [a, b], "advice", "sample"?}]}`` (:func:`confusable_pairs`).
    Raises:
        StoreError: ``not-found`` for an unknown photo; ``disk-full``, ``read-only``,
            ``data-folder-missing`` (nothing is left in ``calibrations/``: a failed calibration
            removes its folder).
        BadInputError / UnreadableBoardError: as ``validate_profile`` and the calibrator;
            ``calibration-failed`` when the calibrator breaks in another way; ``busy`` while
            another calibration or upload runs (:meth:`Station.image_work`).
    """
    if not isinstance(profile, dict):
        raise BadInputError("invalid-profile", "profile: expected a JSON object")
    profile = cal_files.validate_profile(profile, "profile")
    with station.image_work():
        station.store.check_writable()
        photo_path, _ = station.store.photo_file(photo_id)
        empty_path = station.store.photo_file(empty_photo_id)[0] if empty_photo_id is not None else None
        root = os.path.join(station.store.data_dir, "calibrations")
        folder = None
        try:
            os.makedirs(root, exist_ok=True)
            n = 1 + max([int(d) for d in os.listdir(root) if d.isdigit()] or [0])
            folder = os.path.join(root, str(n))
            request = write_request(os.path.join(folder, "request"), photo_path, profile, corners_px, samples,
                                    empty_path)
            with open(request, encoding="utf-8") as f:
                clicked = json.load(f)["samples"]
            try:
                cal = _calibrate(station, request, os.path.join(folder, "cal"))
            except SampleError as exc:
                name_by_number(exc, clicked)
                raise
            pairs = confusable_pairs(cal, clicked)
            classes = learned_classes(cal, request)
            picture = preview(photo_path, request, classes, tuple(p["sample"] for p in pairs if "sample" in p),
                              tuple(p["place"] for p in pairs if "place" in p))
            preview_id = station.store.add_photo(encode(picture, ".jpg"), ext=".jpg", kind="calibration")
        except BaseException as exc:
            if folder is not None:  # a failed calibration leaves nothing (it held a copy of the photo)
                shutil.rmtree(folder, ignore_errors=True)
            problem = write_problem(exc, station.store.data_dir) if isinstance(exc, OSError) else None
            if problem is not None:
                raise problem from None
            raise
        station.use_calibration(cal, os.path.join(folder, "cal"))
    return {"game": cal.game, "classes": classes, "folder": folder, "preview_photo_id": preview_id,
            "confusable": pairs}


#: Farthest (board mm) a doubted sample's position may be from a clicked sample's and still name it.
SAMPLE_MATCH_MM = 1.0


def sample_number(samples: list[dict], at_mm) -> int | None:
    """The wizard's number (1-based, the order clicked) of the sample whose ``board_mm`` is nearest
    ``at_mm`` ([x, y] board mm), None when none is within :data:`SAMPLE_MATCH_MM`."""
    if not samples or not isinstance(at_mm, (list, tuple)) or len(at_mm) != 2:
        return None
    gaps = [float(np.hypot(s["board_mm"][0] - at_mm[0], s["board_mm"][1] - at_mm[1])) for s in samples]
    k = int(np.argmin(gaps))
    return k + 1 if gaps[k] <= SAMPLE_MATCH_MM else None


def name_by_number(exc: SampleError, samples: list[dict]) -> None:
    """Name each refused sample of ``exc`` (a calibrator names it by board millimetres) by the wizard's
    number and label instead (``calibration sample 3 (empty)``), as :func:`confusable_pairs` names a
    doubted one: the wizard's user clicked numbered points and never saw millimetres. A sample is
    named so only when a clicked sample of its label lies within :data:`SAMPLE_MATCH_MM`; when one
    is not, the message stays as the calibrator said it."""
    numbers = [_labelled_number(samples, label, at_mm) for label, at_mm in exc.samples]
    if None in numbers:
        return
    exc.rename([f"calibration sample {n} ({label})" for n, (label, _) in zip(numbers, exc.samples)], numbers)


def _labelled_number(samples: list[dict], label: str, at_mm) -> int | None:
    """The wizard's number of the nearest sample labelled ``label`` within :data:`SAMPLE_MATCH_MM`
    of ``at_mm`` (two samples of different labels may share a spot), else None."""
    same = [(k, s) for k, s in enumerate(samples, 1) if s.get("label") == label]
    n = sample_number([s for _, s in same], list(at_mm))
    return None if n is None else same[n - 1][0]


def confusable_pairs(cal, samples: list[dict] | None = None) -> list[dict]:
    """The pairs of classes the calibration shot's light cannot tell apart, with what helps:
    ``[{"classes": [a, b], "advice": str}]`` (empty for a good table or a calibration without
    the measure). With the request's ``samples`` (``[{"label", "board_mm"}]``, in the wizard's
    order), a pair about one doubted sample (``sample_mm``) names it by the wizard's number and
    label instead of board millimetres and carries ``"sample"``: that number. A pair whose advice
    suggests labelling a free cell (``bare_cell_mm``, a Seashells column) points at the preview's
    orange ring instead of millimetres and carries ``"place": ("<column>: empty", [x, y] mm)``."""
    extra = getattr(cal, "extra", None)
    found = (extra.get("separability") or {}).get("confusable", []) if isinstance(extra, dict) else []
    out = []
    for p in found:
        pair = {"classes": list(p["classes"]), "advice": p["advice"]}
        n = sample_number(samples or [], p.get("sample_mm"))
        if n is not None and " mm " in pair["advice"]:
            rest = pair["advice"].split(" mm ", 1)[1]
            pair.update(sample=n, advice=f"calibration sample {n} ({samples[n - 1]['label']}) {rest}")
        at = p.get("bare_cell_mm")
        said = f"(the one at {at[0]:g},{at[1]:g} mm, for instance)" if isinstance(at, list) and len(at) == 2 else None
        if said and said in pair["advice"]:
            mark = f"{p['column']}: empty" if p.get("column") else "empty"
            pair.update(place=(mark, at),
                        advice=pair["advice"].replace(said, f"(the one marked '{mark}?' on the picture, for instance)"))
        out.append(pair)
    return out


def _calibrate(station: Station, request: str, out_dir: str):
    """Run the station's calibrator and check the profile it learned. Raises BeachscoreError
    (``calibration-failed`` for anything else the calibrator trips on) or the OSError of a failed write."""
    try:
        cal = station.calibrator(request, out_dir)
        cal_files.validate_profile(cal.profile, "the new calibration's profile")
        return cal
    except BeachscoreError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the calibrator trips on, the old calibration stays
        if isinstance(exc, OSError) and write_problem(exc, station.store.data_dir) is not None:
            raise  # disk full, read-only: said as such by the caller
        log.exception("calibration from %s failed", request)
        raise BadInputError("calibration-failed", f"the calibration failed ({type(exc).__name__}: {exc}); "
                            "the station keeps its previous calibration") from None
