"""``beachscore hall``: the data folder and its lock, the database, the waitress server.

:func:`open_hall` gets everything ready and returns the server; the command line
(:func:`beachscore.commands.hall_server.run`) serves it until stopped and maps :class:`StartError`
to exit code 2.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import resource
import secrets

from sqlalchemy.exc import DBAPIError
from waitress.server import create_server as waitress_server

from hall.app import create_app
from hall.db import default_url, open_engine, storage_problem
from hall.errors import StartError
from hall.http_limits import BodyBudget, LimitedChannel, accept_in_batches
from hall.store import HallStore

log = logging.getLogger("beachscore.hall")

#: Threads of the web server: stations' reports, the room's polling pages and the organiser share them.
THREADS = 32
#: waitress: one event loop on ``poll()`` (``select()`` fails past 1,024 file descriptors); a
#: connection that sends nothing for ``channel_timeout`` s is closed (looked for every
#: ``cleanup_interval`` s), so phones that fell asleep or a script holding sockets open free their
#: slots within seconds; ``connection_limit`` is far above 100 stations and their room's screens
#: (lowered to what the process may open, :func:`connection_limit`).
WAITRESS = {"threads": THREADS, "channel_timeout": 15, "cleanup_interval": 2, "connection_limit": 4096,
            "asyncore_use_poll": True, "backlog": 1024, "ident": "beachscore-hall"}
#: Bytes of multipart framing allowed above the app's ``MAX_CONTENT_LENGTH`` before waitress refuses a body.
UPLOAD_FRAMING_BYTES = 64 * 1024
#: File descriptors kept free beside the connections (database, photos, logs, the listening socket).
SPARE_FILES = 128


def connection_limit(wanted: int) -> int:
    """``wanted``, or fewer when the process may not open that many files: the soft ``RLIMIT_NOFILE``
    is first raised to the hard one (systemd's ``LimitNOFILE``).

    >>> connection_limit(10)
    10
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or hard > soft):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return wanted
    return min(wanted, max(16, soft - SPARE_FILES))


def default_data_dir() -> str:
    """``$BEACHSCORE_HALL_DATA``, else ``~/.local/share/beachscore-hall``."""
    return os.environ.get("BEACHSCORE_HALL_DATA") or os.path.join(os.path.expanduser("~"), ".local", "share",
                                                                  "beachscore-hall")


#: The file in the data folder that one running hall holds locked (its pid inside).
LOCK_NAME = "hall.lock"


def prepare_data_dir(data: str) -> str:
    """Create the data folder (and its ``photos``) if needed; returns its absolute path.

    Raises:
        StartError: ``store-unreadable`` when it cannot be created (a file of that name, no permission).
    """
    data = os.path.abspath(os.path.expanduser(data))
    try:
        if os.path.exists(data) and not os.path.isdir(data):
            raise NotADirectoryError(20, os.strerror(20), data)
        os.makedirs(os.path.join(data, "photos"), exist_ok=True)
    except OSError as err:
        if err.errno == errno.EROFS:  # the same words as the SQLite check (hall.db.open_engine)
            raise StartError("db-read-only", f"the hall's data folder {data} is on a read-only disk: make it "
                                "writable (or choose another --data) and start again") from None
        raise StartError("store-unreadable", f"hall: cannot create the data folder {data}: "
                            f"{err.strerror or err}: choose another --data") from None
    return data


class DataLock:
    """Hold ``DIR/hall.lock`` locked (``flock``) while a hall runs on the data folder ``DIR``.

    The kernel drops the lock when the process ends, however it ends (kill -9 too), so a stale
    file never blocks the next start; the file keeps the pid of the hall that holds it.

    Raises:
        StartError: ``data-folder-in-use`` while another hall holds it.
    """

    def __init__(self, data: str):
        self.path = os.path.join(data, LOCK_NAME)
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            if err.errno == errno.EISDIR:  # else two halls would run on the folder, neither holding a lock
                raise StartError("data-folder-in-use", f"hall: {self.path} is a folder, not the hall's lock "
                                    "file: remove it (no hall uses it) and start again") from None
            self._fd = None  # a read-only folder: the database's own check then says what to do
            return
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                pid = os.pread(self._fd, 32, 0).decode(errors="replace").strip() or "?"
            except OSError:
                pid = "?"
            os.close(self._fd)
            raise StartError("data-folder-in-use", f"hall: another hall (pid {pid}) is running on the data "
                                f"folder {data}: stop it first, or choose another --data") from None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        """Let go of the lock (the file stays; an unlocked file means no hall runs). Safe twice."""
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)
            except OSError:
                pass
            os.close(self._fd)
            self._fd = None


