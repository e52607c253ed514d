"""The station's outbox to the hall: results kept in the station's SQLite until the hall acknowledges.

Tables ``hall_link`` (the pairing: hall address, token, table), ``hall_outbox`` (one row per
report) and ``hall_game_round`` (the hall's round each game started in) live in the station's own database file next to the store's tables, versioned on their
own (``hall_outbox_version``). A report is written (and fsynced: WAL, ``synchronous=FULL``)
before anything is sent, so it survives a station reboot; :class:`Sender` sends due reports,
retrying with exponential back-off and jitter (``base_s`` · 2^attempts, at most ``cap_s``)
through a hall restart or a Wi-Fi loss until the hall answers. The hall keys reports by (station,
scan id, revision), so sending one twice is harmless: it is counted once.

HTTP: the standard library's ``urllib`` (:class:`HallClient`), no extra dependency on the Pi.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import random
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone

log = logging.getLogger("beachscore.outbox")

SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hall_link (
        id          INTEGER PRIMARY KEY,
        hall_url    TEXT NOT NULL,
        token       TEXT NOT NULL,
        station_id  INTEGER NOT NULL,
        event       TEXT NOT NULL,
        game        TEXT NOT NULL,
        table_no    INTEGER NOT NULL,
        paired_at   TEXT NOT NULL,
        unpaired_at TEXT,
        seats_json  TEXT NOT NULL DEFAULT '{}',       -- game player (colour) -> hall player id
        assignment_json TEXT NOT NULL DEFAULT '{}'    -- the hall's last answer: round, players
    );
    CREATE TABLE IF NOT EXISTS hall_outbox (
        id          INTEGER PRIMARY KEY,
        link_id     INTEGER NOT NULL REFERENCES hall_link(id),
        key         TEXT NOT NULL UNIQUE,             -- link:scan:revision, one row per report
        created_at  TEXT NOT NULL,
        payload_json TEXT NOT NULL,
        photo_path  TEXT,                             -- the annotated photo, read when sending
        status      TEXT NOT NULL DEFAULT 'pending',  -- pending | sent | rejected
        attempts    INTEGER NOT NULL DEFAULT 0,
        next_try    REAL NOT NULL DEFAULT 0,          -- time.time() of the next attempt
        last_error  TEXT,
        answer_json TEXT,
        sent_at     TEXT
    );
    CREATE INDEX IF NOT EXISTS hall_outbox_due ON hall_outbox(status, next_try);
    """,
    """
    CREATE TABLE IF NOT EXISTS hall_game_round (
        game_id     INTEGER PRIMARY KEY,              -- the station's game
        link_id     INTEGER NOT NULL REFERENCES hall_link(id),
        round       INTEGER NOT NULL                  -- the hall's round being played when it started
    );
    """,
]


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Outbox:
    """The pairing and the queue of reports, in an SQLite file (the station's ``beachscore.sqlite3``).

    Args:
        path: the SQLite file (shared with the station's store; only ``hall_*`` tables are touched).
    """

    def __init__(self, path: str):
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("CREATE TABLE IF NOT EXISTS hall_outbox_version (version INTEGER NOT NULL)")
                row = self._db.execute("SELECT version FROM hall_outbox_version").fetchone()
                version = row[0] if row else 0
                if row is None:
                    self._db.execute("INSERT INTO hall_outbox_version VALUES (0)")
                for number in range(version, len(SCHEMA)):
                    for statement in SCHEMA[number].split(";"):
                        if statement.strip():
                            self._db.execute(statement)
                self._db.execute("UPDATE hall_outbox_version SET version=?", (len(SCHEMA),))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _tx(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(sql, args)
                self._db.execute("COMMIT")
                return cur
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    # -- the pairing -------------------------------------------------------------------------
    def link(self) -> dict | None:
        """The current pairing, or None."""
        with self._lock:
            row = self._db.execute("SELECT * FROM hall_link WHERE unpaired_at IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return None
        d = dict(row)
        d["seats"] = json.loads(d.pop("seats_json"))
        d["assignment"] = json.loads(d.pop("assignment_json"))
        return d

    def set_link(self, hall_url: str, answer: dict) -> int:
        """Remember a new pairing (the hall's answer to ``/api/pair``); an older one ends."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("UPDATE hall_link SET unpaired_at=? WHERE unpaired_at IS NULL", (now_iso(),))
                cur = self._db.execute(
                    "INSERT INTO hall_link(hall_url, token, station_id, event, game, table_no, paired_at) "
                    "VALUES(?, ?, ?, ?, ?, ?, ?)", (hall_url, answer["token"], answer["station_id"], answer["event"],
                                                    answer["game"], answer["table"], now_iso()))
                self._db.execute("COMMIT")
                return cur.lastrowid
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def unpair(self) -> None:
        self._tx("UPDATE hall_link SET unpaired_at=? WHERE unpaired_at IS NULL", (now_iso(),))

    def set_seats(self, seats: dict[str, str]) -> None:
        self._tx("UPDATE hall_link SET seats_json=? WHERE unpaired_at IS NULL", (json.dumps(seats),))

    def set_assignment(self, assignment: dict) -> None:
        self._tx("UPDATE hall_link SET assignment_json=? WHERE unpaired_at IS NULL", (json.dumps(assignment),))

    def set_game_round(self, link_id: int, game_id: int, number: int) -> None:
        """Remember the round being played when a game started (the first answer counts)."""
        self._tx("INSERT OR IGNORE INTO hall_game_round(game_id, link_id, round) VALUES(?, ?, ?)",
                 (game_id, link_id, number))

    def game_round(self, game_id: int, link_id: int | None = None) -> int | None:
        """The round a game started in under the current (or the given) pairing, or None."""
        if link_id is None:
            link = self.link()
            if link is None:
                return None
            link_id = link["id"]
        with self._lock:
            row = self._db.execute("SELECT round FROM hall_game_round WHERE game_id=? AND link_id=?",
                                   (game_id, link_id)).fetchone()
        return row[0] if row else None

    # -- reports -----------------------------------------------------------------------------
    def enqueue(self, link_id: int, key: str, payload: dict, photo_path: str | None = None) -> bool:
        """Queue a report once (``key`` is unique); True when it is new."""
        try:
            self._tx("INSERT INTO hall_outbox(link_id, key, created_at, payload_json, photo_path) VALUES(?, ?, ?, ?, ?)",
                     (link_id, key, now_iso(), json.dumps(payload), photo_path))
        except sqlite3.IntegrityError:
            return False
        return True

    def due(self, now: float | None = None, limit: int = 20) -> list[dict]:
        """Pending reports whose next attempt is due, oldest first, in order: a report waiting for its
        retry holds back the ones queued after it (the hall sees a station's revisions in order)."""
        now = time.time() if now is None else now
        with self._lock:
            rows = self._db.execute("SELECT * FROM hall_outbox WHERE status='pending' ORDER BY id LIMIT ?",
                                    (limit,)).fetchall()
        out = []
        for r in rows:
            if r["next_try"] > now:
                break
            out.append(_entry(r))
        return out

    def next_due(self) -> float | None:
        with self._lock:
            row = self._db.execute("SELECT MIN(next_try) FROM hall_outbox WHERE status='pending'").fetchone()
        return row[0]

    def mark_sent(self, entry_id: int, answer: dict) -> None:
        self._tx("UPDATE hall_outbox SET status='sent', sent_at=?, answer_json=?, last_error=NULL WHERE id=?",
                 (now_iso(), json.dumps(answer), entry_id))

    def mark_rejected(self, entry_id: int, reason: str) -> None:
        self._tx("UPDATE hall_outbox SET status='rejected', last_error=? WHERE id=?", (reason[:500], entry_id))

    def mark_retry(self, entry_id: int, reason: str, next_try: float) -> None:
        self._tx("UPDATE hall_outbox SET attempts=attempts+1, next_try=?, last_error=? WHERE id=?",
                 (next_try, reason[:500], entry_id))

    def entries(self, limit: int = 20) -> list[dict]:
        """The latest reports, newest first (the pairing page shows them)."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM hall_outbox ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [_entry(r) for r in rows]

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {r[0]: r[1] for r in self._db.execute("SELECT status, COUNT(*) FROM hall_outbox GROUP BY status")}


def _entry(row) -> dict:
    d = dict(row)
    d["payload"] = json.loads(d.pop("payload_json"))
    d["answer"] = json.loads(d["answer_json"]) if d.get("answer_json") else None
    return d


class HallUnreachable(Exception):
    """No answer from the hall (refused, timed out, Wi-Fi gone): try again later."""


class HallClient:
    """JSON over HTTP to one hall (``urllib``).

    Args:
        base_url: e.g. ``http://192.168.1.20:8090``.
        timeout_s: seconds per request.
    """

    def __init__(self, base_url: str, *, timeout_s: float = 10.0):
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s

    def request(self, method: str, path: str, *, body: dict | bytes | None = None, token: str | None = None,
                content_type: str = "application/json") -> tuple[int, dict]:
        """One request; returns ``(status, JSON body)`` for any HTTP answer.

        Raises:
            HallUnreachable: no HTTP answer at all.
        """
        data = json.dumps(body).encode() if isinstance(body, dict) else body
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        if token:
            headers["Authorization"] = f"Bearer {token}"
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as r:
                return r.status, _json_of(r.read())
        except urllib.error.HTTPError as err:
            return err.code, _json_of(err.read())
        except (urllib.error.URLError, OSError, TimeoutError) as err:
            raise HallUnreachable(str(getattr(err, "reason", err))) from None
        except (http.client.InvalidURL, UnicodeError) as err:  # ValueErrors: an address urllib cannot even send to
            raise HallUnreachable(f"not an address: {err}") from None


def _json_of(raw: bytes) -> dict:
    try:
        data = json.loads(raw or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def error_message(answer: dict, status: int) -> str:
    err = answer.get("error") if isinstance(answer.get("error"), dict) else {}
    return err.get("message") or f"the hall answered {status}"


#: HTTP answers after which sending the same report again cannot help.
FINAL_STATUSES = frozenset({400, 401, 403, 404, 409, 413, 422})


class Sender:
    """Sends the outbox's due reports on a background thread until :meth:`close`.

    Args:
        outbox: the :class:`Outbox`.
        client_for: ``hall_url -> HallClient`` (tests inject one).
        base_s, cap_s: back-off of the n-th retry: ``min(cap_s, base_s * 2**n)`` times a random 0.5–1.
        on_change: called after every state change of a report (the page listens).
        on_result: called with the report when the hall has acknowledged its result (before its photo).
    """

    def __init__(self, outbox: Outbox, *, client_for=HallClient, base_s: float = 1.0, cap_s: float = 60.0,
                 on_change=None, on_result=None):
        self.outbox, self.client_for, self.base_s, self.cap_s = outbox, client_for, base_s, cap_s
        self.on_change, self.on_result = on_change, on_result
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "Sender":
        self._thread = threading.Thread(target=self._loop, name="hall-outbox", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        """Something was queued (or the network is back): look now."""
        self._wake.set()

    def close(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.send_due()
            except Exception:  # noqa: BLE001 - the sender must outlive anything one report does
                log.exception("outbox: sending failed")
            nxt = self.outbox.next_due()
            wait = 3600.0 if nxt is None else max(0.0, nxt - time.time())
            self._wake.wait(min(wait, 30.0))
            self._wake.clear()

    def backoff_s(self, attempts: int) -> float:
        return min(self.cap_s, self.base_s * 2 ** min(attempts, 30)) * random.uniform(0.5, 1.0)

    def send_due(self) -> int:
        """Send every due report once; returns how many the hall acknowledged."""
        link = self.outbox.link()
        done = 0
        for entry in self.outbox.due():
            if self._stop.is_set():
                break
            if link is None or entry["link_id"] != link["id"]:
                self.outbox.mark_rejected(entry["id"], "the station was unpaired before this result was sent")
                self._changed()
                continue
            sent = self._send(entry, link)
            if not sent and self.outbox.counts().get("pending"):
                break  # keep the order: the next ones wait for this one
            done += sent
        return done

    def _send(self, entry: dict, link: dict) -> int:
        client = self.client_for(link["hall_url"])
        payload = dict(entry["payload"])
        try:
            photo = _read(entry["photo_path"]) if entry["photo_path"] else None
            if photo is not None:
                payload["photo_sha256"] = hashlib.sha256(photo).hexdigest()
            # the result first (what the standings need), then its photo (the hall shows it once it is there)
            status, answer = client.request("POST", "/api/station/results", body=payload, token=link["token"])
            if status in (200, 201) and photo is not None:
                if self.on_result:
                    self.on_result(entry)
                photo_status, photo_answer = client.request(
                    "PUT", f"/api/station/photos/{payload['photo_sha256']}", body=photo, token=link["token"],
                    content_type="application/octet-stream")
                if photo_status not in (200, 201) and photo_status not in FINAL_STATUSES:
                    raise HallUnreachable(error_message(photo_answer, photo_status))  # both again later (the
                    # result then answers "duplicate")
            elif status in (200, 201) and self.on_result:
                self.on_result(entry)
        except HallUnreachable as err:
            self.outbox.mark_retry(entry["id"], f"hall not reachable: {err}", time.time() + self.backoff_s(entry["attempts"]))
            self._changed()
            return 0
        if status in (200, 201):
            self.outbox.mark_sent(entry["id"], answer)
            self._changed()
            return 1
        if status in FINAL_STATUSES:
            self.outbox.mark_rejected(entry["id"], error_message(answer, status))
        else:  # 5xx, 429 …: the hall is there but busy or restarting
            self.outbox.mark_retry(entry["id"], error_message(answer, status), time.time() + self.backoff_s(entry["attempts"]))
        self._changed()
        return 0

    def _changed(self) -> None:
        if self.on_change:
            try:
                self.on_change()
            except Exception:  # noqa: BLE001
                log.exception("outbox: on_change")


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None
