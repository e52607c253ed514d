"""Registration: corners, ArUco markers, ECC refinement of a bumped board."""

import cv2
import numpy as np
import pytest

from beachscore.errors import UnreadableBoardError
from vision.board.ecc import align_to_reference, reference_image
from vision.board.geometry import board_corners_mm, homography_from_corners, project, rectify
from vision.board.markers import detect_markers

BOARD_MM = (300.0, 200.0)
CORNERS_PX = [[200.0, 120.0], [1000.0, 100.0], [1040.0, 640.0], [180.0, 660.0]]


def _board_picture(ppm=4):
    """A top view of a synthetic board: frame, checker interior, a few blobs (BGR uint8)."""
    w, h = int(BOARD_MM[0] * ppm), int(BOARD_MM[1] * ppm)
    img = np.full((h, w, 3), (120, 180, 210), np.uint8)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (40, 60, 160), 6 * ppm)
    for i in range(0, w, 20 * ppm):
        cv2.line(img, (i, 0), (i, h), (100, 150, 190), 2)
    return img


def _photo(H_px_from_mm, ppm=4, size=(1280, 760)):
    top = _board_picture(ppm)
    scale = np.diag([1 / ppm, 1 / ppm, 1])
    photo = np.full((size[1], size[0], 3), (60, 80, 110), np.uint8)
    return cv2.warpPerspective(top, H_px_from_mm @ scale, size, dst=photo, borderMode=cv2.BORDER_TRANSPARENT)


def _moved(H, dx_mm, dy_mm, rot_deg):
    c, s = np.cos(np.radians(rot_deg)), np.sin(np.radians(rot_deg))
    cx, cy = BOARD_MM[0] / 2, BOARD_MM[1] / 2
    R = np.array([[c, -s, cx - c * cx + s * cy + dx_mm], [s, c, cy - s * cx - c * cy + dy_mm], [0, 0, 1]])
    return H @ R


def test_corners_map_to_board_corners():
    H = homography_from_corners(CORNERS_PX, BOARD_MM)
    assert np.allclose(project(H, board_corners_mm(BOARD_MM)), CORNERS_PX, atol=1e-3)


def test_rectify_size_and_content():
    H = homography_from_corners(CORNERS_PX, BOARD_MM)
    top = rectify(_photo(H), H, BOARD_MM, px_per_mm=2)
    assert top.shape == (400, 600, 3)
    # the frame colour is on the rim, the sand colour in the middle
    assert abs(int(top[200, 300, 2]) - 210) < 25
    assert int(top[3, 300, 2]) < 190


@pytest.mark.parametrize("dx,dy,rot", [(4.0, -3.0, 1.5), (-6.0, 2.0, -1.0), (0.0, 5.0, 0.0), (12.0, 8.0, 1.0), (-15.0, 0.0, -0.5)])
def test_ecc_recovers_a_bumped_board(dx, dy, rot):
    H0 = homography_from_corners(CORNERS_PX, BOARD_MM)
    ref = reference_image(cv2.cvtColor(_photo(H0), cv2.COLOR_BGR2GRAY))
    H1 = _moved(H0, dx, dy, rot)
    reg = align_to_reference(cv2.cvtColor(_photo(H1), cv2.COLOR_BGR2GRAY), ref, H0, BOARD_MM)
    err = np.abs(project(reg.H_px_from_mm, board_corners_mm(BOARD_MM)) - project(H1, board_corners_mm(BOARD_MM)))
    assert err.max() < 2.0
    assert reg.shift_mm == pytest.approx(np.hypot(dx, dy), abs=1.0)
    assert reg.rotation_deg == pytest.approx(rot, abs=0.3)


def test_ecc_refuses_a_photo_without_the_board():
    H0 = homography_from_corners(CORNERS_PX, BOARD_MM)
    ref = reference_image(cv2.cvtColor(_photo(H0), cv2.COLOR_BGR2GRAY))
    noise = np.random.default_rng(0).integers(0, 255, (760, 1280), dtype=np.uint8)
    with pytest.raises(UnreadableBoardError):
        align_to_reference(noise, ref, H0, BOARD_MM)


def test_ecc_refuses_another_camera_mode():
    H0 = homography_from_corners(CORNERS_PX, BOARD_MM)
    ref = reference_image(cv2.cvtColor(_photo(H0), cv2.COLOR_BGR2GRAY))
    with pytest.raises(UnreadableBoardError, match="same camera mode"):
        align_to_reference(np.zeros((480, 640), np.uint8), ref, H0, BOARD_MM)


def test_aruco_markers_give_the_homography():
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    ppm = 4
    top = _board_picture(ppm)
    markers = []
    for i, (x, y) in enumerate([(20, 20), (250, 20), (250, 150), (20, 150)]):
        side = 30
        tag = cv2.aruco.generateImageMarker(dictionary, i, side * ppm)
        pad = cv2.copyMakeBorder(tag, ppm * 3, ppm * 3, ppm * 3, ppm * 3, cv2.BORDER_CONSTANT, value=255)
        y0, x0 = (y - 3) * ppm, (x - 3) * ppm
        top[y0:y0 + pad.shape[0], x0:x0 + pad.shape[1]] = pad[..., None]
        markers.append({"dictionary": "DICT_4X4_50", "id": i,
                        "corners_mm": [[x, y], [x + side, y], [x + side, y + side], [x, y + side]]})
    H = _moved(homography_from_corners(CORNERS_PX, BOARD_MM), 10, 5, 3)
    photo = cv2.warpPerspective(top, H @ np.diag([1 / ppm, 1 / ppm, 1]), (1280, 760))
    found = detect_markers(photo, markers)
    assert found is not None
    err = project(found, board_corners_mm(BOARD_MM)) - project(H, board_corners_mm(BOARD_MM))
    assert np.abs(err).max() < 2.0
    assert detect_markers(np.zeros_like(photo), markers) is None
    assert detect_markers(photo, markers[:1]) is None  # one small marker cannot place a whole board


@pytest.mark.parametrize("tilt", [0.03, -0.03, 0.02])
def test_ecc_recovers_a_tilted_camera(tilt):
    # the camera tilted a little since calibration (a perspective change, not an affine one): the
    # affine fit left the far corners several px off, the castle slots there mm off their pieces
    H0 = homography_from_corners(CORNERS_PX, BOARD_MM)
    ref = reference_image(cv2.cvtColor(_photo(H0), cv2.COLOR_BGR2GRAY))
    w, h = 1280, 760
    k = tilt * w
    T = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]),
                                    np.float32([[k, 0], [w - k, 0], [w, h], [0, h]])).astype(np.float64)
    H1 = T @ H0
    reg = align_to_reference(cv2.cvtColor(_photo(H1), cv2.COLOR_BGR2GRAY), ref, H0, BOARD_MM)
    err = np.abs(project(reg.H_px_from_mm, board_corners_mm(BOARD_MM)) - project(H1, board_corners_mm(BOARD_MM)))
    assert err.max() < 2.0
