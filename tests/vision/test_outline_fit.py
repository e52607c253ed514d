"""The board's corners fitted to its outline's edges (vision/board/outline_fit.py): clicks a few
pixels off land on the board's corners, exact clicks are kept, a shot with no outline keeps them."""

import numpy as np
import cv2
import pytest

from vision.board.outline_fit import fit_outline

BOARD_MM = (460.0, 300.0)
CORNERS = np.array([[132.0, 61.0], [1101.0, 83.0], [1079.0, 668.0], [151.0, 640.0]])


def _shot(seed: int = 0) -> np.ndarray:
    """A 1280 × 720 shot: a textured table, the board (pale sand with specks, a sea strip of waves
    along its far side, whose grey level matches the table's) warped to CORNERS."""
    rng = np.random.default_rng(seed)
    table = np.clip(rng.normal((70, 100, 135), 6, (720, 1280, 3)), 0, 255).astype(np.uint8)
    w, h = 920, 600
    board = np.clip(rng.normal((170, 205, 230), 5, (h, w, 3)), 0, 255)
    sea_rows = np.arange(60)[:, None]
    waves = 25 * np.sin(np.arange(w)[None, :] / 7.0 + sea_rows / 3.0)
    board[:60] = np.stack([170 + waves, 120 + waves, 50 + waves], axis=2)   # blue sea, grey near the table's
    for _ in range(150):
        cv2.circle(board, (int(rng.integers(0, w)), int(rng.integers(70, h))), 6, (60, 60, 160), -1)
    M = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), CORNERS.astype(np.float32))
    warped = cv2.warpPerspective(board.astype(np.uint8), M, (1280, 720))
    inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), M, (1280, 720)) > 127
    return np.where(inside[..., None], warped, table)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clicks_a_few_pixels_off_land_on_the_corners(seed):
    clicked = CORNERS + np.random.default_rng(seed).uniform(-15, 15, (4, 2))
    fit = fit_outline(_shot(seed), clicked, BOARD_MM)
    assert fit.moved and fit.shift_mm > 2.0
    assert np.abs(fit.corners_px - CORNERS).max() < 1.5
    assert min(fit.inlier_share) >= 0.5


def test_exact_clicks_are_kept_as_clicked():
    fit = fit_outline(_shot(), CORNERS, BOARD_MM)
    assert not fit.moved and fit.shift_mm < 2.0
    assert np.array_equal(fit.corners_px, CORNERS)


def test_a_shot_without_an_outline_keeps_the_clicks():
    plain = np.full((720, 1280, 3), 128, np.uint8)
    clicked = CORNERS + 10.0
    fit = fit_outline(plain, clicked, BOARD_MM)
    assert not fit.moved
    assert np.array_equal(fit.corners_px, clicked)


def test_the_wizard_turns_samples_into_millimetres_through_the_fitted_corners(tmp_path):
    from beachscore.station.wizard import fitted_corners
    photo = str(tmp_path / "calib.png")
    cv2.imwrite(photo, _shot(4))
    clicked = (CORNERS + np.random.default_rng(4).uniform(-15, 15, (4, 2))).tolist()
    plazing = fitted_corners(photo, {"game": "plazing", "board_mm": list(BOARD_MM)}, clicked)
    assert np.abs(np.array(plazing) - CORNERS).max() < 1.5
    assert fitted_corners(photo, {"game": "strand-unter", "board_mm": list(BOARD_MM)}, clicked) == clicked


def test_corners_far_outside_the_shot_or_not_finite_are_kept_without_sampling():
    """Corners a caller did not check (the station wizard's JSON) never build a sampling grid the
    size of the clicks (1e9 px corners asked for 157 GiB; 3e5 px ones tripped OpenCV's remap)."""
    image = np.full((120, 160, 3), 128, np.uint8)
    for corners in ([[0, 0], [1e9, 0], [1e9, 1e9], [0, 1e9]], [[0, 0], [3e5, 0], [3e5, 3e5], [0, 3e5]],
                    [[0, 0], [float("nan"), 0], [100, 100], [0, 100]]):
        fit = fit_outline(image, corners, (460, 300))
        assert not fit.moved and fit.shift_mm is None


