"""The camera: one interface, several backends, chosen lazily.

Every backend returns photos as BGR uint8 arrays of shape (H, W, 3) — the order OpenCV and the
pipeline expect. Importing this module never touches a device; a backend's own library
(picamera2, cv2.VideoCapture) is imported only when that backend is chosen.

Backends, by ``spec`` string (argument, then ``$BEACHSCORE_CAMERA``, then ``auto``):

=====================  ==========================================================
``picamera2``          Raspberry Pi camera, full-resolution stills, exposure locked
``opencv`` / ``opencv:1``  USB webcam through ``cv2.VideoCapture`` (index)
``file:PATH``          a photo, or a folder of photos replayed in name order
``mock``               synthetic photos (:class:`hardware.mock_camera.MockCamera`)
``auto``               picamera2 if it imports, else the first OpenCV camera
=====================  ==========================================================
"""

from __future__ import annotations

import os

import numpy as np

from hardware.errors import CameraError

ENV_VAR = "BEACHSCORE_CAMERA"


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


def open_camera(spec: str | None = None, **options) -> Camera:
    """Open the camera named by ``spec`` (see the module docstring).

    Args:
        spec: backend spec; None reads ``$BEACHSCORE_CAMERA``, then falls back to ``auto``.
        options: keyword options passed to the backend (e.g. ``warmup_s`` for picamera2).
    Raises:
        CameraError: ``camera-spec`` for an unknown spec, ``camera-unavailable`` when the device
            or its library is missing.
    """
    spec = (spec or os.environ.get(ENV_VAR) or "auto").strip()
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    if kind == "file":
        from hardware.file_camera import FileCamera

        return FileCamera(arg, **options)
    if kind == "mock":
        from hardware.mock_camera import MockCamera

        return MockCamera(**options)
    if kind == "picamera2":
        from hardware.pi_camera import PiCamera

        return PiCamera(**options)
    if kind in ("opencv", "usb"):
        from hardware.usb_camera import UsbCamera

        try:
            index = int(arg or 0)
        except ValueError:
            raise CameraError("camera-spec", f"camera spec {spec!r}: the OpenCV index must be a number") from None
        return UsbCamera(index, **options)
    if kind == "auto":
        return _open_auto(**options)
    raise CameraError("camera-spec", f"unknown camera {spec!r}; expected picamera2, opencv[:INDEX], file:PATH or mock")


def _open_auto(**options) -> Camera:
    problems = []
    for candidate in ("picamera2", "opencv:0"):
        try:
            return open_camera(candidate, **options)
        except CameraError as err:
            problems.append(f"{candidate}: {err.message}")
    raise CameraError("camera-unavailable", "no camera found (" + "; ".join(problems) + ")")
