"""Gradient magnitude that gives the same bits on every call.

Input: two derivative images (float32, one shape), or one image to differentiate with
``cv2.Sobel``. Output: float32 ``sqrt(gx² + gy²)``, same shape.

``cv2.magnitude`` (OpenCV 5.0) does not: on the very same input it returns values an ulp or two
apart from one call to the next (up to 1.5e-5 on edge images of a few hundred), as its vectorised
and scalar paths share out the pixels by where the buffers happen to lie in memory. Harmless for
a threshold, not for an alignment that does not converge (ECC from a poor start), which turns
that noise into another answer, so one photo registered differently from run to run. numpy's
IEEE multiply, add and square root are exact to the last bit wherever the memory lies.
"""

from __future__ import annotations

import cv2
import numpy as np


def magnitude(gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """``sqrt(gx² + gy²)`` elementwise, float32, the same bits on every call.

    Args:
        gx, gy: float32 arrays of one shape (e.g. ``cv2.Sobel(..., cv2.CV_32F, 1, 0)`` and ``0, 1``).
    Returns:
        float32 array of that shape.
    """
    out = np.multiply(gx, gx, dtype=np.float32)
    out += np.multiply(gy, gy, dtype=np.float32)
    return np.sqrt(out, out=out)


def sobel_magnitude(image: np.ndarray) -> np.ndarray:
    """Gradient magnitude of a single-channel image (uint8 or float32, (H, W)) with 3×3 Sobel
    derivatives: float32 (H, W), grey levels per pixel."""
    return magnitude(cv2.Sobel(image, cv2.CV_32F, 1, 0), cv2.Sobel(image, cv2.CV_32F, 0, 1))