def test_the_keep_test_is_made_against_the_clicks_not_where_the_search_started():
    """Searched from corners 3 mm outside (an earlier fit's), the exact clicks are kept; clicks 15 px
    off are moved onto the outline from the same start."""
    start = CORNERS + np.array([[-6.0, -6.0], [6.0, -6.0], [6.0, 6.0], [-6.0, 6.0]])
    kept = fit_outline(_shot(5), start, BOARD_MM, clicked_px=CORNERS)
    assert not kept.moved and kept.shift_mm < 2.0
    assert np.array_equal(kept.corners_px, CORNERS)
    off = CORNERS + np.array([[15.0, -12.0], [-14.0, 13.0], [12.0, 15.0], [-15.0, -13.0]])
    moved = fit_outline(_shot(5), start, BOARD_MM, clicked_px=off)
    assert moved.moved and moved.shift_mm > 4.0
    assert np.abs(moved.corners_px - CORNERS).max() < 1.5


def _barrel_request(monkeypatch, k1: float = -0.16):
    """The synthetic shot through a barrel lens (k1 in the reader's normalisation, f = the width:
    the sides bow 3-5 mm at 2 px/mm, as a 720p wide lens does), the lens search answering that lens."""
    import types
    from beachscore import pipeline
    from vision.lens.model import Lens

    lens = Lens(k1, 0.0, size=(1280, 720))
    monkeypatch.setattr(pipeline, "find_lens", lambda req, image, corners: Lens(k1, 0.0, size=(1280, 720)))
    req = types.SimpleNamespace(profile={"board_mm": list(BOARD_MM)})
    return pipeline, req, lens.distort_image(_shot(0)), lens.distort_points(CORNERS, 1280, 720)


def test_exact_clicks_through_a_barrel_lens_are_kept(monkeypatch):
    """In the shot as taken a straight line fitted to a bowed side lies outside its ends (the fit there
    moves exact clicks 4.6 mm); the clicks are judged in the undistorted shot, where they lie on the
    outline, and kept as clicked."""
    from vision.board.geometry import homography_from_corners, project, board_corners_mm
    pipeline, req, photo, exact = _barrel_request(monkeypatch)
    assert fit_outline(photo, exact, BOARD_MM).moved          # the shot as taken's fit alone would move them
    lens, _, _, H, moved_mm = pipeline._shot_geometry(req, photo, None, homography_from_corners(exact, BOARD_MM), True)
    assert moved_mm is None
    assert np.abs(lens.distort_points(project(H, board_corners_mm(BOARD_MM)), 1280, 720) - exact).max() < 1e-3


def test_clicks_off_through_a_barrel_lens_land_on_the_corners(monkeypatch):
    """Clicks 7-10 mm off: the first fit (in the shot as taken, 3-4 mm outside) only tells the lens
    search where to look; the corners come from the undistorted shot's fit (3.5 mm off before)."""
    from vision.board.geometry import board_px_per_mm, homography_from_corners, project, board_corners_mm
    pipeline, req, photo, exact = _barrel_request(monkeypatch)
    off = exact + np.array([[-15.0, -12.0], [14.0, -13.0], [15.0, 14.0], [-13.0, 15.0]])
    lens, _, _, H, moved_mm = pipeline._shot_geometry(req, photo, None, homography_from_corners(off, BOARD_MM), True)
    ppm = board_px_per_mm(homography_from_corners(exact, BOARD_MM), BOARD_MM)
    final = lens.distort_points(project(H, board_corners_mm(BOARD_MM)), 1280, 720)
    assert moved_mm is not None and np.abs(final - exact).max() / ppm < 1.5


def _wizard_request(tmp_path):
    """A wizard request on the synthetic shot, clicks up to 15 px off, two sand samples: (photo path,
    calibration.json path, the clicks, the samples' px (2, 2))."""
    from beachscore.station.wizard import write_request
    from vision.board.geometry import homography_from_corners, project
    photo = str(tmp_path / "calib.png")
    cv2.imwrite(photo, _shot(4))
    clicked = (CORNERS + np.random.default_rng(4).uniform(-15, 15, (4, 2))).tolist()
    at = project(homography_from_corners(CORNERS, BOARD_MM), np.array([[230.0, 150.0], [400.0, 260.0]]))
    samples = [{"label": "sand", "px": [float(x), float(y)]} for x, y in at]
    path = write_request(str(tmp_path / "req"), photo, {"game": "plazing", "board_mm": list(BOARD_MM)},
                         clicked, samples)
    return photo, path, clicked, at


