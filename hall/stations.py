"""The API stations use: pairing, their assignment, photos and final results.

``POST /api/pair`` ``{"code", "name"}`` → ``{"token", "station_id", "event", "game", "table"}``
(401 ``pairing-code``; 429 after too many wrong codes from one address).
With ``Authorization: Bearer <token>``:
``GET /api/station/assignment`` → event, game, table, open round and the table's players;
``PUT /api/station/photos/<sha256>`` → the annotated photo (PNG or JPEG; its SHA-256 must match);
``POST /api/station/results`` → the final result (:meth:`hall.store.HallStore.station_report`):
201 recorded, 200 already recorded (the same scan and revision again), 409 refused for good.
"""

from __future__ import annotations

import hashlib
import math

from flask import Blueprint, current_app, g, jsonify, request

from hall.auth import client_address, error, station_required
from hall.errors import HallError

bp = Blueprint("stations", __name__)

MEDIA = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg"}


def store():
    return current_app.extensions["hall_store"]


def _json() -> dict:
    """The request's JSON object; anything else (not JSON, too deeply nested, not an object) is a 400."""
    try:
        body = request.get_json(silent=True)
    except RecursionError:  # not a ValueError, so silent=True lets it through
        body = None
    if not isinstance(body, dict):
        raise HallError("invalid-json", "expected a JSON object")
    return body


@bp.post("/api/pair")
def pair():
    attempts = current_app.extensions["pairing_attempts"]
    wait = attempts.begin(client_address())  # counts as a wrong code until it pairs
    if wait > 0:
        return error("pairing-locked-out", f"too many wrong pairing codes from this address; try again in "
                     f"{math.ceil(wait)} s", 429, {"Retry-After": str(math.ceil(wait))})
    body = _json()
    answer = store().pair(str(body.get("code", ""))[:40], str(body.get("name", "station")))
    attempts.succeeded(client_address())
    return jsonify(answer), 201


@bp.get("/api/station/assignment")
@station_required
def assignment():
    return jsonify(store().assignment(g.station))


@bp.put("/api/station/photos/<sha>")
@station_required
def put_photo(sha: str):
    data = request.get_data(cache=False)
    if len(sha) != 64 or hashlib.sha256(data).hexdigest() != sha.lower():
        return error("photo-hash", "the photo's SHA-256 does not match its name", 400)
    media = next((m for magic, m in MEDIA.items() if data.startswith(magic)), None)
    if media is None:
        return error("photo-type", "a photo must be a PNG or a JPEG", 400)
    created = store().put_photo(sha.lower(), media, data)
    return jsonify({"sha256": sha.lower(), "stored": True}), 201 if created else 200


@bp.post("/api/station/results")
@station_required
def report():
    status, body = store().station_report(g.station, _json())
    return jsonify(body), status
