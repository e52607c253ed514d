"""Registration by the board's outline: a fixed camera and a board full of new pieces is never
"moved"; a bumped board (pushed, turned, pushed far) is found again; a tilted camera too; a photo
without the board is refused. Synthetic grid boards (tests.synthetic.grid) photographed through
known homographies."""

import json

import cv2
import numpy as np
import pytest

from beachscore import pipeline
from beachscore.errors import UnreadableBoardError
from vision.board.geometry import board_corners_mm, homography_from_corners, project
from tests.synthetic.grid import draw_board, grid_profile, photograph

PPM = 4.0
CORNERS = [[150, 100], [800, 120], [790, 620], [140, 600]]


RIM_MM = 12.0


def _edge_profile(rows=7, cols=8, pitch=20.0):
    """A Go-like board described by its outer lines: the outer places sit on the board's edge
    (origin −pitch/2); the wood goes on :data:`RIM_MM` beyond them."""
    return {"game": "grid", "board_mm": [(cols - 1) * pitch, (rows - 1) * pitch],
            "grid": {"origin_mm": [-pitch / 2, -pitch / 2], "pitch_mm": [pitch, pitch], "rows": rows, "cols": cols}}


def _physical(profile):
    """The board as drawn: the profile's board plus its rim (if its places reach the edge)."""
    g = profile["grid"]
    rim = RIM_MM if g["origin_mm"][0] < 0 else 0.0
    w, h = profile["board_mm"]
    return {**profile, "board_mm": [w + 2 * rim, h + 2 * rim],
            "grid": {**g, "origin_mm": [g["origin_mm"][0] + rim, g["origin_mm"][1] + rim]}}, rim


def _shoot(profile, cells, corners, **kw):
    """Photograph the physical board whose profile-board corners land at ``corners``."""
    phys, rim = _physical(profile)
    w, h = profile["board_mm"]
    H = cv2.getPerspectiveTransform(np.float32([[rim, rim], [w + rim, rim], [w + rim, h + rim], [rim, h + rim]]),
                                    np.float32(corners))
    outer = project(H, board_corners_mm(phys["board_mm"]))
    jitter = {k: kw.pop(k) for k in ("jitter_mm", "seed") if k in kw}
    return photograph(draw_board(phys, cells, PPM, **jitter), PPM, outer, **kw)


def _centres(profile):
    g = profile["grid"]
    return [[(g["origin_mm"][0] + (c + .5) * g["pitch_mm"][0], g["origin_mm"][1] + (r + .5) * g["pitch_mm"][1])
             for c in range(g["cols"])] for r in range(g["rows"])]


def _sparse(profile, seed=0):
    g = profile["grid"]
    cells = [["empty"] * g["cols"] for _ in range(g["rows"])]
    rng = np.random.default_rng(seed)
    for name in ("black", "white", "black", "white"):
        r, c = rng.integers(1, g["rows"] - 1), rng.integers(1, g["cols"] - 1)
        cells[r][c] = name
    return cells


def _full(profile, seed=1):
    """Every place taken, the edge rows and columns too."""
    g = profile["grid"]
    rng = np.random.default_rng(seed)
    return [[str(rng.choice(["black", "white"])) for _ in range(g["cols"])] for _ in range(g["rows"])]


def _calibrate(tmp_path, profile, cells):
    cv2.imwrite(str(tmp_path / "calib.png"), _shoot(profile, cells, CORNERS))
    (tmp_path / "profile.json").write_text(json.dumps(profile))
    centres = _centres(profile)
    samples = [{"label": f"cell/{cells[r][c]}", "board_mm": list(centres[r][c])}
               for r in range(len(cells)) for c in range(len(cells[0]))]
    (tmp_path / "calibration.json").write_text(json.dumps({"game": "grid", "profile": "profile.json", "image": "calib.png",
                                                           "corners_px": CORNERS, "samples": samples}))
    return pipeline.calibrate(str(tmp_path / "calibration.json"), str(tmp_path / "cal"))


