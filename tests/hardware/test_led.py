"""Status light and buzzer blink codes under gpiozero's MockFactory."""

import time

import pytest

from beachscore.station.testing import mock_pin_factory

from hardware.led import StatusLight


@pytest.fixture
def factory():
    with mock_pin_factory() as factory:
        yield factory


def _states(pin, seconds):
    seen = set()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        seen.add(pin.state)
        time.sleep(0.01)
    return seen


def test_codes(factory):
    light = StatusLight(22, buzzer_pin=23, ok_s=0.3)
    led, buzzer = factory.pin(22), factory.pin(23)
    light.busy()
    assert light.mode == "busy" and _states(led, 0.35) == {True, False}  # blinking
    light.ok()
    assert light.mode == "ok" and light.is_lit
    time.sleep(0.45)
    assert not light.is_lit  # the ok light goes out after ok_s
    light.error()
    assert light.mode == "error" and _states(led, 0.4) == {True, False}
    assert any(state for _, state in buzzer.states)  # beeped
    light.ready()
    assert not light.is_lit
    light.close()
    light.close()


def test_without_buzzer(factory):
    with StatusLight(5) as light:
        light.error()
        light.ok()
