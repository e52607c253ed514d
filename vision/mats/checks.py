"""Shared helpers of the Seashells mat and Sand Castles readers: labels, photo checks, drawing.

Kept small on purpose: the generic photo-quality checks belong to ``vision.image.quality`` (darkness
and glare are delegated to it, on a subsample for speed; the blur check, which compares the
board's fine detail with the calibration's, is :func:`vision.image.quality.check_blur` with
:func:`vision.image.quality.detail_ratio`, shared with the Strand unter reader).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board.geometry import project
from vision.errors import BadInputError, SampleError, UnreadableBoardError, sample_slot
from vision.image import quality
from vision.image.quality import median_last
from vision.places import board_median_bgr


def check_labels(samples, allowed, required, game: str) -> None:
    """Refuse calibration samples with a label the game does not know, or missing classes.

    Args:
        samples: list of ``(label, (x_mm, y_mm))``.
        allowed: the game's label vocabulary.
        required: labels that need at least one sample.
        game: game name for messages.
    Raises:
        BadInputError: ``unknown-label`` or ``missing-label``.
    """
    for label, (x, y) in samples:
        if label not in allowed:
            raise SampleError("unknown-label", [(label, (x, y))], f"{sample_slot(0)} is not a {game} label; "
                              f"expected one of {', '.join(sorted(allowed))}")
    have = {label for label, _ in samples}
    missing = [r for r in required if r not in have]
    if missing:
        raise BadInputError("missing-label", f"the {game} calibration needs at least one sample of "
                            f"{', '.join(missing)}")


def as_scanned(image: np.ndarray, H_px_from_mm: np.ndarray, reduce: int) -> tuple[np.ndarray, np.ndarray]:
    """The calibration shot as a scan sees it: shrunk like a JPEG decoded at 1/``reduce``.

    Scans are decoded reduced (``DECODE_REDUCE``) and the pipeline scales the homography by the
    width ratio (:func:`vision.board.references.photo_homography`); learning from the same view keeps
    the learned appearance (sharpness, contrast) comparable with the scans'.

    Args:
        image: full-size calibration photo, BGR uint8 (H, W, 3).
        H_px_from_mm: (3, 3) homography board mm → full-size photo px.
        reduce: 1, 2, 4 or 8.
    Returns:
        ``(image, H)``: BGR uint8 (ceil(H/r), ceil(W/r), 3) (pixel-area average) and the
        homography board mm → its px, float64 (3, 3).
    """
    if reduce <= 1:
        return image, np.asarray(H_px_from_mm, np.float64)
    size = (-(-image.shape[1] // reduce), -(-image.shape[0] // reduce))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    k = small.shape[1] / image.shape[1]
    return small, np.diag([k, k, 1.0]) @ np.asarray(H_px_from_mm, np.float64)


def rectify_part(image: np.ndarray, H_px_from_mm: np.ndarray, origin_mm, size_mm, px_per_mm: float) -> np.ndarray:
    """Warp one rectangle of the board to a top view (cheaper than the whole board).

    Args:
        image: photo, BGR uint8 (H, W, 3).
        H_px_from_mm: homography board mm → photo px.
        origin_mm: (x, y) top-left of the rectangle, board mm.
        size_mm: (width, height) of the rectangle, mm.
        px_per_mm: resolution of the result.
    Returns:
        BGR uint8 (round(h·ppm), round(w·ppm), 3); pixel (u, v) is at board point
        (x + (u + 0.5)/ppm, y + (v + 0.5)/ppm) mm, as :func:`vision.board.geometry.rectify` would place it.
    """
    x0, y0 = (float(v) for v in origin_mm)
    size = (int(round(size_mm[0] * px_per_mm)), int(round(size_mm[1] * px_per_mm)))
    scale = np.array([[1 / px_per_mm, 0, x0 + 0.5 / px_per_mm], [0, 1 / px_per_mm, y0 + 0.5 / px_per_mm], [0, 0, 1]])
    return cv2.warpPerspective(image, np.asarray(H_px_from_mm, np.float64) @ scale, size,
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)


def check_photo(board_bgr: np.ndarray, reference_median_bgr, *, min_L: float, glare: bool = True) -> None:
    """Refuse a rectified board that is too dark or glared (exit 3), cheaply.

    Darkness and glare are judged by :func:`vision.image.quality.check` (when present) on a 1/2
    subsample of the board (a quarter of the pixels: the median grey and the share of blown-out
    pixels are unbiased on it); blur is :func:`vision.image.quality.check_blur`'s.

    Args:
        board_bgr: rectified board before lighting correction, BGR uint8 (H, W, 3).
        reference_median_bgr: (3,) median B, G, R of the calibration board.
        min_L: mean grey (0–100) below which the board is too dark (used without ``vision.image.quality``).
        glare: refuse a board whose blown-out share is too large (False: the reader judges blown-out
            pixels place by place itself, :func:`blown_out_share`).
    Raises:
        UnreadableBoardError: ``too-dark`` or ``glare``.
    """
    cfg = None if glare else quality.QUALITY_WITHOUT_GLARE
    check_light(np.ascontiguousarray(board_bgr[::2, ::2]), reference_median_bgr, min_L, cfg)


def blown_out_share(board_bgr: np.ndarray, boxes_mm, px_per_mm: float, inset_mm: float) -> np.ndarray:
    """Share of each rectangular place's core pixels that are blown out (every channel ≥
    ``vision.image.quality.QUALITY.saturated``: the colour there is lost).

    Args:
        board_bgr: rectified board before lighting correction, BGR uint8 (H, W, 3); pixel (u, v)
            at ((u + 0.5)/ppm, (v + 0.5)/ppm) mm.
        boxes_mm: (N, 4) places x0, y0, x1, y1 in board mm; inset_mm: the core lies this far inside.
        px_per_mm: resolution of ``board_bgr``.
    Returns:
        float64 (N,) in 0–1 (0 for a core outside the board).
    """
    blown = cv2.inRange(board_bgr, (quality.QUALITY.saturated,) * 3, (255, 255, 255))
    out = np.zeros(len(boxes_mm))
    for i, (x0, y0, x1, y1) in enumerate(np.asarray(boxes_mm, np.float64)):
        u0, v0 = (int(round((v + inset_mm) * px_per_mm)) for v in (x0, y0))
        u1, v1 = (int(round((v - inset_mm) * px_per_mm)) for v in (x1, y1))
        core = blown[max(v0, 0):max(v1, 0), max(u0, 0):max(u1, 0)]
        out[i] = float(np.count_nonzero(core)) / core.size if core.size else 0.0
    return out


def ring_shift(ring_lab: np.ndarray, reference_lab) -> np.ndarray:
    """How each place's own background moved since calibration, beyond the board-wide shift.

    A hand or a cloth over a place replaces its ring's colour; a change of light or a colour cast
    that the grey-world correction left over moves every ring alike, so the median change over all
    places is taken off (a cover over fewer than half of the places does not move the median).

    Args:
        ring_lab: (N, 3) ring median Lab per place now (``ring_contrast_features(with_background=True)``).
        reference_lab: (N, 3) the same at calibration, or None.
    Returns:
        float64 (N, 3) each ring's Lab change minus the median change; zeros without a reference.
    """
    ring_lab = np.asarray(ring_lab, np.float64)
    if reference_lab is None:
        return np.zeros(ring_lab.shape)
    diff = ring_lab - np.asarray(reference_lab, np.float64).reshape(ring_lab.shape)
    return diff - median_last(diff.T)        # np.median(diff, axis=0)


def ring_change(ring_lab: np.ndarray, reference_lab) -> np.ndarray:
    """float64 (N,): the ΔE (CIE76) of :func:`ring_shift`, each place's background change beyond
    the board-wide shift; zeros without a reference."""
    return np.linalg.norm(ring_shift(ring_lab, reference_lab), axis=1)


def mean_lightness(board_bgr: np.ndarray) -> float:
    """Mean grey level of a BGR uint8 board on a 0–100 scale, on a 1/4 subsample."""
    g = cv2.cvtColor(np.ascontiguousarray(board_bgr[::4, ::4]), cv2.COLOR_BGR2GRAY)
    return float(g.mean()) * 100.0 / 255.0


def check_light(board_bgr: np.ndarray, reference_median_bgr, min_L: float, cfg=None) -> None:
    """Refuse a photo the board cannot be read in (too dark, glare, blur).

    Uses the generic :func:`vision.image.quality.check` with the lighting gain against the calibration
    shot; without that module, a minimal darkness test.

    Args:
        board_bgr: the rectified board before lighting correction, BGR uint8 (H, W, 3).
        reference_median_bgr: (3,) median B, G, R of the calibration board.
        min_L: mean grey (0–100) below which the board is too dark (fallback test only).
        cfg: a ``vision.image.quality.QualityConfig`` (None: its defaults).
    Raises:
        UnreadableBoardError: ``too-dark``, ``glare`` or ``too-blurred``.
    """
    if hasattr(quality, "check"):
        gains = np.asarray(reference_median_bgr, np.float64) / np.maximum(board_median_bgr(board_bgr), 1.0)
        quality.check(board_bgr, gains=gains, cfg=cfg or quality.QUALITY)
        return
    L = mean_lightness(board_bgr)
    if L < min_L:
        raise UnreadableBoardError("too-dark", "the board is too dark to read; turn on a light or lengthen the "
                                   "exposure")


def annotation_canvas(photo) -> tuple[np.ndarray, np.ndarray]:
    """A copy of the photo to draw on, at the camera's full size, and the homography onto it.

    Scans are decoded reduced (``DECODE_REDUCE``); the annotated picture is enlarged back to the
    calibration shot's size so that it matches the photo the user took, and marks are drawn sharp.

    Args:
        photo: a :class:`vision.types.Photo`.
    Returns:
        ``(image, H)``: BGR uint8 (h, w, 3) with (w, h) the calibration's ``image_size`` (or the
        photo's own size when it is not smaller), and float64 (3, 3) board mm → its px.
    """
    img = photo.image
    H = np.asarray(photo.registration.H_px_from_mm, np.float64)
    w, h = (int(v) for v in photo.calibration.image_size)
    if img.shape[1] >= w:
        return img.copy(), H
    k = w / img.shape[1]
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR), np.diag([k, k, 1.0]) @ H


def draw_box(img: np.ndarray, H: np.ndarray, box_mm, colour, thickness: int = 2) -> None:
    """Draw a board-mm rectangle ``(x0, y0, x1, y1)`` onto a photo in place (projected by ``H``)."""
    x0, y0, x1, y1 = box_mm
    pts = np.round(project(H, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]])).astype(np.int32)
    cv2.polylines(img, [pts], True, colour, thickness, cv2.LINE_AA)


def draw_label(img: np.ndarray, H: np.ndarray, xy_mm, text: str, colour, radius_px: int = 0) -> None:
    """Draw a circle (when ``radius_px`` > 0) and a short text at a board-mm point of a photo, in place."""
    (u, v), = np.round(project(H, [xy_mm])).astype(int)
    if radius_px:
        cv2.circle(img, (int(u), int(v)), radius_px, colour, 2, cv2.LINE_AA)
    cv2.putText(img, text, (int(u) - 4 * len(text), int(v) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3,
                cv2.LINE_AA)
    cv2.putText(img, text, (int(u) - 4 * len(text), int(v) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1,
                cv2.LINE_AA)


#: Fill of the label boxes of annotated pictures (dark text on it).
LABEL_FILL_BGR = (235, 245, 250)


def text_scale(img: np.ndarray) -> float:
    """OpenCV font scale that stays legible at a photo's full size (0.5 at 1000 px wide)."""
    return max(0.4, img.shape[1] / 2000.0)


