"""The correction editor: fix a misread piece, rescore instantly, save as a revision."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template, request

from beachscore.errors import BadInputError

bp = Blueprint("corrections", __name__)


def station():
    return current_app.extensions["station"]


def _body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("state"), dict):
        raise BadInputError("invalid-json", "expected {\"state\": {...}}")
    return body


@bp.get("/scans/<int:scan_id>/correct")
def page(scan_id: int):
    scan = station().store.scan(scan_id)
    return render_template("correct.html", scan=scan)


@bp.post("/api/scans/<int:scan_id>/rescore")
def rescore(scan_id: int):
    """Score an edited state of this scan without saving: ``{"state"}`` → ``{"score"}``."""
    st = station()
    scan = st.store.scan(scan_id)
    return jsonify({"score": st.rescore(_body()["state"], st.setup_of_scan(scan))})


@bp.post("/api/scans/<int:scan_id>/revisions")
def save(scan_id: int):
    """Save a correction: ``{"state", "note"?}`` → ``{"revision_id", "score"}`` (201)."""
    body = _body()
    note = body.get("note") if isinstance(body.get("note"), str) else ""
    return jsonify(station().correct(scan_id, body["state"], note[:500])), 201
