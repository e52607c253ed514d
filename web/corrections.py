"""The correction editor: fix a misread piece, rescore instantly, save as a revision."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template

from beachscore.errors import BadInputError
from web.inputs import MAX_NOTE_CHARS, json_body

bp = Blueprint("corrections", __name__)


def station():
    return current_app.extensions["station"]


def _body() -> dict:
    body = json_body()
    if not isinstance(body.get("state"), dict):
        raise BadInputError("invalid-json", "expected {\"state\": {...}}")
    note = body.get("note") or ""
    if not isinstance(note, str) or len(note) > MAX_NOTE_CHARS:
        raise BadInputError("invalid-note", f"note: expected a text of at most {MAX_NOTE_CHARS} characters")
    return {**body, "note": note}


@bp.get("/scans/<id:scan_id>/correct")
def page(scan_id: int):
    scan = station().store.scan(scan_id)
    return render_template("correct.html", scan=scan)


@bp.post("/api/scans/<id:scan_id>/rescore")
def rescore(scan_id: int):
    """Score an edited state of this scan without saving: ``{"state"}`` → ``{"score"}``.

    Refuses what saving refuses (a state of another game, a scan without a reading): 400.
    """
    return jsonify({"score": station().rescore_scan(scan_id, _body()["state"])})


@bp.post("/api/scans/<id:scan_id>/revisions")
def save(scan_id: int):
    """Save a correction: ``{"state", "note"?}`` → ``{"revision_id", "score"}`` (201)."""
    body = _body()
    return jsonify(station().correct(scan_id, body["state"], body["note"])), 201
