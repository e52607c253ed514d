"""The scan button, read through gpiozero; debouncing and press/long-press are decided here.

A short press asks for a scan; a long press means "game over, final score". The long press fires
once, as soon as the button has been held ``hold_time_s`` (the person holding it sees the light
change without letting go); the release that follows does nothing more. Presses while the station
is busy are ignored, not queued. Tests drive the pin with gpiozero's ``MockFactory``.
"""

from __future__ import annotations

import threading
import time
from typing import Callable


def parse_pin(value: str | int | None) -> str | int | None:
    """Turn a ``--button`` value into a gpiozero pin name; None/'none'/'' → None (no button).

    >>> parse_pin("17"), parse_pin("GPIO17"), parse_pin("none"), parse_pin("BOARD11")
    (17, 'GPIO17', None, 'BOARD11')
    """
    if value is None:
        return None
    text = str(value).strip()
    if text.lower() in ("", "none", "off", "no"):
        return None
    return int(text) if text.isdigit() else text.upper()


class ScanButton:
    """A push button between a GPIO pin and ground (internal pull-up).

    Args:
        pin: gpiozero pin (BCM number or name such as ``"GPIO17"``).
        on_press: called (no arguments) on a short press.
        on_long_press: called once when a press has been held ``hold_time_s`` (while still held).
        hold_time_s: seconds that make a press long.
        debounce_s: contact changes closer together than this are bounces and ignored.
        is_busy: returns True while a scan runs; presses then are ignored (not queued).
        clock: monotonic clock in seconds (tests inject a fake one).
        pin_factory: gpiozero pin factory; None = gpiozero's default (``Device.pin_factory``).
        timer: ``(delay_s, callback) -> object with .cancel()`` that calls ``callback`` after
            ``delay_s``; default a daemon :class:`threading.Timer` (tests inject a fake one).
    Attributes:
        presses, long_presses, ignored: counters, for the status page and tests.
    """

    def __init__(self, pin, *, on_press: Callable[[], object] | None = None,
                 on_long_press: Callable[[], object] | None = None, hold_time_s: float = 2.0,
                 debounce_s: float = 0.05, is_busy: Callable[[], bool] | None = None,
                 clock: Callable[[], float] = time.monotonic, pin_factory=None,
                 timer: Callable[[float, Callable[[], object]], object] | None = None):
        from gpiozero import Button

        self.on_press = on_press
        self.on_long_press = on_long_press
        self.hold_time_s = hold_time_s
        self.debounce_s = debounce_s
        self.is_busy = is_busy or (lambda: False)
        self.clock = clock
        self.presses = self.long_presses = self.ignored = 0
        self._down_at: float | None = None
        self._press_no = 0            # which press the hold timer belongs to
        self._long_fired = False      # the current press already fired its long press
        self._hold_timer = None
        self._timer = timer or _daemon_timer
        self._last_edge = float("-inf")
        self._lock = threading.Lock()
        self._button = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
        self._button.when_pressed = self._pressed
        self._button.when_released = self._released
        self.pin = pin

    def _edge_ok(self, now: float) -> bool:
        ok = now - self._last_edge >= self.debounce_s
        self._last_edge = now
        return ok

    def _pressed(self, *_):
        now = self.clock()
        with self._lock:
            if self._edge_ok(now) or self._down_at is None:
                self._down_at = now
                self._long_fired = False
                self._press_no += 1
                self._cancel_timer()
                number = self._press_no
                self._hold_timer = self._timer(self.hold_time_s, lambda: self._held(number))

    def _held(self, number: int) -> None:
        """The hold timer ran out: a long press, once, if that press is still down."""
        with self._lock:
            if number != self._press_no or self._down_at is None or self._long_fired:
                return
            if self._button is None or not self._button.is_pressed:
                return  # the press that started the timer was a bounce; the contact is open now
            self._long_fired = True
            self._hold_timer = None
        self._fire(long=True)

    def _released(self, *_):
        now = self.clock()
        with self._lock:
            if not self._edge_ok(now) or self._down_at is None:
                return  # a bounce: the contact opened again within debounce_s
            held = now - self._down_at
            fired = self._long_fired
            self._down_at = None
            self._long_fired = False
            self._cancel_timer()
        if fired:
            return  # the long press fired while held
        self._fire(long=held >= self.hold_time_s)  # held past the time but the timer was late

    def _cancel_timer(self) -> None:
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None

    def _fire(self, *, long: bool) -> None:
        if self.is_busy():
            self.ignored += 1
            return
        if long:
            self.long_presses += 1
            if self.on_long_press:
                self.on_long_press()
        else:
            self.presses += 1
            if self.on_press:
                self.on_press()

    def close(self) -> None:
        """Release the pin. Safe to call twice."""
        with self._lock:
            self._press_no += 1
            self._cancel_timer()
        if self._button is not None:
            self._button.close()
            self._button = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"ScanButton({self.pin!r}, hold_time_s={self.hold_time_s}, debounce_s={self.debounce_s})"


def _daemon_timer(delay_s: float, callback: Callable[[], object]) -> threading.Timer:
    """Call ``callback`` after ``delay_s`` seconds on a daemon thread; ``.cancel()`` stops it."""
    t = threading.Timer(delay_s, callback)
    t.daemon = True
    t.start()
    return t
