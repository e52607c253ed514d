"""``beachscore hall``: open the database, print how to get in, serve with waitress until stopped."""

from __future__ import annotations

import logging
import os
import secrets

from beachscore.errors import BadInputError
from beachscore.run_server import run_until_stopped

log = logging.getLogger("beachscore.hall")

#: Threads of the web server: stations' reports, the room's polling pages and the organiser share them.
THREADS = 32
#: waitress: a connection that sends nothing for ``channel_timeout`` s is closed (looked for every
#: ``cleanup_interval`` s), so phones that fell asleep or a script holding sockets open free their
#: slots within seconds; ``connection_limit`` is far above 100 stations and their room's screens.
WAITRESS = {"threads": THREADS, "channel_timeout": 15, "cleanup_interval": 2, "connection_limit": 1000,
            "ident": "beachscore-hall"}


def default_data_dir() -> str:
    """``$BEACHSCORE_HALL_DATA``, else ``~/.local/share/beachscore-hall``."""
    return os.environ.get("BEACHSCORE_HALL_DATA") or os.path.join(os.path.expanduser("~"), ".local", "share",
                                                                  "beachscore-hall")


def build_app(db: str | None, data: str | None, **config):
    """The hall's app for ``--db`` / ``--data``; a database that cannot be opened is bad input (exit 2)."""
    from hall import create_app
    from hall.db import DatabaseError, default_url, open_engine
    from hall.store import HallStore

    data = data or default_data_dir()
    url = db or os.environ.get("BEACHSCORE_HALL_DB") or default_url(data)
    try:
        store = HallStore(open_engine(url), photo_dir=os.path.join(data, "photos"))
    except DatabaseError as err:
        raise BadInputError(err.code, err.message) from None
    return create_app({"DATA_DIR": data, **config}, store=store)


def create_server(app, host: str, port: int, **overrides):
    """The hall's waitress server with :data:`WAITRESS`'s settings (``overrides`` for tests); ``.run()`` serves."""
    from waitress.server import create_server as waitress_server

    return waitress_server(app, host=host, port=port, **{**WAITRESS, **overrides})


def run(args) -> int:
    """Run until SIGINT/SIGTERM; returns the exit code."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    app = build_app(args.db, args.data, SETUP_CODE=secrets.token_urlsafe(9))
    store = app.extensions["hall_store"]
    try:
        server = create_server(app, args.host, args.port)
    except OSError as err:
        store.close()
        raise BadInputError("port-unavailable", f"hall: cannot listen on {args.host}:{args.port} ({err.strerror}): "
                            "is another hall running? choose another --port") from None
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    base = f"http://{shown}:{server.effective_port}"
    log.info("hall on %s/ listening on %s (database: %s)", base, args.host,
             store.engine.url.render_as_string(hide_password=True))
    if not store.organiser_count():
        print(f"First run: create the organiser account at {base}/setup?code={app.config['SETUP_CODE']}", flush=True)

    try:
        run_until_stopped(server)
    finally:
        server.close()
        store.close()
    return 0
