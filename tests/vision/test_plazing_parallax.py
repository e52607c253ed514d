"""The parallax measurement (:mod:`vision.plazing.parallax`) and the footprint
(:mod:`vision.plazing.footprint`) on synthetic windows."""

import cv2
import numpy as np

from vision.plazing.footprint import coloured_area
from vision.plazing.parallax import radial_offsets

SAND = (170, 215, 240)   # BGR, pale sand
TOKEN = (20, 150, 235)   # BGR, orange


def _window(dx_px: float, dy_px: float, radius_px: int, side: int = 48, shadow: bool = False) -> np.ndarray:
    w = np.zeros((side, side, 3), np.uint8)
    w[:] = SAND
    c = (side - 1) / 2.0
    if shadow:   # darker sand, same chromaticity, to the left: weighs nothing
        w[:, :14] = (np.array(SAND) * 0.6).astype(np.uint8)
    cv2.circle(w, (int(round(c + dx_px)), int(round(c + dy_px))), radius_px, TOKEN, -1)
    return w


def test_a_blob_displaced_along_the_ray_gives_its_offset_in_mm():
    w = np.stack([_window(3, 0, 5), _window(0, 3, 5), _window(0, 0, 5)])
    rays = np.array([[100.0, 0.0], [100.0, 0.0], [0.0, 50.0]])
    f = radial_offsets(w, rays, 1.5, 10.0, 10.0)
    assert abs(f[0, 0] - 2.0) < 0.4 and abs(f[0, 1]) < 0.4          # along the ray, 3 px = 2 mm
    assert abs(f[1, 0]) < 0.4 and abs(f[1, 1] - 2.0) < 0.4          # across it
    assert abs(f[0, 2] - 0.02) < 0.004                               # per mm from the nadir
    assert abs(f[2, 0]) < 0.4 and f[2, 3] > 0


def test_a_displacement_towards_the_nadir_is_negative_and_a_shadow_weighs_nothing():
    w = np.stack([_window(-3, 0, 5, shadow=True)])
    f = radial_offsets(w, np.array([[80.0, 0.0]]), 1.5, 10.0, 10.0)
    assert f[0, 0] < -1.5


def test_bare_sand_has_no_blob_and_no_offset():
    w = np.full((1, 48, 48, 3), SAND, np.uint8)
    f = radial_offsets(w, np.array([[0.0, 0.0]]), 1.5, 10.0, 10.0)
    assert np.all(f == 0)


def test_coloured_area_grows_with_the_token_and_ignores_shadow():
    w = np.stack([_window(0, 0, 4), _window(0, 0, 9), _window(0, 0, 4, shadow=True)])
    a = coloured_area(w, 1.5, 14.0, 15.0)
    assert abs(a[1] - np.pi * 9 ** 2 / 1.5 ** 2) < 0.2 * a[1]
    assert a[1] > 4 * a[0]
    assert abs(a[2] - a[0]) < 1.0


def _post(p_meeple: float, p_amber: float) -> np.ndarray:
    return np.array([[0.0, p_meeple, p_amber, 0.0, 0.0]])


NAMES = ["empty", "meeple/yellow", "resource/amber", "resource/shell", "unknown"]


def _cfg(**kw):
    from vision.plazing.config import FootprintConfig
    base = dict(weigh=True, classes={"meeple/yellow": (5.6, 0.4), "resource/amber": (4.2, 0.5), "meeple/": (5.6, 0.4),
                         "resource/": (3.5, 1.4)}, floor=0.0, cap=3.0, radius_mm=14.0, core_mm=4.0,
                chroma_floor=15.0)
    base.update(kw)
    return FootprintConfig(**base)


def _board(radius_px: int, neighbour: bool = False):
    """A one-cell board of 30 px cells (20 mm at 1.5 px/mm) with a margin, the token in cell (0, 0)."""
    board = np.zeros((90, 90, 3), np.uint8)
    board[:] = SAND
    cv2.circle(board, (45, 45), radius_px, TOKEN, -1)
    if neighbour:   # a neighbour's piece reaching into the disc, not touching the token
        board[:, 68:] = (60, 60, 220)
    boxes = np.array([[[30, 30, 60, 60]]])
    return board, boxes


def test_cell_windows_centres_the_cell():
    from vision.plazing.footprint import cell_windows
    board, boxes = _board(4)
    w = cell_windows(board, boxes, [(0, 0)], 1.6)
    assert w.shape == (1, 48, 48, 3)
    assert tuple(w[0, 23, 23]) == TOKEN and tuple(w[0, 0, 0]) == SAND


def test_a_small_lump_read_as_a_meeple_turns_to_the_resource_keeping_the_pair_mass():
    from vision.plazing.footprint import weigh_footprint
    board, boxes = _board(6)                      # ≈ 50 mm²: an amber's lump
    post = _post(0.8, 0.2)
    out = weigh_footprint(post, NAMES, [(0, 0)], board, boxes, 1.5, cfg=_cfg())
    assert len(out) == 1 and post[0, 2] > post[0, 1]
    assert abs(post[0, 1] + post[0, 2] - 1.0) < 1e-9
    assert abs(post[0, 1] - 0.8 / (0.8 + 0.2 * np.exp(3.0))) < 1e-9   # the ratio capped at e^-3


def test_a_wide_blob_stays_a_meeple_and_a_neighbour_does_not_widen_a_lump():
    from vision.plazing.footprint import weigh_footprint
    board, boxes = _board(14)                     # ≈ 270 mm²: a meeple's cover
    post = _post(0.6, 0.4)
    weigh_footprint(post, NAMES, [(0, 0)], board, boxes, 1.5, cfg=_cfg())
    assert post[0, 1] > 0.9
    board, boxes = _board(6, neighbour=True)
    post = _post(0.6, 0.4)
    weigh_footprint(post, NAMES, [(0, 0)], board, boxes, 1.5, cfg=_cfg())
    assert post[0, 2] > post[0, 1]


def test_nothing_fitted_or_bare_sand_read_is_not_weighed():
    from vision.plazing.footprint import weigh_footprint
    board, boxes = _board(6)
    post = _post(0.8, 0.2)
    assert weigh_footprint(post, NAMES, [(0, 0)], board, boxes, 1.5, cfg=_cfg(cap=0.0)) == []
    post = np.array([[0.9, 0.05, 0.05, 0.0, 0.0]])
    assert weigh_footprint(post, NAMES, [(0, 0)], board, boxes, 1.5, cfg=_cfg()) == []
    assert post[0, 1] == 0.05


def test_the_packaged_reader_weighs_by_the_footprint():
    from vision.plazing.config import FOOTPRINT
    from vision.plazing.footprint import weigh_footprint
    board, boxes = _board(6)
    post = _post(0.8, 0.2)
    assert FOOTPRINT.weigh and len(weigh_footprint(post, NAMES, [(0, 0)], board, boxes, 1.5, cfg=FOOTPRINT)) == 1
    assert post[0, 2] > post[0, 1]
