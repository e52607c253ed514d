"""Who may change what: organiser login (hashed password, CSRF, rate limit) and station tokens.

- Viewers need nothing: every GET of the standings, seating and export pages is open.
- Organiser pages: a session opened with the organiser's password (stored as werkzeug's salted
  scrypt hash). Every change (any method but GET/HEAD/OPTIONS) also carries the session's CSRF
  token (``csrf_token`` form field or ``X-CSRF-Token`` header).
- The first organiser account is made on ``/setup`` with the one-time setup code the hall
  prints when it starts without one (so nobody else on the network can claim the hall first).
- Stations: ``Authorization: Bearer <token>`` from pairing; the organiser can revoke a token.
- Wrong passwords and wrong pairing codes are rate-limited per client address
  (:class:`Attempts`): after ``max_failures`` in a row the address waits ``lockout_s``.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections import OrderedDict
from functools import wraps

from flask import current_app, g, jsonify, redirect, request, session, url_for

from beachscore.csrf import csrf_ok, csrf_token

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
#: Endpoints that need the CSRF token but no organiser session.
OPEN_FORMS = ("organiser.login", "organiser.setup")
#: Endpoints stations call (token or pairing code instead of a session; no cookies, so no CSRF).
STATION_ENDPOINTS = ("stations.pair", "stations.assignment", "stations.put_photo", "stations.report")


class Attempts:
    """Failures per client address; ``max_failures`` in a row lock that address out for ``lockout_s``.

    A check counts as a failure from the moment it starts (:meth:`begin`) until it succeeds
    (:meth:`succeeded`), so guesses sent in parallel cannot all be checked before the first
    wrong one is known: at most ``max_failures`` checks per address per lockout, however they arrive.
    At most ``max_clients`` addresses are remembered (least recently seen forgotten first).

    >>> a = Attempts(max_failures=2, lockout_s=30, clock=lambda: 0.0)
    >>> a.failed("10.0.0.9"); a.failed("10.0.0.9"); a.locked_for("10.0.0.9"), a.locked_for("10.0.0.2")
    (30.0, 0.0)
    >>> b = Attempts(max_failures=2, lockout_s=30, clock=lambda: 0.0)
    >>> b.begin("10.0.0.9"), b.begin("10.0.0.9"), b.begin("10.0.0.9")  # the third waits, whatever the first two give
    (0.0, 0.0, 30.0)
    """

    def __init__(self, *, max_failures: int = 5, lockout_s: float = 30.0, max_clients: int = 4096,
                 clock=time.monotonic):
        self.max_failures, self.lockout_s, self.max_clients, self.clock = max_failures, lockout_s, max_clients, clock
        self._clients: OrderedDict[str, list] = OrderedDict()
        self._lock = threading.Lock()

    def locked_for(self, client: str) -> float:
        with self._lock:
            entry = self._clients.get(client)
            return max(0.0, entry[1] - self.clock()) if entry else 0.0

    def failed(self, client: str) -> None:
        with self._lock:
            entry = self._clients.pop(client, None) or [0, 0.0]
            self._clients[client] = entry
            entry[0] += 1
            if entry[0] >= self.max_failures:
                entry[0], entry[1] = 0, self.clock() + self.lockout_s
            while len(self._clients) > self.max_clients:
                self._clients.popitem(last=False)

    def begin(self, client: str) -> float:
        """Start checking one attempt of ``client``: 0.0 when it may be checked (it counts as a failure
        until :meth:`succeeded`), else the seconds left of the lockout (nothing is counted then)."""
        with self._lock:
            now = self.clock()
            entry = self._clients.pop(client, None) or [0, 0.0]
            self._clients[client] = entry
            if entry[1] > now:
                return entry[1] - now
            entry[0] += 1
            if entry[0] >= self.max_failures:
                entry[0], entry[1] = 0, now + self.lockout_s
            while len(self._clients) > self.max_clients:
                self._clients.popitem(last=False)
            return 0.0

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)


def client_address() -> str:
    """The TCP peer (forwarded-for headers are not trusted)."""
    return request.remote_addr or "unknown"


def organiser() -> str | None:
    """The organiser logged in on this session, or None."""
    name = session.get("organiser")
    if name and hmac.compare_digest(session.get("organiser_mark", ""), _mark(name)):
        return name
    return None


def _mark(name: str) -> str:
    store = current_app.extensions["hall_store"]
    row = store.organiser(name)
    return hmac.new(current_app.config["SECRET_KEY"].encode(), (name + (row or {}).get("password_hash", "")).encode(),
                    "sha256").hexdigest() if row else "-"


def log_in(name: str) -> None:
    session.clear()
    session.permanent = True
    session["organiser"] = name
    session["organiser_mark"] = _mark(name)  # a changed password ends old sessions


def error(code: str, message: str, status: int, headers: dict | None = None):
    """The contract's error shape ``{"error": {"code", "message"}}``."""
    return jsonify({"error": {"code": code, "message": message}}), status, headers or {}


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def init_app(app) -> None:
    app.extensions["login_attempts"] = Attempts(max_failures=app.config["LOGIN_MAX_FAILURES"],
                                                lockout_s=app.config["LOGIN_LOCKOUT_S"])
    app.extensions["pairing_attempts"] = Attempts(max_failures=app.config["PAIRING_MAX_FAILURES"],
                                                  lockout_s=app.config["LOGIN_LOCKOUT_S"])

    @app.before_request
    def _guard():
        if request.endpoint in STATION_ENDPOINTS or request.method in SAFE_METHODS:
            return None
        if not csrf_ok():
            return error("csrf", "this form has expired: reload the page and try again", 403)
        if request.endpoint in OPEN_FORMS:
            return None
        if organiser() is None:
            return error("login-required", "log in as the organiser first", 403)
        return None

    @app.context_processor
    def _helpers():
        return {"csrf_token": csrf_token, "organiser": organiser}


def organiser_required(view):
    """GET pages for the organiser only: redirect to the login page."""

    @wraps(view)
    def wrapped(*args, **kwargs):
        if organiser() is None:
            if wants_json():
                return error("login-required", "log in as the organiser first", 403)
            return redirect(url_for("organiser.login", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return wrapped


def station_required(view):
    """Station API calls: a valid, unrevoked ``Authorization: Bearer`` token; ``g.station`` is its row."""

    @wraps(view)
    def wrapped(*args, **kwargs):
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header.lower().startswith("bearer ") else ""
        station = current_app.extensions["hall_store"].station_by_token(token) if token else None
        if station is None:
            return error("station-token", "this station is not paired with the hall (or was unpaired): pair it "
                         "again with a new code", 401)
        g.station = station
        return view(*args, **kwargs)

    return wrapped