def _moved_corners(profile, dx, dy, deg):
    w, h = profile["board_mm"]
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    T = np.array([[c, -s, w / 2 - c * w / 2 + s * h / 2 + dx], [s, c, h / 2 - s * w / 2 - c * h / 2 + dy], [0, 0, 1]])
    H0 = homography_from_corners(CORNERS, profile["board_mm"])
    return project(H0 @ T, board_corners_mm(profile["board_mm"])), H0 @ T


@pytest.mark.parametrize("profile", [grid_profile(6, 7), _edge_profile()], ids=["margin", "places-on-the-edge"])
def test_fixed_camera_and_a_full_board_is_not_moved(tmp_path, profile):
    cal = _calibrate(tmp_path, profile, _sparse(profile))
    game = _full(profile)
    photo = _shoot(profile, game, CORNERS, jitter_mm=1.0, seed=4, gain=(0.9, 0.95, 1.1))
    res = pipeline.scan_image(photo, cal)
    assert res.registration.source == "corners"
    assert not any("moved" in w for w in res.warnings)
    assert res.state["cells"] == game


@pytest.mark.parametrize("dx,dy,deg", [(4.0, -3.0, 1.5), (-6.0, 2.0, -1.0), (0.0, 5.0, 0.0), (18.0, 9.0, 0.5),
                                       (-25.0, 12.0, -1.0)])
def test_a_bumped_board_is_found_again(tmp_path, dx, dy, deg):
    profile = grid_profile(6, 7)
    cal = _calibrate(tmp_path, profile, _sparse(profile))
    game = _full(profile)
    corners, H1 = _moved_corners(profile, dx, dy, deg)
    res = pipeline.scan_image(photograph(draw_board(profile, game, PPM), PPM, corners), cal)
    assert res.registration.source == "refined"
    assert any("moved" in w for w in res.warnings)
    err = project(res.registration.H_px_from_mm, board_corners_mm(profile["board_mm"])) - corners
    assert np.abs(err).max() < 2.0
    assert res.registration.shift_mm == pytest.approx(np.hypot(dx, dy), abs=max(0.7, 0.04 * np.hypot(dx, dy)))
    assert res.state["cells"] == game


def test_a_tilted_camera_is_followed(tmp_path):
    profile = grid_profile(6, 7)
    cal = _calibrate(tmp_path, profile, _sparse(profile))
    w, h = 960, 720
    k = 0.02 * w
    T = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]),
                                    np.float32([[k, 0], [w - k, 0], [w, h], [0, h]])).astype(np.float64)
    corners = project(T, np.array(CORNERS, float))
    game = _full(profile)
    res = pipeline.scan_image(photograph(draw_board(profile, game, PPM), PPM, corners), cal)
    err = project(res.registration.H_px_from_mm, board_corners_mm(profile["board_mm"])) - corners
    assert np.abs(err).max() < 2.0
    assert res.state["cells"] == game


def test_a_photo_without_the_board_is_refused(tmp_path):
    profile = grid_profile(6, 7)
    cal = _calibrate(tmp_path, profile, _sparse(profile))
    noise = np.random.default_rng(0).integers(0, 255, (720, 960, 3), dtype=np.uint8)
    with pytest.raises(UnreadableBoardError) as e:
        pipeline.scan_image(noise, cal)
    assert e.value.code in ("registration-lost", "board-not-found", "too-blurred", "too-noisy")


def test_a_piece_lying_across_one_edge_moves_nothing(tmp_path):
    profile = grid_profile(6, 7)
    cal = _calibrate(tmp_path, profile, _sparse(profile))
    game = _full(profile)
    top = draw_board(profile, game, PPM)
    # a box lid pushed half over the top edge: the strips there no longer match at all
    photo = photograph(top, PPM, CORNERS)
    H0 = homography_from_corners(CORNERS, profile["board_mm"])
    lid = project(H0, np.array([[20, -25], [90, -25], [90, 6], [20, 6]], float)).astype(np.int32)
    cv2.fillPoly(photo, [lid], (200, 60, 60))
    res = pipeline.scan_image(photo, cal)
    assert res.registration.source == "corners"
