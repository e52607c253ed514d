"""The profile's ArUco markers in a photo: the homography board mm → px they give."""

from __future__ import annotations

import cv2
import numpy as np

#: leave the homography poorly constrained across a whole board.
MIN_MARKERS = 2


def detect_markers(image: np.ndarray, markers: list[dict]) -> np.ndarray | None:
    """Homography board mm → image px from the profile's ArUco markers, or None if too few are seen.

    Args:
        image: photo, BGR uint8.
        markers: profile ``markers`` entries ``{"dictionary": "DICT_4X4_50", "id": int, "corners_mm": 4×[x, y]}``.
    Returns:
        (3, 3) float64 homography fitted with RANSAC over every seen marker corner, or None when
        fewer than :data:`MIN_MARKERS` declared markers are visible.
    """
    if not markers:
        return None
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    src, dst, found = [], [], 0
    for name in sorted({m["dictionary"] for m in markers}):
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
        detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
        corners, ids, _ = detector.detectMarkers(gray)
        if ids is None:
            continue
        seen = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}
        for m in markers:
            if m["dictionary"] == name and m["id"] in seen:
                src.extend(m["corners_mm"])
                dst.extend(seen[m["id"]].tolist())
                found += 1
    if found < MIN_MARKERS:
        return None
    H, _ = cv2.findHomography(np.float32(src), np.float32(dst), cv2.RANSAC, 3.0)
    return H
