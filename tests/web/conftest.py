"""Fixtures for the web app: ``app`` around a station with the mock camera and fake pipeline, ``client``,
and ``unlocked`` (a client whose session chose the PIN and carries the CSRF token)."""

import re

import pytest

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score
from hardware.mock_camera import MockCamera
from web import create_app

PIN = "2468"


@pytest.fixture
def station(tmp_path):
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                 scanner=FakeScanner(), scorer=fake_score)
    yield st
    st.close()


@pytest.fixture
def app(station):
    return create_app({"TESTING": True, "EVENTS_KEEPALIVE_S": 0.05}, station=station)


@pytest.fixture
def client(app):
    return app.test_client()


def csrf_of(client) -> str:
    html = client.get("/pin").get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)


class Unlocked:
    """A test client that set the PIN; ``post_json`` sends the CSRF header."""

    def __init__(self, client):
        self.client = client
        self.csrf = csrf_of(client)
        r = client.post("/pin", data={"pin": PIN, "pin2": PIN, "csrf_token": self.csrf})
        assert r.status_code == 302, r.get_data(as_text=True)

    def post_json(self, url, body=None):
        return self.client.post(url, json=body if body is not None else {}, headers={"X-CSRF-Token": self.csrf})

    def get(self, url):
        return self.client.get(url)


@pytest.fixture
def unlocked(client):
    return Unlocked(client)


@pytest.fixture(name="csrf_of")
def csrf_of_fixture():
    """The helper :func:`csrf_of`, as a fixture (test modules cannot import conftest)."""
    return csrf_of


@pytest.fixture
def make_unlocked():
    """``make_unlocked(test_client)`` → :class:`Unlocked` (for apps a test builds itself)."""
    return Unlocked
