"""vision.image.gradients: the gradient magnitude is the same bits on every call, wherever the arrays lie
in memory (``cv2.magnitude`` of OpenCV 5.0 is not), and a registration that hinges on it, a
Plażing board shifted a tenth of the photo, gives one answer however often it is repeated."""

import importlib
import os

import cv2
import numpy as np
import pytest

from vision.image.gradients import magnitude, sobel_magnitude

SETUP = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "samples-new-setups", "plazing", "setup0")


def test_the_same_bits_wherever_the_arrays_lie():
    rng = np.random.default_rng(3)
    gx, gy = (rng.normal(0, 300, (271, 483)).astype(np.float32) for _ in range(2))
    first = magnitude(gx, gy)
    exact = np.sqrt(gx.astype(np.float64) ** 2 + gy.astype(np.float64) ** 2)
    assert first.dtype == np.float32 and np.abs(first - exact).max() <= 1e-6 * exact.max()
    for offset in range(1, 8):  # the same values at every alignment of a larger buffer
        bx = np.empty(gx.size + offset, np.float32)[offset:].reshape(gx.shape)
        by = np.empty(gy.size + offset, np.float32)[offset:].reshape(gy.shape)
        bx[...], by[...] = gx, gy
        assert np.array_equal(magnitude(bx, by), first)


def test_sobel_magnitude_of_a_ramp():
    ramp = np.tile(np.arange(64, dtype=np.float32) * 2.0, (32, 1))
    inner = sobel_magnitude(ramp)[1:-1, 1:-1]
    assert np.allclose(inner, 8 * 2.0)  # the 3×3 Sobel weights sum to 8 along the ramp


@pytest.mark.skipif(not os.path.isdir(SETUP), reason="shared Plażing new set-ups not present")
def test_a_shifted_board_registers_the_same_every_time(tmp_path):
    from beachscore.errors import UnreadableBoardError
    from beachscore.pipeline import calibrate
    from vision.plazing.model import ReaderModel

    register = importlib.import_module("vision.plazing.register").register
    cal = calibrate(os.path.join(SETUP, "calibration.json"), str(tmp_path / "cal"))
    image = cv2.imread(os.path.join(SETUP, "scene_00.jpg"), cv2.IMREAD_REDUCED_COLOR_2)
    h, w = image.shape[:2]
    image = cv2.warpAffine(image, np.float32([[1, 0, 0.1 * w], [0, 1, 0]]), (w, h), borderMode=cv2.BORDER_REPLICATE)
    answers = set()
    for _ in range(6):
        ReaderModel.of(cal).last_refined.clear()  # each time aligned from scratch
        try:
            answers.add(register(image, cal).H_px_from_mm.tobytes())
        except UnreadableBoardError as err:
            answers.add(err.code)
    assert len(answers) == 1
