"""The Raspberry Pi camera through picamera2 (Pi OS: ``apt install python3-picamera2``).

picamera2 is imported only when a :class:`PiCamera` is made, so this module imports anywhere.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from hardware.camera_base import PREVIEW_SIZE, Camera, check_bgr
from hardware.errors import CameraError

#: libcamera's ``AfModeEnum.Manual``.
AF_MODE_MANUAL = 0


class PiCamera(Camera):
    """A Pi camera kept open, taking full-resolution stills with locked colours.

    On opening: configure a still mode (``RGB888``, full sensor size unless ``size`` is given)
    with a low-resolution ``lores`` stream beside it (``YUV420``, :data:`PREVIEW_SIZE`, scaled
    from the same sensor crop: the board is watched in its Y plane between scans), start, let auto-exposure/white-balance settle for ``warmup_s``, then lock exposure time,
    analogue gain, white balance (``ColourGains``) and focus (``LensPosition``, when the module has
    autofocus) at the settled values, so every scan of a game sees the same colours.
    Channel order is verified once against picamera2's own RGB image of the same request.

    Args:
        size: (width_px, height_px) of stills; None = full sensor resolution.
        warmup_s: seconds to let auto exposure and white balance settle before locking.
        lens_position: dioptres to lock focus at; None = where autofocus settled.
        picamera2_class: the class to instantiate (tests pass a fake); default ``picamera2.Picamera2``.
    Attributes:
        locked: the control values locked after warm-up (dict).
        swap_rb: True when the library delivered RGB instead of BGR (then captures are swapped).
    Raises:
        CameraError: ``camera-unavailable`` when picamera2 is missing or no camera is attached.
    """

    def __init__(self, *, size: tuple[int, int] | None = None, warmup_s: float = 2.0,
                 lens_position: float | None = None, picamera2_class=None):
        if picamera2_class is None:
            try:
                from picamera2 import Picamera2 as picamera2_class  # noqa: N813
            except ImportError:
                raise CameraError("camera-unavailable", "picamera2 is not installed "
                                  "(on Pi OS: sudo apt install python3-picamera2)") from None
        try:
            self._cam = picamera2_class()
        except Exception as exc:  # noqa: BLE001 - picamera2 raises bare errors when no camera is attached
            raise CameraError("camera-unavailable", f"no Pi camera: {exc}") from None
        self._lock = threading.Lock()
        main = {"format": "RGB888"}
        if size is not None:
            main["size"] = tuple(size)
        lores = {"format": "YUV420", "size": tuple(PREVIEW_SIZE)}
        try:
            config = self._cam.create_still_configuration(main=main, lores=lores, buffer_count=1)
            self._cam.configure(config)
            self._cam.start()
            time.sleep(warmup_s)
            self.locked = self._lock_controls(lens_position)
            self.swap_rb = self._check_channel_order()
        except CameraError:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001
            self.close()
            raise CameraError("camera-unavailable", f"Pi camera failed to start: {exc}") from None
        h, w = self.capture().shape[:2]
        self.name = f"picamera2 {w}x{h}"

    def _lock_controls(self, lens_position: float | None) -> dict:
        md = self._cam.capture_metadata()
        controls = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in md:
                controls[key] = md[key]
        available = getattr(self._cam, "camera_controls", {}) or {}
        if "LensPosition" in available:
            controls["AfMode"] = AF_MODE_MANUAL
            controls["LensPosition"] = lens_position if lens_position is not None else md.get("LensPosition", 0.0)
        self._cam.set_controls(controls)
        return controls

    def _check_channel_order(self) -> bool:
        """Compare the array of one request with picamera2's RGB picture of it; True → swap R/B."""
        request = self._cam.capture_request()
        try:
            arr = np.asarray(request.make_array("main"))[..., :3]
            rgb = np.asarray(request.make_image("main").convert("RGB"))
        finally:
            request.release()
        if arr.shape != rgb.shape:
            raise CameraError("camera-unavailable", f"Pi camera: array {arr.shape} and picture {rgb.shape} differ")
        as_bgr = np.abs(arr[..., ::-1].astype(np.int16) - rgb).mean()
        as_rgb = np.abs(arr.astype(np.int16) - rgb).mean()
        return bool(as_rgb < as_bgr)

    def capture(self) -> np.ndarray:
        """Take one still, BGR uint8 (H, W, 3). Raises CameraError ``camera-failed``."""
        with self._lock:
            if self._cam is None:
                raise CameraError("camera-failed", "Pi camera is closed")
            try:
                frame = np.asarray(self._cam.capture_array("main"))
            except Exception as exc:  # noqa: BLE001
                raise CameraError("camera-failed", f"Pi camera capture failed: {exc}") from None
        frame = frame[..., :3]
        if self.swap_rb:
            frame = frame[..., ::-1]
        return check_bgr(np.ascontiguousarray(frame), "picamera2")

    def preview(self) -> np.ndarray:
        """The ``lores`` stream's newest frame: its Y plane, grey uint8 (360, 640).
        Raises CameraError ``camera-failed``."""
        w, h = PREVIEW_SIZE
        with self._lock:
            if self._cam is None:
                raise CameraError("camera-failed", "Pi camera is closed")
            try:
                yuv = np.asarray(self._cam.capture_array("lores"))
            except Exception as exc:  # noqa: BLE001
                raise CameraError("camera-failed", f"Pi camera preview failed: {exc}") from None
        if yuv.dtype != np.uint8 or yuv.ndim != 2 or yuv.shape[0] < h or yuv.shape[1] < w:
            raise CameraError("camera-failed", f"Pi camera preview: expected a YUV420 {w}x{h} frame, got "
                              f"{yuv.dtype} {yuv.shape}")
        return np.ascontiguousarray(yuv[:h, :w])  # the Y plane (rows may be padded to a stride)

    def close(self) -> None:
        with self._lock:
            cam, self._cam = getattr(self, "_cam", None), None
        if cam is not None:
            try:
                cam.stop()
            finally:
                cam.close()