def build_app(db: str | None, data: str | None, **config):
    """The hall's app for ``--db`` / ``--data``.

    Raises:
        StartError: the data folder cannot be created.
        DatabaseError: the database cannot be opened.
    """
    data = prepare_data_dir(data or default_data_dir())
    url = db or os.environ.get("BEACHSCORE_HALL_DB") or default_url(data)
    store = HallStore(open_engine(url), photo_dir=os.path.join(data, "photos"))
    return create_app({"DATA_DIR": data, **config}, store=store)


def create_server(app, host: str, port: int, **overrides):
    """The hall's waitress server with :data:`WAITRESS`'s settings (``overrides`` for tests); ``.run()`` serves.

    Bodies are limited while they arrive (:mod:`hall.http_limits`): the app's ``MAX_CONTENT_LENGTH``
    plus framing, less for anonymous requests, and all unfinished bodies together.
    """
    options = {"max_request_body_size": app.config["MAX_CONTENT_LENGTH"] + UPLOAD_FRAMING_BYTES, **WAITRESS,
               **overrides}
    options["connection_limit"] = connection_limit(options["connection_limit"])
    server = waitress_server(app, host=host, port=port, **options)
    server.channel_class = LimitedChannel
    server.body_budget = BodyBudget()
    accept_in_batches(server)
    return server


class OpenHall:
    """A hall ready to serve: its ``server`` (``.run()`` serves), ``store``, ``lock`` and ``base`` URL.

    :meth:`close` closes the server, the database and lets go of the data folder (safe twice).
    """

    def __init__(self, server, store: HallStore, lock: DataLock, base: str):
        self.server, self.store, self.lock, self.base = server, store, lock, base

    def close(self) -> None:
        self.server.close()
        self.store.close()
        self.lock.release()


def open_hall(args) -> OpenHall:
    """Lock the data folder, open the database, listen; print the setup link on a first run.

    Raises:
        StartError: the data folder cannot be used, is in use or its disk is full, the port is taken.
        DatabaseError: the database cannot be opened (:func:`hall.db.open_engine`).
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    data = prepare_data_dir(args.data or default_data_dir())
    lock = None
    try:
        lock = DataLock(data)  # before the database: two halls on one SQLite file would both write it
        app = build_app(args.db, data, SETUP_CODE=secrets.token_urlsafe(9))
    except (OSError, DBAPIError) as err:
        if lock is not None:
            lock.release()
        problem = storage_problem(err)
        if problem is None:
            raise
        what = "is full" if problem[0] == "disk-full" else "cannot be written"
        raise StartError(problem[0], f"hall: the disk of the data folder {data} {what}: free some space on it (or "
                         "choose another --data) and start again") from None
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    store = app.extensions["hall_store"]
    try:
        server = create_server(app, args.host, args.port)
    except OSError as err:
        store.close()
        lock.release()
        raise StartError("port-unavailable", f"hall: cannot listen on {args.host}:{args.port} ({err.strerror}): "
                         "is another hall running? choose another --port") from None
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    base = f"http://{shown}:{server.effective_port}"
    log.info("hall on %s/ listening on %s (database: %s)", base, args.host,
             store.engine.url.render_as_string(hide_password=True))
    if not store.organiser_count():
        print(f"First run: create the organiser account at {base}/setup?code={app.config['SETUP_CODE']}", flush=True)
    return OpenHall(server, store, lock, base)
