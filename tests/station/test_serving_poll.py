"""The station's web server waits on poll(): with descriptor numbers past select()'s 1,024 (a
process with many files open) it keeps answering (issue 22, item 1)."""

from __future__ import annotations

import http.client
import os
import resource

import pytest

from attack_helpers import served
from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score
from hardware.mock_camera import MockCamera


def test_the_station_answers_on_descriptors_past_1024(tmp_path):
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 1400:
        pytest.skip("this process may not open enough files")
    station = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)),
                      calibration=FakeCalibration(), scanner=FakeScanner(), scorer=fake_score)
    filler = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        with served(station) as port:
            for _ in range(3):
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("GET", "/api/status")
                assert conn.getresponse().status in (200, 401, 403)
                conn.close()
    finally:
        for fd in filler:
            os.close(fd)
        station.close()
