"""The table station: button or page → capture → scan → store → push to every open page.

A scan runs on the station's one scan thread (started once, reused: memory stays flat however
many scans), one at a time; a request while one runs is refused (a button press then is ignored,
not queued), so the web server never waits for the camera or the pipeline. Every outcome reaches
the page and the LED: a ``scan`` event (``status`` ok or error with its ``error`` code and
``message``: ``disk-full`` too), ``scan-annotated`` once its annotated picture is stored (drawn
after the score is out, off the scan's critical path), ``game-over`` when a game ends (:meth:`Station.finish_game`, the
one place a game ends), ``game-over-failed`` when its final scan did not read.
The station starts without a camera or a calibration and says why on the page.

This module knows nothing of the web page or the server: ``web`` calls it, ``beachscore.serving``
builds it and wires the two together.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import queue
import shutil
import threading
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

import scoring
from beachscore.errors import BadInputError, BeachscoreError
from beachscore.station.events import EventBus
from beachscore.station.store import Store, StoreError
from beachscore.station.store.db import WRITE_PROBLEMS, write_problem

log = logging.getLogger("beachscore.station")

#: JPEG quality of stored photos (OpenCV's 0–100 scale).
JPEG_QUALITY = 92
#: JPEG quality of the annotated picture (drawn lines and labels; a person looks at it on a phone).
ANNOTATED_JPEG_QUALITY = 85
#: Longest side of the annotated picture (px): larger readings are shrunk before encoding
#: (a 12 MP PNG took 320 ms and 6.8 MB; scripts/bench_station_scan.py measures it).
ANNOTATED_MAX_SIDE_PX = 1920
CALIBRATION_SETTING = "calibration_dir"
#: The Plażing grid (rows, cols) of the boxed board, used when no Plażing calibration says otherwise.
PLAZING_GRID = (12, 20)
#: Largest grid side the rules engine accepts (``scoring.plazing``).
MAX_GRID_SIDE = 200
#: An empty board of each game: a new game's set-up is checked against it by the rules engine.
EMPTY_STATES = {
    "strand-unter": {"game": "strand-unter", "sea_front": 1, "grooves": []},
    "plazing": {"game": "plazing", "rows": PLAZING_GRID[0], "cols": PLAZING_GRID[1]},
    "seashells": {"game": "seashells", "players": []},
    "sand-castles": {"game": "sand-castles", "lanes": {}},
    "grid": {"game": "grid", "rows": 1, "cols": 1, "cells": [["empty"]]},
}
#: Set-up fields of a Seashells game passed on to each mat's scan (with ``player``, whose mat it is).
SEASHELLS_SCAN_KEYS = ("scoring", "sun", "secrets")


@dataclass(frozen=True)
class ScanRequest:
    """Answer to :meth:`Station.request_scan`: ``accepted``, else ``reason`` says why not;
    ``ended``: the game ended at once, with no scan to wait for."""

    accepted: bool
    reason: str | None = None
    ended: bool = False


def _default_scanner(image, cal, setup):
    from beachscore.pipeline import scan_image

    return scan_image(image, cal, setup)


def _default_calibrator(calibration_json, out_dir):
    from beachscore.pipeline import calibrate

    return calibrate(calibration_json, out_dir)


def encode(image_bgr: np.ndarray, ext: str, quality: int = JPEG_QUALITY) -> bytes:
    """Encode a BGR uint8 (H, W, 3) image as ``.jpg`` (``quality`` 0–100) or ``.png`` bytes."""
    import cv2

    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if ext == ".jpg" else []
    ok, buf = cv2.imencode(ext, image_bgr, params)
    if not ok:
        raise OSError(f"cannot encode a {image_bgr.shape} image as {ext}")
    return buf.tobytes()


def encode_annotated(image_bgr: np.ndarray) -> bytes:
    """The annotated picture as JPEG, shrunk to at most :data:`ANNOTATED_MAX_SIDE_PX` (area averaging)."""
    import cv2

    h, w = image_bgr.shape[:2]
    k = ANNOTATED_MAX_SIDE_PX / max(h, w)
    if k < 1:
        image_bgr = cv2.resize(image_bgr, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    return encode(image_bgr, ".jpg", ANNOTATED_JPEG_QUALITY)


class Station:
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
            self.calibration_problem = "not calibrated yet: use the calibration page"
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

    # -- status -----------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """True while a scan runs."""
        return self._busy.locked()

    def status(self) -> dict:
        """What the page shows at the top: camera, calibration, button, store, busy, current game.

        ``store``: ``{"ok", "code", "problem"}`` — ``read-only`` (viewing mode),
        ``data-folder-missing`` or ``disk-full`` (the last write failed for want of space).
        """
        game = self.store.current_game()
        problem = self.store.problem()
        return {
            "busy": self.busy,
            "store": {"ok": problem is None, "code": problem.code if problem else None,
                      "problem": problem.message if problem else None,
                      "viewing_only": self.store.read_only is not None},
            "camera": {"ok": self.camera is not None, "name": getattr(self.camera, "name", None),
                       "problem": self.camera_problem},
            "calibration": {"ok": self.calibration is not None,
                            "game": getattr(self.calibration, "game", None), "problem": self.calibration_problem},
            "button": {"ok": self.button is not None or self.button_problem is None, "fitted": self.button is not None,
                       "problem": self.button_problem},
            "light": {"ok": self.light_problem is None, "fitted": self.light is not None, "problem": self.light_problem},
            "game": game,
            "last_event_id": self.events.last_id,
        }

    # -- scanning ---------------------------------------------------------------------------
    def request_scan(self, source: str = "web", *, final: bool = False, player: str | None = None) -> ScanRequest:
        """Start a scan on the worker thread unless one runs or something is missing.

        In a Seashells game with players, each scan reads one player's mat: ``player`` says whose;
        without it the scan is for the next player whose mat is not read yet (what the button
        does), and it is refused when every mat is read (the page then asks whose mat to rescan).

        Args:
            source: who asked (``button``, ``web``), kept with the scan.
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

    def _work(self) -> None:
        """The scan thread: runs queued scans one by one until :meth:`close` sends None."""
        while (job := self._jobs.get()) is not None:
            self._scan_job(*job)

    def end_game(self) -> ScanRequest:
        """Long press: take a final scan and mark the current game over with it.

        A Seashells game whose every mat is read needs no more photo: it is marked over with its
        latest mat scan. Otherwise the final scan reads the next missing mat.
        """
        game = self.store.current_game()
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
        return self.request_scan("button", final=True)

    def finish_game(self, game_id: int, scan_id: int) -> None:
        """Mark game ``game_id`` over with its final scan and tell every page (``game-over``).

        The one place a game ends (long press, the page's "Game over", the last Seashells mat):
        whatever must happen at the end of a game hooks in here.
        Raises:
            StoreError: the store cannot be written (the game stays open).
        """
        self.store.end_game(game_id, scan_id)
        self.events.publish("game-over", {"game_id": game_id, "scan_id": scan_id})

    # -- Seashells: one scan per player's mat -----------------------------------------------
    @staticmethod
    def mat_players(game: dict | None) -> list[str]:
        """The players of a Seashells game whose mats the station reads one per scan ([] otherwise)."""
        if not game or game["game"] != "seashells":
            return []
        players = game["setup"].get("players")
        return [p for p in players if isinstance(p, str)] if isinstance(players, list) else []

    def mats(self, game: dict) -> dict[str, dict]:
        """The latest readable scan of each player's mat in a Seashells game.

        Returns:
            ``{player: {"scan_id", "created_at", "corrected", "state"}}``; ``state`` is the scan's
            current state (latest correction, else the machine reading) with the mat named after
            the player. Players without a read mat are absent.
        """
        players = self.mat_players(game)
        out: dict[str, dict] = {}
        for scan in self.store.scans(game_id=game["id"], limit=1000):  # newest first
            who = (scan.get("extra") or {}).get("mat_player")
            if who not in players or who in out or scan["status"] != "ok" or scan.get("game") != "seashells":
                continue
            state = copy.deepcopy(scan["current_state"])
            if isinstance(state, dict) and isinstance(state.get("players"), list) and len(state["players"]) == 1 \
                    and isinstance(state["players"][0], dict):
                state["players"][0]["player"] = who
            out[who] = {"scan_id": scan["id"], "created_at": scan["created_at"], "corrected": bool(scan["revisions"]),
                        "state": state}
        return out

    def next_mat(self) -> str | None:
        """The first player of the current Seashells game whose mat is not read yet (None: all read)."""
        game = self.store.current_game()
        read = self.mats(game) if game else {}
        return next((p for p in self.mat_players(game) if p not in read), None)

    def seashells_table(self, game: dict | None) -> dict | None:
        """The combined Seashells score of a game: every player's latest mat merged (``merge_mats``)
        with the secret cards and the Sun shell of the set-up.

        Returns:
            None for another game; else ``{"players", "mats": {player: {"scan_id", "created_at",
            "corrected"}}, "missing": [players], "next": player or None, "complete": bool,
            "score": the Seashells score or None, "problems": [str]}``. With mats missing the score
            covers the players read so far (the page says it is provisional).
        """
        players = self.mat_players(game)
        if not players:
            return None
        import scoring
        from scoring.seashells_mats import merge_mats

        mats = self.mats(game)
        missing = [p for p in players if p not in mats]
        out = {"players": players, "missing": missing, "next": missing[0] if missing else None,
               "complete": not missing, "score": None, "problems": [],
               "mats": {p: {k: m[k] for k in ("scan_id", "created_at", "corrected")} for p, m in mats.items()}}
        if not mats:
            return out
        setup = {k: game["setup"][k] for k in SEASHELLS_SCAN_KEYS if k in game["setup"]}
        try:
            merged = merge_mats([mats[p]["state"] for p in players if p in mats],
                                {k: setup[k] for k in ("scoring", "sun") if k in setup})
            out["problems"] = scoring.problems(merged, setup)
            if not out["problems"]:
                out["score"] = self.scorer(merged, setup)
        except (BeachscoreError, ValueError) as err:  # InvalidStateError is a ValueError
            out["problems"] = out["problems"] or [getattr(err, "message", None) or str(err)]
        return out

    def wait_idle(self, timeout_s: float = 30.0) -> bool:
        """Block until no scan runs (tests and shutdown). True when idle in time."""
        return self._idle.wait(timeout_s) and not self.busy

    def _scan_job(self, source: str, final: bool, player: str | None = None, game_id: int | None = None) -> None:
        try:
            scan_id, problem = self._scan_once(source, player, game_id)
            if final:
                self._end_with(game_id, scan_id, problem)
        except Exception as exc:  # noqa: BLE001 - a failed scan must never kill the station
            log.exception("scan failed")
            self._report(None, "internal-error", f"the scan failed ({type(exc).__name__}); see the station's log")
            if final:
                self._end_with(game_id, None, "the final scan failed")
        finally:
            if self.after_scan is not None:
                self.after_scan()
            self._busy.release()
            self._idle.set()

    def _end_with(self, game_id: int | None, scan_id: int | None, problem: str | None) -> None:
        """After a final scan of game ``game_id``: end that game with it, or say why it stays open."""
        game = self.store.game(game_id) if game_id is not None else None
        if game is None or game["ended_at"]:
            return
        if problem is None and scan_id is not None:
            try:
                self.finish_game(game["id"], scan_id)
                return
            except StoreError as err:
                problem = err.message
        self.events.publish("game-over-failed", {
            "game_id": game["id"], "scan_id": scan_id,
            "message": f"the game is still open: {problem}. Fix it and press Game over again."})

    def _scan_once(self, source: str, player: str | None = None,
                   game_id: int | None = None) -> tuple[int | None, str | None]:
        """One scan of game ``game_id`` (None: no game), stored. Returns (scan id or None when
        nothing could be stored, problem or None)."""
        t0 = time.perf_counter()
        game = self.store.game(game_id) if game_id is not None else None
        timing = {}
        mat = {"mat_player": player} if player else {}
        try:
            with self._camera_lock:
                image = self.camera.capture()
        except BeachscoreError as err:
            return self._failed(game_id, source, None, err, timing, mat), err.message
        timing["capture"] = _ms(t0)
        t1 = time.perf_counter()
        jpeg = encode(image, ".jpg")
        timing["encode"] = _ms(t1)
        cal = self.calibration
        setup = self._setup_for(game, cal, player)
        try:
            result = self.scanner(image, cal, setup)
        except BeachscoreError as err:
            return self._failed(game_id, source, jpeg, err, timing, mat), err.message
        doc = result.to_json()
        extra = {"registration": doc.pop("registration", None), **mat}
        H = getattr(getattr(result, "registration", None), "H_px_from_mm", None)
        if H is not None:
            extra["H_px_from_mm"] = np.asarray(H, dtype=float).tolist()
            # the picture H maps onto: the reader's image, which the annotated picture is drawn on
            # (then shrunk); pages scale H to the picture they show
            image_size = _image_size(result)
            if image_size:
                extra["H_image_size"] = image_size
            lens = getattr(cal, "lens", None)
            if lens is not None:  # H belongs to the undistorted image; the stored photo is as taken
                extra["lens"] = lens.to_json()
        if game and cal is not None and game["game"] != cal.game:
            doc.setdefault("warnings", []).append(
                f"the calibration is for {cal.game} but the game set up is {game['game']}")
        try:
            scan_id = self.store.add_scan(game_id=game_id, source=source, photo_jpeg=jpeg, result=doc,
                                          timing_ms=timing, extra=extra)
        except StoreError as err:
            if err.code not in WRITE_PROBLEMS:
                raise
            return self._failed(game_id, source, None, err, timing, mat), err.message
        log.info("scan %d: %s, confidence %.2f, %.0f ms", scan_id, doc.get("game"), doc.get("confidence") or 0,
                 _ms(t0))
        if self.light:
            self.light.ok()
        self.events.publish("scan", {"scan_id": scan_id, "status": "ok", **mat})
        self._annotate(scan_id, result)  # after the score is out: the picture is not on the critical path
        return scan_id, None

    def _annotate(self, scan_id: int, result) -> None:
        """Draw the reading on the photo, store it with the scan, tell the pages (``scan-annotated``)."""
        t0 = time.perf_counter()
        try:
            picture = encode_annotated(result.annotate())
            self.store.attach_annotated(scan_id, picture, {"annotate": _ms(t0)})
        except Exception as exc:  # noqa: BLE001 - the reading is kept without its picture
            log.warning("annotated picture of scan %d not kept: %s", scan_id, exc)
            return
        self.events.publish("scan-annotated", {"scan_id": scan_id})

    def _failed(self, game_id, source, jpeg, err: BeachscoreError, timing, extra: dict | None = None) -> int | None:
        """Keep a failed scan (with its photo when there is one) and report it; None when nothing could be kept."""
        scan_id = None
        if not (isinstance(err, StoreError) and err.code in WRITE_PROBLEMS):
            try:
                scan_id = self.store.add_scan(game_id=game_id, source=source, photo_jpeg=jpeg,
                                              error={"code": err.code, "message": err.message}, timing_ms=timing,
                                              extra=extra)
            except StoreError as store_err:
                if store_err.code not in WRITE_PROBLEMS:
                    raise
                err = store_err
        elif err.code == "disk-full":
            try:  # the error row is small: a nearly full disk may still take it (no photo)
                scan_id = self.store.add_scan(game_id=game_id, source=source, photo_jpeg=None,
                                              error={"code": err.code, "message": err.message}, timing_ms=timing,
                                              extra=extra)
            except StoreError:
                pass
            self.store.write_problem = err  # still full for photos: the page keeps saying so
        log.warning("scan %s failed: %s [%s]", scan_id if scan_id is not None else "(not saved)", err.message,
                    err.code)
        self._report(scan_id, err.code, err.message)
        return scan_id

    def _report(self, scan_id: int | None, code: str, message: str) -> None:
        """A failed scan reaches the LED (its error code) and every page (a ``scan`` event with the message)."""
        if self.light:
            self.light.error(code)
        self.events.publish("scan", {"scan_id": scan_id, "status": "error", "error": code, "message": message})

    @staticmethod
    def _setup_for(game: dict | None, cal, player: str | None = None) -> dict | None:
        """The setup a scan of ``game`` gets: the game's set-up; for one Seashells mat, the set-up's
        scoring, Sun shell and secret cards with ``player`` (whose mat it is)."""
        if not game or cal is None or game["game"] != cal.game:
            return None
        if player is not None:
            return {**{k: game["setup"][k] for k in SEASHELLS_SCAN_KEYS if k in game["setup"]}, "player": player}
        return game["setup"] or None

    # -- games and corrections --------------------------------------------------------------
    def new_game(self, game: str, setup: dict | None = None, display: dict | None = None) -> int:
        """Start a new game with its setup.json (and page-only ``display`` facts); returns its id.

        Raises:
            BadInputError: ``unknown-game``; ``invalid-setup`` listing what the rules engine finds
                wrong with the set-up (:meth:`setup_problems`).
        """
        from beachscore.games import READERS

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
        else :data:`PLAZING_GRID`."""
        cal = self.calibration
        grid = cal.profile.get("grid") if cal is not None and cal.game == "plazing" else None
        if isinstance(grid, dict):
            rows, cols = grid.get("rows"), grid.get("cols")
            if all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_GRID_SIDE for v in (rows, cols)):
                return rows, cols
        return PLAZING_GRID

    def setup_problems(self, game: str, setup: dict) -> list[str]:
        """What the rules engine finds wrong with a new game's set-up (empty when it fits).

        The set-up is checked with ``scoring.problems`` on an empty board of the game (for Plażing
        the calibrated grid), so the web refuses what a scan with this set-up would refuse.

        >>> from beachscore.station.store import Store; import tempfile
        >>> st = Station(Store(tempfile.mkdtemp()))
        >>> st.setup_problems("plazing", {"terrain": ["###"]})[0]
        'terrain: 1 rows, the state has 12'
        >>> st.setup_problems("strand-unter", {}); st.close()
        []
        """
        import scoring

        if not isinstance(setup, dict):
            return ["setup: expected a JSON object"]
        state = copy.deepcopy(EMPTY_STATES.get(game, {"game": game}))
        if game == "plazing":
            state["rows"], state["cols"] = self.plazing_grid()
        if game == "seashells":  # one empty mat per player, so that their secret cards are checked
            players = setup.get("players") if isinstance(setup.get("players"), list) else []
            state["players"] = [{"player": p, "shells": []} for p in players if isinstance(p, str) and p]
        known = set(scoring.problems(state))
        problems = [p for p in scoring.problems(state, setup) if p not in known]
        cal = self.calibration
        if cal is not None and cal.game == game:  # players named by colours the calibration learned
            from beachscore.checks import unlearned_players

            problems += unlearned_players(setup, cal)
        return problems

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
        return self.rescore(state, self.setup_of_scan(scan))

    def correct(self, scan_id: int, state: dict, note: str = "") -> dict:
        """Save a manual correction of a scan as a new revision (the machine reading is kept).

        Returns:
            ``{"revision_id": int, "score": dict}``.
        Raises:
            StoreError: ``not-found``; the scorer's error for an invalid state.
        """
        scan = self._correctable(scan_id, state)
        score = self.rescore(state, self.setup_of_scan(scan))
        rev = self.store.add_revision(scan_id, state, score, note)
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
            BadInputError: not a readable photo (``vision.image_io.decode_image``), ``busy``.
            StoreError: ``disk-full``, ``read-only``, ``data-folder-missing``.
        """
        from vision.image_io import decode_image

        kept_as_sent = {b"\xff\xd8\xff": ".jpg", b"\x89PNG\r\n\x1a\n": ".png"}
        ext = next((e for magic, e in kept_as_sent.items() if data.startswith(magic)), None)
        with self.image_work():
            if ext is not None:
                decode_image(data, reduce=8)
                return self.store.add_photo(data, ext=ext, kind=kind)
            return self.store.add_photo(encode(decode_image(data), ".png"), ext=".png", kind=kind)

    def use_calibration(self, cal, folder: str | None = None) -> None:
        """Switch to a calibration (and remember its folder for the next start)."""
        self.calibration = cal
        self.calibration_problem = None
        if folder:
            self.store.set_setting(CALIBRATION_SETTING, os.path.abspath(folder))
        self.events.publish("calibration", {"game": cal.game})

    def close(self) -> None:
        """Stop: wait for a running scan, release the button, light, camera and store. Safe twice."""
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


