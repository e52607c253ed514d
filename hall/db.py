"""The hall's database: an SQLAlchemy engine for SQLite (default) or PostgreSQL, migrated on open.

SQLite: one file in the data folder, WAL journal, ``synchronous=FULL`` (a committed result
survives a killed process and a power cut), foreign keys on, writers queue on ``BEGIN
IMMEDIATE`` instead of failing. PostgreSQL: ``postgresql+psycopg://user:password@host/db`` with
the ``postgres`` extra installed (``pip install -e ".[postgres]"``); a pool of connections,
``pool_pre_ping`` so a restarted server is picked up again.
"""

from __future__ import annotations

import errno
import os

from sqlalchemy import MetaData, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Engine, make_url

from hall.errors import DatabaseError
from hall.migrations import migrate

__all__ = ["DatabaseError", "open_engine", "database_url", "default_url", "reflect", "storage_problem",
           "database_unavailable"]

DB_NAME = "hall.sqlite3"


def default_url(data_dir: str) -> str:
    """The SQLite file of a data folder, as a URL."""
    return "sqlite:///" + os.path.join(os.path.abspath(data_dir), DB_NAME)


#: How ``--db`` may be written (for the message that refuses anything else).
ACCEPTED_URLS = "sqlite:///PATH or postgresql+psycopg://user:password@host/database (postgres:// and postgresql:// too)"


def database_url(url: str) -> str:
    """``url`` as SQLAlchemy takes it: ``postgres://`` and ``postgresql://`` (as Heroku and psql write
    them) become ``postgresql+psycopg://`` (the driver the ``postgres`` extra installs).

    Raises:
        DatabaseError: ``db-url`` for a URL that is not one of :data:`ACCEPTED_URLS`.

    >>> database_url("postgres://hall:pw@db.example:5432/hall")
    'postgresql+psycopg://hall:pw@db.example:5432/hall'
    >>> database_url("sqlite:////tmp/hall.sqlite3")
    'sqlite:////tmp/hall.sqlite3'
    >>> database_url("mysql://hall@db/hall")
    Traceback (most recent call last):
    ...
    hall.errors.DatabaseError: --db mysql://…: the hall stores its data in SQLite or PostgreSQL only; write sqlite:///PATH or postgresql+psycopg://user:password@host/database (postgres:// and postgresql:// too)
    """
    text_ = str(url).strip()
    scheme, sep, rest = text_.partition("://")
    if sep:  # a scheme is case-insensitive (POSTGRES://, SQLite://)
        scheme = scheme.lower()
        text_ = scheme + sep + rest
    if scheme in ("postgres", "postgresql"):
        text_ = "postgresql+psycopg://" + rest
    try:
        parsed = make_url(text_)
    except Exception:  # noqa: BLE001 - sqlalchemy.exc.ArgumentError, or a ValueError from a bad port
        shown = f"--db {scheme[:40]}://…" if sep else "the --db value"
        raise DatabaseError("db-url", f"{shown} is not a database URL (a port must be a number): write "
                            f"{ACCEPTED_URLS}") from None
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise DatabaseError("db-url", f"--db {scheme[:40]}://…: the hall stores its data in SQLite or PostgreSQL "
                            f"only; write {ACCEPTED_URLS}")
    try:
        parsed.get_dialect()
    except Exception:  # noqa: BLE001 - NoSuchModuleError: a driver name SQLAlchemy does not know (postgresql+foo)
        raise DatabaseError("db-url", f"--db {scheme[:40]}://…: unknown database driver; write {ACCEPTED_URLS}") \
            from None
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        raise DatabaseError("db-url", f"--db {scheme[:40]}://…: a database in memory loses every result when the "
                            f"hall stops; write sqlite:///PATH (or leave --db out for the data folder's file)")
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() != "psycopg":
        raise DatabaseError("db-url", f"--db {scheme[:40]}://…: the hall talks to PostgreSQL through psycopg only; "
                            "write postgresql+psycopg://user:password@host/database")
    return text_