def draw_text_box(img: np.ndarray, origin_px, lines, scale: float | None = None, anchor: str = "top-left") -> None:
    """Draw lines of dark text on a light, outlined box, in place (legible on any photo).

    Args:
        img: BGR uint8 picture.
        origin_px: (u, v) of the box's anchor point in px.
        lines: the text lines (a str is one line).
        scale: font scale (default :func:`text_scale`).
        anchor: ``"top-left"`` (the box hangs below-right of the point) or ``"centre"``.
    """
    lines = [lines] if isinstance(lines, str) else [str(t) for t in lines if t]
    if not lines:
        return
    scale = scale or text_scale(img)
    thick = max(1, int(round(scale * 1.6)))
    font = cv2.FONT_HERSHEY_SIMPLEX
    sizes = [cv2.getTextSize(t, font, scale, thick)[0] for t in lines]
    pad = max(2, int(round(4 * scale)))
    line_h = max(h for _, h in sizes) + 2 * pad
    box_w = max(w for w, _ in sizes) + 2 * pad
    box_h = line_h * len(lines)
    u, v = (int(round(c)) for c in origin_px)
    if anchor == "centre":
        u, v = u - box_w // 2, v - box_h // 2
    u = min(max(u, 0), max(img.shape[1] - box_w, 0))
    v = min(max(v, 0), max(img.shape[0] - box_h, 0))
    cv2.rectangle(img, (u, v), (u + box_w, v + box_h), LABEL_FILL_BGR, -1)
    cv2.rectangle(img, (u, v), (u + box_w, v + box_h), (60, 60, 60), 1)
    for i, (t, (_, h)) in enumerate(zip(lines, sizes)):
        cv2.putText(img, t, (u + pad, v + i * line_h + pad + h), font, scale, (20, 20, 20), thick, cv2.LINE_AA)


def draw_caption(img: np.ndarray, H: np.ndarray, xy_mm, lines, scale: float | None = None) -> None:
    """:func:`draw_text_box` centred on a board-mm point of a photo (projected by ``H``)."""
    (u, v), = project(H, [xy_mm])
    draw_text_box(img, (u, v), lines, scale, anchor="centre")