def _image_size(result) -> list[int] | None:
    """[width, height] px of the image a scan result was read from (its registration's frame)."""
    image = getattr(getattr(result, "photo", None), "image", None)
    if image is None:
        image = getattr(result, "image", None)
    return [int(image.shape[1]), int(image.shape[0])] if hasattr(image, "shape") else None


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1e3, 1)


def calibrate_from_clicks(station: Station, photo_id: int, profile: dict, corners_px: list, samples: list,
                          empty_photo_id: int | None = None) -> dict:
    """Calibration wizard: clicks on a stored calibration shot → a new calibration the station uses.

    Writes ``<data>/calibrations/<n>/request/`` (calibration.json, calib.jpg, profile.json) and
    ``<data>/calibrations/<n>/cal/`` (CAL_DIR), then switches the station to it. An optional
    ``empty_photo_id`` (a shot of the empty board, same view) goes in as ``empty_image``.

    The profile goes through ``calibration.files.validate_profile`` (what ``beachscore calibrate``
    checks) before anything is written, and the calibration that comes out through it again before
    the station switches: a calibration that fails in any way leaves the old one in use.

    Returns:
        ``{"game", "classes": [labels learned], "folder", "preview_photo_id"}``.
    Raises:
        StoreError: ``not-found`` for an unknown photo; ``disk-full``, ``read-only``,
            ``data-folder-missing`` (nothing is left in ``calibrations/``: a failed calibration
            removes its folder).
        BadInputError / UnreadableBoardError: as ``validate_profile`` and the calibrator;
            ``calibration-failed`` when the calibrator breaks in another way; ``busy`` while
            another calibration or upload runs (:meth:`Station.image_work`).
    """
    from calibration import files as cal_files

    from beachscore.station import wizard

    if not isinstance(profile, dict):
        raise BadInputError("invalid-profile", "profile: expected a JSON object")
    profile = cal_files.validate_profile(profile, "profile")
    with station.image_work():
        station.store.check_writable()
        photo_path, _ = station.store.photo_file(photo_id)
        empty_path = station.store.photo_file(empty_photo_id)[0] if empty_photo_id is not None else None
        root = os.path.join(station.store.data_dir, "calibrations")
        folder = None
        try:
            os.makedirs(root, exist_ok=True)
            n = 1 + max([int(d) for d in os.listdir(root) if d.isdigit()] or [0])
            folder = os.path.join(root, str(n))
            request = wizard.write_request(os.path.join(folder, "request"), photo_path, profile, corners_px,
                                           samples, empty_path)
            cal = _calibrate(station, request, os.path.join(folder, "cal"))
            classes = cal.model.get("classes") if isinstance(getattr(cal, "model", None), dict) else None
            classes = sorted(classes) if isinstance(classes, (dict, list)) else []
            picture = wizard.preview(photo_path, request, classes)
            preview_id = station.store.add_photo(encode(picture, ".jpg"), ext=".jpg", kind="calibration")
        except BaseException as exc:
            if folder is not None:  # a failed calibration leaves nothing (it held a copy of the photo)
                shutil.rmtree(folder, ignore_errors=True)
            problem = write_problem(exc, station.store.data_dir) if isinstance(exc, OSError) else None
            if problem is not None:
                raise problem from None
            raise
        station.use_calibration(cal, os.path.join(folder, "cal"))
    return {"game": cal.game, "classes": classes, "folder": folder, "preview_photo_id": preview_id}


def _calibrate(station: Station, request: str, out_dir: str):
    """Run the station's calibrator and check the profile it learned. Raises BeachscoreError
    (``calibration-failed`` for anything else the calibrator trips on) or the OSError of a failed write."""
    from calibration import files as cal_files

    try:
        cal = station.calibrator(request, out_dir)
        cal_files.validate_profile(cal.profile, "the new calibration's profile")
        return cal
    except BeachscoreError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever the calibrator trips on, the old calibration stays
        if isinstance(exc, OSError) and write_problem(exc, station.store.data_dir) is not None:
            raise  # disk full, read-only: said as such by the caller
        log.exception("calibration from %s failed", request)
        raise BadInputError("calibration-failed", f"the calibration failed ({type(exc).__name__}: {exc}); "
                            "the station keeps its previous calibration") from None