def open_engine(url: str, *, pool_size: int = 16) -> Engine:
    """An engine for ``url`` with the settings above; the schema is migrated to the latest version.

    Raises:
        DatabaseError: ``db-url`` for a URL of another database or none (:func:`database_url`), ``db-driver`` when the PostgreSQL driver is not installed, ``db-unreachable``,
            ``db-version`` when the database was written by a newer beachscore, ``db-read-only`` when the
            SQLite file's folder is on a read-only disk.
    """
    url = database_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            folder = os.path.dirname(os.path.abspath(parsed.database))
            os.makedirs(folder, exist_ok=True)
            if os.statvfs(folder).f_flag & os.ST_RDONLY:  # SQLite would only say "unable to open database file"
                raise DatabaseError("db-read-only", f"the hall's data folder {folder} is on a read-only disk: "
                                    "make it writable (or choose another --data) and start again")
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False},
                               pool_size=pool_size, max_overflow=pool_size)
        _sqlite_settings(engine)
    else:
        try:
            engine = create_engine(url, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True,
                                   pool_timeout=30)
        except ModuleNotFoundError as err:
            hint = 'pip install -e ".[postgres]"' if parsed.get_backend_name() == "postgresql" else \
                "the hall is tested on SQLite and PostgreSQL only"
            raise DatabaseError("db-driver", f"{parsed.get_backend_name()} needs its driver ({err.name}): {hint}") \
                from None
    try:
        migrate(engine)
    except DatabaseError:
        engine.dispose()
        raise
    except Exception as err:  # noqa: BLE001 - the first connection shows whether the server is there at all
        engine.dispose()
        if type(err).__name__ == "OperationalError":
            raise DatabaseError("db-unreachable", f"cannot open the database {parsed.render_as_string()}: "
                                f"{str(getattr(err, 'orig', err)).strip().splitlines()[0]}") from None
        raise
    return engine


#: SQLSTATEs of PostgreSQL's storage errors: disk full, out of memory or resources, read-only transaction.
_PG_STORAGE = {"53100": "disk-full", "53000": "disk-full", "53200": "disk-full", "25006": "read-only"}
_MESSAGES = {
    "disk-full": "the hall's disk is full: nothing was saved; free some space on it (stations send again by "
                 "themselves)",
    "read-only": "the hall's database cannot be written (read-only disk or file): nothing was saved; make it "
                 "writable and restart the hall",
}


def storage_problem(err: BaseException) -> tuple[str, str] | None:
    """``(code, message)`` when ``err`` says the database or the data folder cannot take a write
    (``disk-full``, ``read-only``), else None.

    >>> storage_problem(OSError(28, "No space left on device"))[0]
    'disk-full'
    >>> storage_problem(ValueError("x")) is None
    True
    """
    code = None
    if isinstance(err, OSError) and not isinstance(err, ConnectionError):
        code = {errno.ENOSPC: "disk-full", errno.EDQUOT: "disk-full", errno.EROFS: "read-only"}.get(err.errno)
    orig = getattr(err, "orig", None)
    if orig is not None:
        text_ = str(orig).lower()
        if "database or disk is full" in text_:
            code = "disk-full"
        elif "readonly database" in text_ or "read-only" in text_:
            code = "read-only"
        else:
            code = _PG_STORAGE.get(getattr(orig, "sqlstate", None) or "")
    return (code, _MESSAGES[code]) if code else None


def database_unavailable(err: BaseException) -> bool:
    """Whether ``err`` says the database cannot be reached for now: the PostgreSQL server is down,
    restarting or refusing connections, every pooled connection is busy, or SQLite stayed locked.

    >>> database_unavailable(sa_exc.TimeoutError("QueuePool limit reached"))
    True
    >>> database_unavailable(ValueError("x"))
    False
    """
    if isinstance(err, (sa_exc.TimeoutError, sa_exc.DisconnectionError)):
        return True
    if not isinstance(err, sa_exc.DBAPIError):
        return False
    if err.connection_invalidated:
        return True
    orig = getattr(err, "orig", None)
    if type(orig).__module__.startswith("psycopg"):
        return isinstance(err, (sa_exc.OperationalError, sa_exc.InterfaceError))
    return isinstance(err, sa_exc.OperationalError) and ("locked" in str(orig) or "busy" in str(orig))


def reflect(engine: Engine) -> MetaData:
    """The current tables, read back from the migrated database (migrations are the only schema)."""
    meta = MetaData()
    meta.reflect(engine)
    return meta


def _sqlite_settings(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself, below
        cur = dbapi_connection.cursor()
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON", "busy_timeout=30000"):
            cur.execute(f"PRAGMA {pragma}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("hall_write") else "BEGIN")
