"""A camera that replays photo files: demos and tests on any machine (``--camera file:PATH``)."""

from __future__ import annotations

import os
import threading

import cv2
import numpy as np

from hardware.camera_base import Camera, check_bgr, shrink_to_preview
from hardware.errors import CameraError

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class FileCamera(Camera):
    """Replay one photo, or every photo of a folder in name order (looping).

    Args:
        path: an image file or a folder of image files.
        loop: start again at the first photo after the last (default True); when False a
            capture past the end raises ``camera-failed``.
    Raises:
        CameraError: ``camera-unavailable`` when the path holds no image.
    """

    def __init__(self, path: str, *, loop: bool = True):
        if not path:
            raise CameraError("camera-spec", "file camera needs a path: --camera file:PATH")
        if os.path.isdir(path):
            files = sorted(os.path.join(path, f) for f in os.listdir(path)
                           if f.lower().endswith(IMAGE_EXTENSIONS) and not f.startswith("."))
        elif os.path.isfile(path):
            files = [path]
        else:
            raise CameraError("camera-unavailable", f"file camera: {path}: no such file or folder")
        if not files:
            raise CameraError("camera-unavailable", f"file camera: {path}: no photos in this folder")
        self.files = files
        self.loop = loop
        self._next = 0
        self._lock = threading.Lock()
        self._preview: tuple[str, np.ndarray] | None = None
        self.name = f"file:{path} ({len(files)} photo{'s' if len(files) != 1 else ''})"

    def capture(self) -> np.ndarray:
        """Return the next photo, BGR uint8 (H, W, 3). Raises CameraError ``camera-failed``."""
        return self._decode(*self._next_file())

    @staticmethod
    def _decode(data: bytes, path: str) -> np.ndarray:
        """A photo file's content decoded, BGR uint8 (H, W, 3). Raises CameraError ``camera-failed``."""
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
        if image is None:
            raise CameraError("camera-failed", f"file camera: {path}: not a readable image")
        return check_bgr(image, path)

    def capture_encoded(self) -> bytes:
        """Return the next photo's file content as it is (not decoded): a scan decodes it as the
        command line decodes that file. Raises CameraError ``camera-failed`` (unreadable, truncated)."""
        data, path = self._next_file()
        if not data:
            raise CameraError("camera-failed", f"file camera: {path}: an empty file")
        return data

    def _next_file(self) -> tuple[bytes, str]:
        """(content, path) of the next photo file, checked for a JPEG cut off before its end."""
        with self._lock:
            if self._next >= len(self.files):
                if not self.loop:
                    raise CameraError("camera-failed", "file camera: no more photos")
                self._next = 0
            path = self.files[self._next]
            self._next += 1
        return self._read(path)

    def preview(self) -> np.ndarray:
        """The photo the next :meth:`capture` returns, shrunk to the preview size (BGR uint8): the
        table as it is now. Raises CameraError ``camera-failed``."""
        with self._lock:
            index = self._next if self._next < len(self.files) or not self.loop else 0
            path = self.files[min(index, len(self.files) - 1)]
            cached = self._preview
        if cached is not None and cached[0] == path:
            return cached[1]
        frame = shrink_to_preview(self._decode(*self._read(path)))
        self._preview = (path, frame)
        return frame

    def _read(self, path: str) -> tuple[bytes, str]:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise CameraError("camera-failed", f"file camera: {path}: {exc.strerror}") from None
        if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-4096:]:
            # OpenCV would decode it with its lower part grey, and the board would seem covered
            raise CameraError("camera-failed", f"file camera: {path}: a truncated JPEG (cut off before its end); "
                              "replace the file")
        return data, path
