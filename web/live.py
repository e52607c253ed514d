"""The live page, its data, the event stream (SSE), photos by id, and "scan now" / "game over"."""

from __future__ import annotations

import json
import queue
import threading
import time

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request, send_file

from beachscore.errors import BadInputError
from vision.confidence import confidence_percent
from beachscore.station.store import StoreError
from web.errors import error_response
from web.inputs import json_body

bp = Blueprint("live", __name__)

#: Seconds between two checks whether an open event stream's page went away.
DISCONNECT_CHECK_S = 1.0


def station():
    return current_app.extensions["station"]


def scan_summary(scan: dict | None) -> dict | None:
    """The scan as the pages show it (current = latest revision, else the machine reading), with its
    confidence as the whole percent every page and the command line show (``confidence_percent``)."""
    if scan is None:
        return None
    return {**scan, "corrected": bool(scan["revisions"]),
            "confidence_percent": confidence_percent(scan.get("confidence"))}


def shown_score(scan: dict, ending: dict | None) -> dict | None:
    """The score the pages show for ``scan``: a followed game's final score when ``scan`` is the scan
    its Game over ended with (the timeline's facts and the players' answers), else its current score
    (latest revision, else the machine reading)."""
    ending = ending or {}
    if ending.get("score") is not None and ending.get("scan_id") == scan["id"]:
        return ending["score"]
    return scan["current_score"]


@bp.get("/")
def page():
    """The live page, headed by the name of the game being played (live.js keeps it current)."""
    return render_template("live.html", poll_ms=current_app.config["POLL_INTERVAL_MS"],
                           game=station().store.current_game())


@bp.get("/api/status")
def status():
    return jsonify(station().status())


@bp.get("/api/latest")
def latest():
    """``{"status": {...}, "scan": scan or null, "seashells": table or null}`` — the live page's data.

    ``scan``: a finished game's final scan, else the current game's latest
    (:meth:`beachscore.station.Station.shown_scan`).

    ``follow``: in a game followed scan after scan, the shown scan's ``step`` (``changes``,
    ``impossible``, ``accepted``), the ``timeline`` (facts) after the last accepted reading, the two
    photos of a forbidden change, the game's ``ending`` (Game over's questions and answers), and while
    the game runs ``needed_at_end`` (what Game over will ask, in the players' words)
    (:meth:`beachscore.station.Station.follow_view`); null otherwise.

    ``seashells``: in a Seashells game with players, the combined score of every player's latest
    mat and which mats are still missing (:meth:`beachscore.station.Station.seashells_table`).
    """
    st = station()
    status = st.status()
    game = status["game"]
    scan = st.told_scan(st.shown_scan(game))
    follow = st.follow_view(game, scan)
    if scan is not None:
        scan = {**scan, "current_score": shown_score(scan, (follow or {}).get("ending"))}
    return jsonify({"status": status, "scan": scan_summary(scan), "seashells": st.seashells_table(game),
                    "follow": follow})


