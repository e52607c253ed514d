"""Lens distortion: the model's round trip, the coefficients recovered from a calibration shot's
straight lines and from a ChArUco sheet, readings through a distorting lens equal to readings
without, the annotated photo in the photo's own pixels, and older calibrations."""

import json

import cv2
import numpy as np
import pytest

from beachscore import pipeline
from beachscore.errors import BadInputError, UnreadableBoardError
from calibration import store
from vision.lens.model import Lens
from vision.board.geometry import board_corners_mm, homography_from_corners, project
from tests.synthetic.grid import draw_board, grid_profile, photograph

PPM = 4.0
SIZE = (960, 720)
CORNERS = [[150, 100], [800, 120], [790, 620], [140, 600]]


def _layout(rows, cols, seed):
    rng = np.random.default_rng(seed)
    return [[str(rng.choice(["empty", "black", "white", "red"])) for _ in range(cols)] for _ in range(rows)]


def _through(lens: Lens | None, image: np.ndarray) -> np.ndarray:
    """The pinhole photo as the lens shows it (OpenCV remap of the undistortion of every pixel)."""
    return image if lens is None else lens.distort_image(image)


def _calibrate(tmp_path, lens, cells, profile, charuco=None):
    tmp_path.mkdir(parents=True, exist_ok=True)
    photo = photograph(draw_board(profile, cells, PPM), PPM, CORNERS, size=SIZE)
    cv2.imwrite(str(tmp_path / "calib.png"), _through(lens, photo))
    corners = CORNERS if lens is None else lens.distort_points(np.array(CORNERS, float), *SIZE).tolist()
    (tmp_path / "profile.json").write_text(json.dumps(profile))
    g = profile["grid"]
    samples = [{"label": f"cell/{cells[r][c]}", "board_mm": [g["origin_mm"][0] + (c + .5) * g["pitch_mm"][0],
                                                             g["origin_mm"][1] + (r + .5) * g["pitch_mm"][1]]}
               for r in range(g["rows"]) for c in range(g["cols"])]
    doc = {"game": "grid", "profile": "profile.json", "image": "calib.png", "corners_px": corners, "samples": samples}
    if charuco is not None:
        cv2.imwrite(str(tmp_path / "sheet.png"), charuco)
        doc["charuco_image"] = "sheet.png"
    (tmp_path / "calibration.json").write_text(json.dumps(doc))
    return pipeline.calibrate(str(tmp_path / "calibration.json"), str(tmp_path / "cal"))


def test_points_round_trip_and_json():
    lens = Lens.fitted((-0.12, 0.02, 0.001, -0.0005), (1920, 1080), "lines")
    assert 0.9 < lens.scale < 1.0    # barrel: the undistorted frame is zoomed out to keep the whole photo
    pts = np.array([[100.0, 80.0], [960.0, 540.0], [1800.0, 1000.0], [1500.0, 200.0]])
    back = lens.distort_points(lens.undistort_points(pts, 1920, 1080), 1920, 1080)
    assert np.abs(back - pts).max() < 1e-4
    # a half-size decode of the same camera mode: the same model, scaled
    half = lens.distort_points(lens.undistort_points(pts / 2, 960, 540), 960, 540)
    assert np.abs(half - pts / 2).max() < 1e-4
    again = Lens.from_json(json.loads(json.dumps(lens.to_json())))
    assert (again.k1, again.k2, again.p1, again.p2, again.size, again.scale) == (
        lens.k1, lens.k2, lens.p1, lens.p2, lens.size, lens.scale)


@pytest.mark.parametrize("k1", [-0.12, -0.06, 0.06])
def test_k1_is_recovered_from_the_calibration_shots_lines_and_readings_are_unchanged(tmp_path, k1):
    lens = Lens(k1, size=SIZE, scale=1.0)
    prof = grid_profile(6, 7)
    cal = _calibrate(tmp_path / "lens", lens, _layout(6, 7, 1), prof)
    assert cal.lens is not None and cal.lens.source == "lines"
    assert cal.lens.k1 == pytest.approx(k1, abs=0.02)
    plain = _calibrate(tmp_path / "plain", None, _layout(6, 7, 1), prof)
    assert plain.lens is None   # a shot that shows no distortion stores none
    for seed in (2, 3):
        game = _layout(6, 7, seed)
        photo = photograph(draw_board(prof, game, PPM, jitter_mm=1.0, seed=seed), PPM, CORNERS, size=SIZE,
                           gain=(0.9, 1.0, 1.1))
        through = pipeline.scan_image(_through(lens, photo), cal)
        without = pipeline.scan_image(photo, plain)
        assert through.state["cells"] == without.state["cells"] == game
        assert through.registration.source == "corners" and through.confidence > 0.5


def test_without_the_correction_the_distorted_board_is_misplaced(tmp_path):
    # the check that the correction matters here: the plain homography misses the places
    # along the board's edges by about a millimetre through this lens
    lens = Lens(-0.12, size=SIZE, scale=1.0)
    prof = grid_profile(6, 7)
    H = homography_from_corners(lens.distort_points(np.array(CORNERS, float), *SIZE), prof["board_mm"])
    true_px = lens.distort_points(project(homography_from_corners(CORNERS, prof["board_mm"]),
                                          np.array([[25.0, 75.0], [85.0, 15.0]])), *SIZE)
    assert np.abs(project(H, np.array([[25.0, 75.0], [85.0, 15.0]])) - true_px).max() > 3.0


