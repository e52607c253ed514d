"""A test double for the camera that ships with the package (like gpiozero's MockFactory)."""

from __future__ import annotations

import threading

import numpy as np

from hardware.camera_base import Camera, check_bgr, shrink_to_preview
from hardware.errors import CameraError


class MockCamera(Camera):
    """A camera that returns queued frames, or a synthetic board picture.

    Args:
        frames: BGR uint8 (H, W, 3) arrays returned in order, cycling; None → synthetic frames.
        size: (width_px, height_px) of synthetic frames.
        fail: when True every capture raises ``camera-failed`` (to test error paths).
        preview_frames: uint8 grey (h, w) or BGR (h, w, 3) frames :meth:`preview` returns in
            order, the last one again once they run out; None → each preview is the next capture's
            frame shrunk (without counting as a capture).
    Attributes:
        captures: number of successful captures so far.
        previews: number of preview frames returned so far.
    """

    def __init__(self, frames: list[np.ndarray] | None = None, *, size: tuple[int, int] = (640, 480),
                 fail: bool = False, preview_frames: list[np.ndarray] | None = None):
        self.frames = [check_bgr(f, "mock frame") for f in (frames or [])]
        self.preview_frames = list(preview_frames or [])
        self.previews = 0
        self.size = size
        self.fail = fail
        self.captures = 0
        self.closed = False
        self._lock = threading.Lock()
        self.name = "mock camera"

    def capture(self) -> np.ndarray:
        """Return the next queued frame (a copy) or a synthetic one, BGR uint8 (H, W, 3)."""
        with self._lock:
            if self.closed:
                raise CameraError("camera-failed", "mock camera is closed")
            if self.fail:
                raise CameraError("camera-failed", "mock camera told to fail")
            n = self.captures
            self.captures += 1
        return self._frame(n)

    def preview(self) -> np.ndarray:
        """The next queued preview frame, or the next capture's frame shrunk (see the class)."""
        with self._lock:
            if self.closed:
                raise CameraError("camera-failed", "mock camera is closed")
            if self.fail:
                raise CameraError("camera-failed", "mock camera told to fail")
            n = self.previews
            self.previews += 1
            captures = self.captures
        if self.preview_frames:
            return self.preview_frames[min(n, len(self.preview_frames) - 1)]
        return shrink_to_preview(self._frame(captures))

    def _frame(self, n: int) -> np.ndarray:
        if self.frames:
            return self.frames[n % len(self.frames)].copy()
        w, h = self.size
        img = np.full((h, w, 3), (60, 140, 200), np.uint8)  # sand, BGR
        img[h // 8: -h // 8, w // 8: -w // 8] = (40, 90, 150)
        img[: h // 16] = (255 - 20 * (n % 8), 0, 0)  # a blue band that changes with every shot
        return img

    def close(self) -> None:
        self.closed = True
