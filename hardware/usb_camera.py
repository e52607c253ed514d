"""USB webcams through OpenCV's ``VideoCapture``."""

from __future__ import annotations

import threading

import numpy as np

from hardware.camera_base import Camera, check_bgr, shrink_to_preview
from hardware.errors import CameraError


class UsbCamera(Camera):
    """A USB camera kept open between scans.

    Args:
        index: OpenCV device index (0 = first camera).
        size: requested (width_px, height_px); the driver may choose the nearest mode.
        flush_frames: frames read and dropped before each capture, so the photo is taken
            *now* and not taken from the driver's buffer.
    Raises:
        CameraError: ``camera-unavailable`` when the device cannot be opened.
    """

    def __init__(self, index: int = 0, *, size: tuple[int, int] = (1920, 1080), flush_frames: int = 4):
        import cv2

        self._cv2 = cv2
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraError("camera-unavailable", f"OpenCV camera {index} cannot be opened")
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self.flush_frames = flush_frames
        self._lock = threading.Lock()
        w = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH))
        h = int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        self.name = f"opencv:{index} {w}x{h}"

    def capture(self) -> np.ndarray:
        """Take one photo, BGR uint8 (H, W, 3). Raises CameraError ``camera-failed``."""
        with self._lock:
            if self._cap is None:
                raise CameraError("camera-failed", f"{self.name}: camera is closed")
            for _ in range(self.flush_frames):
                self._cap.grab()
            ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraError("camera-failed", f"{self.name}: no frame")
        return check_bgr(frame, self.name)

    def preview(self) -> np.ndarray:
        """The camera's newest frame shrunk to the preview size, BGR uint8 (no flush: the stream
        runs on). Raises CameraError ``camera-failed``."""
        with self._lock:
            if self._cap is None:
                raise CameraError("camera-failed", f"{self.name}: camera is closed")
            ok, frame = self._cap.read()
        if not ok or frame is None:
            raise CameraError("camera-failed", f"{self.name}: no frame")
        return shrink_to_preview(check_bgr(frame, self.name))

    def close(self) -> None:
        with self._lock:
            if self._cap is not None:
                self._cap.release()
                self._cap = None
