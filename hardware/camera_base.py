"""What every camera backend is: :class:`Camera` (capture, preview, close, ``with``) and the frame check."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.errors import CameraError

#: (width_px, height_px) of the low-resolution preview the station watches the board in.
PREVIEW_SIZE = (640, 360)


class Camera:
    """Base of every backend. Use as a context manager; :meth:`close` is safe to call twice.

    Attributes:
        name: short human description shown on the station page, e.g. ``"picamera2 4056x3040"``.
    """

    name = "camera"

    def capture(self) -> np.ndarray:
        """Take one photo.

        Returns:
            BGR uint8 array, shape (H, W, 3).
        Raises:
            CameraError: ``camera-failed``.
        """
        raise NotImplementedError

    def capture_encoded(self) -> bytes | None:
        """Take one photo as the encoded file a camera that replays files holds (JPEG, PNG…), so
        that it is decoded as a scan of that file would be; None for a live camera, whose frame
        exists only as pixels (then use :meth:`capture`).

        Raises:
            CameraError: ``camera-failed``.
        """
        return None

    def preview(self) -> np.ndarray:
        """One low-resolution frame of what the camera sees now, for watching the board between
        scans; cheap enough for ten a second. This default shrinks a :meth:`capture`.

        Returns:
            uint8 grey (360, 640) (a Y plane) or BGR (360, 640, 3): :data:`PREVIEW_SIZE`, the
            same field of view as :meth:`capture`, scaled on each axis.
        Raises:
            CameraError: ``camera-failed``.
        """
        return shrink_to_preview(self.capture())

    def close(self) -> None:
        """Release the device. Safe to call more than once."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def check_bgr(image: object, where: str) -> np.ndarray:
    """Check that a backend's frame is a BGR uint8 (H, W, 3) array.

    Raises:
        CameraError: ``camera-failed`` with the actual shape/dtype.
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        desc = f"{image.dtype} {image.shape}" if isinstance(image, np.ndarray) else type(image).__name__
        raise CameraError("camera-failed", f"{where}: expected a BGR uint8 (H, W, 3) frame, got {desc}")
    return image


def shrink_to_preview(image: np.ndarray, size: tuple[int, int] = PREVIEW_SIZE) -> np.ndarray:
    """A photo (BGR or grey uint8) shrunk to the preview's ``size`` = (width_px, height_px) by
    averaging (each axis scaled on its own, as a camera's preview stream is)."""
    if (image.shape[1], image.shape[0]) == tuple(size):
        return image
    return cv2.resize(image, tuple(size), interpolation=cv2.INTER_AREA)
