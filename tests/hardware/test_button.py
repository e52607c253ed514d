"""The scan button under gpiozero's MockFactory: press, long press (fired while held), debounce, busy."""

import threading
import time

import pytest

from beachscore.station.testing import mock_pin_factory

from hardware.button import ScanButton


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class Timers:
    """Hold timers on the fake clock: ``run_due()`` calls every timer whose time has come."""

    def __init__(self, clock):
        self.clock = clock
        self.pending = []

    def __call__(self, delay_s, callback):
        timer = FakeTimer(self.clock() + delay_s, callback)
        self.pending.append(timer)
        return timer

    def run_due(self):
        for t in [t for t in self.pending if t.due <= self.clock() and not t.cancelled]:
            self.pending.remove(t)
            t.callback()


class FakeTimer:
    def __init__(self, due, callback):
        self.due, self.callback, self.cancelled = due, callback, False

    def cancel(self):
        self.cancelled = True


@pytest.fixture
def factory():
    with mock_pin_factory() as factory:
        yield factory


@pytest.fixture
def rig(factory):
    clock = Clock()
    timers = Timers(clock)
    events = []
    busy = {"now": False}
    button = ScanButton(17, on_press=lambda: events.append("press"), on_long_press=lambda: events.append("long"),
                        hold_time_s=2.0, debounce_s=0.05, is_busy=lambda: busy["now"], clock=clock, timer=timers)
    pin = factory.pin(17)

    def press(held_s):
        pin.drive_low()
        clock.t += held_s
        timers.run_due()
        pin.drive_high()
        clock.t += 1.0
        timers.run_due()

    button.timers = timers
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


def test_long_press_fires_while_held_and_once(rig):
    button, press, events, busy, pin, clock = rig
    pin.drive_low()
    clock.t += 1.9
    button.timers.run_due()
    assert events == []  # not yet
    clock.t += 0.2
    button.timers.run_due()
    assert events == ["long"]  # fired at the hold time, the button still down
    clock.t += 5.0
    button.timers.run_due()
    pin.drive_high()  # the release adds nothing: no second long press, no short press
    clock.t += 1.0
    assert events == ["long"] and button.long_presses == 1 and button.presses == 0
    press(0.2)  # the next short press is a short press again
    assert events == ["long", "press"]


def test_long_press_while_busy_is_ignored_once(rig):
    button, press, events, busy, *_ = rig
    busy["now"] = True
    press(3.0)
    assert events == [] and button.ignored == 1


def test_a_bounce_after_release_never_becomes_a_long_press(rig):
    button, press, events, busy, pin, clock = rig
    press(0.2)
    pin.drive_low()  # the contact bounces shut right after the release …
    clock.t += 0.01
    pin.drive_high()  # … and open again
    clock.t += 5.0
    button.timers.run_due()
    assert events == ["press"]


def test_long_press_fires_on_a_real_timer_while_held(factory):
    """The default timer (a daemon thread) with a short hold time: the callback runs before release."""
    fired = threading.Event()
    events = []
    button = ScanButton(18, on_press=lambda: events.append("press"),
                        on_long_press=lambda: (events.append("long"), fired.set()), hold_time_s=0.15)
    pin = factory.pin(18)
    try:
        pin.drive_low()
        assert fired.wait(2.0), "the long press did not fire while the button was held"
        assert pin.state == 0  # still held
        time.sleep(0.05)
        pin.drive_high()
        time.sleep(0.05)
        assert events == ["long"]
        pin.drive_low()
        time.sleep(0.06)
        pin.drive_high()  # a quick press afterwards: cancelled timer, a short press
        time.sleep(0.3)
        assert events == ["long", "press"]
    finally:
        button.close()


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
