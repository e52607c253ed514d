"""Web: the station's local page (Flask). It only calls the station.

Imports go one way: ``web`` → ``beachscore.station`` (and the store's errors); the station never
imports ``web``, and ``beachscore.serving`` builds the station and hands it to :func:`create_app`.

``create_app(test_config=None, *, station)`` is the app factory; one blueprint per feature:
:mod:`web.security` (PIN, CSRF), :mod:`web.live` (live page, events, photos, scan now),
:mod:`web.games` (game set-up), :mod:`web.history`, :mod:`web.corrections`, :mod:`web.calibrate`.
"""

from __future__ import annotations

from flask import Flask

from beachscore.pipeline import confidence_percent
from beachscore.station.wording import GAME_NAMES, game_name
from web import calibrate, corrections, errors, games, history, live, security
from web.inputs import IdConverter


def create_app(test_config: dict | None = None, *, station) -> Flask:
    """Build the Flask app around a station.

    Args:
        test_config: settings that override the defaults (``MAX_CONTENT_LENGTH`` …).
        station: a :class:`beachscore.station.Station` (``beachscore.serving.build_station``
            makes one from the command line).
    """
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        MAX_CONTENT_LENGTH=16 * 1024 * 1024,   # bytes: largest upload (a full-resolution photo)
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=30 * 24 * 3600,  # seconds a phone stays unlocked
        EVENTS_KEEPALIVE_S=15.0,                # seconds between keep-alive comments on /events
        EVENTS_MAX_STREAMS=8,                   # open /events streams at once (each holds a server thread)
        EVENTS_MAX_AGE_S=300.0,                 # seconds before a stream ends (the browser reconnects)
        EVENTS_RETRY_AFTER_S=60,                # Retry-After of the 503 when every stream slot is taken
        POLL_INTERVAL_MS=3000,                  # page's polling period when SSE is unavailable
        PIN_MIN_LENGTH=4,
    )
    if test_config:
        app.config.update(test_config)
    app.extensions["station"] = station
    app.url_map.converters["id"] = IdConverter  # before the blueprints: their rules use <id:...>
    app.add_template_filter(local_time, "localtime")
    app.add_template_filter(confidence_percent, "percent")  # one rule with the command line's text
    app.add_template_filter(game_name, "game_name")
    app.add_template_global(GAME_NAMES, "game_names")  # base.html hands them to the scripts (gameName)

    @app.context_processor
    def _store_problem():
        return {"store_problem": station.store.problem}

    security.init_app(app)
    errors.init_app(app)
    live.init_app(app)
    for module in (security, live, games, history, corrections, calibrate):
        app.register_blueprint(module.bp)
    return app


def local_time(iso: str | None, seconds: bool = True) -> str:
    """A stored time (ISO 8601, UTC) in the station's local time: ``2026-11-30 09:40:01``.

    >>> local_time(None), local_time("not a time")
    ('', 'not a time')
    """
    from datetime import datetime

    if not iso:
        return ""
    try:
        when = datetime.fromisoformat(iso).astimezone()
    except (TypeError, ValueError):
        return str(iso)
    return when.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
