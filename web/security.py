"""The station PIN and CSRF protection.

Reading is open to the LAN; every request that changes anything (any method but GET/HEAD/OPTIONS)
needs (1) the CSRF token of the page's session, sent as the ``X-CSRF-Token`` header or the
``csrf_token`` form field, and (2) a session unlocked with the station PIN. The PIN is chosen on
the first visit and stored salted and hashed with scrypt (never in clear). After
:data:`MAX_FAILURES` wrong PINs from one client address, unlocking from that address is refused
for :data:`LOCKOUT_S` seconds (429 with ``Retry-After``); other addresses — the owner's phone —
are not affected. ``POST /api/pin`` is the same as the form for scripts and answers JSON.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import math
import threading
import time
from collections import OrderedDict

from flask import Blueprint, current_app, flash, jsonify, redirect, render_template, request, session, url_for

from web.errors import error_response
from web.inputs import json_body

bp = Blueprint("security", __name__)

PIN_SETTING = "pin_hash"
SECRET_SETTING = "secret_key"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
#: endpoints that need the CSRF token but not an unlocked session
PIN_ENDPOINTS = ("security.pin", "security.pin_json")
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}
#: wrong PINs in a row from one address before it is locked out
MAX_FAILURES = 5
#: seconds an address stays locked out
LOCKOUT_S = 30.0
#: client addresses whose wrong PINs are remembered (least recently seen forgotten first)
MAX_CLIENTS = 1024
#: longest PIN accepted (digits)
PIN_MAX_LENGTH = 32


def hash_pin(pin: str, *, salt: bytes | None = None) -> str:
    """Hash a PIN as ``scrypt$n$r$p$salt_hex$hash_hex`` (16-byte random salt).

    >>> h = hash_pin("2468", salt=b"0" * 16); h.startswith("scrypt$16384$8$1$"), verify_pin("2468", h)
    (True, True)
    """
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(pin.encode(), salt=salt, dklen=32, **SCRYPT)
    return f"scrypt${SCRYPT['n']}${SCRYPT['r']}${SCRYPT['p']}${salt.hex()}${digest.hex()}"


def verify_pin(pin: str, stored: str) -> bool:
    """True when ``pin`` matches a :func:`hash_pin` string (constant-time comparison)."""
    try:
        scheme, n, r, p, salt_hex, digest_hex = stored.split("$")
        if scheme != "scrypt":
            return False
        digest = hashlib.scrypt(pin.encode(), salt=bytes.fromhex(salt_hex), n=int(n), r=int(r), p=int(p),
                                dklen=len(digest_hex) // 2)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(digest.hex(), digest_hex)


def csrf_token() -> str:
    """The session's CSRF token (made on first use)."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(32)
    return session["csrf"]


def _store():
    return current_app.extensions["station"].store


def pin_is_set() -> bool:
    return _store().get_setting(PIN_SETTING) is not None


def is_unlocked() -> bool:
    """True when this session entered the current PIN (changing the PIN locks every session)."""
    stored = _store().get_setting(PIN_SETTING)
    return stored is not None and hmac.compare_digest(session.get("pin_mark", ""), _mark(stored))


def _mark(stored: str) -> str:
    """What an unlocked session carries: an HMAC of the PIN hash (reveals nothing about the PIN)."""
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, stored.encode(), hashlib.sha256).hexdigest()


class PinAttempts:
    """Wrong PINs per client address: :data:`MAX_FAILURES` in a row lock that address out.

    Memory is bounded: at most ``max_clients`` addresses are remembered, the least recently
    seen forgotten first.

    Args:
        max_failures: wrong PINs in a row before a lockout.
        lockout_s: seconds a lockout lasts.
        max_clients: addresses remembered.
        clock: seconds, monotonic (tests pass a fake).

    >>> a = PinAttempts(max_failures=2, lockout_s=30, clock=lambda: 0.0)
    >>> a.failed("10.0.0.9"); a.failed("10.0.0.9"); a.locked_for("10.0.0.9"), a.locked_for("10.0.0.2")
    (30.0, 0.0)
    """

    def __init__(self, *, max_failures: int = MAX_FAILURES, lockout_s: float = LOCKOUT_S,
                 max_clients: int = MAX_CLIENTS, clock=time.monotonic):
        self.max_failures = max_failures
        self.lockout_s = lockout_s
        self.max_clients = max_clients
        self.clock = clock
        self._clients: OrderedDict[str, list] = OrderedDict()  # address -> [failures, locked_until]
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._clients)

    def locked_for(self, client: str) -> float:
        """Seconds until ``client`` may try again (0.0 when it may now)."""
        with self._lock:
            entry = self._clients.get(client)
            return max(0.0, entry[1] - self.clock()) if entry else 0.0

    def failed(self, client: str) -> None:
        """Count a wrong PIN from ``client``; the last allowed one starts its lockout."""
        with self._lock:
            entry = self._clients.pop(client, None) or [0, 0.0]
            self._clients[client] = entry  # most recently seen last
            entry[0] += 1
            if entry[0] >= self.max_failures:
                entry[0] = 0
                entry[1] = self.clock() + self.lockout_s
            while len(self._clients) > self.max_clients:
                self._clients.popitem(last=False)

    def succeeded(self, client: str) -> None:
        """The right PIN: forget ``client``'s wrong ones."""
        with self._lock:
            self._clients.pop(client, None)