def test_the_wizard_writes_the_clicks_and_places_the_samples_through_the_fitted_corners(tmp_path):
    """calibration.json gets the corners as clicked (calibration fits them again and judges them in
    the undistorted shot: a wizard fit in the shot as taken lies outside a lens's bowed sides); the
    samples' millimetres come through the fitted corners."""
    import json
    _, path, clicked, _ = _wizard_request(tmp_path)
    with open(path) as f:
        doc = json.load(f)
    assert np.allclose(doc["corners_px"], clicked)
    assert np.abs(np.array([s["board_mm"] for s in doc["samples"]]) - [[230, 150], [400, 260]]).max() < 1.0


def test_the_wizard_preview_draws_the_samples_where_they_were_clicked(tmp_path, monkeypatch):
    """calibration.json keeps the clicks while the samples' millimetres come through the fitted
    corners: the preview takes them back to pixels, and draws the outline, through the fitted corners
    too (through the clicks it drew them 5 px off here, up to the clicks' error)."""
    from beachscore.station.wizard import preview
    photo, path, _, at = _wizard_request(tmp_path)
    centres = []
    circle = cv2.circle
    monkeypatch.setattr(cv2, "circle", lambda img, c, *a, **k: (centres.append(c), circle(img, c, *a, **k))[1])
    outlines = []
    polylines = cv2.polylines
    monkeypatch.setattr(cv2, "polylines",
                        lambda img, pts, *a, **k: (outlines.append(pts[0]), polylines(img, pts, *a, **k))[1])
    preview(photo, path, [])
    assert np.abs(np.array(centres, float) - at).max() <= 1.0
    assert np.abs(np.array(outlines[0], float) - CORNERS).max() <= 2.0     # the board's outline, not the clicks


def _scripted_fits(monkeypatch, pipeline, answers):
    """pipeline.fit_outline answering (moved, shift_mm, offset px from where it searched) in turn."""
    from vision.board.outline_fit import OutlineFit
    queue = list(answers)

    def fit(image, corners_px, board_mm, cfg=None, clicked_px=None):
        moved, shift_mm, offset = queue.pop(0)
        clicked = np.asarray(corners_px if clicked_px is None else clicked_px, np.float64)
        return OutlineFit(np.asarray(corners_px, np.float64) + offset if moved else clicked, moved, shift_mm, [1.0] * 4)
    monkeypatch.setattr(pipeline, "fit_outline", fit)
    return queue


def _final_corners(pipeline, req, photo, clicks):
    from vision.board.geometry import homography_from_corners, project, board_corners_mm
    lens, _, _, H, moved_mm = pipeline._shot_geometry(req, photo, None, homography_from_corners(clicks, BOARD_MM), True)
    final = project(H, board_corners_mm(BOARD_MM))
    return (final if lens is None else lens.distort_points(final, 1280, 720)), moved_mm


def test_clicks_the_refit_keeps_after_the_lens_is_found_again_are_kept(monkeypatch):
    """The shot as taken's fit keeps the clicks, the undistorted shot's moves them (5 mm), and once
    the lens is found again around those corners the fit keeps the clicks (3.9 mm): the clicks are
    kept, not the first undistorted fit's corners with no word of the move."""
    pipeline, req, photo, exact = _barrel_request(monkeypatch)
    queue = _scripted_fits(monkeypatch, pipeline, [(False, 2.0, 0.0), (True, 5.0, 10.0), (False, 3.9, 0.0)])
    final, moved_mm = _final_corners(pipeline, req, photo, exact)
    assert not queue
    assert moved_mm is None and np.abs(final - exact).max() < 1e-3


def test_clicks_far_from_an_outline_beyond_the_search_are_not_kept_as_near_it(monkeypatch):
    """The shot as taken's fit moves the clicks (8 mm); the undistorted shot's fit, searched from
    there, finds a line beyond the search (not moved, 25 mm from the clicks): the clicks are not
    'within keep_clicked_mm of the outline', the first fit's corners stand and the move is told."""
    pipeline, req, photo, exact = _barrel_request(monkeypatch)
    queue = _scripted_fits(monkeypatch, pipeline, [(True, 8.0, 16.0), (False, 25.0, 0.0)])
    final, moved_mm = _final_corners(pipeline, req, photo, exact)
    assert not queue
    assert moved_mm is not None and np.abs(final - exact).max() > 10.0
