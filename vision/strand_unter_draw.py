"""The annotated picture of a Strand unter reading: grooves, sea line, every piece as read."""

from __future__ import annotations

import cv2
import numpy as np

from vision.strand_unter_geometry import groove_polygons
from vision.types import Photo, Reading

_FONT = cv2.FONT_HERSHEY_SIMPLEX


def annotate(photo: Photo, reading: Reading) -> np.ndarray:
    """Draw the reading on the photo.

    Args:
        photo: the scanned photo (BGR uint8, possibly decoded reduced) and its registration.
        reading: :func:`vision.strand_unter_read.read`'s result.
    Returns:
        BGR uint8 image, same size as ``photo.image``: groove outlines with numbers (grey when
        under the sea), the sea front line, a label at every shell and castle, the sandpiper.
    """
    img = photo.image.copy()
    H = photo.registration.H_px_from_mm
    ppm = float(photo.calibration.model["ppm"])
    state = reading.state
    front = state.get("sea_front", 12)
    to_px = lambda pts: cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)  # noqa: E731
    work_to_px = lambda x, y: to_px([[(x + 0.5) / ppm, (y + 0.5) / ppm]])[0]  # noqa: E731
    scale = max(0.35, img.shape[1] / 2400)
    for n, poly in groove_polygons(photo.calibration.profile).items():
        p = np.round(to_px(poly)).astype(np.int32)
        visible = n < front
        cv2.polylines(img, [p], True, (0, 200, 255) if visible else (120, 120, 120), 1, cv2.LINE_AA)
        cv2.putText(img, str(n), tuple(int(v) for v in p[0] + [3, 14]), _FONT, scale, (0, 0, 255), 1, cv2.LINE_AA)
        if n == front:  # the sea line: the land-side edge of the first covered groove
            ys = poly[:, 1].max()
            xs = poly[:, 0]
            line = np.round(to_px([[xs.min(), ys], [xs.max(), ys]])).astype(np.int32)
            cv2.line(img, tuple(line[0]), tuple(line[1]), (255, 60, 0), 3, cv2.LINE_AA)
            cv2.putText(img, f"sea front {front}", tuple(int(v) for v in line[0] + [0, -6]), _FONT, scale,
                        (255, 60, 0), 2, cv2.LINE_AA)
    det = reading.details
    for colour_name, count, x, y in det.get("shells", []):
        c = tuple(int(v) for v in work_to_px(x, y))
        cv2.circle(img, c, 6, (255, 255, 255), 1, cv2.LINE_AA)
        txt = colour_name + (f" x{count}" if count > 1 else "")
        cv2.putText(img, txt, (c[0] + 6, c[1] + 4), _FONT, scale * 0.8, (20, 20, 20), 1, cv2.LINE_AA)
    for player, value, x, y, *_ in det.get("castles", []):
        c = tuple(int(v) for v in work_to_px(x, y))
        cv2.circle(img, c, 9, (0, 0, 0), 2, cv2.LINE_AA)
        cv2.putText(img, f"{player} {value}", (c[0] + 8, c[1] - 8), _FONT, scale, (0, 0, 0), 2, cv2.LINE_AA)
        cv2.putText(img, f"{player} {value}", (c[0] + 8, c[1] - 8), _FONT, scale, (255, 255, 255), 1, cv2.LINE_AA)
    if det.get("bird"):
        x, y, s = det["bird"]
        c = tuple(int(v) for v in work_to_px(x, y))
        cv2.drawMarker(img, c, (255, 0, 255), cv2.MARKER_STAR, 16, 2)
        cv2.putText(img, "sandpiper", (c[0] + 8, c[1] + 16), _FONT, scale, (255, 0, 255), 1, cv2.LINE_AA)
    cv2.putText(img, f"confidence {reading.confidence:.2f}", (10, 24), _FONT, scale * 1.2, (0, 0, 255), 2, cv2.LINE_AA)
    return img
