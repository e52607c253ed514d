"""The store's plumbing: one engine, write and read transactions, group commit, the event's version.

Every change is one transaction that also bumps its event's ``version``: pages and caches ask
for the version and recompute only when it moved.
"""

from __future__ import annotations

import hashlib
import os
import threading
from datetime import datetime, timedelta, timezone

from sqlalchemy import select
from sqlalchemy.engine import Engine

import tournament
from hall.db import reflect


def now_iso(delta_s: float = 0.0) -> str:
    """UTC time in ISO 8601 with milliseconds (``delta_s`` seconds from now)."""
    return (datetime.now(timezone.utc) + timedelta(seconds=delta_s)).isoformat(timespec="milliseconds")


def sha256_hex(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()



class StoreBase:
    """The engine, the reflected tables and the transactions every part of the store writes through.

    Args:
        engine: a migrated engine (:func:`hall.db.open_engine`).
        photo_dir: folder for the stations' photos (files named by their SHA-256); default the
            ``photos`` folder beside an SQLite database.
    """

    def __init__(self, engine: Engine, photo_dir: str | None = None):
        self.engine = engine
        if photo_dir is None:
            if engine.dialect.name != "sqlite" or not engine.url.database:
                raise ValueError("photo_dir: where should the hall keep photos?")
            photo_dir = os.path.join(os.path.dirname(os.path.abspath(engine.url.database)), "photos")
        self.photo_dir = os.path.abspath(photo_dir)
        os.makedirs(self.photo_dir, exist_ok=True)
        for name in os.listdir(self.photo_dir):  # left by a killed hall
            if name.startswith(".tmp-"):
                os.unlink(os.path.join(self.photo_dir, name))
        self.t = reflect(engine).tables
        self._models: dict[int, tuple[int, tournament.Event]] = {}
        self._model_lock = threading.Lock()
        self._tokens: dict[str, tuple[float, dict]] = {}
        self._static: dict[int, dict] = {}
        self._sqlite_writer = threading.Lock() if engine.dialect.name == "sqlite" else None
        self._committer = GroupCommit(self)

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self._committer.close()
        self.engine.dispose()

    # -- plumbing ---------------------------------------------------------------------------
    def _write(self):
        """``with self._write() as conn:`` one write transaction.

        SQLite takes one writer at a time: this process's writers queue on a lock (first come,
        first served) instead of SQLite's busy handler, which sleeps up to 100 ms between tries.
        """
        return _Tx(self.engine, write=True, lock=self._sqlite_writer)

    def _read(self):
        return _Tx(self.engine, write=False)

    def _grouped(self, work):
        """Run ``work(conn)`` in a write transaction; concurrent calls share one transaction, one commit
        (one fsync) and one lock of the event's version row (group commit), each in its own savepoint
        so that one failing leaves the others."""
        return self._committer.run(work)

    def _lock_event(self, conn, event_id: int) -> None:
        """Take the event's row lock for the rest of the transaction, so that this write's checks (the
        ids taken, the round open) still hold when it commits. PostgreSQL reads committed data
        and needs it; on SQLite ``BEGIN IMMEDIATE`` already makes writers wait their turn."""
        if self.backend != "sqlite":
            ev = self.t["events"]
            conn.execute(select(ev.c.id).where(ev.c.id == event_id).with_for_update())

    def _bump(self, conn, event_id: int) -> None:
        ev = self.t["events"]
        conn.execute(ev.update().where(ev.c.id == event_id).values(version=ev.c.version + 1))


class GroupCommit:
    """One writer thread that commits the jobs waiting at the same moment together.

    Each job runs in a savepoint of the shared transaction: a job that raises is rolled back alone
    and its caller gets the exception; the others commit. A failed COMMIT fails every job of it.
    """

    MAX_BATCH = 64

    def __init__(self, store: StoreBase):
        self.store = store
        self._jobs: list = []
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name="hall-group-commit", daemon=True)
        self._thread.start()

    def run(self, work):
        job = {"work": work, "done": threading.Event(), "result": None, "error": None}
        with self._cond:
            if self._closed:
                raise RuntimeError("the store is closed")
            self._jobs.append(job)
            self._cond.notify()
        job["done"].wait()
        if job["error"] is not None:
            raise job["error"]
        return job["result"]

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(10)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._closed:
                    self._cond.wait()
                if not self._jobs:
                    return
                batch, self._jobs = self._jobs[:self.MAX_BATCH], self._jobs[self.MAX_BATCH:]
            try:
                with self.store._write() as conn:
                    for job in batch:
                        savepoint = conn.begin_nested()
                        try:
                            job["result"] = job["work"](conn)
                            savepoint.commit()
                        except Exception as err:  # noqa: BLE001 - handed to the job's caller
                            savepoint.rollback()
                            job["error"] = err
            except Exception as err:  # noqa: BLE001 - the COMMIT itself failed: nothing of the batch is kept
                for job in batch:
                    job["error"] = job["error"] or err
            for job in batch:
                job["done"].set()


class _Tx:
    """A connection with one transaction: committed on success, rolled back on error."""

    def __init__(self, engine: Engine, write: bool, lock: threading.Lock | None = None):
        self.engine, self.write, self.lock = engine, write, lock

    def __enter__(self):
        if self.lock is not None:
            self.lock.acquire()
        try:
            self.conn = self.engine.connect()
        except BaseException:
            if self.lock is not None:
                self.lock.release()
            raise
        if self.write:
            self.conn = self.conn.execution_options(hall_write=True)
        self.tx = self.conn.begin()
        return self.conn

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.tx.commit()
            else:
                self.tx.rollback()
        finally:
            self.conn.close()
            if self.lock is not None:
                self.lock.release()
