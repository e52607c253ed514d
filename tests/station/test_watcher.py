"""The board watcher: preview frames from a fake camera → the still-board check → the station's scan."""

import os
import queue
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vision"))

from still_frames import EXAMPLE, Table  # noqa: E402

from beachscore.station import Station  # noqa: E402
from beachscore.station.store import Store  # noqa: E402
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score  # noqa: E402
from beachscore.station.watcher import AUTO_SCAN_SETTING, BoardWatcher  # noqa: E402
from calibration.store import Calibration  # noqa: E402
from hardware.mock_camera import MockCamera  # noqa: E402


class Clock:
    """The frames' time: 0.1 s further on each call (ten preview frames a second)."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 0.1
        return self.t


@pytest.fixture(scope="module")
def table():
    return Table(EXAMPLE, "scene_05.jpg", seed=3)


def station_for(tmp_path, table, previews):
    """A station whose camera shows ``previews`` (noise added) and whose calibration is the table's."""
    g = table.geometry
    cal = Calibration(game="strand-unter", profile={"game": "strand-unter", "board_mm": list(g.board_mm)},
                      image_size=g.image_size, H_px_from_mm=g.H_px_from_mm, model={})
    camera = MockCamera([table.frame], preview_frames=[table.noisy(f) for f in previews])
    st = Station(Store(str(tmp_path / "data")), camera=camera, calibration=cal, scanner=FakeScanner(),
                 scorer=fake_score)
    st.watcher = BoardWatcher(st, clock=Clock())
    return st


def run_steps(st, n):
    """``n`` watcher steps; a scan it starts is waited for (the scan thread is not timed here)."""
    for _ in range(n):
        st.watcher.step()
        assert st.wait_idle(10)


def auto_scans(st):
    return [s for s in st.store.scans(limit=100) if s["source"] == "auto"]


def board_states(q):
    out = []
    while True:
        try:
            ev = q.get_nowait()
        except queue.Empty:
            return out
        if ev["kind"] == "board":
            out.append(ev["data"]["state"])


def test_one_settled_change_is_scanned_exactly_once(tmp_path, table):
    moved = table.move_piece(table.frame)
    st = station_for(tmp_path, table, [table.frame] * 10 + [moved] * 40)
    q = st.events.subscribe()
    run_steps(st, 60)
    scans = auto_scans(st)
    assert len(scans) == 1 and scans[0]["status"] == "ok"
    assert st.watcher.scans == 1
    states = board_states(q)
    assert states[:1] == ["watching"] and "changing" in states and "scanning" in states
    assert states[-1] == "watching"
    st.close()


def test_a_hand_over_the_board_is_shown_and_never_scanned(tmp_path, table):
    moved = table.move_piece(table.frame)
    st = station_for(tmp_path, table, [table.frame] * 5 + [table.arm(moved, (200, 150)) for _ in range(60)])
    q = st.events.subscribe()
    run_steps(st, 65)
    assert auto_scans(st) == []
    assert "hand" in board_states(q) and st.status()["auto_scan"]["state"] == "hand"
    st.close()


def test_a_button_scan_is_the_new_reference(tmp_path, table):
    moved = table.move_piece(table.frame)
    st = station_for(tmp_path, table, [table.frame] * 5 + [moved] * 40)
    run_steps(st, 7)
    assert st.request_scan("button").accepted  # the board is scanned by hand before it settled
    st.watcher.step()  # the watcher sees the scan and takes the board as scanned
    assert st.wait_idle(10)
    run_steps(st, 30)
    assert auto_scans(st) == []
    st.close()


def test_turned_off_it_does_not_scan_and_the_setting_is_kept(tmp_path, table):
    moved = table.move_piece(table.frame)
    st = station_for(tmp_path, table, [table.frame] * 5 + [moved] * 30)
    st.set_auto_scan(False)
    run_steps(st, 35)
    assert auto_scans(st) == []
    assert st.store.get_setting(AUTO_SCAN_SETTING) == "off"
    assert BoardWatcher(st).enabled is False  # a station started again on this data folder
    assert st.status()["auto_scan"] == {"enabled": False, "state": "off",
                                        "problem": "scanning by itself is turned off"}
    st.set_auto_scan(True)
    run_steps(st, 25)
    # turned on, it starts from the board as it is then: the preview's change (frames 5 on) is scanned
    assert len(auto_scans(st)) == 1
    st.close()


def test_off_without_a_calibrated_board_position(tmp_path):
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(), calibration=FakeCalibration(),
                 scanner=FakeScanner(), scorer=fake_score)
    st.watcher.step()
    assert st.status()["auto_scan"]["state"] == "off"
    assert "board's position" in st.status()["auto_scan"]["problem"]
    st.close()


def test_the_thread_watches_and_stops(tmp_path, table):
    st = station_for(tmp_path, table, [table.frame])
    q = st.events.subscribe()
    st.watch()
    ev = q.get(timeout=10)
    assert ev["kind"] == "board" and ev["data"]["state"] == "watching"
    assert st.store.scans(limit=5) == []
    st.close()  # stops the watcher first
    assert st.watcher._thread is None


def test_a_refused_scan_is_said_once_per_change(tmp_path, table):
    moved = table.move_piece(table.frame)
    st = station_for(tmp_path, table, [table.frame] * 5 + [moved] * 30)
    st.calibration.game = "plazing"  # a game set up for another calibration: every scan is refused
    st.new_game("strand-unter", {"players": {}})
    q = st.events.subscribe()
    run_steps(st, 35)
    assert auto_scans(st) == [] and st.watcher.scans == 0
    refusals = [s for s in board_states_with_problems(q) if s[1] and "not scanned" in s[1]]
    assert len(refusals) == 1 and refusals[0][0] == "watching"
    assert "not scanned" in st.status()["auto_scan"]["problem"]  # still said while the board stays so
    st.close()


def board_states_with_problems(q):
    out = []
    while True:
        try:
            ev = q.get_nowait()
        except queue.Empty:
            return out
        if ev["kind"] == "board":
            out.append((ev["data"]["state"], ev["data"]["problem"]))
