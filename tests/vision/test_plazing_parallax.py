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
