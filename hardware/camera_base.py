"""What every camera backend is: :class:`Camera` (capture, close, ``with``) and the frame check."""

from __future__ import annotations

import numpy as np

from hardware.errors import CameraError


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
