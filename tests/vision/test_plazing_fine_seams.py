"""The seam dip measured with the full-size photo's detail (``rectify.FineView``,
``prepare.fine_board``): a hairline cut the half-size decode averages away."""

from types import SimpleNamespace

import cv2
import numpy as np

from beachscore.pipeline import _full_size
from vision.plazing.cells import Grid
from vision.plazing.config import RECTIFY
from vision.plazing.seam_config import SEAM
from vision.plazing.rectify import FineView, Rectified
from vision.plazing.seams import finest_dips, has_seams, seam_contrasts

GRID = Grid((10.0, 10.0), 20.0, 2, 4)
BOARD = {"board_mm": [100, 60]}
FULL_PPM = 4.0  # a 1080p photo's scale: about 3.5 px per board mm
BLUE, CUT = (200, 90, 40), (150, 60, 25)


def _photos(cut_mm: float = 0.5):
    """Full-size and half-size (area-averaged, as a reduced JPEG decode) photos of two blue
    one-cell pieces pressed together at x = 50 mm (the line between cells (0, 1) and (0, 2)) with a
    faint ``cut_mm`` line between them, the rest one blue piece; and the half-size homography."""
    h, w = int(60 * FULL_PPM), int(100 * FULL_PPM)
    full = np.empty((h, w, 3), np.uint8)
    full[:] = BLUE
    x0, x1 = int(round((50 - cut_mm / 2) * FULL_PPM)), int(round((50 + cut_mm / 2) * FULL_PPM))
    full[int(10 * FULL_PPM):int(30 * FULL_PPM), x0:x1] = CUT
    half = cv2.resize(full, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    k = FULL_PPM / 2
    H = np.array([[k, 0, -0.5], [0, k, -0.5], [0, 0, 1.0]])  # board mm -> half-size px (centres)
    return full, half, H


def test_the_fine_view_has_the_reduced_crops_frame():
    full, half, H = _photos()
    half = cv2.GaussianBlur(cv2.resize(half, None, fx=1, fy=1), (0, 0), 3)  # smooth: no sub-pixel edge
    half[:, :, 0] = np.arange(half.shape[1])[None] % 256  # a ramp: any shift shows
    rect = Rectified(half, H, BOARD, GRID)
    fine = FineView(half, half.shape, H, GRID, RECTIFY.px_per_mm)
    assert fine.shape == rect.crop.shape
    v, u = np.mgrid[0:rect.crop.shape[0], 0:rect.crop.shape[1]]
    assert np.abs(fine[v, u] - rect.crop).max() <= 1.0


def test_a_hairline_cut_dips_on_the_full_size_photo():
    full, half, H = _photos()
    rect = Rectified(half, H, BOARD, GRID)
    owner = np.zeros((2, 4), int)
    coarse = seam_contrasts(rect.crop, owner, rect.local, RECTIFY.px_per_mm)
    ppm = SEAM.fine_px_per_mm
    fine = seam_contrasts(FineView(full, half.shape, H, GRID, ppm), owner, rect.local, ppm)
    cut = ((0, 1), (0, 2))
    inside = [fine[e] for e in fine if e != cut]
    assert fine[cut] > 1.5 * coarse[cut]
    assert fine[cut] > 10 * max(max(inside), 0.5)


def test_has_seams():
    assert not has_seams(np.array([[0, 1], [-1, -1]]))
    assert has_seams(np.array([[0, 1], [-1, 1]]))


def test_the_full_size_photo_is_decoded_once_and_lens_corrected():
    calls = []

    def decode():
        calls.append(1)
        return np.zeros((4, 6, 3), np.uint8)

    lens = SimpleNamespace(undistort_image=lambda im: im + 7)
    get = _full_size(decode, SimpleNamespace(lens=lens))
    assert get()[0, 0, 0] == 7 and get()[0, 0, 0] == 7 and len(calls) == 1
    assert _full_size(None, SimpleNamespace(lens=None)) is None


def test_the_dip_is_the_larger_of_the_reduced_and_the_full_size_photos():
    full, half, H = _photos(cut_mm=0.5)
    rect = Rectified(half, H, BOARD, GRID)
    owner = np.zeros((2, 4), int)
    ppm = SEAM.fine_px_per_mm
    fine = (FineView(full, half.shape, H, GRID, ppm), ppm)
    coarse = seam_contrasts(rect.crop, owner, rect.local, RECTIFY.px_per_mm)
    finer = seam_contrasts(fine[0], owner, rect.local, ppm)
    both = finest_dips(rect.crop, owner, rect.local, RECTIFY.px_per_mm, fine)
    assert both == {e: max(coarse[e], finer[e]) for e in coarse}
    assert finest_dips(rect.crop, owner, rect.local, RECTIFY.px_per_mm) == coarse
