"""Grid mode: a user-described board + labels → every place's class, also under a lighting
change, with tokens a few mm off their place, and with a moved board carrying markers."""

import json

import cv2
import numpy as np
import pytest

from beachscore import pipeline
from beachscore.errors import BadInputError
from tests.synthetic.grid import draw_board, grid_profile, photograph

PPM = 4.0
CORNERS = [[150, 100], [800, 120], [790, 620], [140, 600]]


def _layout(rows, cols, seed):
    rng = np.random.default_rng(seed)
    return [[str(rng.choice(["empty", "black", "white", "red"])) for _ in range(cols)] for _ in range(rows)]


def _calibrate(tmp_path, profile, cells, labels=None, markers=False):
    top = draw_board(profile, cells, PPM)
    cv2.imwrite(str(tmp_path / "calib.png"), photograph(top, PPM, CORNERS))
    (tmp_path / "profile.json").write_text(json.dumps(profile))
    g = profile["grid"]
    samples = labels or [{"label": f"cell/{cells[r][c]}", "board_mm": [g["origin_mm"][0] + (c + .5) * g["pitch_mm"][0],
                                                                        g["origin_mm"][1] + (r + .5) * g["pitch_mm"][1]]}
                         for r in range(g["rows"]) for c in range(g["cols"])]
    doc = {"game": "grid", "profile": "profile.json", "image": "calib.png", "samples": samples}
    if not markers:
        doc["corners_px"] = CORNERS
    (tmp_path / "calibration.json").write_text(json.dumps(doc))
    return pipeline.calibrate(str(tmp_path / "calibration.json"), str(tmp_path / "cal"))


def test_grid_reads_every_cell_under_lighting_and_offsets(tmp_path):
    prof = grid_profile(5, 6)
    cal = _calibrate(tmp_path, prof, _layout(5, 6, 1))
    game = _layout(5, 6, 2)
    photo = photograph(draw_board(prof, game, PPM, jitter_mm=2.5, seed=3), PPM, CORNERS, gain=(0.8, 0.9, 1.15))
    res = pipeline.scan_image(photo, cal)
    assert res.state["cells"] == game
    assert res.score == {}
    assert np.array(res.state["confidence"]).shape == (5, 6)
    assert res.confidence > 0.5, res.confidence


def test_grid_unknown_label(tmp_path):
    prof = grid_profile(2, 2)
    with pytest.raises(BadInputError) as e:
        _calibrate(tmp_path, prof, _layout(2, 2, 0), labels=[{"label": "black", "board_mm": [25, 25]}])
    assert e.value.code == "unknown-label"


def test_moved_board_with_markers_needs_no_recalibration(tmp_path):
    prof = grid_profile(4, 5, markers=True)
    cal = _calibrate(tmp_path, prof, _layout(4, 5, 4), markers=True)
    game = _layout(4, 5, 5)
    moved = [[200, 160], [820, 90], [860, 600], [230, 660]]  # shifted and turned ~6°
    res = pipeline.scan_image(photograph(draw_board(prof, game, PPM), PPM, moved), cal)
    assert res.registration.source == "markers"
    assert res.state["cells"] == game


def test_a_board_seen_off_its_places_is_not_read_confidently_wrong(tmp_path):
    # the registration puts every place 0.45 pitch off (as an invented bump did on real photos):
    # places half on a token and half on the board are like no class, and the reading says so
    from vision.grid.reader import read
    from vision.board.geometry import homography_from_corners
    from vision.types import Registration
    from vision.types import Photo
    prof = grid_profile(5, 6)
    cal = _calibrate(tmp_path, prof, _layout(5, 6, 1))
    game = _layout(5, 6, 7)
    photo = photograph(draw_board(prof, game, PPM), PPM, CORNERS)
    H = homography_from_corners(CORNERS, prof["board_mm"]) @ np.array([[1, 0, 9.0], [0, 1, 0], [0, 0, 1]])
    reading = read(Photo(photo, Registration(H, "corners"), cal))
    assert reading.state["cells"] != game
    assert reading.confidence < 0.5
    assert read(Photo(photo, Registration(homography_from_corners(CORNERS, prof["board_mm"]), "corners"), cal)
                ).confidence > 0.5


def test_typicality_is_one_for_usual_distances_and_falls_for_outliers():
    from vision.places import chi2_sf_even, typicality
    # closed form against known values of the chi-square survival function (10 degrees of freedom)
    assert chi2_sf_even(np.array([9.342]), 10)[0] == pytest.approx(0.5, abs=1e-3)
    assert chi2_sf_even(np.array([29.588]), 10)[0] == pytest.approx(1e-3, rel=1e-2)
    t = typicality(np.array([4.0, 20.0, 40.0, 80.0]))
    assert t[0] == 1.0 and t[1] == 1.0 and t[2] < 0.05 and t[3] < 1e-6
