"""What a Strand unter calibration gives the registration, loaded once per calibration: the class
lookup table, the rectified empty board's registration reference and its cloth reach. The cache
is emptied when another calibration is used (a station recalibrates).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.strand_unter import colour as colour


_REF_CACHE: dict = {}
_REF_OWNER: list = [None]


def cache_for(cal) -> dict:
    """The per-calibration cache, emptied when another calibration is used (a station recalibrates)."""
    owner = (cal.folder, id(cal))
    if _REF_OWNER[0] != owner:
        _REF_CACHE.clear()
        _REF_OWNER[0] = owner
    return _REF_CACHE


def class_table(cal) -> np.ndarray:
    """The calibration's class lookup table (uint8 (2**(3·bits),)), loaded once per calibration.

    Raises:
        UnreadableBoardError: ``calibration-incomplete`` when the table is missing (recalibrate).
    """
    key = ("lut", cal.folder, id(cal))
    if key not in cache_for(cal):
        name = cal.model.get("pictures", {}).get("classes")
        img = cal.image(name) if (name and cal.folder) else None
        if img is None or "class_names" not in cal.model:
            raise UnreadableBoardError("calibration-incomplete", "the calibration has no colour table "
                                       "(made by an older version); recalibrate")
        _REF_CACHE[key] = colour.lut_from_image(img)
    return _REF_CACHE[key]


def reference_picture(cal) -> np.ndarray | None:
    """The calibration's registration reference: the rectified empty board with its surround, grey
    uint8 (H, W) at ``REGISTRATION.ppm`` (board + margin), or None when the calibration has none."""
    key = (cal.folder, id(cal))
    if key not in cache_for(cal):
        name = cal.model.get("pictures", {}).get("registration", "strand_registration.png")
        img = cal.image(name) if cal.folder else None
        if img is not None and img.ndim == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        _REF_CACHE[key] = img
    return _REF_CACHE[key]


def reference_cloth_edge(cal, cfg) -> np.ndarray:
    """The cloth's reach (:func:`~vision.strand_unter.cloth_reach.cloth_edge_mm`, float (3,) board mm)
    in the calibration's registration reference (cached per calibration)."""
    key = ("cloth", cal.folder, id(cal))
    if key not in cache_for(cal):
        _REF_CACHE[key] = np.asarray(cal.model.get("reference_cloth_mm", [0.0, 0.0, 0.0]))
    return _REF_CACHE[key]
