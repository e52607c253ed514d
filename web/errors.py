"""Errors → responses: the contract's ``{"error": {"code", "message"}}`` for the page's scripts."""

from __future__ import annotations

from flask import jsonify, request
from werkzeug.exceptions import HTTPException

from beachscore.errors import BeachscoreError, HardwareError
from beachscore.station.store import StoreError
from beachscore.station.wording import for_the_page
from scoring.errors import InvalidStateError


def error_response(code: str, message: str, status: int, **more):
    """The error as the page's scripts get it, with ``more`` fields (a refused calibration's
    ``samples``); its message never names a command-line flag
    (:func:`beachscore.station.wording.for_the_page`)."""
    return jsonify({"error": {**more, "code": code, "message": for_the_page(message)}}), status


#: HTTP status of the store's errors (a bad request is 400).
STORE_STATUS = {"not-found": 404, "disk-full": 507, "read-only": 503, "data-folder-missing": 503}
#: HTTP status of other errors that are no bad request: the station is busy with another photo.
BUSY_STATUS = {"busy": 409}


def init_app(app) -> None:
    @app.errorhandler(BeachscoreError)
    @app.errorhandler(HardwareError)
    def _beachscore(err: BeachscoreError | HardwareError):
        status = STORE_STATUS.get(err.code, 400) if isinstance(err, StoreError) else BUSY_STATUS.get(err.code, 400)
        said = err.to_json()["error"] if hasattr(err, "to_json") else {}
        return error_response(err.code, err.message, status,
                              **{k: v for k, v in said.items() if k not in ("code", "message")})

    @app.errorhandler(HTTPException)
    def _http(err: HTTPException):
        if request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json":
            return error_response(err.name.lower().replace(" ", "-"), err.description or err.name, err.code)
        return err

    @app.errorhandler(InvalidStateError)
    def _invalid_state(err):
        problems = getattr(err, "problems", None) or [str(err)]
        return error_response("invalid-state", "; ".join(problems), 400)
