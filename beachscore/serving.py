"""``beachscore serve``: put the station together from command-line options and run the web server.

This is the one module that knows both sides: it builds the :class:`~beachscore.station.Station`
(store, camera, calibration, GPIO) and hands it to :func:`web.create_app`. Imports go one way:
``serving`` → ``web`` → ``station``.

The web server is waitress (never Flask's debug server), sized for a Pi Zero 2 W's 512 MB (see
:data:`WAITRESS`). Anything missing — camera, calibration, GPIO — is reported on the page instead
of stopping the start; a data folder that cannot be written (read-only, disk full) starts the
station for viewing only, with one line in the log that says so.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import logging
import os
import sys
import time
import warnings

from waitress.channel import HTTPChannel
from waitress.server import create_server as waitress_server

from beachscore.inputs import check_calibration_dir
from beachscore.pipeline import prepare_calibration
from beachscore.run_server import run_until_stopped
from beachscore.station import CALIBRATION_SETTING, Station
from beachscore.station.store import Store, StoreError
from calibration import store as cal_store
from hardware.button import ScanButton, parse_pin
from hardware.camera import CameraError, open_camera
from hardware.led import StatusLight
from web import create_app
from web.hall_link import attach

log = logging.getLogger("beachscore.serve")

#: Threads of the web server; every open page's event stream holds one, so the web app lets at
#: most a third of them (:data:`EVENTS_MAX_STREAMS`) run streams and the others answer everything else.
WEB_THREADS = 12
EVENTS_MAX_STREAMS = WEB_THREADS // 3
#: waitress's limits. Idle connections (no request in progress: a phone that went to sleep, or
#: someone holding sockets open) are closed after ``channel_timeout`` s, checked every
#: ``cleanup_interval`` s; ``connection_limit`` is well above what a table's phones use, and a
#: server that reaches it makes room (:class:`DeadlineChannel`) instead of letting new ones wait.
WAITRESS = {"threads": WEB_THREADS, "connection_limit": 256, "channel_timeout": 10, "cleanup_interval": 2,
            "backlog": 64, "ident": "beachscore",
            # poll(), not select(): select() fails once a descriptor number passes 1,024
            "asyncore_use_poll": True,
            # keep reading a connection while its request runs, so a closed page is noticed
            # (``waitress.client_disconnected``) and its event stream gives its slot back at once
            "channel_request_lookahead": 1}
#: Seconds a request may take to arrive. A slow-loris drips a header line every few seconds, so
#: it is never idle for ``channel_timeout``: its connection is closed when the headers (a browser
#: sends them in one go) are not complete after HEADER_DEADLINE_S, or the whole request (a 16 MB
#: upload over a slow Wi-Fi) after REQUEST_DEADLINE_S.
HEADER_DEADLINE_S = 10
REQUEST_DEADLINE_S = 60
#: Seconds a connection may sit idle or spend on one request, while every connection is taken,
#: before it is closed to make room (:class:`DeadlineChannel`).
MAKE_ROOM_AFTER_S = 2
#: Bytes of framing a multipart upload adds to the photo: bodies larger than the web app's
#: MAX_CONTENT_LENGTH plus this are refused by waitress from their headers, before it buffers
#: them (up to 1 GB per connection in temporary files by default).
UPLOAD_FRAMING_BYTES = 64 * 1024
#: glibc malloc arenas: each thread that allocates gets its own pool, which grows and stays (60
#: scans took 67 → 516 MB). Two arenas keep the footprint flat (scripts/bench_station_memory.py).
MALLOC_ARENAS = 2
M_ARENA_MAX = -8  # glibc's mallopt parameter number


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Cap glibc's malloc arenas for this process (``mallopt(M_ARENA_MAX)``, like
    ``MALLOC_ARENA_MAX``); call before the threads start. True when applied (glibc only).
    ``$BEACHSCORE_MALLOC_ARENAS=default`` leaves glibc's default (to measure the difference)."""
    if os.environ.get("BEACHSCORE_MALLOC_ARENAS") == "default":
        return False
    if os.environ.get("MALLOC_ARENA_MAX"):
        return True  # set by the environment (the systemd unit): glibc read it at start
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_ARENA_MAX, int(arenas)))
    except (OSError, AttributeError):
        return False


def trim_memory() -> None:
    """Give freed heap memory back to the system (glibc's ``malloc_trim``); no-op elsewhere."""
    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def default_data_dir() -> str:
    """``$BEACHSCORE_DATA``, else ``~/.local/share/beachscore``."""
    return os.environ.get("BEACHSCORE_DATA") or os.path.join(os.path.expanduser("~"), ".local", "share", "beachscore")


