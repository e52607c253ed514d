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

from hardware.camera_base import Camera
from hardware.errors import CameraError
from hardware.file_camera import FileCamera
from hardware.mock_camera import MockCamera
from hardware.pi_camera import PiCamera
from hardware.usb_camera import UsbCamera

ENV_VAR = "BEACHSCORE_CAMERA"


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
        return FileCamera(arg, **options)
    if kind == "mock":
        return MockCamera(**options)
    if kind == "picamera2":
        return PiCamera(**options)
    if kind in ("opencv", "usb"):
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
