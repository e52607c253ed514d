"""The table strip below a Strand unter board gives the lighting gains only when it shows a colour:
a black table, or a strip beyond the photo's edge (the black border of a wide lens's corrected
photo), leaves the light to the sand. Only the strip's part inside the photo counts when there is
enough of it (a board low in the frame: the rectified image repeats the photo's edge rows beyond it)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.synthetic import strand_top as synthetic
from tests.vision.test_strand_end_to_end import PPM, PROFILE, SCENE, SIZE, _calibrate, _scan
from vision.strand_unter.config import REGISTRATION
from vision.strand_unter.surround import _table_strip, strip_colour, strip_gains, strip_inside, surround_pixels

BOARD = PROFILE["board_mm"]


def _extended(strip_bgr) -> np.ndarray:
    w, h = BOARD
    m, ppm = REGISTRATION.margin_mm, REGISTRATION.ppm
    ext = np.full((int((h + 2 * m) * ppm), int((w + 2 * m) * ppm), 3), 128, np.uint8)
    (y0, y1), (x0, x1) = _table_strip(BOARD)
    ext[y0:y1, x0:x1] = strip_bgr
    return ext


def test_a_lit_strip_gives_its_gains():
    g = strip_gains(_extended((50, 100, 200)), BOARD, [100.0, 100.0, 100.0])
    assert g == pytest.approx([2.0, 1.0, 0.5])


@pytest.mark.parametrize("now,ref", [((2, 1, 1), (100.0, 120.0, 150.0)),     # black now
                                     ((80, 125, 180), (2.0, 1.0, 1.0)),       # black at calibration
                                     ((3, 2, 2), (2.0, 1.0, 1.0))])           # black both times
def test_a_black_strip_gives_no_gains(now, ref):
    assert strip_gains(_extended(now), BOARD, list(ref)).tolist() == [1.0, 1.0, 1.0]


def _black_below_board(image: np.ndarray, seed: int = 0) -> np.ndarray:
    """The photo with everything from 8 mm below the board's bottom edge black, with the sensor's
    dark noise of a few grey levels (a wide lens's corrected photo's border)."""
    sc = synthetic.scene(PROFILE, seed=1, size_px=SIZE, ppm=PPM)
    out = image.copy()
    y = int(sc.corners_px[:, 1].max() + 8 * PPM)
    out[y:] = np.random.default_rng(seed).integers(0, 4, out[y:].shape, dtype=np.uint8)
    return out


@pytest.fixture(scope="module")
def black_border_dir(tmp_path_factory):
    return _calibrate(tmp_path_factory.mktemp("synth_black_border"), edit=_black_below_board)


@pytest.mark.parametrize("light", [(1, 1, 1), (1.1, 1.0, 0.85), (0.85, 0.9, 1.1)])
@pytest.mark.parametrize("sea_front", [8, 3])
def test_board_beside_a_black_border_is_read_under_a_changed_light(black_border_dir, capsys, light, sea_front):
    sc = synthetic.scene(PROFILE, seed=5, size_px=SIZE, ppm=PPM, light_bgr=light, noise_sigma=2,
                         **{**SCENE, "sea_front": sea_front})
    rc, doc = _scan(black_border_dir, _black_below_board(sc.image, seed=7), capsys)
    assert rc == 0, doc
    assert doc["state"] == sc.state


def _low_board_h(photo_h: int):
    """A photo (2 px per mm, board 10 px from the top-left) ``photo_h`` px high, and the share of the
    table strip's rows (15–51 mm below the board) that lies inside it, clear of the edge band."""
    H = np.array([[2.0, 0, 10.0], [0, 2.0, 10.0], [0, 0, 1.0]])
    (y0, y1), _ = _table_strip(BOARD)
    rows_mm = np.arange(y0, y1, 2) + 0.5 - REGISTRATION.margin_mm
    share = float(np.mean(2 * rows_mm + 10 <= photo_h - 1 - REGISTRATION.strip_edge_inset * photo_h))
    return H, (1000, photo_h), share


@pytest.mark.parametrize("photo_h", [790, 830, 860, 960])
def test_the_strip_inside_the_photo_is_its_rows_above_the_edge_band(photo_h):
    H, size, share = _low_board_h(photo_h)
    inside = strip_inside(H, size, BOARD)
    assert inside.shape == surround_pixels(_extended((1, 2, 3)), BOARD).shape[:1]
    assert float(np.mean(inside)) == pytest.approx(share)


def test_only_the_strip_inside_the_photo_gives_gains():
    H, size, share = _low_board_h(840)                    # 0.44 of the strip inside: the rest decides a median
    assert REGISTRATION.min_strip_inside <= share < 0.5
    ext = _extended((50, 100, 200))
    inside = strip_inside(H, size, BOARD)
    (y0, y1), (x0, x1) = _table_strip(BOARD)
    beyond = ~inside.reshape(len(range(y0, y1, 2)), -1)
    sub = ext[y0:y1:2, x0:x1:2]
    sub[beyond] = (22, 22, 22)                           # the edge's dark rows repeated beyond it
    ext[y0:y1:2, x0:x1:2] = sub
    assert strip_gains(ext, BOARD, [100.0, 100.0, 100.0], inside=inside) == pytest.approx([2.0, 1.0, 0.5])
    assert strip_colour(ext, BOARD, inside) == pytest.approx([50.0, 100.0, 200.0])


@pytest.mark.parametrize("photo_h", [800, 812])         # none, 0.06 of the strip inside
@pytest.mark.parametrize("edge,gains", [((3, 2, 2), [1.0, 1.0, 1.0]),          # a lens's black border
                                        ((50, 100, 200), [2.0, 1.0, 0.5])])    # the table at the edge
def test_a_strip_mostly_beyond_the_photo_is_taken_whole(photo_h, edge, gains):
    """Too little inside: the whole strip as rectified, the photo's edge rows repeated beyond it; the
    black border gives no gains, the table at the photo's edge gives its own."""
    H, size, share = _low_board_h(photo_h)
    assert share < REGISTRATION.min_strip_inside
    inside = strip_inside(H, size, BOARD)
    ext = _extended(edge)
    assert strip_gains(ext, BOARD, [100.0, 100.0, 100.0], inside=inside) == pytest.approx(gains)
    assert strip_colour(ext, BOARD, inside) == pytest.approx(list(edge))
