"""Request-body limits applied by the web server while a request arrives, before its body is buffered.

waitress buffers a request's whole body (in memory, then a temporary file) before the app sees
it, so the app's ``MAX_CONTENT_LENGTH`` comes too late to protect the disk. :class:`LimitedParser`
refuses a body with 413 as soon as its ``Content-Length`` (or, chunked, the bytes received so
far) passes the request's limit: :data:`ANONYMOUS_BODY_MAX` for a request without a station
token or an organiser session cookie, the server's ``max_request_body_size`` otherwise.
:class:`LimitedChannel` also keeps the bodies of all unfinished requests together under
:data:`BODY_BUDGET` bytes: a connection whose body would pass it is closed.
"""

from __future__ import annotations

import threading

from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.utilities import RequestEntityTooLarge

#: Bytes: the largest body of a request with neither a station token nor a session cookie (the
#: login form, a pairing code: a few hundred bytes).
ANONYMOUS_BODY_MAX = 64 * 1024
#: Bytes: all unfinished request bodies together (a few stations' photos arriving at once).
BODY_BUDGET = 256 * 1024 * 1024
#: The cookie that marks an organiser's browser (:mod:`hall.app`'s ``SESSION_COOKIE_NAME``).
SESSION_COOKIE = "hall_session="


class LimitedParser(HTTPRequestParser):
    """waitress's request parser with a lower body limit for anonymous requests (see the module)."""

    def received(self, data):
        consumed = super().received(data)
        if self.error is None and self.headers_finished:
            limit = self.body_limit()
            if self.content_length > limit or self.body_bytes_received > limit:
                self.error = RequestEntityTooLarge(f"a request without a station token or a session may carry at "
                                                   f"most {limit} bytes")
                self.completed = True
        return consumed

    def body_limit(self) -> int:
        """Bytes this request's body may have (its headers are parsed)."""
        authorization = self.headers.get("AUTHORIZATION", "")
        if authorization[:7].lower() == "bearer " or SESSION_COOKIE in self.headers.get("COOKIE", ""):
            return self.adj.max_request_body_size
        return ANONYMOUS_BODY_MAX


class BodyBudget:
    """Bytes held by unfinished request bodies, server-wide (thread-safe)."""

    def __init__(self, limit: int = BODY_BUDGET):
        self.limit, self.held = limit, 0
        self._lock = threading.Lock()

    def change(self, delta: int) -> bool:
        """Add ``delta`` bytes (negative: give back); False (and nothing added) when it would pass the limit."""
        with self._lock:
            if delta > 0 and self.held + delta > self.limit:
                return False
            self.held += delta
            return True


class LimitedChannel(HTTPChannel):
    """A connection that parses with :class:`LimitedParser` and counts its unfinished body against
    its server's ``body_budget`` (:class:`BodyBudget`); over the budget, the connection is closed."""

    parser_class = LimitedParser
    held = 0

    def received(self, data):
        result = super().received(data)
        request = self.request  # the request still arriving, if any
        now = request.body_bytes_received if request is not None and not request.completed else 0
        budget = getattr(self.server, "body_budget", None)
        if budget is not None and now != self.held:
            if budget.change(now - self.held):
                self.held = now
            else:
                self.will_close = True
        return result

    def handle_close(self):
        self._give_back()
        super().handle_close()

    def close(self):
        self._give_back()
        super().close()

    def _give_back(self) -> None:
        budget = getattr(self.server, "body_budget", None)
        if budget is not None and self.held:
            budget.change(-self.held)
            self.held = 0


#: Connections taken from the listening socket per turn of the server's loop.
ACCEPT_BATCH = 64


def accept_in_batches(server, batch: int = ACCEPT_BATCH) -> None:
    """Make ``server`` (a waitress server) accept up to ``batch`` waiting connections per turn of its
    loop instead of one: with thousands of sockets arriving at once, one a turn (each turn asks
    every open connection) kept the room's requests waiting in the backlog for seconds."""
    accept_one = server.handle_accept

    def handle_accept():
        for _ in range(batch):
            held = len(server._map)
            if held >= server.adj.connection_limit:
                return
            accept_one()
            if len(server._map) == held:  # nothing was waiting (or it failed): back to the loop
                return

    server.handle_accept = handle_accept
