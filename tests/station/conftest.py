"""Fixtures for station tests: a store in a temporary folder, a station with the mock camera and a fake pipeline."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # attack_helpers, under importlib mode

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score
from hardware.mock_camera import MockCamera

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(REPO, "examples", "strand-unter")


@pytest.fixture
def store(tmp_path):
    s = Store(str(tmp_path / "data"))
    yield s
    s.close()


@pytest.fixture
def scanner():
    return FakeScanner()


@pytest.fixture
def station(tmp_path, scanner):
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                 scanner=scanner, scorer=fake_score)
    yield st
    st.close()
