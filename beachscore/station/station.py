"""The table station: button or page → capture → scan → store → push to every open page.

A scan runs on the station's one scan thread (started once, reused: memory stays flat however
many scans), one at a time; a request while one runs is refused (a button press then is ignored,
not queued), so the web server never waits for the camera or the pipeline. Every outcome reaches
the page and the LED: a ``scan`` event (``status`` ok or error with its ``error`` code and
``message``: ``disk-full`` too), ``scan-annotated`` once its annotated picture is stored (drawn
after the score is out, off the scan's critical path), ``scan-finished`` once the scan thread is
free again, ``game-over`` when a game ends (:meth:`Station.finish_game`, the
one place a game ends), ``game-over-failed`` when its final scan did not read.
The station starts without a camera or a calibration and says why on the page.

This module knows nothing of the web page or the server: ``web`` calls it, ``beachscore.serving``
builds it and wires the two together. The scan itself is :mod:`beachscore.station.scanning`; what
is particular to a game lives beside it (:mod:`~beachscore.station.seashells`,
:mod:`~beachscore.station.plazing`, a new game's set-up in :mod:`~beachscore.station.setups`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
from dataclasses import dataclass
from typing import Callable

import scoring
from beachscore import pipeline
from beachscore.errors import BadInputError
from beachscore.games import READERS
from beachscore.station import plazing, seashells, setups
from beachscore.station.encoding import encode
from beachscore.station.events import EventBus
from beachscore.station.following import GameFollowing
from beachscore.station.scanning import ScanFlow
from beachscore.station.store import Store, StoreError
from beachscore.station.wording import for_the_page
from beachscore.station.watcher import BoardWatcher
from vision.image import decode as image_io

log = logging.getLogger("beachscore.station")

CALIBRATION_SETTING = "calibration_dir"


@dataclass(frozen=True)
class ScanRequest:
    """Answer to :meth:`Station.request_scan`: ``accepted``, else ``reason`` says why not;
    ``ended``: the game ended at once, with no scan to wait for."""

    accepted: bool
    reason: str | None = None
    ended: bool = False


def game_over_text(game: dict) -> str:
    """Why a finished game takes no more scans, and what to do instead (shown on the page and for
    a button press): its final score stays as it was at Game over.

    >>> game_over_text({"id": 3})
    'game 3 is over and keeps its final score; set up a new game (Game page) to scan again'
    """
    return f"game {game['id']} is over and keeps its final score; set up a new game (Game page) to scan again"


def _default_scanner(image, cal, setup):
    return pipeline.scan_image(image, cal, setup)


def _default_calibrator(calibration_json, out_dir):
    return pipeline.calibrate(calibration_json, out_dir)


class Station(ScanFlow, GameFollowing):
    """Everything the table does, independent of the web page.

    Args:
        store: the data folder's :class:`~beachscore.station.store.Store`.
        camera: a :class:`hardware.camera.Camera`, or None when there is none.
        camera_problem: why there is no camera (shown on the page).
        calibration: a loaded ``calibration.store.Calibration``, or None.
        calibration_problem: why there is no calibration.
        scanner: ``(image_bgr, calibration, setup) -> ScanResult`` (``.to_json()``, ``.annotate()``);
            default the real pipeline. Tests inject fakes.
        scorer: ``(state, setup) -> score dict``; raises on an invalid state. Default the pipeline's.
        calibrator: ``(calibration_json_path, out_dir) -> Calibration``. Default the pipeline's.
        light: a :class:`hardware.led.StatusLight` or None.
        events: the :class:`~beachscore.station.events.EventBus` pages listen to (made when None).
    """

    def __init__(self, store: Store, *, camera=None, camera_problem: str | None = None, calibration=None,
                 calibration_problem: str | None = None, scanner: Callable | None = None,
                 scorer: Callable | None = None, calibrator: Callable | None = None, light=None,
                 events: EventBus | None = None):
        self.store = store
        self.camera = camera
        self.camera_problem = camera_problem if camera is None else None
        if camera is None and not self.camera_problem:
            self.camera_problem = "no camera configured"
        self.calibration = calibration
        self.calibration_problem = calibration_problem if calibration is None else None
        if calibration is None and not self.calibration_problem:
            self.calibration_problem = "not calibrated yet"
        self.scanner = scanner or _default_scanner
        self.scorer = scorer or scoring.score
        self.calibrator = calibrator or _default_calibrator
        self.light = light
        self.events = events or EventBus()
        self.button = None
        self.button_problem: str | None = None
        self.light_problem: str | None = None
        #: called on the scan thread after every scan (serving: give freed memory back)
        self.after_scan: Callable[[], object] | None = None
        self._busy = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        self._camera_lock = threading.Lock()
        self._image_work = threading.Lock()
        self._answering = threading.Lock()
        #: scans by itself when the board is still (started by :meth:`watch`)
        self.watcher = BoardWatcher(self)

    # -- status -----------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """True while a scan runs."""
        return self._busy.locked()

    def status(self) -> dict:
        """What the page shows at the top: camera, calibration, button, store, busy, current game.

        ``store``: ``{"ok", "code", "problem"}`` — ``read-only`` (viewing mode),
        ``data-folder-missing`` or ``disk-full`` (the last write failed for want of space).
        ``last_event_id``: the last event published before the rest was read, so a page can tell
        a ``board`` event newer than this answer's ``auto_scan``.
        """
        last_event_id = self.events.last_id
        game = self.store.current_game()
        problem = self.store.problem()
        return {
            "busy": self.busy,
            "store": {"ok": problem is None, "code": problem.code if problem else None,
                      "problem": problem.message if problem else None,
                      "viewing_only": self.store.read_only is not None},
            "camera": {"ok": self.camera is not None, "name": getattr(self.camera, "name", None),
                       "problem": for_the_page(self.camera_problem)},
            "calibration": {"ok": self.calibration is not None, "game": getattr(self.calibration, "game", None),
                            "problem": for_the_page(self.calibration_problem)},
            "button": {"ok": self.button is not None or self.button_problem is None, "fitted": self.button is not None,
                       "problem": self.button_problem},
            "light": {"ok": self.light_problem is None, "fitted": self.light is not None, "problem": self.light_problem},
            "game": game,
            "auto_scan": self.watcher.status(),
            "last_event_id": last_event_id,
        }

    # -- scanning ---------------------------------------------------------------------------
    def request_scan(self, source: str = "web", *, final: bool = False, player: str | None = None) -> ScanRequest:
        """Start a scan on the worker thread unless one runs or something is missing.

        In a Seashells game with players, each scan reads one player's mat: ``player`` says whose;
        without it the scan is for the next player whose mat is not read yet (what the button
        does), and it is refused when every mat is read (the page then asks whose mat to rescan).

        Args:
            source: who asked (``button``, ``web``, ``auto``: the board watcher), kept with the scan.
            final: mark the current game over with this scan's score ("game over" long press).
            player: whose Seashells mat this scan reads (ignored in other games).
        Returns:
            ScanRequest(accepted, reason).
        """
        answer = self._start_scan(source, final, player)
        if not answer.accepted and source == "button":
            self.events.publish("scan-refused", {"source": source, "reason": answer.reason})
            if self.light and not self.busy:
                self.light.error()
        return answer

    def _start_scan(self, source: str, final: bool, player: str | None) -> ScanRequest:
        if self.camera is None:
            return ScanRequest(False, f"no camera: {self.camera_problem}")
        problem = self.store.problem()
        if problem is not None and problem.code != "disk-full":  # a full disk may have room again
            return ScanRequest(False, problem.message)
        if self.calibration is None:
            return ScanRequest(False, f"no calibration: {self.calibration_problem}")
        game = self.store.current_game()
        if game and game["ended_at"]:
            return ScanRequest(False, game_over_text(game))
        if game and game["game"] != self.calibration.game:
            return ScanRequest(False, f"the calibration is for {self.calibration.game} but the game set up is "
                               f"{game['game']}: calibrate for {game['game']} or start a {self.calibration.game} game")
        if not self._busy.acquire(blocking=False):
            return ScanRequest(False, "a scan is already running")
        players = self.mat_players(game)
        if not players:
            player = None
        elif player is None:
            player = self.next_mat()
            if player is None:
                self._busy.release()
                return ScanRequest(False, "every player's mat is read; choose whose mat to scan again on the page")
        elif player not in players:
            self._busy.release()
            return ScanRequest(False, f"{str(player)[:40]!r} is not a player of this game ({', '.join(players)})")
        self._idle.clear()
        self.events.publish("scan-started", {"source": source, "player": player, "final": final})
        if self.light:
            self.light.busy()
        if self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._work, name="scan", daemon=True)
            self._worker.start()
        self._jobs.put((source, final, player, game["id"] if game else None))  # the game asked for, not a later one
        return ScanRequest(True)

    def watch(self) -> None:
        """Start watching the camera's preview, to scan by itself once the board changed and is still
        (:mod:`beachscore.station.watcher`; its setting :meth:`set_auto_scan`)."""
        self.watcher.start()

    def set_auto_scan(self, on: bool) -> None:
        """Turn scanning by itself on or off; kept in the store. Raises StoreError when it cannot be kept."""
        self.watcher.set_enabled(on)

    def end_game(self, source: str = "button") -> ScanRequest:
        """Long press (or the page's "Game over", ``source="web"``): take a final scan and mark the
        current game over with it; the scan is recorded as from ``source``.

        A Seashells game whose every mat is read needs no more photo: it is marked over with its
        latest mat scan. Otherwise the final scan reads the next missing mat.
        """
        game = self.store.current_game()
        if game and game["ended_at"]:
            return ScanRequest(False, game_over_text(game))
        if self.mat_players(game) and self.next_mat() is None:
            if not self._busy.acquire(blocking=False):
                return ScanRequest(False, "a scan is already running")
            try:
                final = max(m["scan_id"] for m in self.mats(game).values())
                self.finish_game(game["id"], final)
            except StoreError as err:
                return ScanRequest(False, err.message)
            finally:
                self._busy.release()
            return ScanRequest(True, ended=True)
        return self.request_scan(source, final=True)

    def shown_scan(self, game: dict | None) -> dict | None:
        """The scan the live page shows for ``game``: a finished game's final scan (its final score),
        else the game's latest scan; with no game (or none of its scans yet) the station's latest.
        """
        if game is not None and game["ended_at"] and game.get("final_scan_id") is not None:
            try:
                return self.store.scan(game["final_scan_id"])
            except StoreError:
                pass
        scans = self.store.scans(game_id=game["id"], limit=1) if game is not None else []
        return scans[0] if scans else self.store.latest_scan()

    def finish_game(self, game_id: int, scan_id: int) -> None:
        """Mark game ``game_id`` over with its final scan and tell every page (``game-over``).

        The one place a game ends (long press, the page's "Game over", the last Seashells mat):
        whatever must happen at the end of a game hooks in here.
        Raises:
            StoreError: the store cannot be written (the game stays open).
        A followed game whose totals need the players' answers stays open and asks them
        (``game-questions``, :meth:`answer_questions` ends it).
        """
        if self.ask_at_end(game_id, scan_id):
            return
        self.store.end_game(game_id, scan_id)
        self.events.publish("game-over", {"game_id": game_id, "scan_id": scan_id})

    # -- Seashells: one scan per player's mat -----------------------------------------------
    @staticmethod
    def mat_players(game: dict | None) -> list[str]:
        """The players of a Seashells game whose mats the station reads one per scan ([] otherwise)."""
        return seashells.mat_players(game)

    def mats(self, game: dict) -> dict[str, dict]:
        """The latest readable scan of each player's mat in a Seashells game (:func:`seashells.latest_mats`)."""
        return seashells.latest_mats(self.store, game)

    def next_mat(self) -> str | None:
        """The first player of the current Seashells game whose mat is not read yet (None: all read)."""
        return seashells.next_mat(self.store, self.store.current_game())

    def seashells_table(self, game: dict | None) -> dict | None:
        """The combined Seashells score of a game, scored by the station's scorer (:func:`seashells.table`)."""
        return seashells.table(self.store, game, self.scorer)

    def wait_idle(self, timeout_s: float = 30.0) -> bool:
        """Block until no scan runs (tests and shutdown). True when idle in time."""
        return self._idle.wait(timeout_s) and not self.busy

    # -- games and corrections --------------------------------------------------------------
    def new_game(self, game: str, setup: dict | None = None, display: dict | None = None) -> int:
        """Start a new game with its setup.json (and page-only ``display`` facts); returns its id.

        Raises:
            BadInputError: ``unknown-game``; ``invalid-setup`` listing what the rules engine finds
                wrong with the set-up (:meth:`setup_problems`).
        """
        if game not in READERS:
            raise BadInputError("unknown-game", f"unknown game {game!r}; expected one of {', '.join(READERS)}")
        problems = self.setup_problems(game, setup or {})
        if problems:
            board = "for a {}x{} board ".format(*self.plazing_grid()) if game == "plazing" else ""
            raise BadInputError("invalid-setup", f"the {game} set-up {board}does not fit: " + "; ".join(problems))
        game_id = self.store.new_game(game, setup or {}, display or {})
        self.events.publish("game", {"game_id": game_id})
        return game_id

    def plazing_grid(self) -> tuple[int, int]:
        """(rows, cols) of the Plażing board: the calibration's grid when it is a sane Plażing one,
        else the boxed board's (:func:`beachscore.station.plazing.grid`)."""
        return plazing.grid(self.calibration)

    def setup_problems(self, game: str, setup: dict) -> list[str]:
        """What the rules engine finds wrong with a new game's set-up (empty when it fits).

        The set-up is checked with ``scoring.problems`` on an empty board of the game (for Plażing
        the calibrated grid), so the web refuses what a scan with this set-up would refuse
        (:func:`beachscore.station.setups.problems`).

        >>> from beachscore.station.store import Store; import tempfile
        >>> st = Station(Store(tempfile.mkdtemp()))
        >>> st.setup_problems("plazing", {"terrain": ["###"]})[0]
        'terrain: 1 rows, the state has 12'
        >>> st.setup_problems("strand-unter", {}); st.close()
        []
        """
        return setups.problems(game, setup, self.calibration)

    def setup_of_scan(self, scan: dict) -> dict | None:
        if scan.get("game_id") is None:
            return None
        game = self.store.game(scan["game_id"])
        return game["setup"] if game["game"] == scan.get("game") else None

    def rescore(self, state: dict, setup: dict | None = None) -> dict:
        """Score an edited state without saving it. Raises the scorer's error for an invalid state."""
        if not isinstance(state, dict):
            raise BadInputError("invalid-state", "the state must be a JSON object")
        return self.scorer(state, setup)

    def _correctable(self, scan_id: int, state: dict) -> dict:
        """The scan a correction is for, after checking the state can correct it.

        Raises:
            StoreError: ``not-found``.
            BadInputError: ``scan-failed`` (no reading), ``invalid-state`` (not an object, another game).
        """
        scan = self.store.scan(scan_id)
        if scan["status"] != "ok":
            raise BadInputError("scan-failed", f"scan {scan_id} has no reading to correct")
        if not isinstance(state, dict):
            raise BadInputError("invalid-state", "the state must be a JSON object")
        if scan.get("game") and state.get("game", scan["game"]) != scan["game"]:
            raise BadInputError("invalid-state", f"scan {scan_id} is a {scan['game']} scan, not {state.get('game')!r}")
        return scan

    def rescore_scan(self, scan_id: int, state: dict) -> dict:
        """Score an edited state of scan ``scan_id`` without saving it (the correction editor's preview).

        Refuses what :meth:`correct` refuses, so a preview never shows a score that cannot be saved.
        Raises:
            StoreError: ``not-found``; BadInputError: as :meth:`correct`; the scorer's error.
        """
        scan = self._correctable(scan_id, state)
        return self.rescore(state, self.correction_setup(scan, state, self.setup_of_scan(scan)))

    def correct(self, scan_id: int, state: dict, note: str = "") -> dict:
        """Save a manual correction of a scan as a new revision (the machine reading is kept).

        Returns:
            ``{"revision_id": int, "score": dict}``.
        Raises:
            StoreError: ``not-found``; the scorer's error for an invalid state.
        """
        scan = self._correctable(scan_id, state)
        score = self.rescore(state, self.correction_setup(scan, state, self.setup_of_scan(scan)))
        rev = self.store.add_revision(scan_id, state, score, note)
        self.accept_correction(scan, state, rev)
        self.events.publish("revision", {"scan_id": scan_id, "revision_id": rev})
        return {"revision_id": rev, "score": score}

    # -- calibration ------------------------------------------------------------------------
    def take_photo(self, kind: str = "calibration") -> int:
        """Capture one photo now and keep it losslessly (PNG: it becomes the calibration's reference
        for colours); returns its photo id.

        Raises:
            BadInputError: ``no-camera``, or the camera's error.
        """
        if self.camera is None:
            raise BadInputError("no-camera", f"no camera: {self.camera_problem}")
        with self._camera_lock:
            image = self.camera.capture()
        return self.store.add_photo(encode(image, ".png"), ext=".png", kind=kind)

    @contextlib.contextmanager
    def image_work(self):
        """One large-photo job at a time — an upload's check, a calibration: on a large photo each
        takes hundreds of MB (a 64 Mpx JPEG decodes into 192 MB), too much twice on a Pi Zero 2 W.

        Raises:
            BadInputError: ``busy`` while another one runs (the web answers 409).
        """
        if not self._image_work.acquire(blocking=False):
            raise BadInputError("busy", "the station is reading another photo or calibrating; try again in a moment")
        try:
            yield
        finally:
            self._image_work.release()

    def add_upload(self, data: bytes, kind: str = "calibration") -> int:
        """Keep an uploaded photo; returns its photo id. JPEG and PNG are kept byte for byte, checked
        by decoding them at 1/8 size (a JPEG then needs no full-size pixel buffer, a PNG about half
        of the memory); other formats (BMP, TIFF, WebP) are decoded and kept as PNG.

        Raises:
            BadInputError: not a readable photo (``vision.image.decode.decode_image``), ``busy``.
            StoreError: ``disk-full``, ``read-only``, ``data-folder-missing``.
        """
        kept_as_sent = {b"\xff\xd8\xff": ".jpg", b"\x89PNG\r\n\x1a\n": ".png"}
        ext = next((e for magic, e in kept_as_sent.items() if data.startswith(magic)), None)
        with self.image_work():
            if ext is not None:
                image_io.decode_image(data, reduce=8)
                return self.store.add_photo(data, ext=ext, kind=kind)
            return self.store.add_photo(encode(image_io.decode_image(data), ".png"), ext=".png", kind=kind)

    def use_calibration(self, cal, folder: str | None = None) -> None:
        """Switch to a calibration (and remember its folder for the next start)."""
        self.calibration = cal
        self.calibration_problem = None
        if folder:
            self.store.set_setting(CALIBRATION_SETTING, os.path.abspath(folder))
        self.events.publish("calibration", {"game": cal.game})

    def close(self) -> None:
        """Stop: the watcher, wait for a running scan, release the button, light, camera and store. Safe twice."""
        self.watcher.stop()
        self.wait_idle(30)
        if self._worker is not None:
            self._jobs.put(None)
            self._worker.join(5)
            self._worker = None
        for part in (self.button, self.light, self.camera):
            if part is not None:
                try:
                    part.close()
                except Exception:  # noqa: BLE001
                    log.exception("closing %r", part)
        self.button = self.light = self.camera = None
        self.store.close()

