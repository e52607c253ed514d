"""``beachscore hall``: open the database, print how to get in, serve with waitress until stopped."""

from __future__ import annotations

import logging
import os
import secrets
import signal

from beachscore.errors import BadInputError

log = logging.getLogger("beachscore.hall")

#: Threads of the web server: stations' reports, the room's polling pages and the organiser share them.
THREADS = 32


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


def run(args) -> int:
    """Run until SIGINT/SIGTERM; returns the exit code."""
    import waitress

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    app = build_app(args.db, args.data, SETUP_CODE=secrets.token_urlsafe(9))
    store = app.extensions["hall_store"]
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    base = f"http://{shown}:{args.port}"
    log.info("hall on %s/ (database: %s)", base, store.engine.url.render_as_string(hide_password=True))
    if not store.organiser_count():
        print(f"First run: create the organiser account at {base}/setup?code={app.config['SETUP_CODE']}", flush=True)

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        waitress.serve(app, host=args.host, port=args.port, threads=THREADS, channel_timeout=60,
                       connection_limit=1000, ident="beachscore-hall")
    except KeyboardInterrupt:
        pass
    finally:
        store.close()
    return 0
