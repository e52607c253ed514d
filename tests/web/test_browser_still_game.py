"""A Plażing game at the station scanned by the still-board trigger, in headless Chromium.

The station's board watcher runs on its own thread; the test drives the camera's preview frame by
frame: each step of the game shows players moving pieces (frames that keep changing, longer than
the settle time), an arm with its hand held over the board (long past the settle time; one step
without it), then the board still. The scanner reads
the synthetic Plażing game of tests/station/test_followed_game.py in order; the station is paired
to a real hall. The game ends in the browser: Game over, the weather answered, every total on the
page and at the hall.

The watcher's clock advances 0.1 s per preview frame (ten frames a second), so what it decides
depends on the frames alone, not on how fast this machine runs them.
"""

from __future__ import annotations

import collections
import copy
import os
import sys
import threading
from dataclasses import dataclass

import numpy as np
import pytest

from tests.chromium import headless_chromium, installed
from tests.server_thread import ServerThread

from beachscore.station import Station
from beachscore.station.hall_link import HallLink
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, score_with_rules
from beachscore.station.watcher import BoardWatcher
from hardware.errors import CameraError
from hardware.mock_camera import MockCamera
from web import create_app

from tests.station.test_followed_game import GAME, SETUP
from tests.station.test_hall_link import seated_hall, wait_for

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vision"))
from still_frames import EXAMPLE, Table  # noqa: E402

