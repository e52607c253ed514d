"""``beachscore serve``: put the station together from command-line options and run the web server.

The web server is waitress (never Flask's debug server). Anything missing — camera, calibration,
GPIO — is reported on the page instead of stopping the start.
"""

from __future__ import annotations

import logging
import os
import signal

from beachscore.station import CALIBRATION_SETTING, Station
from beachscore.store import Store

log = logging.getLogger("beachscore.serve")

#: Threads of the web server; every open page's event stream holds one, so the web app lets at
#: most ``EVENTS_MAX_STREAMS`` (8) streams run at once and the other threads answer everything else.
WEB_THREADS = 24


def default_data_dir() -> str:
    """``$BEACHSCORE_DATA``, else ``~/.local/share/beachscore``."""
    return os.environ.get("BEACHSCORE_DATA") or os.path.join(os.path.expanduser("~"), ".local", "share", "beachscore")


def build_station(data_dir: str, *, camera: str | None = None, calibration: str | None = None,
                  button: str | None = None, led: str | None = None, buzzer: str | None = None,
                  **station_options) -> Station:
    """Open the store, camera, calibration and GPIO parts; whatever fails is recorded, not raised.

    Args:
        data_dir: the station's data folder.
        camera: camera spec (``hardware.camera.open_camera``); None = ``$BEACHSCORE_CAMERA`` or auto.
        calibration: CAL_DIR; None = the one the station used last.
        button, led, buzzer: GPIO pins; None/'none' = not fitted (``$BEACHSCORE_BUTTON`` etc. as fallback).
        station_options: passed to :class:`Station` (scanner, scorer … for tests).
    """
    from calibration import store as cal_store
    from hardware.button import ScanButton, parse_pin
    from hardware.camera import CameraError, open_camera

    store = Store(data_dir)
    cam = cam_problem = None
    try:
        cam = open_camera(camera)
    except CameraError as err:
        cam_problem = err.message
        log.warning("camera: %s", err.message)
    cal = cal_problem = None
    cal_dir = calibration or store.get_setting(CALIBRATION_SETTING)
    if cal_dir:
        try:
            cal = cal_store.load(cal_dir)
        except Exception as err:  # noqa: BLE001 - a broken calibration must not stop the page
            cal_problem = getattr(err, "message", str(err))
            log.warning("calibration: %s", cal_problem)
    light = None
    led_pin = parse_pin(led if led is not None else os.environ.get("BEACHSCORE_LED"))
    buzzer_pin = parse_pin(buzzer if buzzer is not None else os.environ.get("BEACHSCORE_BUZZER"))
    if led_pin is not None:
        from hardware.led import StatusLight

        try:
            light = StatusLight(led_pin, buzzer_pin=buzzer_pin)
        except Exception as err:  # noqa: BLE001 - gpiozero raises many kinds when there is no GPIO
            log.warning("status light: %s", err)
    station = Station(store, camera=cam, camera_problem=cam_problem, calibration=cal,
                      calibration_problem=cal_problem, light=light, **station_options)
    if calibration and cal is not None:
        store.set_setting(CALIBRATION_SETTING, os.path.abspath(calibration))
    spec = button if button is not None else os.environ.get("BEACHSCORE_BUTTON")
    pin = parse_pin(spec)
    if pin is None:
        station.button_problem = None if str(spec).lower() == "none" else "no button configured (--button PIN)"
    else:
        try:
            station.button = ScanButton(pin, on_press=lambda: station.request_scan("button"),
                                        on_long_press=station.end_game, is_busy=lambda: station.busy)
        except Exception as err:  # noqa: BLE001
            station.button_problem = f"button on {pin}: {err}"
            log.warning("button: %s", station.button_problem)
    return station


def run(args) -> int:
    """Run until SIGINT/SIGTERM; returns the exit code."""
    import waitress

    from web import create_app

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    station = build_station(args.data or default_data_dir(), camera=args.camera, calibration=args.calibration,
                            button=args.button, led=getattr(args, "led", None), buzzer=getattr(args, "buzzer", None))
    app = create_app(station=station)
    from beachscore.hall_link import attach

    hall_link = attach(app, station)  # the Hall page, and game over -> outbox -> tournament hall
    # never let event streams take more than a third of the threads, whatever the config says
    app.config["EVENTS_MAX_STREAMS"] = min(app.config["EVENTS_MAX_STREAMS"], WEB_THREADS // 3)

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    log.info("station on http://%s:%d/ (camera: %s)", args.host, args.port,
             station.camera.name if station.camera else station.camera_problem)
    try:
        waitress.serve(app, host=args.host, port=args.port, threads=WEB_THREADS, channel_timeout=60,
                       ident="beachscore")
    except KeyboardInterrupt:
        pass
    finally:
        hall_link.close()
        station.close()
    return 0
