"""The station PIN and CSRF protection.

Reading is open to the LAN; every request that changes anything (any method but GET/HEAD/OPTIONS)
needs (1) the CSRF token of the page's session, sent as the ``X-CSRF-Token`` header or the
``csrf_token`` form field, and (2) a session unlocked with the station PIN. The PIN is chosen on
the first visit and stored salted and hashed with scrypt (never in clear).

Guessing is bounded per station, however the guesses arrive (in parallel, from many addresses):
at most :data:`MAX_FAILURES` PIN checks per :data:`WINDOW_S` seconds (:class:`PinAttempts`
reserves a slot *before* the check, so parallel requests cannot all slip through; a right PIN
gives its slot back). Beyond that a PIN is refused unchecked (429 with ``Retry-After``). Browsers
already unlocked stay unlocked. The scrypt checks run one at a time (each takes 16 MB).

"Lock" locks every browser: unlocked sessions carry a mark bound to the station's session epoch,
and locking starts a new epoch, so a cookie copied before no longer unlocks anything.
``POST /api/pin`` is the same as the form for scripts and answers JSON.
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import math
import re
import secrets
import threading
import time
import unicodedata

from flask import Blueprint, current_app, flash, jsonify, redirect, render_template, request, session, url_for

from beachscore.csrf import csrf_ok, csrf_token
from beachscore.errors import BeachscoreError
from web.errors import error_response
from web.inputs import json_body

bp = Blueprint("security", __name__)

PIN_SETTING = "pin_hash"
SECRET_SETTING = "secret_key"
EPOCH_SETTING = "session_epoch"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
#: endpoints that need the CSRF token but not an unlocked session
PIN_ENDPOINTS = ("security.pin", "security.pin_json")
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}
#: PIN checks the station makes per window, whoever sends them
MAX_FAILURES = 5
#: seconds of that window
WINDOW_S = 30.0
#: longest PIN accepted (digits)
PIN_MAX_LENGTH = 32
#: ``next`` after unlocking: a path of this station only (no scheme, host, backslash or control character)
SAFE_NEXT = re.compile(r"/(?![/\\])[A-Za-z0-9/_.~-]*(\?[A-Za-z0-9_.~=&-]*)?")
#: one scrypt at a time: each takes 16 MB and a Pi's CPU; parallel checks only pile up memory
_SCRYPT_LOCK = threading.Lock()


def hash_pin(pin: str, *, salt: bytes | None = None) -> str:
    """Hash a PIN as ``scrypt$n$r$p$salt_hex$hash_hex`` (16-byte random salt).

    >>> h = hash_pin("2468", salt=b"0" * 16); h.startswith("scrypt$16384$8$1$"), verify_pin("2468", h)
    (True, True)
    """
    salt = salt or secrets.token_bytes(16)
    with _SCRYPT_LOCK:
        digest = hashlib.scrypt(pin.encode(), salt=salt, dklen=32, **SCRYPT)
    return f"scrypt${SCRYPT['n']}${SCRYPT['r']}${SCRYPT['p']}${salt.hex()}${digest.hex()}"


def verify_pin(pin: str, stored: str) -> bool:
    """True when ``pin`` matches a :func:`hash_pin` string (constant-time comparison)."""
    try:
        scheme, n, r, p, salt_hex, digest_hex = stored.split("$")
        if scheme != "scrypt":
            return False
        with _SCRYPT_LOCK:
            digest = hashlib.scrypt(pin.encode(), salt=bytes.fromhex(salt_hex), n=int(n), r=int(r), p=int(p),
                                    dklen=len(digest_hex) // 2)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(digest.hex(), digest_hex)


def _store():
    return current_app.extensions["station"].store


def pin_is_set() -> bool:
    return _store().get_setting(PIN_SETTING) is not None


def is_unlocked() -> bool:
    """True when this session entered the current PIN since the last "Lock" (changing the PIN or
    locking locks every session)."""
    stored = _store().get_setting(PIN_SETTING)
    return stored is not None and hmac.compare_digest(session.get("pin_mark", ""), _mark(stored))


def _mark(stored: str) -> str:
    """What an unlocked session carries: an HMAC of the PIN hash and the session epoch (reveals
    nothing about the PIN; a new epoch makes every earlier mark worthless)."""
    key = current_app.config["SECRET_KEY"].encode()
    epoch = current_app.extensions["session_epoch"]
    return hmac.new(key, f"{epoch}${stored}".encode(), hashlib.sha256).hexdigest()


def lock_every_session() -> str | None:
    """Start a new session epoch: every browser, and every cookie copied from one, is locked.

    Returns:
        None when the new epoch is saved (the lock holds across a restart); else, when the store
        cannot be written (full disk, viewing mode), the warning to show: the lock then holds only
        until the station restarts.
    """
    epoch = secrets.token_hex(8)
    current_app.extensions["session_epoch"] = epoch
    try:
        _store().set_setting(EPOCH_SETTING, epoch)  # also across a restart
    except BeachscoreError as err:
        return (f"Every browser is locked, but only until the station restarts ({err.message}); "
                "lock again after the restart.")
    return None


class PinAttempts:
    """At most ``max_attempts`` PIN checks per ``window_s`` seconds for the whole station.

    A request takes a slot (:meth:`try_take`) *before* its PIN is checked, under one lock, so
    parallel requests are counted as they arrive, not when their check ends; a right PIN gives
    its slot back (:meth:`give_back`). Memory is bounded: at most ``max_attempts`` times are kept.

    Args:
        max_attempts: checks per window.
        window_s: seconds of the sliding window.
        clock: seconds, monotonic (tests pass a fake).

    >>> now = [0.0]
    >>> a = PinAttempts(max_attempts=2, window_s=30, clock=lambda: now[0])
    >>> a.try_take(), a.try_take(), a.try_take()
    (0.0, 0.0, 30.0)
    >>> now[0] = 31.0; a.try_take()
    0.0
    """

    def __init__(self, *, max_attempts: int = MAX_FAILURES, window_s: float = WINDOW_S, clock=time.monotonic):
        self.max_attempts = max_attempts
        self.window_s = window_s
        self.clock = clock
        self._taken: collections.deque[float] = collections.deque()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._forget(self.clock())
            return len(self._taken)

    def _forget(self, now: float) -> None:
        while self._taken and self._taken[0] <= now - self.window_s:
            self._taken.popleft()

    def try_take(self) -> float:
        """Take a slot for one PIN check: 0.0 when taken, else the seconds until one is free."""
        with self._lock:
            now = self.clock()
            self._forget(now)
            if len(self._taken) >= self.max_attempts:
                return max(0.001, self._taken[0] + self.window_s - now)
            self._taken.append(now)
            return 0.0

    def give_back(self) -> None:
        """The check found the right PIN: its slot does not count."""
        with self._lock:
            if self._taken:
                self._taken.pop()


def init_app(app) -> None:
    """Secret key from the store (made at first run), CSRF + PIN guard, template helpers."""
    store = app.extensions["station"].store
    if not app.config.get("SECRET_KEY"):
        key = store.get_setting(SECRET_SETTING)
        if key is None:
            key = secrets.token_hex(32)
            if store.read_only is None:  # viewing mode: a key for this run only
                store.set_setting(SECRET_SETTING, key)
        app.config["SECRET_KEY"] = key
    app.extensions["session_epoch"] = store.get_setting(EPOCH_SETTING, "0")
    app.extensions["pin_attempts"] = PinAttempts()

    @app.before_request
    def _guard():
        if request.method in SAFE_METHODS:
            return None
        if not csrf_ok():
            return error_response("csrf", "missing or wrong CSRF token: reload the page", 403)
        if request.endpoint in PIN_ENDPOINTS:
            return None
        problem = store.problem()
        if problem is not None and problem.code != "disk-full":  # viewing mode, or the folder is gone
            return error_response(problem.code, problem.message, 503)
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


def check_pin(action: str, entered: str, repeated: str | None) -> str | None:
    """Choose the first PIN, unlock this session with the PIN, or lock it again.

    Returns:
        a warning to show (a lock that holds only until the restart: :func:`lock_every_session`), or None.
    Raises:
        PinRefused: ``pin-invalid`` / ``pin-mismatch`` (400) for a first PIN, ``pin-wrong`` (403),
            ``pin-locked-out`` (429) after too many wrong PINs from this address.
    """
    store = _store()
    stored = store.get_setting(PIN_SETTING)
    if action == "lock":
        warning = None
        if stored is not None and is_unlocked():  # only an unlocked browser may lock the others
            warning = lock_every_session()
        session.pop("pin_mark", None)
        return warning
    if not isinstance(entered, str):
        raise PinRefused("pin-invalid", "the PIN must be digits", 400)
    entered = ascii_digits(entered)
    if stored is None:
        least = current_app.config["PIN_MIN_LENGTH"]
        if not (least <= len(entered) <= PIN_MAX_LENGTH) or not (entered.isascii() and entered.isdigit()):
            raise PinRefused("pin-invalid", f"The PIN must be {least} to {PIN_MAX_LENGTH} digits.", 400)
        if entered != ascii_digits(repeated if isinstance(repeated, str) else ""):
            raise PinRefused("pin-mismatch", "The two PINs differ.", 400)
        stored = hash_pin(entered)
        store.set_setting(PIN_SETTING, stored)
    else:
        attempts: PinAttempts = current_app.extensions["pin_attempts"]
        wait_s = attempts.try_take()
        if wait_s > 0:
            raise PinRefused("pin-locked-out", f"Too many wrong PINs; try again in {math.ceil(wait_s)} s.",
                             429, math.ceil(wait_s))
        if len(entered) > PIN_MAX_LENGTH or not verify_pin(entered, stored):
            raise PinRefused("pin-wrong", "Wrong PIN.", 403)
        attempts.give_back()
    session.permanent = True
    session["pin_mark"] = _mark(stored)
    return None


def ascii_digits(pin: str) -> str:
    """A PIN typed in any script's digits as ASCII digits (a phone set to Arabic types ٢٤٦٨ for
    2468); anything else is returned unchanged (and refused as a first PIN: no ``²`` or ``①``,
    which ``str.isdigit`` takes but no number pad types).

    >>> ascii_digits("٢٤٦٨"), ascii_digits("2468"), ascii_digits("²²²²")
    ('2468', '2468', '²²²²')
    """
    if len(pin) > PIN_MAX_LENGTH or not pin.isdecimal():
        return pin
    return "".join(str(unicodedata.decimal(c)) for c in pin)


@bp.route("/pin", methods=["GET", "POST"])
def pin():
    """First visit: choose the PIN. Later: unlock this browser with it (or lock it again)."""
    if request.method == "GET":
        return render_template("pin.html", first_run=not pin_is_set(), unlocked=is_unlocked())
    first_run = not pin_is_set()
    try:
        warning = check_pin(request.form.get("action", "unlock"), request.form.get("pin", ""), request.form.get("pin2"))
    except PinRefused as refused:
        if request.accept_mimetypes.best == "application/json":
            response, status = error_response(refused.code, refused.message, refused.status)
        else:
            flash(refused.message)
            response, status = render_template("pin.html", first_run=first_run, unlocked=False), refused.status
        headers = {"Retry-After": str(refused.retry_after_s)} if refused.retry_after_s else {}
        return response, status, headers
    if request.form.get("action") == "lock":
        if warning:
            flash(warning)
        return redirect(url_for("live.page"))
    return redirect(request.args.get("next") if _safe_next(request.args.get("next")) else url_for("live.page"))


@bp.post("/api/pin")
def pin_json():
    """``{"pin", "pin2"?, "action"?: "unlock"|"lock"}`` → ``{"unlocked": bool, "warning"?: str}``
    (``warning``: a lock that holds only until the restart); errors as JSON (429 with
    ``Retry-After`` while the station is locked out)."""
    body = json_body()
    try:
        warning = check_pin(body.get("action", "unlock"), body.get("pin", ""), body.get("pin2"))
    except PinRefused as refused:
        response, status = error_response(refused.code, refused.message, refused.status)
        headers = {"Retry-After": str(refused.retry_after_s)} if refused.retry_after_s else {}
        return response, status, headers
    return jsonify({"unlocked": is_unlocked(), **({"warning": warning} if warning else {})})


def _safe_next(target: str | None) -> bool:
    """Whether ``next`` is a local path of this station (``/scans/3/correct``), never another site.

    >>> [_safe_next(t) for t in ("/calibrate", "//evil", "/\\\\evil", "/\\t/evil", "https://evil", "/%09/evil")]
    [True, False, False, False, False, False]
    """
    return bool(target) and SAFE_NEXT.fullmatch(target) is not None
