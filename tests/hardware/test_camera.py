"""Camera backends without a camera: file replay, the mock, spec parsing, picamera2 against a fake."""

import os
import sys

import cv2
import numpy as np
import pytest

from hardware.camera import open_camera
from hardware.errors import CameraError
from hardware.file_camera import FileCamera
from hardware.mock_camera import MockCamera
from hardware.pi_camera import PiCamera

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "strand-unter")


def _write(folder, name, colour):
    img = np.zeros((20, 30, 3), np.uint8)
    img[:] = colour
    cv2.imwrite(str(folder / name), img)


def test_file_camera_replays_a_folder_in_name_order_and_loops(tmp_path):
    _write(tmp_path, "b.png", (0, 0, 200))
    _write(tmp_path, "a.png", (200, 0, 0))
    (tmp_path / "notes.txt").write_text("not a photo")
    cam = open_camera(f"file:{tmp_path}")
    firsts = [cam.capture()[0, 0].tolist() for _ in range(3)]
    assert firsts == [[200, 0, 0], [0, 0, 200], [200, 0, 0]]
    assert "2 photos" in cam.name


def test_file_camera_previews_the_photo_its_next_capture_returns(tmp_path):
    _write(tmp_path, "a.png", (200, 0, 0))
    _write(tmp_path, "b.png", (0, 0, 200))
    cam = open_camera(f"file:{tmp_path}")
    preview = cam.preview()
    assert preview.shape == (360, 640, 3) and preview[0, 0].tolist() == [200, 0, 0]
    assert cam.preview()[0, 0].tolist() == [200, 0, 0]  # a preview does not move the replay on
    cam.capture()
    assert cam.preview()[0, 0].tolist() == [0, 0, 200]
    cam.capture()
    assert cam.preview()[0, 0].tolist() == [200, 0, 0]  # looped


def test_file_camera_without_loop_stops(tmp_path):
    _write(tmp_path, "a.png", (1, 2, 3))
    cam = FileCamera(str(tmp_path / "a.png"), loop=False)
    assert cam.capture().shape == (20, 30, 3)
    with pytest.raises(CameraError) as err:
        cam.capture()
    assert err.value.code == "camera-failed"


def test_file_camera_refuses_a_truncated_jpeg_as_the_scan_command_does(tmp_path):
    """OpenCV decodes a cut JPEG with its lower part grey: the station then said "too little of the
    board's outline is visible" where ``beachscore scan`` says the photo is truncated."""
    with open(os.path.join(EXAMPLE, "scene_05.jpg"), "rb") as f:
        data = f.read()
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) // 2])
    with pytest.raises(CameraError) as err:
        FileCamera(str(tmp_path / "cut.jpg")).capture()
    assert err.value.code == "camera-failed" and "truncated" in err.value.message
    assert FileCamera(os.path.join(EXAMPLE, "scene_05.jpg")).capture().shape == (1080, 1920, 3)


@pytest.mark.parametrize("spec, code", [("file:/nonexistent/x.jpg", "camera-unavailable"), ("file:", "camera-spec"),
                                        ("telescope", "camera-spec"), ("opencv:abc", "camera-spec")])
def test_bad_specs_raise_camera_errors(spec, code):
    with pytest.raises(CameraError) as err:
        open_camera(spec)
    assert err.value.code == code


def test_spec_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("BEACHSCORE_CAMERA", "mock")
    assert isinstance(open_camera(), MockCamera)


def test_mock_camera_frames_and_failure():
    frame = np.full((4, 5, 3), 7, np.uint8)
    with MockCamera([frame]) as cam:
        shot = cam.capture()
        shot[:] = 0
        assert cam.capture()[0, 0, 0] == 7  # copies, not the queued array
        assert cam.captures == 2
    with pytest.raises(CameraError):
        MockCamera(fail=True).capture()
    synthetic = MockCamera(size=(64, 48)).capture()
    assert synthetic.shape == (48, 64, 3) and synthetic.dtype == np.uint8


