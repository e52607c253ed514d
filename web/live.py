"""The live page, its data, the event stream (SSE), photos by id, and "scan now" / "game over"."""

from __future__ import annotations

import json
import queue

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, send_file, stream_with_context

from web.errors import error_response

bp = Blueprint("live", __name__)


def station():
    return current_app.extensions["station"]


def scan_summary(scan: dict | None) -> dict | None:
    """The scan as the pages show it (current = latest revision, else the machine reading)."""
    if scan is None:
        return None
    return {**scan, "corrected": bool(scan["revisions"])}


@bp.get("/")
def page():
    return render_template("live.html", poll_ms=current_app.config["POLL_INTERVAL_MS"])


@bp.get("/api/status")
def status():
    return jsonify(station().status())


@bp.get("/api/latest")
def latest():
    """``{"status": {...}, "scan": scan or null, "final_scan_id": id or null}`` — the live page's data."""
    st = station()
    status = st.status()
    game = status["game"]
    scan = None
    if game is not None:
        scans = st.store.scans(game_id=game["id"], limit=1)
        scan = scans[0] if scans else None
    if scan is None:
        scan = st.store.latest_scan()
    return jsonify({"status": status, "scan": scan_summary(scan)})


@bp.get("/events")
def events():
    """Server-Sent Events: ``scan-started``, ``scan``, ``revision``, ``game``, ``game-over``, ``calibration``.

    Each event's data is JSON; a comment line every ``EVENTS_KEEPALIVE_S`` keeps the connection open.
    """
    bus = station().events
    keepalive = current_app.config["EVENTS_KEEPALIVE_S"]
    q = bus.subscribe()

    def stream():
        try:
            yield f"retry: 3000\nevent: hello\ndata: {json.dumps({'last_event_id': bus.last_id})}\n\n"
            while True:
                try:
                    ev = q.get(timeout=keepalive)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                yield f"id: {ev['id']}\nevent: {ev['kind']}\ndata: {json.dumps(ev['data'])}\n\n"
        finally:
            bus.unsubscribe(q)

    return Response(stream_with_context(stream()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@bp.get("/photos/<int:photo_id>")
def photo(photo_id: int):
    """A stored photo by its id; the file path comes from the store, never from the request."""
    from beachscore.store import StoreError

    try:
        path, media_type = station().store.photo_file(photo_id)
    except StoreError:
        abort(404)
    return send_file(path, mimetype=media_type, max_age=3600)


@bp.post("/api/scan")
def scan_now():
    """Start a scan; 202 when started, 409 when busy or the camera/calibration is missing."""
    answer = station().request_scan("web")
    if not answer.accepted:
        return error_response("scan-refused", answer.reason, 409)
    return jsonify({"accepted": True}), 202


@bp.post("/api/game-over")
def game_over():
    """Take a final scan and end the current game (like a long press)."""
    answer = station().end_game()
    if not answer.accepted:
        return error_response("scan-refused", answer.reason, 409)
    return jsonify({"accepted": True}), 202
