"""Generic grid reader (``"game": "grid"``): every place of a regular grid gets a learned class.

Contract: ``shared/contracts/grid.md``. Labels ``cell/<class>`` at place centres; state
``cells`` (class per place) and ``confidence`` (posterior per place); no score.

Features and classifier are those of :mod:`vision.places` (Lab mean/spread, texture, centre
disc; pooled-covariance Gaussian classifier) on the rectified, illumination-normalised board,
with a patch a little smaller than the pitch so tokens a few mm off their place, or tall tokens
leaning over with parallax, still fall mostly in their own patch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.errors import BadInputError
from vision.places import PlaceModel, classify_places, learn_places
from vision.board.geometry import board_px_per_mm, rectify
from vision.types import CalibrationShot, Photo, Reading
from vision.board.geometry import project

#: Learned-model format: 2 since places on the board's edge see their whole patch (the board is
#: rectified with a margin); a calibration of format 1 is refused with "recalibrate".
MODEL_VERSION = 2


@dataclass(frozen=True)
class GridConfig:
    """Tunable numbers of the grid reader."""

    #: Resolution of the rectified board (px/mm): at most this, at least ``min_px_per_mm``, else
    #: the photo's own.
    px_per_mm: float = 2.0
    min_px_per_mm: float = 1.0
    #: Patch side as a share of the smaller pitch.
    patch_share: float = 0.7
    #: Calibration samples are also measured this share of the pitch off their centre: a token
    #: that far off its place is still typical of its class (:func:`vision.places.typicality`).
    jitter_share: float = 0.06


GRID = GridConfig()


def place_centres(profile: dict) -> np.ndarray:
    """Centres of every place, float64 (rows, cols, 2) in board mm.

    Place (r, c) is at ``origin + ((c + 0.5)·pitch_x, (r + 0.5)·pitch_y)`` (grid.md).
    ``pitch_mm`` may be one number or [x, y]; ``cell_mm`` is accepted as a square pitch.
    """
    g = profile["grid"]
    pitch = g.get("pitch_mm", g.get("cell_mm"))
    px, py = (pitch, pitch) if isinstance(pitch, (int, float)) else pitch
    rr, cc = np.mgrid[0:int(g["rows"]), 0:int(g["cols"])]
    return np.stack([g["origin_mm"][0] + (cc + 0.5) * px, g["origin_mm"][1] + (rr + 0.5) * py], axis=-1).astype(float)


def _patch_mm(profile: dict) -> float:
    g = profile["grid"]
    pitch = g.get("pitch_mm", g.get("cell_mm"))
    return GRID.patch_share * float(min(pitch) if isinstance(pitch, (list, tuple)) else pitch)


def _margin_mm(profile: dict) -> float:
    """Margin around the board that the rectified view keeps: the outer places may sit on the
    board's edge (a Go board's outer lines), and their patch reaches half a patch beyond it."""
    return _patch_mm(profile) / 2 + 1.0


def _rectified(image, H_px_from_mm, profile: dict, ppm: float):
    """The board plus :func:`_margin_mm` all round, rectified at ``ppm``; returns it and the offset
    (mm) to add to board coordinates."""
    m = _margin_mm(profile)
    w, h = profile["board_mm"]
    shift = np.array([[1.0, 0.0, -m], [0.0, 1.0, -m], [0.0, 0.0, 1.0]])
    return rectify(image, H_px_from_mm @ shift, (w + 2 * m, h + 2 * m), ppm), m


def learn(shot: CalibrationShot) -> dict:
    """Learn each ``cell/<class>``'s appearance.

    Returns:
        ``{"classes": {name: count}, "places": PlaceModel JSON}``.
    Raises:
        BadInputError: ``unknown-label`` for a label that is not ``cell/<class>``;
            ``missing-label`` when there are no samples.
    """
    profile = shot.request.profile
    samples = []
    for label, xy in shot.request.samples:
        parts = label.split("/")
        if len(parts) != 2 or parts[0] != "cell" or not parts[1]:
            raise BadInputError("unknown-label", f"unknown grid label {label!r}; expected cell/<class>")
        samples.append((parts[1], xy))
    if not samples:
        raise BadInputError("missing-label", "calibration has no cell/<class> samples")
    # no finer than the photo itself shows the board (upsampling adds pixels, not detail)
    ppm = float(np.clip(board_px_per_mm(shot.H_px_from_mm, profile["board_mm"]), GRID.min_px_per_mm, GRID.px_per_mm))
    board, m = _rectified(shot.image, shot.H_px_from_mm, profile, ppm)
    model = learn_places(board, [(k, (x + m, y + m)) for k, (x, y) in samples], ppm, _patch_mm(profile),
                         jitter_mm=GRID.jitter_share * _patch_mm(profile) / GRID.patch_share)
    return {"classes": {k: n for k, n in zip(model.classes, model.counts)}, "places": model.to_json()}


def read(photo: Photo) -> Reading:
    """Classify every place of the grid.

    Returns:
        Reading with state ``{"game": "grid", "rows", "cols", "cells": [[class]], "confidence": [[p]]}``;
        the reading's confidence is the product of the per-place posteriors.
    """
    cal = photo.calibration
    model = PlaceModel.from_json(cal.model["places"])
    centres = place_centres(cal.profile)
    rows, cols = centres.shape[:2]
    board, m = _rectified(photo.image, photo.registration.H_px_from_mm, cal.profile, model.px_per_mm)
    labels, conf, _ = classify_places(board, centres.reshape(-1, 2) + m, model)
    cells = [labels[r * cols:(r + 1) * cols] for r in range(rows)]
    confidence = np.asarray(conf).reshape(rows, cols)
    state = {"game": "grid", "rows": rows, "cols": cols, "cells": cells,
             "confidence": np.round(confidence, 4).tolist()}
    return Reading(state=state, confidence=float(np.prod(confidence)), details={"centres": centres})


def annotate(photo: Photo, reading: Reading) -> np.ndarray:
    """The photo with each place's class initial at the place, ringed green (sure) or red
    (confidence below 0.9); BGR uint8, the photo's size."""
    import cv2

    cal = photo.calibration
    out = photo.image.copy()
    centres = reading.details.get("centres", place_centres(cal.profile))
    rows, cols = centres.shape[:2]
    px = project(photo.registration.H_px_from_mm, centres.reshape(-1, 2)).reshape(rows, cols, 2)
    g = cal.profile["grid"]
    pitch = g.get("pitch_mm", g.get("cell_mm"))
    pitch_mm = float(min(pitch) if isinstance(pitch, (list, tuple)) else pitch)
    step = project(photo.registration.H_px_from_mm, centres[0, :2].reshape(-1, 2)) if cols > 1 else None
    pitch_px = float(np.linalg.norm(step[1] - step[0])) if step is not None else pitch_mm
    radius = max(2, int(round(0.3 * pitch_px)))
    scale = max(0.25, pitch_px / 60.0)
    for r, row in enumerate(reading.state["cells"]):
        for c, name in enumerate(row):
            x, y = (int(round(v)) for v in px[r, c])
            colour = (0, 0, 255) if reading.state["confidence"][r][c] < 0.9 else (0, 160, 0)
            cv2.circle(out, (x, y), radius, colour, 1, cv2.LINE_AA)
            cv2.putText(out, name[:1], (x - int(6 * scale), y + int(5 * scale)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                        colour, 1, cv2.LINE_AA)
    return out
