"""CSRF tokens of a Flask session, shared by the station's pages (``web.security``) and the hall's (``hall.auth``).

A session gets one random token (made on first use); every request that changes something must
send it back, as the ``X-CSRF-Token`` header or the ``csrf_token`` form field. Each app keeps its
own guard (which requests need it, what else they need, how a refusal reads); this is only the
token and the comparison, so that both check it the same way. Needs Flask (a request context).
"""

from __future__ import annotations

import hmac
import secrets

from flask import request, session

#: the session key and the form field that hold the token
SESSION_KEY = "csrf"
FORM_FIELD = "csrf_token"
HEADER = "X-CSRF-Token"


def csrf_token() -> str:
    """The session's CSRF token (made on first use)."""
    if SESSION_KEY not in session:
        session[SESSION_KEY] = secrets.token_urlsafe(32)
    return session[SESSION_KEY]


def csrf_ok() -> bool:
    """True when the request sends its session's CSRF token (header or form field), compared in constant time.

    Compared as bytes: ``hmac.compare_digest`` refuses non-ASCII text (a TypeError, a 500), and any odd
    token is simply wrong.
    """
    sent = request.headers.get(HEADER) or request.form.get(FORM_FIELD) or ""
    expected = session.get(SESSION_KEY)
    return bool(expected) and hmac.compare_digest(sent.encode("utf-8", "surrogateescape"), expected.encode())
