"""The station PIN and CSRF protection.

Reading is open to the LAN; every request that changes anything (any method but GET/HEAD/OPTIONS)
needs (1) the CSRF token of the page's session, sent as the ``X-CSRF-Token`` header or the
``csrf_token`` form field, and (2) a session unlocked with the station PIN. The PIN is chosen on
the first visit and stored salted and hashed with scrypt (never in clear). After
:data:`MAX_FAILURES` wrong PINs, unlocking is refused for :data:`LOCKOUT_S` seconds.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, session, url_for

from web.errors import error_response

bp = Blueprint("security", __name__)

PIN_SETTING = "pin_hash"
SECRET_SETTING = "secret_key"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
#: endpoints that need the CSRF token but not an unlocked session
PIN_ENDPOINTS = ("security.pin",)
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}
MAX_FAILURES = 5
LOCKOUT_S = 30.0


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


class _Attempts:
    def __init__(self):
        self.failures = 0
        self.locked_until = 0.0
        self.lock = threading.Lock()


def init_app(app) -> None:
    """Secret key from the store (made at first run), CSRF + PIN guard, template helpers."""
    store = app.extensions["station"].store
    if not app.config.get("SECRET_KEY"):
        key = store.get_setting(SECRET_SETTING)
        if key is None:
            key = secrets.token_hex(32)
            store.set_setting(SECRET_SETTING, key)
        app.config["SECRET_KEY"] = key
    app.extensions["pin_attempts"] = _Attempts()

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


@bp.route("/pin", methods=["GET", "POST"])
def pin():
    """First visit: choose the PIN. Later: unlock this browser with it (or lock it again)."""
    store = _store()
    stored = store.get_setting(PIN_SETTING)
    if request.method == "GET":
        return render_template("pin.html", first_run=stored is None, unlocked=is_unlocked())
    action = request.form.get("action", "unlock")
    entered = request.form.get("pin", "")
    if action == "lock":
        session.pop("pin_mark", None)
        return redirect(url_for("live.page"))
    if stored is None:
        if len(entered) < current_app.config["PIN_MIN_LENGTH"] or not entered.isdigit():
            flash(f"The PIN must be at least {current_app.config['PIN_MIN_LENGTH']} digits.")
            return render_template("pin.html", first_run=True, unlocked=False), 400
        if entered != request.form.get("pin2", ""):
            flash("The two PINs differ.")
            return render_template("pin.html", first_run=True, unlocked=False), 400
        stored = hash_pin(entered)
        store.set_setting(PIN_SETTING, stored)
    else:
        attempts = current_app.extensions["pin_attempts"]
        with attempts.lock:
            if time.monotonic() < attempts.locked_until:
                abort(429, "too many wrong PINs; wait half a minute")
        if not verify_pin(entered, stored):
            with attempts.lock:
                attempts.failures += 1
                if attempts.failures >= MAX_FAILURES:
                    attempts.failures = 0
                    attempts.locked_until = time.monotonic() + LOCKOUT_S
            flash("Wrong PIN.")
            return render_template("pin.html", first_run=False, unlocked=False), 403
        with attempts.lock:
            attempts.failures = 0
    session.permanent = True
    session["pin_mark"] = _mark(stored)
    return redirect(request.args.get("next") if _safe_next(request.args.get("next")) else url_for("live.page"))


def _safe_next(target: str | None) -> bool:
    return bool(target) and target.startswith("/") and not target.startswith("//")