class StreamSlots:
    """Counts open event streams so they never take every web-server thread.

    Each open ``/events`` holds one of waitress's threads for as long as it runs; beyond
    ``EVENTS_MAX_STREAMS`` the stream is refused (503) and the page polls instead.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self.open = 0

    def take(self, limit: int) -> bool:
        with self._lock:
            if self.open >= limit:
                return False
            self.open += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.open -= 1


def init_app(app) -> None:
    app.extensions["event_streams"] = StreamSlots()


@bp.get("/events")
def events():
    """Server-Sent Events: ``scan-started`` (``source`` button, web or auto), ``scan`` (``status`` ok,
    or error with ``error`` and ``message``), ``scan-finished`` (the station may scan again),
    ``scan-refused`` (a button press that could not start a
    scan), ``board`` (what the board watcher sees: ``state``, ``problem``), ``revision``,
    ``game``, ``game-over``, ``game-over-failed`` (the final scan did not read: the game stays
    open), ``game-questions`` (Game over of a followed game asks the players first: the game stays
    open until ``/api/game-answers``), ``calibration``.

    Each event's data is JSON; a comment line every ``EVENTS_KEEPALIVE_S`` keeps the connection open.
    At most ``EVENTS_MAX_STREAMS`` streams are open at once: one more is answered 503 with
    ``Retry-After`` (the page then polls ``/api/latest``). A stream ends after ``EVENTS_MAX_AGE_S``;
    the browser's EventSource reconnects by itself after the ``retry`` delay.
    """
    config = current_app.config
    slots: StreamSlots = current_app.extensions["event_streams"]
    if not slots.take(config["EVENTS_MAX_STREAMS"]):
        response, status = error_response("too-many-streams", "every live-update slot is taken; poll "
                                          "/api/latest instead", 503)
        response.headers["Retry-After"] = str(int(config["EVENTS_RETRY_AFTER_S"]))
        return response, status
    bus = station().events
    keepalive = config["EVENTS_KEEPALIVE_S"]
    deadline = time.monotonic() + config["EVENTS_MAX_AGE_S"]
    # waitress says when the page went away (it keeps reading the connection: serving's lookahead);
    # checked every DISCONNECT_CHECK_S, so a closed page frees its slot at once, not at the next write
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    q = bus.subscribe()
    once = threading.Lock()

    def close() -> None:  # exactly once, whether or not the stream ever started
        if once.acquire(blocking=False):
            bus.unsubscribe(q)
            slots.give_back()

    def stream():
        try:
            yield f"retry: 3000\nevent: hello\ndata: {json.dumps({'last_event_id': bus.last_id})}\n\n"
            sent = time.monotonic()
            while (left := deadline - time.monotonic()) > 0 and not gone():
                try:
                    ev = q.get(timeout=min(keepalive, DISCONNECT_CHECK_S, left))
                except queue.Empty:
                    now = time.monotonic()
                    if now - sent >= keepalive and now < deadline:
                        yield ": keep-alive\n\n"
                        sent = now
                    continue
                yield f"id: {ev['id']}\nevent: {ev['kind']}\ndata: {json.dumps(ev['data'])}\n\n"
                sent = time.monotonic()
        finally:
            close()

    # no stream_with_context: the stream needs nothing of the request, so none is held open
    response = Response(stream(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(close)
    return response


@bp.get("/photos/<id:photo_id>")
def photo(photo_id: int):
    """A stored photo by its id; the file path comes from the store, never from the request."""
    try:
        path, media_type = station().store.photo_file(photo_id)
    except StoreError:
        abort(404)
    return send_file(path, mimetype=media_type, max_age=3600)


@bp.post("/api/scan")
def scan_now():
    """Start a scan; 202 when started, 409 when busy or the camera/calibration is missing.

    Optional body ``{"player": name}``: whose mat the scan reads in a Seashells game (400
    ``unknown-player`` for a name that is not one of the game's players); without it, the next
    player whose mat is not read yet.
    """
    st = station()
    player = None
    if request.get_data(cache=True):
        body = json_body()
        player = body.get("player")
        if player is not None:
            players = st.mat_players(st.store.current_game())
            if not isinstance(player, str) or player not in players:
                raise BadInputError("unknown-player", f"player {str(player)[:40]!r}: expected one of the "
                                    f"Seashells game's players ({', '.join(players) or 'none'})")
    answer = st.request_scan("web", player=player)
    if not answer.accepted:
        return error_response("scan-refused", answer.reason, 409)
    return jsonify({"accepted": True}), 202


@bp.post("/api/auto-scan")
def auto_scan():
    """Turn scanning by itself (when the board is still) on or off: body ``{"on": true | false}``;
    answers ``{"auto_scan": {"enabled", "state", "problem"}}``. 400 ``invalid-input`` without a boolean."""
    on = json_body().get("on")
    if not isinstance(on, bool):
        raise BadInputError("invalid-input", "expected {\"on\": true} or {\"on\": false}")
    st = station()
    st.set_auto_scan(on)
    return jsonify({"auto_scan": st.watcher.status()})


@bp.post("/api/game-over")
def game_over():
    """Take a final scan and end the current game (like a long press)."""
    answer = station().end_game("web")
    if not answer.accepted:
        return error_response("scan-refused", answer.reason, 409)
    return jsonify({"accepted": True, "ended": answer.ended}), 202


@bp.post("/api/game-answers")
def game_answers():
    """Game over's answers: body ``{"answers": {question key: value}}``; the current game ends with
    every total (200 ``{"score"}``); 409 ``no-questions`` when nothing is asked, 400 ``invalid-answers``."""
    st = station()
    game = st.store.current_game()
    body = json_body()
    if game is None:
        return error_response("no-questions", "no game is set up", 409)
    try:
        out = st.answer_questions(game["id"], body.get("answers", {}))
    except BadInputError as err:
        if err.code == "no-questions":
            return error_response(err.code, err.message, 409)
        raise
    return jsonify(out)
