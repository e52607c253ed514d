"""The web server as ``beachscore serve`` runs it (``beachscore.serving.create_server``) against
what a hostile network neighbour sends: slow-loris headers, bodies far larger than any upload,
event streams that come and go."""

from __future__ import annotations

import socket
import threading

import pytest

from attack_helpers import Client, served
from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score
from hardware.mock_camera import MockCamera


def make_station(data_dir) -> Station:
    return Station(Store(str(data_dir)), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                   scanner=FakeScanner(), scorer=fake_score)


def _drip(sockets, stop: threading.Event, line: bytes, every_s: float = 0.2) -> threading.Thread:
    """Send ``line`` on every socket every ``every_s`` seconds until ``stop``: a slow-loris that is never idle."""
    def run():
        while not stop.wait(every_s):
            for s in sockets:
                try:
                    s.sendall(line)
                except OSError:
                    pass
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _closed_by_server(s: socket.socket) -> bool:
    s.settimeout(10)
    try:
        while True:
            data = s.recv(65536)
            if not data:
                return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def test_the_shipped_request_deadlines_are_short():
    from beachscore.serving import HEADER_DEADLINE_S, REQUEST_DEADLINE_S, WAITRESS

    assert HEADER_DEADLINE_S <= WAITRESS["channel_timeout"] and REQUEST_DEADLINE_S <= 120


def test_a_slow_loris_is_closed_at_the_header_deadline(tmp_path):
    """Connections dripping a header line (so never idle for channel_timeout) stayed open for
    good: 300 of them made /api/status unreachable. Each is closed once its headers are late."""
    station = make_station(tmp_path / "data")
    sockets, stop = [], threading.Event()
    try:
        with served(station, channel_timeout=600, cleanup_interval=0.5, header_deadline_s=1) as port:
            for _ in range(3):
                s = socket.create_connection(("127.0.0.1", port))
                s.sendall(b"GET /api/status HTTP/1.1\r\nHost: x\r\n")
                sockets.append(s)
            _drip(sockets, stop, b"X-Slow: 1\r\n")
            assert all(_closed_by_server(s) for s in sockets)
            status, _, _ = Client(port).request("GET", "/api/status", timeout=20)
            assert status == 200
    finally:
        stop.set()
        for s in sockets:
            s.close()
        station.close()


def test_a_slowly_sent_body_is_closed_at_the_request_deadline(tmp_path):
    station = make_station(tmp_path / "data")
    stop = threading.Event()
    try:
        with served(station, channel_timeout=30, cleanup_interval=0.5, request_deadline_s=1) as port:
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"POST /api/pin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100000\r\n\r\n{")
            _drip([s], stop, b" ")
            assert _closed_by_server(s)
            s.close()
    finally:
        stop.set()
        station.close()


@pytest.mark.parametrize("kind", ["slow-body", "idle"])
def test_when_every_connection_is_taken_the_slow_and_idle_ones_make_room(tmp_path, kind):
    """Every connection held by requests whose bodies trickle in (or by idle sockets), long before
    any deadline: a page still gets through at once, because a full server closes the
    connections that are doing nothing useful rather than stop accepting."""
    station = make_station(tmp_path / "data")
    sockets, stop = [], threading.Event()
    try:
        with served(station, connection_limit=10, channel_timeout=600, cleanup_interval=0.5,
                    header_deadline_s=600, request_deadline_s=600) as port:
            for _ in range(12):
                s = socket.create_connection(("127.0.0.1", port))
                if kind == "slow-body":
                    s.sendall(b"POST /api/pin HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              b"Content-Length: 100000\r\n\r\n{")
                sockets.append(s)
            if kind == "slow-body":
                _drip(sockets, stop, b" ")
            status, _, _ = Client(port).request("GET", "/api/status", timeout=20)
            assert status == 200
    finally:
        stop.set()
        for s in sockets:
            s.close()
        station.close()


def test_a_body_larger_than_any_upload_is_refused_before_it_is_sent(tmp_path):
    """waitress would buffer up to 1 GB per connection in temporary files before the page's own
    16 MB limit answers: the server refuses it from the headers, without reading the body."""
    station = make_station(tmp_path / "data")
    try:
        with served(station) as port:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(b"POST /api/calibration/upload HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\n"
                          b"Content-Length: 200000000\r\n\r\n")
                head = s.recv(200)
            assert head.startswith(b"HTTP/1.1 413")
    finally:
        station.close()


def _open_stream(port) -> tuple[socket.socket, bytes]:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    return s, s.recv(300)


def test_a_page_that_went_away_gives_its_event_stream_slot_back(tmp_path):
    """Browsers leaving the live page (reloads, a phone going to another page) close their
    streams: the slots are free again long before the next keep-alive would have noticed."""
    from beachscore.serving import EVENTS_MAX_STREAMS

    station = make_station(tmp_path / "data")
    try:
        with served(station) as port:
            for _ in range(3):  # three rounds of every slot taken, then every page gone
                streams = [_open_stream(port) for _ in range(EVENTS_MAX_STREAMS)]
                assert all(head.startswith(b"HTTP/1.1 200") for _, head in streams)
                for s, _ in streams:
                    s.close()
                assert _wait_for(lambda: station.events.subscriber_count == 0)
            s, head = _open_stream(port)
            assert head.startswith(b"HTTP/1.1 200")
            s.close()
    finally:
        station.close()


def _wait_for(predicate, limit_s: float = 10.0) -> bool:
    """Poll ``predicate`` until true (or ``limit_s``: well under the 15 s keep-alive of the shipped app)."""
    import time

    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def _serve(tmp_path, *args) -> list:
    from beachscore.cli import main

    return main(["serve", "--data", str(tmp_path / "data"), "--camera", "mock", "--button", "none", *args])


@pytest.mark.parametrize("port", ["99999", "-5", "65536"])
def test_a_port_out_of_range_is_bad_input(tmp_path, capsys, port):
    """--port 99999 listened on 34463 (99999 mod 65536) without a word; -5 was an internal error."""
    assert _serve(tmp_path, "--port", port) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--port" in err[0] and "65535" in err[0] and "[usage]" in err[0]


def test_a_port_in_use_is_one_clear_line(tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert _serve(tmp_path, "--host", "127.0.0.1", "--port", str(port)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"port {port}" in err[0] and "already in use" in err[0] and "--port" in err[0]
    assert "Errno" not in err[0] and "internal-error" not in err[0]


@pytest.mark.parametrize("host", ["999.1.1.1", "no-such-host.invalid"])
def test_an_address_that_cannot_be_listened_on_is_one_clear_line(tmp_path, capsys, host):
    assert _serve(tmp_path, "--host", host, "--port", "0") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"--host {host}" in err[0] and "internal-error" not in err[0]