def test_a_bumped_board_through_the_lens_is_found_again(tmp_path):
    lens = Lens(-0.12, size=SIZE, scale=1.0)
    prof = grid_profile(6, 7)
    cal = _calibrate(tmp_path, lens, _layout(6, 7, 1), prof)
    game = _layout(6, 7, 4)
    H0 = homography_from_corners(CORNERS, prof["board_mm"])
    moved = project(H0 @ np.array([[1, 0, 5.0], [0, 1, -4.0], [0, 0, 1]]), board_corners_mm(prof["board_mm"]))
    res = pipeline.scan_image(_through(lens, photograph(draw_board(prof, game, PPM), PPM, moved, size=SIZE)), cal)
    assert res.registration.source == "refined"
    assert res.registration.shift_mm == pytest.approx(np.hypot(5, 4), abs=0.7)
    assert res.state["cells"] == game


def test_the_annotated_photo_is_in_the_photos_own_pixels(tmp_path):
    lens = Lens(-0.12, size=SIZE, scale=1.0)
    prof = grid_profile(6, 7)
    cal = _calibrate(tmp_path, lens, _layout(6, 7, 1), prof)
    game = _layout(6, 7, 5)
    taken = _through(lens, photograph(draw_board(prof, game, PPM), PPM, CORNERS, size=SIZE))
    res = pipeline.scan_image(taken, cal)
    pic = res.annotate()
    assert pic.shape == taken.shape
    changed = np.any(pic != taken, axis=2)
    # the mark of the top-left place sits where the lens shows that place, not where a pinhole would
    from vision.grid import reader as grid
    g = prof["grid"]
    centre = np.array([[g["origin_mm"][0] + 0.5 * g["pitch_mm"][0], g["origin_mm"][1] + 0.5 * g["pitch_mm"][1]]])
    pinhole = project(homography_from_corners(CORNERS, prof["board_mm"]), centre)[0]
    seen = lens.distort_points(pinhole[None], *SIZE)[0]
    assert np.linalg.norm(seen - pinhole) > 3

    def centroid(mask, p, r=30):
        x, y = np.round(p).astype(int)
        ys, xs = np.nonzero(mask[y - r:y + r + 1, x - r:x + r + 1])
        return np.array([xs.mean() + x - r, ys.mean() + y - r])
    # the reader's own drawing in the undistorted photo: where its mark sits relative to the place
    ideal = res.photo.image
    drawn = np.any(grid.annotate(res.photo, res.reading) != ideal, axis=2)
    at = project(res.registration.H_px_from_mm, centre)[0]
    bias = centroid(drawn, at) - at
    got = centroid(changed, seen)
    assert np.linalg.norm(got - (seen + bias)) < 1.0
    assert np.linalg.norm(got - (pinhole + bias)) > 2.0
    # pixels away from any mark are the photo's own, untouched
    assert not changed[:40, :40].any()


def _sheet_photo(lens):
    from vision.lens.charuco import sheet_image
    page = np.full((SIZE[1], SIZE[0]), 235, np.uint8)
    sheet = sheet_image(810, 540)
    page[90:630, 75:885] = sheet
    photo = cv2.GaussianBlur(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR), (0, 0), 0.8)
    return _through(lens, photo)


@pytest.mark.parametrize("k1", [-0.12, 0.05])
def test_k1_is_recovered_from_a_charuco_sheet(tmp_path, k1):
    from vision.lens.charuco import lens_from_charuco
    lens = Lens(k1, size=SIZE, scale=1.0)
    found = lens_from_charuco(_sheet_photo(lens))
    assert found is not None and found.source == "charuco"
    assert found.k1 == pytest.approx(k1, abs=0.02)
    assert lens_from_charuco(_sheet_photo(None)) is None


def test_calibration_with_a_charuco_photo_uses_it(tmp_path):
    lens = Lens(-0.12, size=SIZE, scale=1.0)
    prof = grid_profile(6, 7)
    cal = _calibrate(tmp_path, lens, _layout(6, 7, 1), prof, charuco=_sheet_photo(lens))
    assert cal.lens.source == "charuco" and cal.lens.k1 == pytest.approx(-0.12, abs=0.02)
    game = _layout(6, 7, 6)
    res = pipeline.scan_image(_through(lens, photograph(draw_board(prof, game, PPM), PPM, CORNERS, size=SIZE)), cal)
    assert res.state["cells"] == game


def test_a_charuco_photo_without_the_sheet_is_refused(tmp_path):
    prof = grid_profile(6, 7)
    with pytest.raises(UnreadableBoardError) as e:
        _calibrate(tmp_path, None, _layout(6, 7, 1), prof, charuco=np.full((SIZE[1], SIZE[0], 3), 128, np.uint8))
    assert e.value.code == "charuco-not-found"


def test_a_version_1_calibration_still_loads_and_scans(tmp_path):
    prof = grid_profile(6, 7)
    _calibrate(tmp_path, None, _layout(6, 7, 1), prof)
    path = tmp_path / "cal" / "calibration.json"
    doc = json.loads(path.read_text())
    doc["version"] = 1
    doc.pop("lens")
    doc["checksum"] = store.checksum(doc)
    path.write_text(json.dumps(doc))
    cal = store.load(str(tmp_path / "cal"))
    assert cal.lens is None
    game = _layout(6, 7, 7)
    assert pipeline.scan_image(photograph(draw_board(prof, game, PPM), PPM, CORNERS, size=SIZE), cal
                               ).state["cells"] == game


def test_a_lens_of_another_camera_mode_is_refused_with_recalibrate(tmp_path):
    prof = grid_profile(6, 7)
    _calibrate(tmp_path, Lens(-0.12, size=SIZE, scale=1.0), _layout(6, 7, 1), prof)
    path = tmp_path / "cal" / "calibration.json"
    doc = json.loads(path.read_text())
    doc["lens"]["size"] = [640, 480]
    doc["checksum"] = store.checksum(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInputError, match="recalibrate"):
        store.load(str(tmp_path / "cal"))
