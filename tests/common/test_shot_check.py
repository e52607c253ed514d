"""calibration.shot_check: a calibration shot with nothing to learn is refused before learning."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.shot_check import check_shot
from vision.errors import UnreadableBoardError

H = np.diag([4.0, 4.0, 1.0])  # board mm → px: 4 px per mm, the board at the photo's corner
BOARD_MM = (100, 80)
SAMPLES = [("piece/red", (25.0, 20.0)), ("sand", (75.0, 20.0)), ("piece/blue", (25.0, 60.0))]


def _board() -> np.ndarray:
    """A 400×320 px photo of a sand board with a red and a blue piece, lightly textured."""
    rng = np.random.default_rng(3)
    img = np.full((320, 400, 3), (150, 190, 215), np.uint8)
    img[60:100, 80:120] = (40, 40, 200)
    img[220:260, 80:120] = (190, 80, 30)
    return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)


def test_a_board_with_pieces_passes():
    check_shot(_board(), H, BOARD_MM, SAMPLES)


@pytest.mark.parametrize("level, code", [(255, "glare"), (0, "too-dark"), (128, "no-contrast")])
def test_a_blank_shot_is_refused_saying_what_is_wrong(level, code):
    with pytest.raises(UnreadableBoardError) as err:
        check_shot(np.full((320, 400, 3), level, np.uint8), H, BOARD_MM, SAMPLES)
    assert err.value.code == code and err.value.exit_code == 3 and "calibration shot" in err.value.message


def test_samples_that_all_look_alike_are_refused():
    """Every sample on bare sand of a textured board: nothing tells the classes apart."""
    img = _board()
    on_sand = [("piece/red", (75.0, 20.0)), ("sand", (80.0, 25.0)), ("piece/blue", (70.0, 60.0))]
    with pytest.raises(UnreadableBoardError) as err:
        check_shot(img, H, BOARD_MM, on_sand)
    assert err.value.code == "no-contrast" and "shows nothing to learn" in err.value.message


def test_a_blown_out_shot_says_what_helps():
    # a board blown out all over is overexposure as much as a lamp's reflection
    with pytest.raises(UnreadableBoardError) as err:
        check_shot(np.full((320, 400, 3), 255, np.uint8), H, BOARD_MM, SAMPLES)
    assert "move the lamp" in err.value.message and "lower the camera's exposure" in err.value.message
