"""The hall's Flask app: settings, blueprints, and how errors are answered."""


from __future__ import annotations

import os
import secrets
import time

from flask import Flask, flash, redirect, render_template, request
from sqlalchemy import exc as sa_exc
from sqlalchemy.exc import DBAPIError
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.routing import IntegerConverter

from hall import auth, organiser, public, reporting, stations
from hall.db import database_unavailable, default_url, open_engine, storage_problem
from hall.errors import HallError
from hall.store import HallStore

SECRET_SETTING = "secret_key"
#: What the organiser and the stations are told while the database cannot be reached.
UNAVAILABLE_MESSAGE = ("the hall's database cannot be reached right now: nothing was lost; stations send their "
                       "results again by themselves; check the database server, then reload this page")
#: Seconds between two log lines about an unreachable database.
UNAVAILABLE_LOG_S = 10.0


def create_app(test_config: dict | None = None, *, store=None) -> Flask:
    """Build the hall's Flask app.

    Args:
        test_config: settings over the defaults (``DATABASE_URL``, ``DATA_DIR`` …).
        store: a :class:`hall.store.HallStore`; None opens ``DATABASE_URL`` (default: SQLite in ``DATA_DIR``).
    """
    app = Flask(__name__)
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=10 * 1024 * 1024,    # bytes: largest request (an annotated photo)
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_NAME="hall_session",
        PERMANENT_SESSION_LIFETIME=7 * 24 * 3600,
        LOGIN_MAX_FAILURES=5,                   # wrong passwords in a row from one address …
        LOGIN_LOCKOUT_S=30.0,                   # … lock it out for this long
        LOGIN_MAX_FAILURES_PER_ACCOUNT=10,      # wrong passwords in a row for one user name, any address
        LOGIN_CONCURRENT_CHECKS=2,              # password checks at once (scrypt: ~32 MB each)
        PAIRING_MAX_FAILURES=10,                # wrong pairing codes in a row from one address
        REFRESH_MS=3000,                        # how often the room's pages ask for news
        PASSWORD_MIN_LENGTH=8,
        SETUP_CODE=None,                        # one-time code for the first organiser account
    )
    if test_config:
        app.config.update(test_config)
    if store is None:
        store = HallStore(open_engine(app.config.get("DATABASE_URL") or default_url(app.config["DATA_DIR"])),
                          photo_dir=os.path.join(app.config["DATA_DIR"], "photos"))
    app.extensions["hall_store"] = store
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = store.setting_or_create(SECRET_SETTING, lambda: secrets.token_hex(32))

    app.url_map.converters["int"] = RowId
    auth.init_app(app)
    for module in (organiser, public, stations, reporting):
        app.register_blueprint(module.bp)
    _install_guards(app)
    _install_error_handlers(app)
    return app


class RowId(IntegerConverter):
    """``<int:…>`` in the hall's routes: a database row number (1 to 2³¹−1); a longer number is no
    such page (404), not an overflow in the database."""

    def __init__(self, url_map, *args, **kwargs):
        kwargs.setdefault("max", 2 ** 31 - 1)
        super().__init__(url_map, *args, **kwargs)


#: Headers on every answer: no page of the hall inside another site's frame, no type guessing.
SECURITY_HEADERS = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff"}


def _install_guards(app: Flask) -> None:
    """Checks before every request and headers on every answer."""
    @app.after_request
    def _security_headers(response):
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    @app.before_request
    def _no_nul_characters():
        """PostgreSQL cannot store U+0000 in text (a 500 a station would send again for ever): refuse it."""
        if request.method in auth.SAFE_METHODS:
            return
        if request.mimetype == "application/json":
            try:
                body = request.get_json(silent=True)
            except RecursionError:  # nested too deeply: the route says so
                return
            if _has_nul(body):
                raise HallError("invalid-text", "the request has text with a NUL character, which the hall cannot "
                                "store: remove it and send again")
        elif request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            if any("\x00" in value for values in request.form.listvalues() for value in values):
                raise HallError("invalid-text", "the form has text with a NUL character, which the hall cannot "
                                "store: remove it and try again")


def _install_error_handlers(app: Flask) -> None:
    """The hall's refusals, storage and database problems, HTTP errors: the contract's error shape
    for the API, a flash or a page for the organiser."""
    @app.errorhandler(HallError)
    def _hall_error(err: HallError):
        if auth.wants_json() or request.method in auth.SAFE_METHODS:
            return auth.error(err.code, err.message, err.status)
        flash(err.message)
        return redirect(request.referrer or "/")

    def _storage_error(err: Exception):
        """A full or read-only disk, a database that cannot be reached: 503 with what to do (a station
        sends again later), not a bare 500 with a traceback."""
        if database_unavailable(err):
            return _unavailable(err)
        problem = storage_problem(err)
        if problem is None:
            app.log_exception((type(err), err, err.__traceback__))
            return InternalServerError()
        app.logger.error("cannot write: %s", err)
        response = _hall_error(HallError(problem[0], problem[1], 503))
        if isinstance(response, tuple):
            response[0].headers["Retry-After"] = "30"
        return response

    logged = {"at": 0.0}

    def _unavailable(err: Exception):
        """503 (the contract's error shape for the API, a page for the organiser); one log line at
        most every :data:`UNAVAILABLE_LOG_S` seconds, however many requests fail."""
        if time.monotonic() - logged["at"] > UNAVAILABLE_LOG_S:
            logged["at"] = time.monotonic()
            app.logger.error("database unavailable: %s", str(getattr(err, "orig", err)).strip().split("\n")[0][:300])
        headers = {"Retry-After": "10"}
        if auth.wants_json() or request.path.startswith("/api/"):
            return auth.error("database-unavailable", UNAVAILABLE_MESSAGE, 503, headers)
        return render_template("unavailable.html", message=UNAVAILABLE_MESSAGE), 503, headers

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        """The API's HTTP errors (too large, no such route …) in the contract's shape; pages keep Flask's."""
        if not auth.wants_json():
            return err
        code = (err.name or "error").lower().replace(" ", "-")
        return auth.error(code, f"{err.name}: {err.description}".split("\n")[0][:300], err.code or 500)

    app.register_error_handler(DBAPIError, _storage_error)
    app.register_error_handler(OSError, _storage_error)
    app.register_error_handler(sa_exc.TimeoutError, _storage_error)


def _has_nul(value, depth: int = 0) -> bool:
    """Whether a parsed JSON value holds U+0000 in any string (keys too)."""
    if isinstance(value, str):
        return "\x00" in value
    if depth > 64:
        return False
    if isinstance(value, dict):
        return any(_has_nul(k, depth + 1) or _has_nul(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v, depth + 1) for v in value)
    return False
