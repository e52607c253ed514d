"""The still-board check on preview sequences made from table photos (tests/vision/still_frames.py)."""

import os

import numpy as np
import pytest

from still_frames import EXAMPLE, FPS, PREVIEW, SAMPLES, Table
from vision.preview.region import BoardGeometry, preview_region
from vision.preview.stillness import CHANGING, HAND, SCAN, WATCHING, StillBoard, grey_of

TABLES = [(EXAMPLE, "scene_05.jpg")] + [
    (os.path.join(SAMPLES, game, "setup0"), "scene_00.jpg") for game in ("plazing", "strand-unter")]


def table_ids():
    return [os.path.basename(os.path.dirname(folder)) if "samples" in folder else "example" for folder, _ in TABLES]


@pytest.fixture(scope="module", params=TABLES, ids=table_ids())
def table(request):
    folder, photo = request.param
    if not os.path.exists(os.path.join(folder, photo)):
        pytest.skip("shared samples absent")
    return Table(folder, photo, seed=7)


def run(table: Table, frames, start_s: float = 0.0, detector: StillBoard | None = None):
    """Feed ``frames`` (noise added to each) at 10 per second; returns (detector, states)."""
    detector = detector or StillBoard(table.geometry)
    states = [detector.update(table.noisy(f), start_s + i / FPS).state for i, f in enumerate(frames)]
    return detector, states


def test_an_unchanged_board_never_triggers(table):
    _, states = run(table, [table.frame] * 80)
    assert set(states) == {WATCHING}


def test_a_light_that_changes_is_not_a_change(table):
    # darker: no colour clips, so the grey levels keep their order (a brighter light that clips
    # one colour of the sand is a change the check may scan once: docs/tuning.md)
    darker = np.clip(table.frame.astype(np.float32) * 0.9 - 4, 0, 255).astype(np.uint8)
    _, states = run(table, [table.frame] * 20 + [darker] * 40)
    assert SCAN not in states
    assert states[-1] == WATCHING


def test_one_moved_piece_scans_once_after_a_second(table):
    moved = table.move_piece(table.frame)
    _, states = run(table, [table.frame] * 20 + [moved] * 40)
    assert states.count(SCAN) == 1
    first = states.index(SCAN)
    assert 20 + FPS * 1.0 <= first <= 20 + FPS * 1.0 + 1  # settles one second after the move
    assert states[first + 1:] == [WATCHING] * (len(states) - first - 1)


@pytest.mark.parametrize("shake_px", [0.0, 1.0])
def test_a_hand_that_stays_over_the_board_never_triggers(table, shake_px):
    moved = table.move_piece(table.frame)
    hands = [table.arm(moved, (200, 150), shake_px) for _ in range(120)]  # 12 s over the board
    _, states = run(table, [table.frame] * 10 + hands)
    assert SCAN not in states
    assert states[15:] == [HAND] * (len(states) - 15)


def test_an_arm_in_the_tables_own_colour_is_still_a_hand(table):
    hands = [table.arm(table.frame, (200, 150), 0.0, hidden_outside=True) for _ in range(40)]
    _, states = run(table, [table.frame] * 10 + hands)
    assert SCAN not in states
    assert states[-1] == HAND


def test_the_board_scans_once_the_hand_has_gone(table):
    moved = table.move_piece(table.frame)
    frames = [table.frame] * 10 + [table.arm(moved, (150, 120), 1.0) for _ in range(30)] + [moved] * 30
    _, states = run(table, frames)
    assert states.count(SCAN) == 1
    assert states.index(SCAN) >= 40 + FPS * 1.0


def test_a_hand_that_leaves_an_unchanged_board_does_not_trigger(table):
    frames = [table.frame] * 10 + [table.arm(table.frame, (250, 200), 1.0) for _ in range(20)] + [table.frame] * 30
    _, states = run(table, frames)
    assert SCAN not in states
    assert HAND in states and states[-1] == WATCHING


def test_a_board_that_keeps_changing_scans_once_it_settles(table):
    frames, board = [table.frame] * 10, table.frame
    for _ in range(6):  # a piece moved every 0.6 s: never still for a second
        board = table.move_piece(board)
        frames += [board] * 6
    settled_at = len(frames)
    frames += [board] * 30
    _, states = run(table, frames)
    assert states.count(SCAN) == 1
    assert states.index(SCAN) >= settled_at - 6 + FPS * 1.0
    assert CHANGING in states[10:settled_at]


def test_the_button_scan_becomes_the_reference(table):
    moved = table.move_piece(table.frame)
    detector, _ = run(table, [table.frame] * 10 + [moved] * 5)
    detector.rescan()  # the button took a scan of the moved board
    _, states = run(table, [moved] * 30, start_s=1.5, detector=detector)
    assert SCAN not in states


def test_a_y_plane_is_judged_like_its_colour_frame(table):
    grey = grey_of(table.frame)
    moved = grey_of(table.move_piece(table.frame))
    detector = StillBoard(table.geometry)
    states = [detector.update(f, i / FPS).state for i, f in enumerate([grey] * 10 + [moved] * 20)]
    assert states.count(SCAN) == 1


def test_the_board_region_is_the_calibrated_board(table):
    region = preview_region(table.geometry, PREVIEW, margin_mm=60, reach_mm=15)
    # every board px is inside the near zone, none of them far
    assert not np.any(region.board & region.far)
    board_mm2 = region.board.sum() * region.mm2_per_px
    # shrunk by the frame where it cuts the board, never larger than the board
    assert 0.8 * np.prod(table.board_mm) <= board_mm2 <= 1.02 * np.prod(table.board_mm)


def test_a_preview_without_the_board_is_refused():
    geometry = BoardGeometry(np.array([[1.0, 0, 5000], [0, 1, 5000], [0, 0, 1]]), (1920, 1080), (400.0, 300.0))
    with pytest.raises(ValueError, match="not inside"):
        StillBoard(geometry).update(np.zeros((360, 640), np.uint8), 0.0)


def test_a_frame_that_is_not_a_picture_is_refused():
    with pytest.raises(ValueError, match="uint8"):
        grey_of(np.zeros((360, 640), np.float32))