def test_mock_camera_previews_its_queued_frames_then_holds_the_last():
    a, b = np.zeros((360, 640), np.uint8), np.full((360, 640), 9, np.uint8)
    cam = MockCamera(preview_frames=[a, b])
    assert [int(cam.preview()[0, 0]) for _ in range(4)] == [0, 9, 9, 9]
    assert cam.previews == 4 and cam.captures == 0
    shrunk = MockCamera([np.full((720, 1280, 3), 5, np.uint8)]).preview()
    assert shrunk.shape == (360, 640, 3) and int(shrunk[0, 0, 0]) == 5
    with pytest.raises(CameraError):
        MockCamera(fail=True).preview()


def test_auto_without_any_camera_is_one_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails
    import hardware.usb_camera as usb

    class NoCapture:
        def __init__(self, index):
            pass

        def isOpened(self):
            return False

        def release(self):
            pass

    monkeypatch.setattr(cv2, "VideoCapture", NoCapture)
    with pytest.raises(CameraError) as err:
        open_camera("auto")
    assert err.value.code == "camera-unavailable"
    assert "picamera2" in err.value.message and "opencv:0" in err.value.message
    assert usb.UsbCamera  # imported lazily, fine to import here


class FakeRequest:
    def __init__(self, rgb):
        self.rgb = rgb

    def make_array(self, name):
        return self.rgb[..., ::-1].copy()  # picamera2's RGB888 is B,G,R in memory

    def make_image(self, name):
        from types import SimpleNamespace

        return SimpleNamespace(convert=lambda mode: self.rgb)

    def release(self):
        pass


class FakePicamera2:
    instances = []

    def __init__(self):
        self.rgb = np.zeros((30, 40, 3), np.uint8)
        self.rgb[..., 0] = 200  # a red scene, RGB
        self.controls = {}
        self.camera_controls = {"LensPosition": (0.0, 15.0, 1.0)}
        self.closed = False
        FakePicamera2.instances.append(self)

    def create_still_configuration(self, main, lores, buffer_count):
        assert main["format"] == "RGB888"
        return {"main": main, "lores": lores}

    def configure(self, config):
        self.config = config

    def start(self):
        pass

    def capture_metadata(self):
        return {"ExposureTime": 12000, "AnalogueGain": 1.5, "ColourGains": (1.8, 1.4), "LensPosition": 2.5}

    def set_controls(self, controls):
        self.controls.update(controls)

    def capture_request(self):
        return FakeRequest(self.rgb)

    def capture_array(self, name):
        if name == "lores":  # YUV420: the Y plane (rows of width), then U and V at quarter size
            w, h = self.config["lores"]["size"]
            yuv = np.zeros((h * 3 // 2, w), np.uint8)
            yuv[:h] = 77  # the red scene's luma
            return yuv
        return self.rgb[..., ::-1].copy()

    def stop(self):
        pass

    def close(self):
        self.closed = True


def test_pi_camera_locks_exposure_white_balance_and_focus_and_returns_bgr():
    cam = PiCamera(warmup_s=0, picamera2_class=FakePicamera2)
    fake = FakePicamera2.instances[-1]
    assert fake.controls == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 12000, "AnalogueGain": 1.5,
                             "ColourGains": (1.8, 1.4), "AfMode": 0, "LensPosition": 2.5}
    assert cam.swap_rb is False
    frame = cam.capture()
    assert frame[0, 0].tolist() == [0, 0, 200]  # red scene in B,G,R order
    assert cam.name == "picamera2 40x30"
    assert fake.config["lores"] == {"format": "YUV420", "size": (640, 360)}
    preview = cam.preview()
    assert preview.shape == (360, 640) and preview.dtype == np.uint8 and int(preview[0, 0]) == 77
    cam.close()
    cam.close()
    assert fake.closed


def test_pi_camera_swaps_when_the_library_delivers_rgb():
    class RgbPicamera2(FakePicamera2):
        def capture_array(self, name):
            return super().capture_array(name) if name == "lores" else self.rgb.copy()

        def capture_request(self):
            req = FakeRequest(self.rgb)
            req.make_array = lambda name: self.rgb.copy()
            return req

    cam = PiCamera(warmup_s=0, picamera2_class=RgbPicamera2)
    assert cam.swap_rb is True
    assert cam.capture()[0, 0].tolist() == [0, 0, 200]


def test_pi_camera_missing_library_is_camera_unavailable(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(CameraError) as err:
        open_camera("picamera2")
    assert err.value.code == "camera-unavailable" and "apt install python3-picamera2" in err.value.message