@contextlib.contextmanager
def _quiet_gpiozero():
    """gpiozero warns once per pin library it cannot load; the station logs one line per part instead."""
    with warnings.catch_warnings():
        try:
            from gpiozero.exc import PinFactoryFallback
        except ImportError:
            pass
        else:
            warnings.simplefilter("ignore", PinFactoryFallback)
        yield


def gpio_problem(part: str, pin, err: Exception) -> str:
    """One line for a GPIO part that cannot be used, in the user's words."""
    name = type(err).__name__
    if name in ("BadPinFactory", "PinFactoryFallback") or "pin factory" in str(err).lower():
        return (f"{part} on GPIO {pin}: this machine has no GPIO that gpiozero can use (on a Pi: sudo apt install "
                f"python3-lgpio); the page's buttons still work")
    return f"{part} on GPIO {pin}: {err}"


def build_station(data_dir: str, *, camera: str | None = None, calibration: str | None = None,
                  button: str | None = None, led: str | None = None, buzzer: str | None = None,
                  **station_options) -> Station:
    """Open the store, camera, calibration and GPIO parts; whatever fails is recorded, not raised.
    The station then watches the camera's preview to scan by itself when the board is still.

    Args:
        data_dir: the station's data folder.
        camera: camera spec (``hardware.camera.open_camera``); None = ``$BEACHSCORE_CAMERA`` or auto.
        calibration: CAL_DIR; None = the one the station used last.
        button, led, buzzer: GPIO pins; None/'none' = not fitted (``$BEACHSCORE_BUTTON`` etc. as fallback).
        station_options: passed to :class:`Station` (scanner, scorer … for tests).
    Raises:
        StoreError: the data folder cannot be opened even for viewing (``store-unreadable``,
            ``store-version``).
    """
    store = Store(data_dir)
    if store.read_only:
        log.warning("viewing only: %s", store.read_only)
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
            check_calibration_dir(cal_dir)
            cal = cal_store.load(cal_dir)
        except Exception as err:  # noqa: BLE001 - a broken calibration must not stop the page
            cal_problem = getattr(err, "message", str(err))
            log.warning("calibration: %s", cal_problem)
    if cal is not None:
        try:
            prepare_calibration(cal)  # the first scan after the station starts costs what the others do
        except Exception as err:  # noqa: BLE001 - the scans say what is wrong with it, as before
            log.warning("calibration: %s", getattr(err, "message", str(err)))
    light = None
    led_pin = parse_pin(led if led is not None else os.environ.get("BEACHSCORE_LED"))
    buzzer_pin = parse_pin(buzzer if buzzer is not None else os.environ.get("BEACHSCORE_BUZZER"))
    light_problem = None
    if led_pin is not None:
        try:
            with _quiet_gpiozero():
                light = StatusLight(led_pin, buzzer_pin=buzzer_pin)
        except Exception as err:  # noqa: BLE001 - gpiozero raises many kinds when there is no GPIO
            light_problem = gpio_problem("status light", led_pin, err)
            log.warning("%s", light_problem)
    station = Station(store, camera=cam, camera_problem=cam_problem, calibration=cal,
                      calibration_problem=cal_problem, light=light, **station_options)
    station.light_problem = light_problem
    if calibration and cal is not None and store.read_only is None:
        store.set_setting(CALIBRATION_SETTING, os.path.abspath(calibration))
    spec = button if button is not None else os.environ.get("BEACHSCORE_BUTTON")
    pin = parse_pin(spec)
    if pin is None:
        station.button_problem = None if str(spec).lower() == "none" else "no button configured (--button PIN)"
    else:
        try:
            with _quiet_gpiozero():
                station.button = ScanButton(pin, on_press=lambda: station.request_scan("button"),
                                            on_long_press=station.end_game, is_busy=lambda: station.busy)
        except Exception as err:  # noqa: BLE001
            station.button_problem = gpio_problem("button", pin, err)
            log.warning("%s", station.button_problem)
    station.watch()
    return station


def create_server(station: Station, host: str, port: int, *, header_deadline_s: float = HEADER_DEADLINE_S,
                  request_deadline_s: float = REQUEST_DEADLINE_S, **overrides):
    """The waitress server of the station's page, with :data:`WAITRESS`'s limits, the request
    deadlines (:class:`DeadlineChannel`) and a body limit just above the app's largest upload
    (``overrides`` of WAITRESS and the deadlines, in seconds, for tests)."""
    app = create_app(station=station)
    app.config["EVENTS_MAX_STREAMS"] = min(app.config["EVENTS_MAX_STREAMS"], EVENTS_MAX_STREAMS)
    options = {"max_request_body_size": app.config["MAX_CONTENT_LENGTH"] + UPLOAD_FRAMING_BYTES,
               **WAITRESS, **overrides}
    server = waitress_server(app, host=host, port=port, **options)
    server.channel_class = DeadlineChannel
    server.header_deadline_s, server.request_deadline_s = header_deadline_s, request_deadline_s
    server.flask_app = app  # server.application may be waitress's proxy-headers wrapper around it
    return server


