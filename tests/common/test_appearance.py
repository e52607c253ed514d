"""The colour-layout check: tinted light passes, swapped red/blue channels are refused."""

import os

import cv2
import numpy as np
import pytest

from beachscore.cli import main
from vision.appearance import SWAPPED_CORRELATION, blue_red_correlation, board_layout
from vision.board.geometry import homography_from_corners

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "strand-unter")


def _board():
    img = np.full((400, 600, 3), (110, 170, 210), np.uint8)  # sand
    img[:120] = (160, 90, 40)                                 # sea cloth
    cv2.circle(img, (300, 260), 40, (40, 40, 200), -1)       # a red castle
    return img


H = homography_from_corners([[0, 0], [600, 0], [600, 400], [0, 400]], (300, 200))


@pytest.mark.parametrize("gain", [(1, 1, 1), (0.6, 0.6, 0.6), (0.7, 1.0, 1.3), (1.3, 1.0, 0.8)])
def test_lighting_keeps_the_layout(gain):
    ref = board_layout(_board(), H, (300, 200))
    lit = np.clip(_board() * np.array(gain), 0, 255).astype(np.uint8)
    assert blue_red_correlation(ref, board_layout(lit, H, (300, 200))) > 0.9


def test_swapped_channels_invert_the_layout():
    ref = board_layout(_board(), H, (300, 200))
    swapped = np.ascontiguousarray(_board()[..., ::-1])
    assert blue_red_correlation(ref, board_layout(swapped, H, (300, 200))) < SWAPPED_CORRELATION


def test_scan_refuses_a_photo_with_red_and_blue_swapped(strand_cal, tmp_path, capsys):
    photo = cv2.imread(os.path.join(EXAMPLE, "scene_05.jpg"))
    cv2.imwrite(str(tmp_path / "rgb.jpg"), np.ascontiguousarray(photo[..., ::-1]))
    assert main(["scan", str(tmp_path / "rgb.jpg"), "--calibration", strand_cal, "--json"]) == 3
    assert '"colours-swapped"' in capsys.readouterr().out


def test_scan_refuses_a_board_partly_out_of_the_photo(strand_cal, monkeypatch, capsys):
    from vision.board import stage as board_stage
    from vision.types import Registration

    real = board_stage.register

    def pushed_down(image, cal, module=None):
        reg = real(image, cal, module)
        H = reg.H_px_from_mm.copy()
        H[1, 2] += 0.3 * image.shape[0]
        return Registration(H, "refined")

    monkeypatch.setattr(board_stage, "register", pushed_down)
    assert main(["scan", os.path.join(EXAMPLE, "scene_05.jpg"), "--calibration", strand_cal, "--json"]) == 3
    assert '"board-out-of-view"' in capsys.readouterr().out
