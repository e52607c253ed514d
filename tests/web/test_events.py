"""Event streams cannot starve the server: at most EVENTS_MAX_STREAMS at once (then 503 with
Retry-After, and the page polls), each for at most EVENTS_MAX_AGE_S."""

import os
import socket
import time

from tests.server_thread import ServerThread
from web import create_app

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _open(client):
    r = client.get("/events", buffered=False)
    if r.status_code == 200:
        assert b"event: hello" in next(iter(r.response))
    return r


def test_streams_beyond_the_cap_are_503_with_retry_after(station):
    app = create_app({"TESTING": True, "EVENTS_KEEPALIVE_S": 0.05, "EVENTS_MAX_STREAMS": 3}, station=station)
    client = app.test_client()
    streams = [_open(client) for _ in range(3)]
    assert all(r.status_code == 200 for r in streams)
    refused = client.get("/events")
    assert refused.status_code == 503 and int(refused.headers["Retry-After"]) > 0
    assert refused.get_json()["error"]["code"] == "too-many-streams"
    assert client.get("/api/status").status_code == 200
    streams.pop().close()  # a page closed: its slot is free again
    again = _open(client)
    assert again.status_code == 200
    for r in [*streams, again]:
        r.close()
    assert station.events.subscriber_count == 0 and app.extensions["event_streams"].open == 0


def test_a_stream_never_iterated_gives_its_slot_back(station):
    app = create_app({"TESTING": True, "EVENTS_MAX_STREAMS": 1}, station=station)
    client = app.test_client()
    r = client.get("/events", buffered=False)
    r.close()  # the client went away before the first byte
    assert app.extensions["event_streams"].open == 0 and station.events.subscriber_count == 0
    _open(client).close()


def test_a_stream_ends_after_its_lifetime(station):
    app = create_app({"TESTING": True, "EVENTS_KEEPALIVE_S": 10.0, "EVENTS_MAX_AGE_S": 0.2,
                      "EVENTS_MAX_STREAMS": 1}, station=station)
    r = app.test_client().get("/events", buffered=False)
    t0 = time.monotonic()
    body = b"".join(r.response)  # ends by itself; the browser reconnects after "retry"
    assert time.monotonic() - t0 < 2.0
    assert body.startswith(b"retry: 3000\nevent: hello")
    r.close()
    assert app.extensions["event_streams"].open == 0 and station.events.subscriber_count == 0


def test_open_streams_do_not_starve_waitress(station):
    """More open /events than server threads: every other request still answers at once."""
    app = create_app({"EVENTS_KEEPALIVE_S": 0.5, "EVENTS_MAX_STREAMS": 2}, station=station)
    served = ServerThread.serving(app)
    srv = served.server
    socks = []
    try:
        for _ in range(7):
            s = socket.create_connection(("127.0.0.1", srv.effective_port), timeout=5)
            s.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
            socks.append(s)
        heads = [s.recv(200) for s in socks]
        assert sum(h.startswith(b"HTTP/1.1 200") for h in heads) == 2
        assert sum(h.startswith(b"HTTP/1.1 503") for h in heads) == 5
        t0 = time.monotonic()
        with socket.create_connection(("127.0.0.1", srv.effective_port), timeout=5) as s:
            s.sendall(b"GET /api/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert s.recv(200).startswith(b"HTTP/1.1 200")
        assert time.monotonic() - t0 < 2.0
    finally:
        for s in socks:
            s.close()
        served.close()


def test_the_live_page_polls_when_event_streams_are_refused():
    """live.js: an EventSource refused with 503 ends CLOSED → the page starts polling (the browser
    test drives the real thing; this keeps the fallback from being edited away)."""
    with open(os.path.join(REPO, "web", "static", "live.js"), encoding="utf-8") as f:
        js = f.read()
    assert "es.readyState === EventSource.CLOSED" in js and "startPolling()" in js
