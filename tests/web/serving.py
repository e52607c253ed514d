"""A station's web app served on a free local port for the browser tests (waitress, one thread)."""

from __future__ import annotations

import contextlib
from tests.server_thread import ServerThread
from web import create_app


@contextlib.contextmanager
def served_station(station, threads: int = 8):
    """Serve ``station``'s pages; yields ``{"url": "http://127.0.0.1:PORT", "station": station}``
    and closes the server and the station on exit."""
    app = create_app({"EVENTS_KEEPALIVE_S": 1.0, "POLL_INTERVAL_MS": 400}, station=station)
    srv = ServerThread.serving(app, threads=threads)
    try:
        yield {"url": srv.url, "station": station}
    finally:
        srv.close()
        station.close()


@contextlib.contextmanager
def served_strand_game(data_dir: str):
    """A station whose every scan reads ``STRAND_STATE`` scored by the rules engine (no buckets: the
    totals wait for Game over), served, with a headless Chromium; yields (url, station, driver)."""
    from beachscore.station import Station
    from beachscore.station.store import Store
    from beachscore.station.testing import STRAND_STATE, FakeCalibration, FakeScanner, score_with_rules
    from hardware.mock_camera import MockCamera
    from tests.chromium import headless_chromium

    station = Station(Store(data_dir), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                      scanner=FakeScanner(STRAND_STATE, scorer=score_with_rules), scorer=score_with_rules)
    with served_station(station) as served, headless_chromium() as driver:
        yield served["url"], station, driver
