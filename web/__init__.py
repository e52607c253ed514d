"""Web: the station's local page (Flask). It only calls the station.

Imports go one way: ``web`` → ``beachscore.station`` (and the store's errors); the station never
imports ``web``, and ``beachscore.serving`` builds the station and hands it to :func:`create_app`.

``create_app(test_config=None, *, station)`` is the app factory; one blueprint per feature:
:mod:`web.security` (PIN, CSRF), :mod:`web.live` (live page, events, photos, scan now),
:mod:`web.games` (game set-up), :mod:`web.history`, :mod:`web.corrections`, :mod:`web.calibrate`.
"""

from __future__ import annotations

from datetime import datetime

from flask import Flask
from markupsafe import Markup

from vision.confidence import confidence_percent
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
    app.add_template_filter(time_tag, "time_tag")
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


def local_time(iso: str | None, seconds: bool = True, now: datetime | None = None) -> str:
    """A stored time (ISO 8601, UTC) in the station's local time, on a 24-hour clock, the date only
    when it is not today: ``09:40:01`` today, ``2026-11-30 09:40:01`` another day (``localTime`` in
    common.js says it so in the device's time zone; every page shows this one format).

    Args:
        iso: the stored time; seconds: show them; now: today's reference (default: the clock).

    >>> local_time(None), local_time("not a time")
    ('', 'not a time')
    >>> noon = datetime(2026, 12, 3, 12, 0).astimezone()
    >>> local_time(noon.replace(hour=16, minute=7, second=43).isoformat(), now=noon)
    '16:07:43'
    >>> local_time(noon.replace(day=1, hour=9).isoformat(), seconds=False, now=noon)
    '2026-12-01 09:00'
    """
    if not iso:
        return ""
    try:
        when = datetime.fromisoformat(iso).astimezone()
    except (TypeError, ValueError):
        return str(iso)
    clock = "%H:%M:%S" if seconds else "%H:%M"
    today = (now or datetime.now().astimezone()).astimezone().date()
    return when.strftime(clock if when.date() == today else "%Y-%m-%d " + clock)


def time_tag(iso: str | None, seconds: bool = True) -> Markup:
    """A stored time as ``<time datetime="…">`` with :func:`local_time`'s text; common.js says it
    again in the device's time zone, in the same format."""
    if not iso:
        return Markup("")
    return Markup('<time class="local" datetime="{}" data-seconds="{}">{}</time>').format(
        iso, "yes" if seconds else "no", local_time(iso, seconds))