webdriver = pytest.importorskip("selenium.webdriver")
if not installed():
    pytest.skip("Chromium/chromedriver not installed (apt-get install chromium chromium-driver)",
                allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from tests.web.test_browser import unlock, wait  # noqa: E402

#: the preview frames an arm is held over the board: 2.5 s of the watcher's clock, past its 1 s settle
HAND_FRAMES = 25
#: the preview frames of pieces being moved, each another move: 1.5 s, past the settle time
CHANGING_FRAMES = 15
#: the step whose pieces are moved and left without a hand held over the board afterwards
NO_HAND_STEP = 2
#: what each step of the game shows on the page's list of changes
CHANGES = {1: "red placed a screen", 2: "blue closed the area", 3: "red collected the amber"}


@dataclass
class PreviewCalibration(FakeCalibration):
    """A Plażing calibration whose homography puts the board where the preview frames show it."""

    H_px_from_mm: np.ndarray | None = None
    image_size: tuple | None = None


class FrameClock:
    """The watcher's time: 0.1 s further on each frame."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 0.1
        return self.t


class ScriptedPreview(MockCamera):
    """A mock camera whose preview frames the test plays: queued frames once each, in order, then a
    held frame again and again; every frame with fresh sensor noise.

    Attributes:
        shown: the label of the last preview frame given.
        served: how many times each label was given.
    """

    def __init__(self, table: Table, label: str, frame: np.ndarray):
        super().__init__(size=(80, 60))
        self.table = table
        self.shown = None
        self.served: collections.Counter = collections.Counter()
        self._queue: collections.deque = collections.deque()
        self._hold = (label, frame)
        self._script = threading.Lock()

    def play(self, frames: list[tuple[str, np.ndarray]], hold: tuple[str, np.ndarray]) -> None:
        """Show ``frames`` (label, BGR preview) once each, then ``hold`` until told otherwise."""
        with self._script:
            self._queue.extend(frames)
            self._hold = hold

    def preview(self) -> np.ndarray:
        if self.closed:
            raise CameraError("camera-failed", "mock camera is closed")
        with self._script:
            label, frame = self._queue.popleft() if self._queue else self._hold
            self.shown = label
            self.served[label] += 1
        return self.table.noisy(frame)


class GameScanner(FakeScanner):
    """Reads the game's states in order (the last one again once they run out) and notes which
    preview frame the camera showed when each scan was taken."""

    def __init__(self, states, camera: ScriptedPreview):
        super().__init__(states[0], scorer=score_with_rules)
        self.states = [copy.deepcopy(s) for s in states]
        self.camera = camera
        self.seen: list[str] = []

    def __call__(self, image, calibration, setup):
        self.state = copy.deepcopy(self.states[min(self.calls, len(self.states) - 1)])
        self.seen.append(self.camera.shown)
        return super().__call__(image, calibration, setup)


def game_frames(table: Table) -> tuple[np.ndarray, list[dict]]:
    """The bare board's preview and, per step of the game, its frames: ``changing`` (pieces being
    moved: each frame another one), ``hand`` (an arm over the board as it is after the step),
    ``still`` (the board after the step)."""
    board = table.frame
    steps = []
    for _ in GAME:
        after = table.move_piece(board)
        steps.append({"changing": [table.move_piece(board) for _ in range(CHANGING_FRAMES - 1)] + [after],
                      "hand": table.arm(after, (200, 150)), "still": after})
        board = after
    return table.frame, steps


@pytest.fixture
def plazing_hall(tmp_path):
    h = seated_hall(tmp_path, "plazing", "Beach night")
    yield h
    h.stop()
    h.store.close()


@pytest.fixture
def server(tmp_path, plazing_hall):
    table = Table(EXAMPLE, "scene_05.jpg", seed=7)
    bare, steps = game_frames(table)
    g = table.geometry
    cal = PreviewCalibration(game="plazing", profile={"game": "plazing", "grid": {"rows": 4, "cols": 6},
                                                      "board_mm": list(g.board_mm)},
                             H_px_from_mm=g.H_px_from_mm, image_size=g.image_size)
    camera = ScriptedPreview(table, "bare", bare)
    station = Station(Store(str(tmp_path / "data")), camera=camera, calibration=cal,
                      scanner=GameScanner(GAME, camera), scorer=score_with_rules)
    station.watcher = BoardWatcher(station, interval_s=0.05, clock=FrameClock())
    link = HallLink(station, backoff_s=(0.05, 0.3)).start()
    app = create_app({"EVENTS_KEEPALIVE_S": 1.0, "POLL_INTERVAL_MS": 400}, station=station)
    srv = ServerThread.serving(app, threads=8)
    yield {"url": srv.url, "station": station, "camera": camera,
           "steps": steps, "link": link, "hall": plazing_hall}
    srv.close()
    link.close()
    station.close()


def auto_scans(station) -> list[dict]:
    return [s for s in station.store.scans(limit=100) if s["source"] == "auto"]


def board_state(driver) -> str:
    return driver.find_element(By.ID, "board-state").get_attribute("data-state")


def play_step(driver, station, camera, k: int, frames: dict) -> dict:
    """One step of the game: pieces moved (never scanned while they move), a hand held over the
    board (never scanned; not at :data:`NO_HAND_STEP`), the board still (scanned once); returns the scan."""
    before = len(auto_scans(station))
    moving = [(f"{k}:changing", f) for f in frames["changing"]]
    if k == NO_HAND_STEP:
        camera.play(moving, hold=(f"{k}:still", frames["still"]))
    else:
        camera.play(moving, hold=(f"{k}:hand", frames["hand"]))
        wait(driver, lambda d: board_state(d) == "hand", timeout=30)
        wait(driver, lambda d: camera.served[f"{k}:hand"] >= HAND_FRAMES, timeout=30)
        assert station.watcher.state == "hand" and board_state(driver) == "hand"
        assert len(auto_scans(station)) == before, f"step {k}: scanned with a hand over the board"
        camera.play([], hold=(f"{k}:still", frames["still"]))
    wait(driver, lambda d: len(auto_scans(station)) == before + 1 and not station.busy, timeout=30)
    scan = auto_scans(station)[0]
    wait(driver, lambda d: d.find_element(By.ID, "live").get_attribute("data-scan-id") == str(scan["id"]))
    # the board stays still well past the settle time: no second scan of it
    seen = camera.served[f"{k}:still"]
    wait(driver, lambda d: camera.served[f"{k}:still"] >= seen + 15 and station.watcher.state == "watching",
         timeout=30)
    wait(driver, lambda d: board_state(d) == "watching")  # not a stale "scanning" from an older answer
    assert len(auto_scans(station)) == before + 1, f"step {k}: a still board scanned twice"
    return scan


def test_a_plazing_game_scanned_when_still_ends_with_every_total_here_and_at_the_hall(server):
    url, station, camera, hall = server["url"], server["station"], server["camera"], server["hall"]
    link = server["link"]
    link.pair(hall.url, hall.store.new_pairing_code(hall.event_id, 1))
    game_id = station.new_game("plazing", SETUP, {"names": {"red": "Ana", "blue": "Bo"}})
    with headless_chromium() as browser:
        unlock(browser, url)
        browser.get(url + "/")
        station.watch()
        wait(browser, lambda d: board_state(d) == "watching", timeout=30)
        assert browser.find_element(By.ID, "auto-scan").is_selected()
        scans = []
        for k, frames in enumerate(server["steps"]):
            scans.append(play_step(browser, station, camera, k, frames))
            if k in CHANGES:
                wait(browser, lambda d: CHANGES[k] in d.find_element(By.ID, "changes").text)
        # one scan per settled step, each taken on the still board: none while pieces moved, none
        # with the hand over it
        assert station.scanner.seen == [f"{k}:still" for k in range(len(GAME))]
        assert station.watcher.scans == len(GAME) and [s["status"] for s in scans] == ["ok"] * len(GAME)
        # Game over in the browser: the final scan, then the weather die, the one thing nobody knows
        browser.execute_script("window.confirm = () => true")
        browser.find_element(By.ID, "game-over").click()
        wait(browser, lambda d: d.find_element(By.ID, "follow").get_attribute("data-state") == "asking", timeout=30)
        assert link.outbox.counts() == {}  # nothing sent to the hall while the weather is asked
        Select(browser.find_element(By.CSS_SELECTOR, "#questions select[data-key=weather]")).select_by_value("sun")
        browser.find_element(By.ID, "finish-game").click()
        wait(browser, lambda d: d.find_element(By.ID, "follow").get_attribute("data-state") == "over", timeout=30)
        shown = {li.get_attribute("data-player"): li.find_element(By.CSS_SELECTOR, ".total").text
                 for li in browser.find_elements(By.CSS_SELECTOR, "#totals li")}
        ending = station.game_ending(game_id)
        want = {p["player"]: p["total"] for p in ending["score"]["players"]}
        assert set(want) == {"red", "blue"} and all(isinstance(v, int) for v in want.values())
        assert shown == {p: str(v) for p, v in want.items()}
        assert ending["setup"]["weather"] == "sun" and ending["setup"]["closings"] == {"red": 0, "blue": 1}
        # the final scan was the button's: the still-board trigger added none
        assert len(auto_scans(station)) == len(GAME)
    assert wait_for(lambda: link.outbox.counts() == {"sent": 1}), link.status()["reports"]
    table = hall.store.table(hall.event_id, 1, 1)
    names = {p["id"]: p["name"] for p in table["players"]}
    current = table["current"]
    assert current is not None and current["problem"] is None, current
    got = {names[p]: v for p, v in current["game_points"].items()}
    assert got == {"Ana": want["red"], "Bo": want["blue"]}
    assert not any("not known" in (r["problem"] or "") for r in table["revisions"])
