"""One scan, on the station's scan thread: capture → scan → store → push to the pages and the LED.

:class:`ScanFlow` is the part of :class:`~beachscore.station.station.Station` that runs on its
scan thread (the station queues the jobs, :meth:`ScanFlow._work` takes them one by one). A scan
takes a photo with the camera, reads it with the station's scanner, keeps the photo and the
reading in the store, then tells every page (``scan``) and the LED; the annotated picture is drawn
and stored after that (``scan-annotated``), off the scan's critical path. A failed scan is kept
with its error when the store can take it, and reported the same way.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from beachscore import pipeline
from beachscore.errors import CODED_ERRORS, BeachscoreError
from beachscore.station import seashells
from beachscore.station.encoding import encode, encode_annotated
from beachscore.station.store import StoreError
from beachscore.station.store.db import WRITE_PROBLEMS
from beachscore.station.wording import for_the_page, warnings_for_the_page

log = logging.getLogger("beachscore.station")


class ScanFlow:
    """The scan thread's half of the station, mixed into :class:`~beachscore.station.station.Station`.

    Uses the station's ``camera`` (with ``_camera_lock``), ``scanner``, ``calibration``, ``store``,
    ``events``, ``light``, ``after_scan``, the job queue ``_jobs``, the ``_busy`` lock and ``_idle``
    event, and :meth:`~beachscore.station.station.Station.finish_game`.
    """

    def _work(self) -> None:
        """The scan thread: runs queued scans one by one until :meth:`close` sends None."""
        while (job := self._jobs.get()) is not None:
            self._scan_job(*job)

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
            self.events.publish("scan-finished", {"source": source})  # the pages may scan again
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
        problem = (problem or "").rstrip()
        stop = "" if problem.endswith((".", "?", "!")) else "."
        self.events.publish("game-over-failed", {
            "game_id": game["id"], "scan_id": scan_id,
            "message": f"the game is still open: {problem}{stop} Fix it and press Game over again."})

    def _scan_once(self, source: str, player: str | None = None,
                   game_id: int | None = None) -> tuple[int | None, str | None]:
        """One scan of game ``game_id`` (None: no game), stored. Returns (scan id or None when
        nothing could be stored, problem or None)."""
        t0 = time.perf_counter()
        game = self.store.game(game_id) if game_id is not None else None
        timing = {}
        mat = {"mat_player": player} if player else {}
        cal = self.calibration
        try:
            image, jpeg = self._capture(cal, timing)
        except CODED_ERRORS as err:
            return self._failed(game_id, source, None, err, timing, mat), for_the_page(err.message)
        setup = self._setup_for(game, cal, player)
        try:
            result = self.scanner(image, cal, setup)
        except BeachscoreError as err:
            return self._failed(game_id, source, jpeg, err, timing, mat), for_the_page(err.message)
        result, followed = self.follow_reading(game, cal, result, player)
        doc = result.to_json()
        doc["warnings"] = warnings_for_the_page(doc.get("warnings"))  # the pages' words, not the command line's
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
            return self._failed(game_id, source, None, err, timing, mat), for_the_page(err.message)
        self.keep_step(game_id, scan_id, followed)
        log.info("scan %d: %s, confidence %.2f, %.0f ms", scan_id, doc.get("game"), doc.get("confidence") or 0,
                 _ms(t0))
        if self.light:
            self.light.ok()
        self.events.publish("scan", {"scan_id": scan_id, "status": "ok", **mat})
        self._annotate(scan_id, result)  # after the score is out: the picture is not on the critical path
        return scan_id, None

    def _capture(self, cal, timing: dict) -> tuple[np.ndarray, bytes]:
        """Take the photo: (BGR uint8 image to read, JPEG bytes to keep). A camera that replays
        files hands over the file, decoded as the command line decodes it
        (:func:`beachscore.pipeline.decode_photo`), so that the same photo reads the same at the
        station and on the command line; a JPEG file is kept as it is.

        Raises:
            CameraError: ``camera-failed``; BadInputError: the file is not a readable photo.
        """
        t0 = time.perf_counter()
        with self._camera_lock:
            encoded = getattr(self.camera, "capture_encoded", lambda: None)()
            image = self.camera.capture() if encoded is None else None
        timing["capture"] = _ms(t0)
        t1 = time.perf_counter()
        if encoded is not None:
            image = pipeline.decode_photo(encoded, cal, "the camera's photo")
            timing["decode"] = _ms(t1)
            t1 = time.perf_counter()
        jpeg = encoded if encoded is not None and encoded[:3] == b"\xff\xd8\xff" else encode(image, ".jpg")
        timing["encode"] = _ms(t1)
        return image, jpeg

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
        message = for_the_page(err.message)
        if not (isinstance(err, StoreError) and err.code in WRITE_PROBLEMS):
            try:
                scan_id = self.store.add_scan(game_id=game_id, source=source, photo_jpeg=jpeg,
                                              error={"code": err.code, "message": message}, timing_ms=timing,
                                              extra=extra)
            except StoreError as store_err:
                if store_err.code not in WRITE_PROBLEMS:
                    raise
                err, message = store_err, store_err.message
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
        self._report(scan_id, err.code, message)
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
            return seashells.mat_setup(game["setup"], player)
        return game["setup"] or None


def _image_size(result) -> list[int] | None:
    """[width, height] px of the image a scan result was read from (its registration's frame)."""
    image = getattr(getattr(result, "photo", None), "image", None)
    if image is None:
        image = getattr(result, "image", None)
    return [int(image.shape[1]), int(image.shape[0])] if hasattr(image, "shape") else None


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1e3, 1)
