"""Photos as bytes: the station's JPEG and PNG encodings of BGR uint8 images."""

from __future__ import annotations

import cv2
import numpy as np

#: JPEG quality of stored photos (OpenCV's 0–100 scale).
JPEG_QUALITY = 92
#: JPEG quality of the annotated picture (drawn lines and labels; a person looks at it on a phone).
ANNOTATED_JPEG_QUALITY = 85
#: Longest side of the annotated picture (px): larger readings are shrunk before encoding
#: (a 12 MP PNG took 320 ms and 6.8 MB; scripts/bench_station_scan.py measures it).
ANNOTATED_MAX_SIDE_PX = 1920


def encode(image_bgr: np.ndarray, ext: str, quality: int = JPEG_QUALITY) -> bytes:
    """Encode a BGR uint8 (H, W, 3) image as ``.jpg`` (``quality`` 0–100) or ``.png`` bytes."""
    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if ext == ".jpg" else []
    ok, buf = cv2.imencode(ext, image_bgr, params)
    if not ok:
        raise OSError(f"cannot encode a {image_bgr.shape} image as {ext}")
    return buf.tobytes()


def encode_annotated(image_bgr: np.ndarray) -> bytes:
    """The annotated picture as JPEG, shrunk to at most :data:`ANNOTATED_MAX_SIDE_PX` (area averaging)."""
    h, w = image_bgr.shape[:2]
    k = ANNOTATED_MAX_SIDE_PX / max(h, w)
    if k < 1:
        image_bgr = cv2.resize(image_bgr, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    return encode(image_bgr, ".jpg", ANNOTATED_JPEG_QUALITY)
