"""Who may change what: organiser login (hashed password, CSRF, rate limit) and station tokens.

- Viewers need nothing: every GET of the standings, seating and export pages is open.
- Organiser pages: a session opened with the organiser's password (stored as werkzeug's salted
  scrypt hash). Every change (any method but GET/HEAD/OPTIONS) also carries the session's CSRF
  token (``csrf_token`` form field or ``X-CSRF-Token`` header).
- The first organiser account is made on ``/setup`` with the one-time setup code the hall
  prints when it starts without one (so nobody else on the network can claim the hall first).
- Stations: ``Authorization: Bearer <token>`` from pairing; the organiser can revoke a token.
- Wrong passwords and wrong pairing codes are rate-limited per client address
  (:class:`Attempts`): after ``max_failures`` in a row the address waits ``lockout_s``; wrong
  passwords also per account (whatever addresses they come from). Password checks run a few at a
  time and take as long for an unknown user name (:class:`PasswordChecks`).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from functools import wraps

from flask import current_app, g, jsonify, redirect, request, session, url_for
from werkzeug.security import check_password_hash, generate_password_hash

from beachscore.csrf import csrf_ok, csrf_token

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
#: Endpoints that need the CSRF token but no organiser session.
OPEN_FORMS = ("organiser.login", "organiser.setup", "reporting.report")
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
    """The organiser logged in on this session, or None (the session must be live in the store:
    logging out anywhere ends it for every copy of the cookie)."""
    if "organiser" not in g:
        token = session.get("sid")
        g.organiser = current_app.extensions["hall_store"].session_organiser(token) \
            if isinstance(token, str) and token else None
    return g.organiser


def log_in(name: str) -> None:
    """Start a new session of ``name`` on this browser (a new token: one set before login is not kept)."""
    session.clear()
    session.permanent = True
    session["sid"] = current_app.extensions["hall_store"].open_session(
        name, current_app.permanent_session_lifetime.total_seconds())
    g.organiser = name


def log_out() -> None:
    """End this browser's session, for every copy of its cookie."""
    token = session.get("sid")
    if isinstance(token, str) and token:
        current_app.extensions["hall_store"].end_session(token)
    session.clear()
    g.organiser = None


def error(code: str, message: str, status: int, headers: dict | None = None):
    """The contract's error shape ``{"error": {"code", "message"}}``."""
    return jsonify({"error": {"code": code, "message": message}}), status, headers or {}


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


class PasswordChecks:
    """Password checks, at most ``concurrent`` at a time (each scrypt check takes ~32 MB and ~0.1 s),
    and as slow for a user name that does not exist as for one that does (a dummy hash is checked)."""

    def __init__(self, concurrent: int = 2, wait_s: float = 10.0):
        self._slots = threading.BoundedSemaphore(concurrent)
        self.wait_s = wait_s
        self._dummy = generate_password_hash(secrets.token_hex(16))

    def matches(self, password_hash: str | None, password: str) -> bool | None:
        """Whether ``password`` matches ``password_hash`` (None: no such user, checked against the dummy);
        None when no check slot came free within ``wait_s`` (too many logins at once)."""
        if not self._slots.acquire(timeout=self.wait_s):
            return None
        try:
            ok = check_password_hash(password_hash or self._dummy, password)
        finally:
            self._slots.release()
        return ok and password_hash is not None


def init_app(app) -> None:
    app.extensions["login_attempts"] = Attempts(max_failures=app.config["LOGIN_MAX_FAILURES"],
                                                lockout_s=app.config["LOGIN_LOCKOUT_S"])
    app.extensions["account_attempts"] = Attempts(max_failures=app.config["LOGIN_MAX_FAILURES_PER_ACCOUNT"],
                                                  lockout_s=app.config["LOGIN_LOCKOUT_S"])
    app.extensions["password_checks"] = PasswordChecks(app.config["LOGIN_CONCURRENT_CHECKS"])
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