def _client() -> str:
    """The address the request came from (the TCP peer; forwarded-for headers are not trusted)."""
    return request.remote_addr or "unknown"


def init_app(app) -> None:
    """Secret key from the store (made at first run), CSRF + PIN guard, template helpers."""
    store = app.extensions["station"].store
    if not app.config.get("SECRET_KEY"):
        key = store.get_setting(SECRET_SETTING)
        if key is None:
            key = secrets.token_hex(32)
            store.set_setting(SECRET_SETTING, key)
        app.config["SECRET_KEY"] = key
    app.extensions["pin_attempts"] = PinAttempts()

    @app.before_request
    def _guard():
        if request.method in SAFE_METHODS:
            return None
        sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
        expected = session.get("csrf")
        if not expected or not hmac.compare_digest(sent, expected):
            return error_response("csrf", "missing or wrong CSRF token: reload the page", 403)
        if request.endpoint in PIN_ENDPOINTS:
            return None
        if not pin_is_set():
            return error_response("pin-not-set", "choose the station PIN first (PIN page)", 403)
        if not is_unlocked():
            return error_response("pin-required", "unlock the station with its PIN first", 403)
        return None

    @app.context_processor
    def _helpers():
        return {"csrf_token": csrf_token, "pin_is_set": pin_is_set, "is_unlocked": is_unlocked}


class PinRefused(Exception):
    """Why a PIN was not accepted: ``code``, ``message``, HTTP ``status``, ``retry_after_s`` (lockouts)."""

    def __init__(self, code: str, message: str, status: int, retry_after_s: int | None = None):
        super().__init__(message)
        self.code, self.message, self.status, self.retry_after_s = code, message, status, retry_after_s


def check_pin(action: str, entered: str, repeated: str | None) -> None:
    """Choose the first PIN, unlock this session with the PIN, or lock it again.

    Raises:
        PinRefused: ``pin-invalid`` / ``pin-mismatch`` (400) for a first PIN, ``pin-wrong`` (403),
            ``pin-locked-out`` (429) after too many wrong PINs from this address.
    """
    store = _store()
    stored = store.get_setting(PIN_SETTING)
    if action == "lock":
        session.pop("pin_mark", None)
        return
    if not isinstance(entered, str):
        raise PinRefused("pin-invalid", "the PIN must be digits", 400)
    if stored is None:
        least = current_app.config["PIN_MIN_LENGTH"]
        if not (least <= len(entered) <= PIN_MAX_LENGTH) or not entered.isdigit():
            raise PinRefused("pin-invalid", f"The PIN must be {least} to {PIN_MAX_LENGTH} digits.", 400)
        if entered != repeated:
            raise PinRefused("pin-mismatch", "The two PINs differ.", 400)
        stored = hash_pin(entered)
        store.set_setting(PIN_SETTING, stored)
    else:
        attempts: PinAttempts = current_app.extensions["pin_attempts"]
        wait_s = attempts.locked_for(_client())
        if wait_s > 0:
            raise PinRefused("pin-locked-out", f"Too many wrong PINs from this device; try again in "
                             f"{math.ceil(wait_s)} s.", 429, math.ceil(wait_s))
        if len(entered) > PIN_MAX_LENGTH or not verify_pin(entered, stored):
            attempts.failed(_client())
            raise PinRefused("pin-wrong", "Wrong PIN.", 403)
        attempts.succeeded(_client())
    session.permanent = True
    session["pin_mark"] = _mark(stored)


@bp.route("/pin", methods=["GET", "POST"])
def pin():
    """First visit: choose the PIN. Later: unlock this browser with it (or lock it again)."""
    if request.method == "GET":
        return render_template("pin.html", first_run=not pin_is_set(), unlocked=is_unlocked())
    first_run = not pin_is_set()
    try:
        check_pin(request.form.get("action", "unlock"), request.form.get("pin", ""), request.form.get("pin2"))
    except PinRefused as refused:
        if request.accept_mimetypes.best == "application/json":
            response, status = error_response(refused.code, refused.message, refused.status)
        else:
            flash(refused.message)
            response, status = render_template("pin.html", first_run=first_run, unlocked=False), refused.status
        headers = {"Retry-After": str(refused.retry_after_s)} if refused.retry_after_s else {}
        return response, status, headers
    if request.form.get("action") == "lock":
        return redirect(url_for("live.page"))
    return redirect(request.args.get("next") if _safe_next(request.args.get("next")) else url_for("live.page"))


@bp.post("/api/pin")
def pin_json():
    """``{"pin", "pin2"?, "action"?: "unlock"|"lock"}`` → ``{"unlocked": bool}``; errors as JSON
    (429 with ``Retry-After`` while this address is locked out)."""
    body = json_body()
    try:
        check_pin(body.get("action", "unlock"), body.get("pin", ""), body.get("pin2"))
    except PinRefused as refused:
        response, status = error_response(refused.code, refused.message, refused.status)
        headers = {"Retry-After": str(refused.retry_after_s)} if refused.retry_after_s else {}
        return response, status, headers
    return jsonify({"unlocked": is_unlocked()})


def _safe_next(target: str | None) -> bool:
    return bool(target) and target.startswith("/") and not target.startswith("//")
