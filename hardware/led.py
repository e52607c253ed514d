"""Status light (and optional buzzer): blink codes a person at the table can read.

=========  ==================================================
``busy``   fast blink (0.1 s on / 0.1 s off) while a scan runs
``ok``     steady light for ``ok_s`` seconds, then off
``error``  three short flashes, repeated ``error_repeats`` times
``disk-full``  slow long flashes (1 s on / 0.5 s off), ``error_repeats`` × 2: the station's
           disk is full, nothing is saved until space is freed (:meth:`StatusLight.error` with
           the code ``disk-full``)
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
        mode: the last code shown: ``"ready"``, ``"busy"``, ``"ok"``, ``"error"`` or ``"disk-full"``.
        error_code: the error code of the last :meth:`error` (e.g. ``"occluded"``), or None.
    """

    def __init__(self, pin, *, buzzer_pin=None, ok_s: float = 2.0, error_repeats: int = 3, pin_factory=None):
        from gpiozero import LED, Buzzer

        self._led = LED(pin, pin_factory=pin_factory)
        self._buzzer = Buzzer(buzzer_pin, pin_factory=pin_factory) if buzzer_pin is not None else None
        self.ok_s = ok_s
        self.error_repeats = error_repeats
        self.mode = "ready"
        self.error_code: str | None = None

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

    def error(self, code: str | None = None) -> None:
        """Three short flashes, repeated; three beeps. ``code`` ``"disk-full"``: slow long flashes
        (see the module's table), one long beep."""
        self.error_code = code
        if code == "disk-full":
            self.mode = "disk-full"
            self._led.blink(on_time=1.0, off_time=0.5, n=2 * self.error_repeats)
            if self._buzzer:
                self._buzzer.beep(on_time=0.8, off_time=0.2, n=1)
            return
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
