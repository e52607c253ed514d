"""Status light (and optional buzzer): blink codes a person at the table can read.

=========  ==================================================
``busy``   fast blink (0.1 s on / 0.1 s off) while a scan runs
``ok``     steady light for ``ok_s`` seconds, then off
``error``  three short flashes, repeated ``error_repeats`` times
``ready``  off
=========  ==================================================
"""

from __future__ import annotations


class StatusLight:
    """An LED (with resistor) between a GPIO pin and ground, optionally a buzzer on another pin.

    Args:
        pin: gpiozero pin of the LED.
        buzzer_pin: gpiozero pin of an active buzzer, or None.
        ok_s: seconds the light stays on after a good scan.
        error_repeats: how many times the three-flash error code repeats.
        pin_factory: gpiozero pin factory; None = gpiozero's default.
    Attributes:
        mode: the last code shown: ``"ready"``, ``"busy"``, ``"ok"`` or ``"error"``.
    """

    def __init__(self, pin, *, buzzer_pin=None, ok_s: float = 2.0, error_repeats: int = 3, pin_factory=None):
        from gpiozero import LED, Buzzer

        self._led = LED(pin, pin_factory=pin_factory)
        self._buzzer = Buzzer(buzzer_pin, pin_factory=pin_factory) if buzzer_pin is not None else None
        self.ok_s = ok_s
        self.error_repeats = error_repeats
        self.mode = "ready"

    def busy(self) -> None:
        """Fast blink until the next code."""
        self.mode = "busy"
        self._led.blink(on_time=0.1, off_time=0.1)

    def ok(self) -> None:
        """Steady for ``ok_s`` seconds; one short beep."""
        self.mode = "ok"
        self._led.blink(on_time=self.ok_s, off_time=0.0, n=1)
        if self._buzzer:
            self._buzzer.beep(on_time=0.08, off_time=0.08, n=1)

    def error(self) -> None:
        """Three short flashes, repeated; three beeps."""
        self.mode = "error"
        self._led.blink(on_time=0.15, off_time=0.15, n=3 * self.error_repeats)
        if self._buzzer:
            self._buzzer.beep(on_time=0.15, off_time=0.15, n=3)

    def ready(self) -> None:
        """Light off."""
        self.mode = "ready"
        self._led.off()

    @property
    def is_lit(self) -> bool:
        """True while the LED is on (its pin driven high)."""
        return bool(self._led.value)

    def close(self) -> None:
        """Release the pins. Safe to call twice."""
        for dev in (self._led, self._buzzer):
            if dev is not None:
                dev.close()
        self._led = self._buzzer = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
