"""The scan button under gpiozero's MockFactory: press, long press, debounce, busy."""

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from hardware.button import ScanButton


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def factory():
    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = previous


@pytest.fixture
def rig(factory):
    clock = Clock()
    events = []
    busy = {"now": False}
    button = ScanButton(17, on_press=lambda: events.append("press"), on_long_press=lambda: events.append("long"),
                        hold_time_s=2.0, debounce_s=0.05, is_busy=lambda: busy["now"], clock=clock)
    pin = factory.pin(17)

    def press(held_s):
        pin.drive_low()
        clock.t += held_s
        pin.drive_high()
        clock.t += 1.0

    yield button, press, events, busy, pin, clock
    button.close()


def test_short_press_scans(rig):
    button, press, events, *_ = rig
    press(0.2)
    assert events == ["press"] and button.presses == 1


def test_long_press_is_game_over(rig):
    button, press, events, *_ = rig
    press(2.5)
    assert events == ["long"] and button.long_presses == 1


def test_contact_bounce_is_one_press(rig):
    button, press, events, busy, pin, clock = rig
    pin.drive_low()
    clock.t += 0.01
    pin.drive_high()  # bounce: opens again within 10 ms
    clock.t += 0.01
    pin.drive_low()
    clock.t += 0.3
    pin.drive_high()
    assert events == ["press"]


def test_presses_during_a_scan_are_ignored_not_queued(rig):
    button, press, events, busy, *_ = rig
    busy["now"] = True
    press(0.2)
    press(0.2)
    busy["now"] = False
    assert events == [] and button.ignored == 2
    press(0.2)
    assert events == ["press"]


def test_close_twice_and_pin_names(factory):
    b = ScanButton("GPIO27")
    b.close()
    b.close()
    assert "GPIO27" in repr(b)