class DeadlineChannel(HTTPChannel):
    """waitress's connection, closed when a request is still arriving after its server's
    ``header_deadline_s`` (headers incomplete) or ``request_deadline_s`` (body incomplete) — and,
    while the server holds ``connection_limit`` connections, as soon as it has been idle or
    receiving one request for :data:`MAKE_ROOM_AFTER_S`: a full server makes room by closing the
    connections doing nothing useful (it would stop accepting, so the page waited for a deadline).
    A connection whose request is being answered is never closed here.

    The checks run in ``readable()``, which waitress's loop asks of every channel at least once a
    second (``asyncore_loop_timeout``); the loop then closes a channel marked ``will_close``.
    """

    request_started: float | None = None

    def received(self, data):
        if self.request is None:  # these bytes start a new request
            self.request_started = time.monotonic()
        return super().received(data)

    def readable(self):
        if not self.will_close and not self.requests:
            request, started = self.request, self.request_started
            if request is not None and started is not None:
                late = time.monotonic() - started
                if late > self.server.request_deadline_s or (
                        not request.headers_finished and late > self.server.header_deadline_s):
                    self.will_close = True
            if len(self.server._map) >= self.adj.connection_limit:
                waiting = time.monotonic() - started if request is not None and started is not None \
                    else time.time() - self.last_activity  # waitress keeps last_activity in time.time()
                if waiting > MAKE_ROOM_AFTER_S:
                    self.will_close = True
        return super().readable()


def listen_problem(err: Exception, host: str, port: int) -> str:
    """Why the web server cannot listen on ``host:port``, in the user's words (one line).

    >>> listen_problem(OSError(errno.EADDRINUSE, "Address already in use"), "0.0.0.0", 8080)
    'port 8080 is already in use on 0.0.0.0 (another beachscore serve?): stop it or choose another --port'
    """
    code = getattr(err, "errno", None)
    if code == errno.EADDRINUSE:
        return f"port {port} is already in use on {host} (another beachscore serve?): stop it or choose another --port"
    if code in (errno.EACCES, errno.EPERM):
        return f"port {port} may only be used by root (ports below 1024): choose another --port, such as 8080"
    detail = f" ({err.strerror})" if getattr(err, "strerror", None) else ""
    return f"--host {host}: not an address of this machine to listen on{detail}"


def attach_hall_link(app, station: Station):
    """The tournament hall's link (pairing page, game over → outbox), or None in viewing-only mode.

    A link that cannot start (its tables cannot be written) logs one line; the station runs on
    without it: the hall is an extra, never a reason to stop scoring.
    """
    if station.store.read_only:
        log.info("tournament hall link off: the station is in viewing-only mode")
        return None
    try:
        return attach(app, station)
    except Exception as err:  # noqa: BLE001
        log.warning("tournament hall link off: %s", err)
        return None


def run(args) -> int:
    """Run until SIGINT/SIGTERM; returns the exit code.

    A data folder that cannot be opened at all prints one line and exits 1; one that cannot be
    written starts the station for viewing only. An address or port that cannot be listened on
    (in use, below 1024 without root, not this machine's) prints one line and exits 2.
    """
    limit_malloc_arenas()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    data_dir = args.data or default_data_dir()
    try:
        station = build_station(data_dir, camera=args.camera, calibration=args.calibration,
                                button=args.button, led=getattr(args, "led", None), buzzer=getattr(args, "buzzer", None))
    except StoreError as err:
        print(f"beachscore: error: serve: {err.message} [{err.code}]", file=sys.stderr, flush=True)
        return 1
    try:
        server = create_server(station, args.host, args.port)
    except (OSError, ValueError) as err:
        station.close()
        print(f"beachscore: error: serve: {listen_problem(err, args.host, args.port)} [listen-failed]",
              file=sys.stderr, flush=True)
        return 2
    hall_link = attach_hall_link(server.flask_app, station)

    log.info("station on http://%s:%s/ (camera: %s)%s", args.host, server.effective_port,
             station.camera.name if station.camera else station.camera_problem,
             f" — viewing only: {station.store.read_only}" if station.store.read_only else "")
    station.after_scan = trim_memory
    try:
        run_until_stopped(server)
    finally:
        server.close()
        if hall_link is not None:
            hall_link.close()
        station.close()
    return 0
