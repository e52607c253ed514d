"""The station's store: games, scans, corrections (revisions), photos and settings in SQLite.

Durability: WAL journal, ``synchronous=FULL``. A scan is saved in one transaction *after* its
photo files are on disk (atomic write + fsync), so a process killed at any moment leaves either
the whole scan or nothing of it; an orphaned photo file is removed on the next start (and at once
when the transaction fails). Machine readings are never changed: every manual correction is a new
revision row with its time.

Writes that cannot happen say why, as a :class:`StoreError` (never an OSError or a SQLite error):
``disk-full`` (no space left), ``read-only`` (the folder or the database cannot be written: the
store then opens for viewing only, see :attr:`Store.read_only`), ``data-folder-missing`` (the data
folder was deleted or replaced while the station ran: writing on would go into a file nobody can
open again).
"""

from __future__ import annotations

import contextlib
import errno
import json
import operator
import os
import sqlite3
import threading
from datetime import datetime, timezone

from beachscore.errors import BeachscoreError
from beachscore.station.store import photos as photo_files
from beachscore.station.store.schema import MIGRATIONS, VERSION

DB_NAME = "beachscore.sqlite3"
#: Largest id SQLite can hold (signed 64-bit INTEGER); larger numbers name no record.
MAX_ID = 2 ** 63 - 1


class StoreError(BeachscoreError, RuntimeError):
    """The store cannot be opened, cannot be written, or a record is missing.

    Codes: ``store-version``, ``not-found``, ``disk-full``, ``read-only``, ``data-folder-missing``,
    ``store-unreadable``.
    """


#: Codes of :class:`StoreError` that mean "nothing can be written now" (not a bad request).
WRITE_PROBLEMS = ("disk-full", "read-only", "data-folder-missing")
#: OSError numbers that mean the disk has no room left.
DISK_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)
#: OSError numbers that mean the folder cannot be written.
READ_ONLY_ERRNOS = (errno.EROFS, errno.EACCES, errno.EPERM)


def dumps(value) -> str:
    """JSON text of a value for the database; NaN and ±Infinity are refused (they are not JSON).

    Raises:
        ValueError: the value holds a non-finite float.
    """
    return json.dumps(value, allow_nan=False)


def write_problem(exc: BaseException, data_dir: str) -> StoreError | None:
    """The :class:`StoreError` an OSError or SQLite error of a write means, or None for another error.

    >>> write_problem(OSError(28, "No space left on device"), "/data").code
    'disk-full'
    >>> write_problem(sqlite3.OperationalError("attempt to write a readonly database"), "/data").code
    'read-only'
    """
    text = str(exc).lower()
    if isinstance(exc, StoreError):
        return exc if exc.code in WRITE_PROBLEMS else None
    full = (isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS) or \
        (isinstance(exc, sqlite3.Error) and "full" in text)
    if full:
        return StoreError("disk-full", f"the station's disk is full: free some space on the disk of {data_dir}, "
                          "then try again")
    read_only = (isinstance(exc, OSError) and exc.errno in READ_ONLY_ERRNOS) or \
        (isinstance(exc, sqlite3.Error) and "readonly" in text.replace("read-only", "readonly"))
    if read_only:
        return StoreError("read-only", f"the data folder {data_dir} cannot be written (read-only); "
                          "the station only shows what it has")
    return None


