"""The station's store: games, scans, corrections (revisions), photos and settings in SQLite.

Durability: WAL journal, ``synchronous=FULL``. A scan is saved in one transaction *after* its
photo files are on disk (atomic write + fsync), so a process killed at any moment leaves either
the whole scan or nothing of it; an orphaned photo file is removed on the next start. Machine
readings are never changed: every manual correction is a new revision row with its time.
"""

from __future__ import annotations

import json
import operator
import os
import sqlite3
import threading
from datetime import datetime, timezone

from beachscore.errors import BeachscoreError
from beachscore.store import photos as photo_files
from beachscore.store.schema import MIGRATIONS, VERSION

DB_NAME = "beachscore.sqlite3"
#: Largest id SQLite can hold (signed 64-bit INTEGER); larger numbers name no record.
MAX_ID = 2 ** 63 - 1


class StoreError(BeachscoreError, RuntimeError):
    """The store cannot be opened or a record is missing. Codes: ``store-version``, ``not-found``."""


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
    beachscore.store.db.StoreError: no scan 100000000000000000000000
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

    def __init__(self, data_dir: str):
        self.data_dir = os.path.abspath(data_dir)
        self.photo_dir = os.path.join(self.data_dir, "photos")
        os.makedirs(self.photo_dir, exist_ok=True)
        self.path = os.path.join(self.data_dir, DB_NAME)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._migrate()
        self.removed_orphans = self._remove_orphans()

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
            if self._db is not None:
                self._db.close()
                self._db = None

    # -- settings ---------------------------------------------------------------------------
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        with self._tx() as db:
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
        """Save encoded image bytes as a new photo; returns its id."""
        name = photo_files.write_atomic(self.photo_dir, data, ext)
        with self._tx() as db:
            return self._insert_photo(db, name, data, kind)

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
        with self._tx() as db:
            return db.execute("INSERT INTO games(game, setup_json, display_json, created_at) VALUES(?, ?, ?, ?)",
                              (game, json.dumps(setup or {}), json.dumps(display or {}), now_iso())).lastrowid

    def end_game(self, game_id: int, final_scan_id: int | None) -> None:
        """Mark a game over, with the scan that holds the final score."""
        with self._tx() as db:
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
            annotated_png: the annotated picture as PNG bytes, or None.
            result: the contract's scan JSON (game, state, score, confidence, warnings, timing_ms).
            error: ``{"code", "message"}`` when the scan failed.
            timing_ms: ms per stage, merged over ``result["timing_ms"]``.
            extra: anything else worth keeping (registration, homography).
        Returns:
            the new scan id.
        """
        names = []
        if photo_jpeg is not None:
            names.append(("photo", photo_files.write_atomic(self.photo_dir, photo_jpeg, ".jpg"), photo_jpeg))
        if annotated_png is not None:
            names.append(("annotated", photo_files.write_atomic(self.photo_dir, annotated_png, ".png"), annotated_png))
        result = result or {}
        timing = {**(result.get("timing_ms") or {}), **(timing_ms or {})}
        with self._tx() as db:
            ids = {kind: self._insert_photo(db, name, data, kind) for kind, name, data in names}
            cur = db.execute(
                "INSERT INTO scans(game_id, created_at, source, status, photo_id, annotated_photo_id, game, "
                "state_json, score_json, confidence, warnings_json, timing_json, extra_json, error_code, "
                "error_message) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, now_iso(), source, "error" if error else "ok", ids.get("photo"), ids.get("annotated"),
                 result.get("game"),
                 json.dumps(result["state"]) if "state" in result else None,
                 json.dumps(result["score"]) if "score" in result else None,
                 result.get("confidence"), json.dumps(result.get("warnings") or []), json.dumps(timing),
                 json.dumps(extra or {}), (error or {}).get("code"), (error or {}).get("message")))
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

    def add_revision(self, scan_id: int, state: dict, score: dict, note: str = "") -> int:
        """Save a manual correction of scan ``scan_id`` as a new revision; the reading stays. Returns its id."""
        self.scan(scan_id)  # raises not-found
        with self._tx() as db:
            return db.execute("INSERT INTO revisions(scan_id, created_at, state_json, score_json, note) "
                              "VALUES(?, ?, ?, ?, ?)", (scan_id, now_iso(), json.dumps(state), json.dumps(score),
                                                        note)).lastrowid


class _Transaction:
    """``with store._tx() as db:`` — BEGIN IMMEDIATE … COMMIT under the store's lock, ROLLBACK on error."""

    def __init__(self, store: Store):
        self.store = store

    def __enter__(self):
        self.store._lock.acquire()
        self.store._db.execute("BEGIN IMMEDIATE")
        return self.store._db

    def __exit__(self, exc_type, exc, tb):
        try:
            self.store._db.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.store._lock.release()
