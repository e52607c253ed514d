"""Scan when the board is still: a thread that watches the camera's preview and presses "scan" itself.

:class:`BoardWatcher` takes a preview frame (``camera.preview()``) every ``interval_s``, hands it
to the still-board check (:class:`vision.preview.stillness.StillBoard`) and, when the check says
the board changed and then stayed still, free of hands, starts the same scan the button starts
(``station.request_scan("auto")``). What it sees reaches the pages as ``board`` events on the
station's bus, one each time it changes: ``{"state": "watching" | "changing" | "hand" |
"scanning" | "off", "problem": str | None}``.

While any scan runs (the button's, the page's, its own) it takes one frame as the new reference
(the board as scanned) and then rests until the scan ends, so the scan has the CPU. It is off while
the station has no camera or no calibration with a board position, and when the setting
:data:`AUTO_SCAN_SETTING` is ``off`` (:meth:`BoardWatcher.set_enabled`). The button keeps working
either way.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from vision.preview.region import BoardGeometry
from vision.preview.stillness import SCAN, WATCHING, StillBoard, StillnessConfig

log = logging.getLogger("beachscore.station")

#: The store's setting: ``on`` (the default) or ``off``.
AUTO_SCAN_SETTING = "auto_scan"
SCANNING, OFF = "scanning", "off"
#: Seconds to wait after the camera failed to give a preview frame before trying again.
CAMERA_RETRY_S = 2.0


def board_geometry(calibration) -> BoardGeometry | None:
    """The board's geometry of a loaded calibration, None when it has no board position."""
    H = getattr(calibration, "H_px_from_mm", None)
    size = getattr(calibration, "image_size", None)
    board_mm = (getattr(calibration, "profile", None) or {}).get("board_mm")
    if H is None or size is None or board_mm is None:
        return None
    return BoardGeometry(H, tuple(size), tuple(float(v) for v in board_mm), getattr(calibration, "lens", None))


class BoardWatcher:
    """The preview's watcher of one station.

    Args:
        station: the :class:`~beachscore.station.station.Station` (its ``camera``, ``calibration``,
            ``busy``, ``request_scan``, ``events``, ``store``, ``_camera_lock``).
        interval_s: seconds between two preview frames (0.1: ten a second).
        config: the still-board check's thresholds.
        clock: the frames' time, seconds (``time.monotonic``; tests give their own).
    Attributes:
        state: what it sees now (see the module).
        problem: why it is off, or None.
        scans: how many scans it started.
    """

    def __init__(self, station, *, interval_s: float = 0.1, config: StillnessConfig | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.station = station
        self.interval_s = interval_s
        self.config = config or StillnessConfig()
        self.clock = clock
        self.state = OFF
        self.problem: str | None = None
        self.scans = 0
        self._enabled: bool | None = None
        self._check: StillBoard | None = None
        self._calibration = None
        self._saw_scan = False
        self._refused = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- the setting -------------------------------------------------------------------------
    @property
    def enabled(self) -> bool:
        """Whether the setting lets it scan by itself (default on; read from the store once)."""
        if self._enabled is None:
            self._enabled = self.station.store.get_setting(AUTO_SCAN_SETTING, "on") != "off"
        return self._enabled

    def set_enabled(self, on: bool) -> None:
        """Turn scanning by itself on or off (kept in the store). Raises StoreError when it cannot be kept."""
        self.station.store.set_setting(AUTO_SCAN_SETTING, "on" if on else "off")
        self._enabled = bool(on)
        if not on:
            self._say(OFF, "scanning by itself is turned off")

    def status(self) -> dict:
        """``{"enabled", "state", "problem"}`` for the page."""
        return {"enabled": self.enabled, "state": self.state, "problem": self.problem}

    # -- the thread ----------------------------------------------------------------------------
    def start(self) -> None:
        """Start watching on its own thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="board-watcher", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread and wait for it. Safe twice."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            t0 = time.monotonic()
            try:
                pause = self.step()
            except Exception:  # noqa: BLE001 - the watcher must never take the station down
                log.exception("board watcher")
                self._say(OFF, "the board watcher failed; see the station's log")
                pause = CAMERA_RETRY_S
            self._stop.wait(max(pause - (time.monotonic() - t0), 0.0))

    # -- one step ------------------------------------------------------------------------------
    def step(self) -> float:
        """Take one preview frame and act on it; returns the seconds to wait before the next."""
        st = self.station
        check = self._ready()
        if check is None:
            return self.interval_s * 5
        if st.busy:
            if not self._saw_scan:  # the board as scanned becomes the reference
                self._saw_scan = True
                check.rescan()
                frame = self._frame()
                if frame is not None:
                    check.update(frame, self.clock())
            self._say(SCANNING)
            return self.interval_s
        self._saw_scan = False
        frame = self._frame()
        if frame is None:
            return CAMERA_RETRY_S
        try:
            preview = check.update(frame, self.clock())
        except ValueError as err:  # a frame of another kind, a preview the board is not in
            self._say(OFF, str(err))
            return CAMERA_RETRY_S
        if preview.state != SCAN:
            # a refusal stays said while the board stays as it was refused
            self._say(preview.state, self.problem if self._refused and preview.state == self.state else None)
            self._refused = self._refused and preview.state == self.state
            return self.interval_s
        answer = st.request_scan("auto")
        if answer.accepted:
            self.scans += 1
            self._saw_scan = True  # the frame that triggered it is the reference
            self._say(SCANNING)
        else:  # the check took this board as its reference: one refusal per change
            log.info("board still but no scan: %s", answer.reason)
            self._say(WATCHING, f"the board changed but was not scanned: {answer.reason}")
            self._refused = True
        return self.interval_s

    def _ready(self) -> StillBoard | None:
        """The check for the station's calibration, or None (and the reason said) when off."""
        st = self.station
        if st.camera is None or not self.enabled:
            self._say(OFF, "no camera" if st.camera is None else "scanning by itself is turned off")
            if self._check is not None:
                self._check.rescan()  # turned on again, it starts from the board as it is then
            return None
        if st.calibration is not self._calibration:
            self._calibration = st.calibration
            geometry = board_geometry(st.calibration)
            self._check = StillBoard(geometry, self.config) if geometry is not None else None
        if self._check is None:
            self._say(OFF, "no calibration with the board's position")
        return self._check

    def _frame(self):
        """One preview frame, or None when the camera failed (said on the page)."""
        try:
            with self.station._camera_lock:
                return self.station.camera.preview()
        except Exception as exc:  # noqa: BLE001 - any camera failure
            self._say(OFF, f"the camera gives no preview: {getattr(exc, 'message', exc)}")
            return None

    def _say(self, state: str, problem: str | None = None) -> None:
        """Tell the pages when what it sees changes."""
        if state == self.state and problem == self.problem:
            return
        self.state, self.problem = state, problem
        self.station.events.publish("board", {"state": state, "problem": problem})
