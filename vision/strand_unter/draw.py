"""The annotated picture of a Strand unter reading: grooves, sea line, every piece as read.

Input: the scanned photo with its registration and the reading. Output: a BGR picture.

Drawn at the photo's full size: a scan is decoded at 1/``DECODE_REDUCE`` size, so the decoded
photo is enlarged back and the homography scaled with it (marks and text then stay sharp). Every
label is dark text on a light box, readable on the blue cloth, the sand and the table alike.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.strand_unter.config import REGISTRATION
from vision.strand_unter.geometry import groove_polygons, scale_homography
from vision.types import Photo, Reading
from vision.confidence import confidence_percent

_FONT = cv2.FONT_HERSHEY_SIMPLEX
_INK = (20, 20, 20)           # label text
_PAPER = (235, 240, 245)      # label box


def canvas(photo: Photo) -> tuple[np.ndarray, np.ndarray]:
    """The photo enlarged to its full size (undoing the reduced decode) and the homography onto it.

    Returns:
        (BGR uint8 image, float64 (3, 3) board mm → its px). A photo already at least as wide as
        the calibration shot (not decoded reduced) is copied as it is.
    """
    img = photo.image
    H = np.asarray(photo.registration.H_px_from_mm, np.float64)
    k = REGISTRATION.decode_reduce
    if k <= 1 or img.shape[1] >= photo.calibration.image_size[0]:
        return img.copy(), H
    big = cv2.resize(img, (img.shape[1] * k, img.shape[0] * k), interpolation=cv2.INTER_LINEAR)
    return big, scale_homography(H, k)


def label(img: np.ndarray, text: str, org, scale: float, accent=(0, 0, 0), anchor: str = "left") -> None:
    """Dark text on a light box (outlined in ``accent``) with its baseline-left corner at ``org``, in place."""
    th = max(1, round(scale * 2))
    (tw, tht), base = cv2.getTextSize(text, _FONT, scale, th)
    x, y = int(org[0]), int(org[1])
    if anchor == "centre":
        x -= tw // 2
    x = min(max(x, 2), img.shape[1] - tw - 4)
    y = min(max(y, tht + 4), img.shape[0] - base - 4)
    pad = max(2, round(4 * scale))
    cv2.rectangle(img, (x - pad, y - tht - pad), (x + tw + pad, y + base + pad // 2), _PAPER, -1)
    cv2.rectangle(img, (x - pad, y - tht - pad), (x + tw + pad, y + base + pad // 2), accent, max(1, th // 2))
    cv2.putText(img, text, (x, y), _FONT, scale, _INK, th, cv2.LINE_AA)


def annotate(photo: Photo, reading: Reading) -> np.ndarray:
    """Draw the reading on the photo.

    Args:
        photo: the scanned photo (BGR uint8, possibly decoded reduced) and its registration.
        reading: :func:`vision.strand_unter.reading.read`'s result.
    Returns:
        BGR uint8 image at the photo's full size (twice the decoded size): groove outlines with
        numbers (grey when under the sea), the sea front line, a label at every shell and castle,
        the sandpiper, the confidence.
    """
    img, H = canvas(photo)
    ppm = float(photo.calibration.model["ppm"])
    state = reading.state
    front = state.get("sea_front", 12)
    to_px = lambda pts: cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)
    work_to_px = lambda x, y: to_px([[(x + 0.5) / ppm, (y + 0.5) / ppm]])[0]
    scale = max(0.45, img.shape[1] / 2400)
    r = max(6, round(img.shape[1] / 160))
    lw = max(1, round(img.shape[1] / 960))
    for n, poly in groove_polygons(photo.calibration.profile).items():
        p = np.round(to_px(poly)).astype(np.int32)
        visible = n < front
        cv2.polylines(img, [p], True, (0, 200, 255) if visible else (150, 150, 150), lw, cv2.LINE_AA)
        left = to_px([[poly[:, 0].min(), poly[:, 1].mean()]])[0]
        label(img, str(n), (left[0] + 4 * lw, left[1] + 6 * scale), scale * 0.8, (0, 160, 230) if visible else (150, 150, 150))
        if n == front:  # the sea line: the land-side edge of the first covered groove
            ys = poly[:, 1].max()
            xs = poly[:, 0]
            line = np.round(to_px([[xs.min(), ys], [xs.max(), ys]])).astype(np.int32)
            cv2.line(img, tuple(int(v) for v in line[0]), tuple(int(v) for v in line[1]), (255, 60, 0), 3 * lw, cv2.LINE_AA)
            mid = (line[0] + line[1]) / 2
            label(img, f"sea front {front}", (mid[0], mid[1] - 8 * lw), scale, (255, 60, 0), anchor="centre")
    det = reading.details
    for colour_name, count, x, y in det.get("shells", []):
        c = tuple(int(v) for v in work_to_px(x, y))
        cv2.circle(img, c, r, (255, 255, 255), lw, cv2.LINE_AA)
        label(img, colour_name + (f" x{count}" if count > 1 else ""), (c[0] + r + 2, c[1] + r), scale * 0.7, (120, 120, 120))
    for player, value, x, y, *_ in det.get("castles", []):
        c = tuple(int(v) for v in work_to_px(x, y))
        cv2.circle(img, c, int(1.5 * r), (0, 0, 0), 2 * lw, cv2.LINE_AA)
        label(img, f"{player} {value}", (c[0] + int(1.5 * r), c[1] - int(1.5 * r)), scale * 0.8, (0, 0, 0))
    if det.get("bird"):
        x, y, _ = det["bird"]
        c = tuple(int(v) for v in work_to_px(x, y))
        cv2.drawMarker(img, c, (255, 0, 255), cv2.MARKER_STAR, 3 * r, 2 * lw)
        label(img, "sandpiper", (c[0] + r, c[1] + 3 * r), scale * 0.8, (255, 0, 255))
    label(img, f"confidence {confidence_percent(reading.confidence)}%", (12, 40 * scale + 12), scale * 1.2, (0, 0, 255))
    return img