def now_iso() -> str:
    """Current UTC time, ISO 8601 with milliseconds, e.g. ``2026-11-30T08:40:01.123+00:00``."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _id(value, what: str) -> int:
    """A record id as SQLite takes it; anything that cannot be one is ``not-found``, never OverflowError.

    >>> _id(7, "scan")
    7
    >>> _id(10 ** 23, "scan")
    Traceback (most recent call last):
    ...
    beachscore.station.store.db.StoreError: no scan 100000000000000000000000
    """
    try:
        number = operator.index(value)  # int, numpy integers; not str or float
    except TypeError:
        number = None
    if isinstance(value, bool) or number is None or not 0 <= number <= MAX_ID:
        raise StoreError("not-found", f"no {what} {str(value)[:40]}")
    return number


def _loads(text: str | None):
    return None if text is None else json.loads(text)


class Store:
    """One station's data folder.

    Layout of ``data_dir``::

        beachscore.sqlite3   games, scans, revisions, photos, settings
        photos/              photo files named by the store (``<24 hex>.jpg|png``)
        calibration/         the station's current calibration (CAL_DIR)

    Args:
        data_dir: folder, created if missing.
    Raises:
        StoreError: ``store-version`` when the database was written by a newer beachscore.
    """

    def __init__(self, data_dir: str, *, read_only: bool = False):
        self.data_dir = os.path.abspath(data_dir)
        self.photo_dir = os.path.join(self.data_dir, "photos")
        self.path = os.path.join(self.data_dir, DB_NAME)
        self._lock = threading.RLock()
        #: Why nothing can be written (None: the store is writable). Set when the folder or the
        #: database is read-only or the disk is full at start: the store then opens for viewing.
        self.read_only: str | None = None
        #: The last write that failed for want of space/permission, shown on the page until a write succeeds.
        self.write_problem: StoreError | None = None
        self.removed_orphans = 0
        if read_only:
            self.read_only = "opened read-only"
        else:
            try:
                os.makedirs(self.photo_dir, exist_ok=True)
            except OSError as exc:
                problem = write_problem(exc, self.data_dir)
                if problem is None or not os.path.isfile(self.path):
                    raise StoreError("store-unreadable", f"cannot create the data folder {self.data_dir}: "
                                     f"{exc.strerror or exc}") from None
                self.read_only = problem.message
            if self.read_only is None and not _writable(self.data_dir, self.path):
                self.read_only = f"the data folder {self.data_dir} cannot be written (read-only)"
        if self.read_only is None:
            try:
                self._open_writable()
                return
            except StoreError:
                raise
            except (OSError, sqlite3.Error) as exc:
                problem = write_problem(exc, self.data_dir)
                if problem is None:
                    raise StoreError("store-unreadable", f"cannot open {self.path}: {exc}") from None
                self.close()
                self.read_only = (f"the disk of {self.data_dir} is full: free some space and restart the station"
                                  if problem.code == "disk-full" else problem.message)
        self._open_for_viewing()

    def _open_writable(self) -> None:
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._migrate()
        # a write now tells a read-only file or a full disk at once, not at the first scan
        self._db.execute("INSERT INTO settings(key, value) VALUES('opened_at', ?) "
                         "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (now_iso(),))
        self._identity = _identity(self.data_dir, self.path)
        self._photos_identity = _inode(self.photo_dir)
        self.removed_orphans = self._remove_orphans()

    def _open_for_viewing(self) -> None:
        """Open the database read-only (viewing mode): every write raises ``read-only``."""
        if not os.path.isfile(self.path):
            raise StoreError("store-unreadable", f"{self.read_only}; and there is no database "
                             f"{self.path} to show")
        last = None
        for query in ("mode=ro", "mode=ro&immutable=1"):  # a WAL file in a read-only folder needs immutable
            try:
                self._db = sqlite3.connect(f"file:{self.path}?{query}", uri=True, check_same_thread=False,
                                           isolation_level=None, timeout=10)
                self._db.row_factory = sqlite3.Row
                version = self._db.execute("PRAGMA user_version").fetchone()[0]
                break
            except sqlite3.Error as exc:
                last = exc
                self.close()
        else:
            raise StoreError("store-unreadable", f"cannot read {self.path}: {last}")
        if version != VERSION:
            self.close()
            raise StoreError("store-version", f"{self.path}: schema version {version}, this beachscore needs "
                             f"{VERSION}, and the database is read-only ({self.read_only}); make it writable")
        self._identity = _identity(self.data_dir, self.path)
        self._photos_identity = _inode(self.photo_dir)

    def check_writable(self) -> None:
        """Raise the reason nothing can be written now; return when a write may go ahead.

        Raises:
            StoreError: ``read-only`` (viewing mode, or the database was made read-only while
                running), ``data-folder-missing`` (the folder, or its photos folder, was deleted
                or replaced).
        """
        if self.read_only is not None:
            raise StoreError("read-only", f"the station is in viewing mode: {self.read_only}; "
                             "nothing can be changed until it is fixed and the station restarted")
        if _identity(self.data_dir, self.path) != self._identity:
            raise StoreError("data-folder-missing", f"the data folder {self.data_dir} was deleted or replaced "
                             "while the station was running; restart the station (nothing more is saved until then)")
        if _inode(self.photo_dir) != self._photos_identity:
            raise StoreError("data-folder-missing", f"the photos folder {self.photo_dir} was deleted or replaced "
                             "while the station was running; restart the station (nothing more is saved until then)")
        if not _writable(self.data_dir, self.path):
            raise StoreError("read-only", f"the data folder {self.data_dir} was made read-only; "
                             "nothing can be saved until it is writable again")

    @contextlib.contextmanager
    def _writing(self):
        """Turn a failed write's OSError/SQLite error into the StoreError it means (disk-full …)."""
        try:
            yield
        except (OSError, sqlite3.Error) as exc:
            problem = write_problem(exc, self.data_dir)
            if problem is None:
                raise
            self.write_problem = problem
            raise problem from None
        except StoreError as exc:
            if exc.code in WRITE_PROBLEMS:
                self.write_problem = exc
            raise
        self.write_problem = None

    def problem(self) -> StoreError | None:
        """Why writes fail now (viewing mode, a deleted folder) or failed last (disk full); None when fine."""
        try:
            self.check_writable()
        except StoreError as exc:
            return exc
        return self.write_problem

    # -- plumbing ---------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self._lock:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > VERSION:
                raise StoreError("store-version", f"{self.path}: schema version {version} is newer than this "
                                 f"beachscore understands ({VERSION}); upgrade beachscore")
            for number in range(version, VERSION):
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for statement in MIGRATIONS[number].split(";"):
                        if statement.strip():
                            self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version={number + 1}")
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

    def _tx(self):
        return _Transaction(self)

    def _remove_orphans(self) -> int:
        """Delete temporary files and photo files no row refers to (left by a killed process)."""
        with self._lock:
            known = {r[0] for r in self._db.execute("SELECT filename FROM photos")}
        removed = 0
        for name in os.listdir(self.photo_dir):
            if name.startswith(photo_files.TMP_PREFIX) or (photo_files.is_store_name(name) and name not in known):
                os.unlink(os.path.join(self.photo_dir, name))
                removed += 1
        return removed

    @property
    def schema_version(self) -> int:
        with self._lock:
            return self._db.execute("PRAGMA user_version").fetchone()[0]

    def integrity_check(self) -> str:
        """SQLite's own check: ``"ok"`` when the file is sound."""
        with self._lock:
            return self._db.execute("PRAGMA integrity_check").fetchone()[0]

    def close(self) -> None:
        """Close the database. Safe to call twice."""
        with self._lock:
            if getattr(self, "_db", None) is not None:
                self._db.close()
            self._db = None

    # -- settings ---------------------------------------------------------------------------
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        with self._writing(), self._tx() as db:
            db.execute("INSERT INTO settings(key, value) VALUES(?, ?) "
                       "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))

    # -- photos -----------------------------------------------------------------------------
    def _insert_photo(self, db, filename: str, data: bytes, kind: str) -> int:
        ext = os.path.splitext(filename)[1]
        cur = db.execute("INSERT INTO photos(filename, kind, media_type, bytes, sha256, created_at) "
                         "VALUES(?, ?, ?, ?, ?, ?)", (filename, kind, photo_files.MEDIA_TYPES[ext], len(data),
                                                      photo_files.sha256(data), now_iso()))
        return cur.lastrowid

    def add_photo(self, data: bytes, *, ext: str = ".jpg", kind: str = "photo") -> int:
        """Save encoded image bytes as a new photo; returns its id.

        Raises:
            StoreError: ``disk-full``, ``read-only``, ``data-folder-missing`` (no file is left behind).
        """
        with self._writing():
            self.check_writable()
            name = photo_files.write_atomic(self.photo_dir, data, ext)
            try:
                with self._tx() as db:
                    return self._insert_photo(db, name, data, kind)
            except BaseException:
                photo_files.remove(self.photo_dir, name)
                raise

    def photo_file(self, photo_id: int) -> tuple[str, str]:
        """Path and media type of photo ``photo_id``.

        The path is built from the store's own file name (checked against the name pattern), never
        from anything a request sent.
        Raises:
            StoreError: ``not-found``.
        """
        with self._lock:
            row = self._db.execute("SELECT filename, media_type FROM photos WHERE id=?",
                                   (_id(photo_id, "photo"),)).fetchone()
        if row is None or not photo_files.is_store_name(row["filename"]):
            raise StoreError("not-found", f"no photo {photo_id}")
        path = os.path.join(self.photo_dir, row["filename"])
        if not os.path.isfile(path):
            raise StoreError("not-found", f"photo {photo_id} is missing on disk")
        return path, row["media_type"]

    # -- games ------------------------------------------------------------------------------
    def new_game(self, game: str, setup: dict | None = None, display: dict | None = None) -> int:
        """Start a game; it becomes the current one. Returns its id.

        Args:
            game: game name.
            setup: the contract's setup.json dict (passed to the pipeline).
            display: page-only facts, e.g. ``{"names": {"red": "Ana"}, "swatches": {"red": "#d32f2f"}}``.
        """
        row = (game, dumps(setup or {}), dumps(display or {}), now_iso())
        with self._writing(), self._tx() as db:
            return db.execute("INSERT INTO games(game, setup_json, display_json, created_at) VALUES(?, ?, ?, ?)",
                              row).lastrowid

    def end_game(self, game_id: int, final_scan_id: int | None) -> None:
        """Mark a game over, with the scan that holds the final score."""
        with self._writing(), self._tx() as db:
            db.execute("UPDATE games SET ended_at=?, final_scan_id=? WHERE id=?", (now_iso(), final_scan_id, game_id))

    def game(self, game_id: int) -> dict:
        with self._lock:
            row = self._db.execute("SELECT * FROM games WHERE id=?", (_id(game_id, "game"),)).fetchone()
        if row is None:
            raise StoreError("not-found", f"no game {game_id}")
        return self._game_dict(row)

    def current_game(self) -> dict | None:
        """The most recent game (over or not), or None before the first game."""
        with self._lock:
            row = self._db.execute("SELECT * FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return self._game_dict(row) if row else None

    def games(self) -> list[dict]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM games ORDER BY id DESC").fetchall()
        return [self._game_dict(r) for r in rows]

    @staticmethod
    def _game_dict(row) -> dict:
        d = dict(row)
        d["setup"] = json.loads(d.pop("setup_json"))
        d["display"] = json.loads(d.pop("display_json"))
        return d

    # -- scans ------------------------------------------------------------------------------
    def add_scan(self, *, game_id: int | None, source: str, photo_jpeg: bytes | None,
                 annotated_png: bytes | None = None, result: dict | None = None, error: dict | None = None,
                 timing_ms: dict | None = None, extra: dict | None = None) -> int:
        """Save one scan with its photos, all or nothing.

        Args:
            game_id: the game it belongs to (None: no game set up yet).
            source: what asked for it: ``button``, ``web``, ``upload``.
            photo_jpeg: the photo as JPEG bytes (None when the camera failed).
            annotated_png: the annotated picture as PNG or JPEG bytes (told apart by their first
                bytes), or None.
            result: the contract's scan JSON (game, state, score, confidence, warnings, timing_ms).
            error: ``{"code", "message"}`` when the scan failed.
            timing_ms: ms per stage, merged over ``result["timing_ms"]``.
            extra: anything else worth keeping (registration, homography).
        Returns:
            the new scan id.
        Raises:
            StoreError: ``disk-full``, ``read-only``, ``data-folder-missing``; no photo file is left
                behind when the scan cannot be saved.
            ValueError: the result holds NaN or Infinity (not JSON).
        """
        result = result or {}
        timing = {**(result.get("timing_ms") or {}), **(timing_ms or {})}
        row_json = (dumps(result["state"]) if "state" in result else None,
                    dumps(result["score"]) if "score" in result else None,
                    dumps(result.get("warnings") or []), dumps(timing), dumps(extra or {}))
        names = []
        with self._writing():
            self.check_writable()
            try:
                if photo_jpeg is not None:
                    names.append(("photo", photo_files.write_atomic(self.photo_dir, photo_jpeg, ".jpg"), photo_jpeg))
                if annotated_png is not None:
                    ext = ".jpg" if annotated_png[:3] == b"\xff\xd8\xff" else ".png"
                    names.append(("annotated", photo_files.write_atomic(self.photo_dir, annotated_png, ext),
                                  annotated_png))
                return self._insert_scan(names, game_id, source, result, error, row_json)
            except BaseException:
                for _, name, _ in names:  # no orphan file when the scan's row cannot be written
                    photo_files.remove(self.photo_dir, name)
                raise

    def _insert_scan(self, names, game_id, source, result, error, row_json) -> int:
        state_json, score_json, warnings_json, timing_json, extra_json = row_json
        with self._tx() as db:
            ids = {kind: self._insert_photo(db, name, data, kind) for kind, name, data in names}
            cur = db.execute(
                "INSERT INTO scans(game_id, created_at, source, status, photo_id, annotated_photo_id, game, "
                "state_json, score_json, confidence, warnings_json, timing_json, extra_json, error_code, "
                "error_message) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, now_iso(), source, "error" if error else "ok", ids.get("photo"), ids.get("annotated"),
                 result.get("game"), state_json, score_json, result.get("confidence"), warnings_json, timing_json,
                 extra_json, (error or {}).get("code"), (error or {}).get("message")))
            return cur.lastrowid

    def scan(self, scan_id: int) -> dict:
        """One scan with its machine reading, revisions (oldest first) and current state/score.

        Returns a dict with: id, game_id, created_at, source, status, photo_id, annotated_photo_id,
        game, state (machine reading), score, confidence, warnings, timing_ms, extra, error
        ({code, message} or None), revisions [{id, created_at, state, score, note}],
        current_state, current_score (latest revision, else the machine reading).
        Raises:
            StoreError: ``not-found``.
        """
        with self._lock:
            row = self._db.execute("SELECT * FROM scans WHERE id=?", (_id(scan_id, "scan"),)).fetchone()
            if row is None:
                raise StoreError("not-found", f"no scan {scan_id}")
            revs = self._db.execute("SELECT * FROM revisions WHERE scan_id=? ORDER BY id", (row["id"],)).fetchall()
        return self._scan_dict(row, revs)

    def _scan_dict(self, row, revs) -> dict:
        d = dict(row)
        scan = {k: d[k] for k in ("id", "game_id", "created_at", "source", "status", "photo_id",
                                  "annotated_photo_id", "game", "confidence")}
        scan["state"] = _loads(d["state_json"])
        scan["score"] = _loads(d["score_json"])
        scan["warnings"] = json.loads(d["warnings_json"])
        scan["timing_ms"] = json.loads(d["timing_json"])
        scan["extra"] = json.loads(d["extra_json"])
        scan["error"] = {"code": d["error_code"], "message": d["error_message"]} if d["error_code"] else None
        scan["revisions"] = [{"id": r["id"], "created_at": r["created_at"], "state": json.loads(r["state_json"]),
                              "score": json.loads(r["score_json"]), "note": r["note"]} for r in revs]
        last = scan["revisions"][-1] if scan["revisions"] else None
        scan["current_state"] = last["state"] if last else scan["state"]
        scan["current_score"] = last["score"] if last else scan["score"]
        return scan

    def scans(self, *, game_id: int | None = None, limit: int = 200) -> list[dict]:
        """Scans newest first, optionally of one game (an id no game can have gives none)."""
        if game_id is not None:
            try:
                game_id = _id(game_id, "game")
            except StoreError:
                return []
        with self._lock:
            if game_id is None:
                rows = self._db.execute("SELECT id FROM scans ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
            else:
                rows = self._db.execute("SELECT id FROM scans WHERE game_id=? ORDER BY id DESC LIMIT ?",
                                        (game_id, limit)).fetchall()
        return [self.scan(r[0]) for r in rows]

    def latest_scan(self) -> dict | None:
        with self._lock:
            row = self._db.execute("SELECT id FROM scans ORDER BY id DESC LIMIT 1").fetchone()
        return self.scan(row[0]) if row else None

    def count(self, table: str) -> int:
        if table not in ("games", "scans", "revisions", "photos"):
            raise ValueError(table)
        with self._lock:
            return self._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]

    def attach_annotated(self, scan_id: int, data: bytes, timing_ms: dict | None = None) -> int:
        """Give a saved scan its annotated picture (JPEG or PNG bytes), drawn after the scan was
        saved; ``timing_ms`` is merged into the scan's timing. Returns the picture's photo id.

        Raises:
            StoreError: ``not-found``; ``disk-full`` … as :meth:`add_photo` (no file left behind).
        """
        scan = self.scan(scan_id)
        ext = ".jpg" if data[:3] == b"\xff\xd8\xff" else ".png"
        timing = dumps({**scan["timing_ms"], **(timing_ms or {})})
        with self._writing():
            self.check_writable()
            name = photo_files.write_atomic(self.photo_dir, data, ext)
            try:
                with self._tx() as db:
                    photo_id = self._insert_photo(db, name, data, "annotated")
                    db.execute("UPDATE scans SET annotated_photo_id=?, timing_json=? WHERE id=?",
                               (photo_id, timing, scan["id"]))
                    return photo_id
            except BaseException:
                photo_files.remove(self.photo_dir, name)
                raise

    def add_revision(self, scan_id: int, state: dict, score: dict, note: str = "") -> int:
        """Save a manual correction of scan ``scan_id`` as a new revision; the reading stays. Returns its id."""
        self.scan(scan_id)  # raises not-found
        row = (scan_id, now_iso(), dumps(state), dumps(score), note)
        with self._writing(), self._tx() as db:
            return db.execute("INSERT INTO revisions(scan_id, created_at, state_json, score_json, note) "
                              "VALUES(?, ?, ?, ?, ?)", row).lastrowid


class _Transaction:
    """``with store._tx() as db:`` — BEGIN IMMEDIATE … COMMIT under the store's lock, ROLLBACK on error."""

    def __init__(self, store: Store):
        self.store = store

    def __enter__(self):
        self.store._lock.acquire()
        try:
            self.store.check_writable()
            self.store._db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self.store._lock.release()
            raise
        return self.store._db

    def __exit__(self, exc_type, exc, tb):
        try:
            self.store._db.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.store._lock.release()


def _writable(data_dir: str, path: str) -> bool:
    """Whether the folder (and the database file, when there is one) may be written by this process."""
    return os.access(data_dir, os.W_OK) and (not os.path.exists(path) or os.access(path, os.W_OK))


def _inode(path: str) -> tuple | None:
    """(device, inode) of a file or folder, None when it is not there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _identity(data_dir: str, path: str) -> tuple | None:
    """(device, inode) of the folder and of the database file: a deleted or replaced folder changes it."""
    try:
        folder, db = os.stat(data_dir), os.stat(path)
    except OSError:
        return None
    return folder.st_dev, folder.st_ino, db.st_dev, db.st_ino
