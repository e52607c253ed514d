"""What a calibration keeps of the board for later photos: the calibration shot's outline bands and
colour strips (pictures in the calibration folder), and the references built from them once per
loaded calibration.
"""

from __future__ import annotations

import numpy as np

from vision.board.geometry import board_px_per_mm
from vision.board.identity import IDENTITY, IdentityReference, identity_layout
from vision.board.motion import OutlineReference
from vision.board.strips import OUTLINE
from vision.types import Calibration

#: The calibration's reference picture is the calibration shot shrunk by this factor.
REFERENCE_DOWNSCALE = 4


def photo_homography(cal: Calibration, image: np.ndarray) -> np.ndarray:
    """The calibrated homography board mm → px, scaled to a photo decoded at reduced size.

    Args:
        cal: loaded calibration (its homography is for ``cal.image_size``).
        image: the photo, (H, W[, 3]); same camera mode, possibly decoded at 1/2, 1/4 or 1/8.
    Returns:
        float64 (3, 3).
    """
    k = image.shape[1] / cal.image_size[0]
    return np.diag([k, k, 1.0]) @ cal.H_px_from_mm


#: The calibration shot's outline bands (:mod:`vision.board.strips`), stored in CAL_DIR.
OUTLINE_PNG = "outline.png"
#: The calibration shot's colour strips across the outline (:func:`vision.board.identity.colour_profiles`),
#: one row per strip: what "is this the calibrated board?" compares a photo with.
IDENTITY_PNG = "identity.png"


def outline_layout() -> list[float]:
    """The strip geometry a stored ``outline.png`` was sampled with (a changed one is rebuilt)."""
    c = OUTLINE
    return [c.inside_mm, c.outside_mm, c.search_mm, c.width_mm, c.spacing_mm]


def outline_ppm(H_px_from_mm: np.ndarray, board_mm, reduce: int) -> float:
    """Sampling resolution of the outline strips (px/mm): the photo's own at the reader's decode
    size, within :attr:`~vision.board.strips.OutlineConfig.min_ppm` … ``max_ppm``."""
    ppm = board_px_per_mm(H_px_from_mm, board_mm) / max(reduce, 1)
    return float(np.clip(ppm, OUTLINE.min_ppm, OUTLINE.max_ppm))


def outline_reference(cal: Calibration) -> OutlineReference:
    """The calibration's :class:`~vision.board.motion.OutlineReference`, built once per loaded calibration.

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
    """How far outside the board's outline the identity strips lie (:class:`~vision.board.identity.IdentityReference`):
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


def identity_reference(cal: Calibration) -> IdentityReference | None:
    """The calibration's :class:`~vision.board.identity.IdentityReference` (its colour strips), built once per
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
