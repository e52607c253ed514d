"""The hall's store: events, players, rounds, tables, results, stations and photos (SQLAlchemy Core).

Every change is one transaction that also bumps its event's ``version``: pages and caches ask
for the version and recompute only when it moved. Results are never overwritten: a station's
report, the organiser's acceptance or correction, a result typed by hand are each a new row (a
revision); a table's result is its latest row that has points. A station's report is keyed by
(station, scan id, scan revision): the same report sent twice is stored once.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
import unicodedata
from datetime import datetime, timedelta, timezone

from sqlalchemy import bindparam, func, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

import tournament
from hall.db import reflect
from tournament.errors import InvalidEventError, waiting_text

#: Minutes a pairing code stays valid.
PAIRING_TTL_MIN = 15
#: Characters of a pairing code (no 0/O, 1/I/L look-alikes).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
PHOTO_EXT = {"image/png": ".png", "image/jpeg": ".jpg"}
#: Seconds a station token's lookup is remembered.
TOKEN_CACHE_S = 5.0
#: Largest JSON kept of a station's report (characters); a bigger state is left out, never cut in half.
REPORT_JSON_MAX = 200_000


def now_iso(delta_s: float = 0.0) -> str:
    """UTC time in ISO 8601 with milliseconds (``delta_s`` seconds from now)."""
    return (datetime.now(timezone.utc) + timedelta(seconds=delta_s)).isoformat(timespec="milliseconds")


def sha256_hex(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def normalise_code(code: str) -> str:
    """A pairing code as typed (any case, spaces or dashes) in its canonical form.

    >>> normalise_code(" abcd-2345 ")
    'ABCD2345'
    """
    return "".join(ch for ch in str(code).upper() if ch.isalnum())


class HallError(Exception):
    """A request the hall refuses: ``code``, one-line ``message``, HTTP ``status``."""

    def __init__(self, code: str, message: str, status: int = 400):
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


class HallStore:
    """All reads and writes of the hall; thread-safe (one engine, a connection per call).

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

    # -- settings and organisers -------------------------------------------------------------
    def setting(self, key: str) -> str | None:
        s = self.t["settings"]
        with self._read() as conn:
            return conn.execute(select(s.c.value).where(s.c.key == key)).scalar()

    def setting_or_create(self, key: str, make) -> str:
        """The setting's value, created once with ``make()`` (safe when several processes race)."""
        value = self.setting(key)
        if value is not None:
            return value
        try:
            with self._write() as conn:
                conn.execute(self.t["settings"].insert().values(key=key, value=make()))
        except IntegrityError:
            pass
        return self.setting(key)

    def organiser_count(self) -> int:
        with self._read() as conn:
            return conn.execute(select(func.count()).select_from(self.t["organisers"])).scalar_one()

    def add_organiser(self, username: str, password_hash: str) -> None:
        try:
            with self._write() as conn:
                conn.execute(self.t["organisers"].insert().values(username=username, password_hash=password_hash,
                                                                  created_at=now_iso()))
        except IntegrityError:
            raise HallError("organiser-exists", f"there is already an organiser called {username!r}") from None

    def organiser(self, username: str) -> dict | None:
        o = self.t["organisers"]
        with self._read() as conn:
            row = conn.execute(select(o).where(o.c.username == username)).mappings().first()
        return dict(row) if row else None

    # -- events and players ------------------------------------------------------------------
    def create_event(self, name: str, game: str, config: dict | None = None) -> int:
        """A new event; ``config`` holds ``scoring`` and ``seating`` as EVENT.json has them (checked here).

        Raises:
            HallError: ``invalid-event`` quoting the first problems.
        """
        config = config or {}
        _check_event({"event": name, "game": game, "players": [], **config})
        with self._write() as conn:
            return conn.execute(self.t["events"].insert().values(
                name=name, game=game, config_json=json.dumps(config), created_at=now_iso())).inserted_primary_key[0]

    def events(self) -> list[dict]:
        ev = self.t["events"]
        with self._read() as conn:
            return [dict(r) for r in conn.execute(select(ev).order_by(ev.c.id.desc())).mappings()]

    def event(self, event_id: int) -> dict:
        """An event's row with its ``config`` (``version`` as of this read).

        Raises HallError ``not-found``."""
        ev = self.t["events"]
        with self._read() as conn:
            row = conn.execute(select(ev).where(ev.c.id == event_id)).mappings().first()
        if row is None:
            raise HallError("not-found", f"no event {event_id}", 404)
        out = dict(row)
        out["config"] = json.loads(out.pop("config_json"))
        return out

    def _event_static(self, event_id: int) -> dict:
        """An event's id, name and game (they never change), remembered."""
        hit = self._static.get(event_id)
        if hit is None:
            ev = self.event(event_id)
            hit = self._static[event_id] = {"id": ev["id"], "name": ev["name"], "game": ev["game"]}
        return hit

    def version(self, event_id: int) -> int:
        ev = self.t["events"]
        with self._read() as conn:
            v = conn.execute(select(ev.c.version).where(ev.c.id == event_id)).scalar()
        if v is None:
            raise HallError("not-found", f"no event {event_id}", 404)
        return v

    def add_players(self, event_id: int, players: list[dict]) -> list[str]:
        """Add players ``{"name", "club"?, "id"?}``; ids are made (``p1``, ``p2`` …) when not given.

        Returns the new players' ids. Raises HallError ``invalid-player`` (empty name, id taken),
        ``player-exists`` (a name already registered, :func:`same_player`); then none is added.
        """
        p = self.t["players"]
        self.event(event_id)
        with self._write() as conn:
            self._lock_event(conn, event_id)
            rows = conn.execute(select(p.c.pid, p.c.position, p.c.name, p.c.club).where(p.c.event_id == event_id)).all()
            taken = {r.pid for r in rows}
            position = max((r.position for r in rows), default=0)
            registered = [(r.name, r.club) for r in rows]
            new = []
            for entry in players:
                name = " ".join(str(entry.get("name") or "").split())
                if not name or len(name) > 200:
                    raise HallError("invalid-player", "every player needs a name (at most 200 characters)")
                club_ = " ".join(str(entry.get("club") or "").split()) or None
                same = same_player(name, club_, registered)
                if same is not None:
                    shown = f"{same[0]} ({same[1]})" if same[1] else same[0]
                    raise HallError("player-exists", f"{shown} is already registered in this event, so nothing was "
                                    f"added: remove that line (another player called {name} needs a club that "
                                    "tells them apart)")
                registered.append((name, club_))
                pid = str(entry.get("id") or "").strip()
                if not pid:
                    n = position + 1
                    while f"p{n}" in taken:
                        n += 1
                    pid = f"p{n}"
                if pid in taken or len(pid) > 80:
                    raise HallError("invalid-player", f"player id {pid[:40]!r} is already used in this event")
                position += 1
                taken.add(pid)
                conn.execute(p.insert().values(event_id=event_id, pid=pid, name=name, club=club_, dropped=False,
                                               position=position))
                new.append(pid)
            self._bump(conn, event_id)
        return new

    def set_dropped(self, event_id: int, pid: str, dropped: bool) -> None:
        p = self.t["players"]
        with self._write() as conn:
            n = conn.execute(p.update().where(p.c.event_id == event_id, p.c.pid == pid).values(dropped=dropped)).rowcount
            if not n:
                raise HallError("not-found", f"no player {pid!r} in event {event_id}", 404)
            self._bump(conn, event_id)

    def players(self, event_id: int) -> list[dict]:
        p = self.t["players"]
        with self._read() as conn:
            return [dict(r) for r in conn.execute(select(p).where(p.c.event_id == event_id).order_by(p.c.position))
                    .mappings()]

    # -- rounds, tables, results -------------------------------------------------------------
    def _event_rows(self, conn, event_id: int):
        r, et, res = self.t["rounds"], self.t["event_tables"], self.t["results"]
        rounds = conn.execute(select(r).where(r.c.event_id == event_id).order_by(r.c.number)).mappings().all()
        ids = [x["id"] for x in rounds]
        tables = conn.execute(select(et).where(et.c.round_id.in_(ids)).order_by(et.c.table_no)).mappings().all() \
            if ids else []
        results = conn.execute(select(res).where(res.c.round_id.in_(ids)).order_by(res.c.id)).mappings().all() \
            if ids else []
        return rounds, tables, results

    def event_doc(self, event_id: int) -> dict:
        """The event as EVENT.json (shared/contracts/tournament.md): what ``beachscore standings`` reads.

        Extra fields: each round's ``status`` (open/closed); each table's ``result`` is its latest
        result with points.
        """
        with self._read() as conn:
            ev = conn.execute(select(self.t["events"]).where(self.t["events"].c.id == event_id)).mappings().first()
            if ev is None:
                raise HallError("not-found", f"no event {event_id}", 404)
            p = self.t["players"]
            players = conn.execute(select(p).where(p.c.event_id == event_id).order_by(p.c.position)).mappings().all()
            rounds, tables, results = self._event_rows(conn, event_id)
        by_table: dict[tuple, list] = {}
        for row in results:
            by_table.setdefault((row["round_id"], row["table_no"]), []).append(row)
        current = {k: c for k, rows in by_table.items() if (c := current_result(rows)) is not None}
        doc = {"event": ev["name"], "game": ev["game"], **json.loads(ev["config_json"]),
               "players": [{"id": x["pid"], "name": x["name"], **({"club": x["club"]} if x["club"] else {}),
                            **({"dropped": True} if x["dropped"] else {})} for x in players],
               "rounds": []}
        for rnd in rounds:
            out = {"number": rnd["number"], "status": rnd["status"], "tables": []}
            byes = json.loads(rnd["byes_json"])
            if byes:
                out["byes"] = byes
            for t in tables:
                if t["round_id"] != rnd["id"]:
                    continue
                entry = {"table": t["table_no"], "players": json.loads(t["players_json"])}
                res = current.get((rnd["id"], t["table_no"]))
                if res is not None:
                    entry["result"] = {"game_points": json.loads(res["game_points_json"])}
                    if res["ranks_json"] is not None:
                        entry["result"]["ranks"] = json.loads(res["ranks_json"])
                out["tables"].append(entry)
            doc["rounds"].append(out)
        return doc

    def model(self, event_id: int) -> tournament.Event:
        """The event as a :class:`tournament.Event`, cached until the event's version moves."""
        version = self.version(event_id)
        cached = self._models.get(event_id)
        if cached and cached[0] == version:
            return cached[1]
        with self._model_lock:
            cached = self._models.get(event_id)
            if cached and cached[0] >= version:
                return cached[1]
            version = self.version(event_id)  # read before the rows: a newer write only makes the cache older
            model = tournament.Event.from_json(self.event_doc(event_id))
            self._models[event_id] = (version, model)
            return model

    def round_row(self, conn, event_id: int, number: int | None = None):
        r = self.t["rounds"]
        q = select(r).where(r.c.event_id == event_id)
        q = q.where(r.c.number == number) if number is not None else q.where(r.c.status == "open")
        return conn.execute(q.order_by(r.c.number.desc())).mappings().first()

    def open_round(self, event_id: int) -> int | None:
        """The number of the round being played, or None."""
        with self._read() as conn:
            row = self.round_row(conn, event_id)
        return row["number"] if row else None

    def start_round(self, event_id: int, seed: int | None = None) -> int:
        """Seat the next round (``tournament.seat``) and open it; returns its number.

        Raises:
            HallError: ``round-open`` while a round is being played (the message names it; the same refusal
                as ``beachscore seat`` on the event file); ``no-players`` when nobody can be seated.
        """
        event = self.model(event_id)
        try:
            nxt = tournament.seat(event, seed=secrets.randbits(32) if seed is None else seed)
        except tournament.RoundOpenError as err:
            raise HallError("round-open", _round_open_message(err.number, err.waiting), 409) from None
        if not nxt.tables:
            raise HallError("no-players", "not enough players to seat a table: add players first", 409)
        r, et = self.t["rounds"], self.t["event_tables"]
        with self._write() as conn:
            self._lock_event(conn, event_id)
            still = self.round_row(conn, event_id)
            if still is not None:  # opened meanwhile (another organiser's page)
                raise HallError("round-open", _round_open_message(still["number"], ()), 409)
            last = conn.execute(select(func.max(r.c.number)).where(r.c.event_id == event_id)).scalar() or 0
            if last + 1 != nxt.number:
                raise HallError("conflict", "the event changed meanwhile: try again", 409)
            rid = conn.execute(r.insert().values(event_id=event_id, number=nxt.number, status="open",
                                                 byes_json=json.dumps(list(nxt.byes)),
                                                 created_at=now_iso())).inserted_primary_key[0]
            for t in nxt.tables:
                conn.execute(et.insert().values(round_id=rid, table_no=t.number, players_json=json.dumps(list(t.players))))
            self._bump(conn, event_id)
        return nxt.number

    def close_round(self, event_id: int, number: int) -> list[int]:
        """Close a round once every table has a result; returns the tables whose result is a station's
        report the organiser has not accepted or corrected (it counts as sent).

        The checks run under the event's row lock, in the transaction that closes: a station's
        result is either in before the close (and in the standings it closes with) or refused
        after it (``round-closed``), never accepted into a closed round.

        Raises HallError ``not-found``, ``round-closed`` (closed already), ``round-incomplete``.
        """
        r, et, res = self.t["rounds"], self.t["event_tables"], self.t["results"]
        with self._write() as conn:
            self._lock_event(conn, event_id)
            rnd = self.round_row(conn, event_id, number)
            if rnd is None:
                raise HallError("not-found", f"no round {number}", 404)
            if rnd["status"] != "open":
                raise HallError("round-closed", f"round {number} is already closed", 409)
            scored = select(res.c.id).where(res.c.round_id == rnd["id"], res.c.table_no == et.c.table_no,
                                            res.c.game_points_json.is_not(None)).exists()
            waiting = [str(n) for n in conn.execute(select(et.c.table_no).where(et.c.round_id == rnd["id"], ~scored)
                                                    .order_by(et.c.table_no)).scalars()]
            if waiting:
                reported = {str(n) for n in conn.execute(
                    select(res.c.table_no).where(res.c.round_id == rnd["id"], res.c.source == "station",
                                                 res.c.table_no.in_([int(w) for w in waiting]))).scalars()}
                raise HallError("round-incomplete", _round_incomplete_message(
                    [w for w in waiting if w not in reported], [w for w in waiting if w in reported]), 409)
            by_organiser = select(res.c.id).where(res.c.round_id == rnd["id"], res.c.table_no == et.c.table_no,
                                                  res.c.source == "organiser").exists()
            as_sent = list(conn.execute(select(et.c.table_no).where(et.c.round_id == rnd["id"], ~by_organiser)
                                        .order_by(et.c.table_no)).scalars())
            conn.execute(r.update().where(r.c.id == rnd["id"]).values(status="closed", closed_at=now_iso()))
            self._bump(conn, event_id)
        return as_sent

    def table(self, event_id: int, number: int, table_no: int) -> dict:
        """One table of a round: ``players`` [{id, name}], ``revisions`` (oldest first), ``current`` (or None),
        ``round_status``."""
        res, et, p = self.t["results"], self.t["event_tables"], self.t["players"]
        with self._read() as conn:
            rnd = self.round_row(conn, event_id, number)
            if rnd is None:
                raise HallError("not-found", f"no round {number}", 404)
            t = conn.execute(select(et).where(et.c.round_id == rnd["id"], et.c.table_no == table_no)).mappings().first()
            if t is None:
                raise HallError("not-found", f"no table {table_no} in round {number}", 404)
            rows = conn.execute(select(res).where(res.c.round_id == rnd["id"], res.c.table_no == table_no)
                                .order_by(res.c.id)).mappings().all()
            names = {x.pid: x.name for x in conn.execute(select(p.c.pid, p.c.name).where(p.c.event_id == event_id))}
        ids = json.loads(t["players_json"])
        revisions = [_result_dict(x) for x in rows]
        chosen = current_result(rows)
        current = next((x for x in revisions if chosen is not None and x["id"] == chosen["id"]), None)
        return {"round": number, "table": table_no, "round_status": rnd["status"],
                "players": [{"id": i, "name": names.get(i, i)} for i in ids], "revisions": revisions,
                "current": current}

    def enter_result(self, event_id: int, number: int, table_no: int, raw: dict, *, kind: str = "entry",
                     by: str | None = None, note: str = "", acting_on: int | None = None) -> int:
        """The organiser's result for a table (typed by hand, a correction, or acceptance of a report).

        Args:
            raw: ``{"game_points": {id: n}, "ranks"?: {id: rank}}`` (co-operative: ``points``).
            acting_on: for ``kind`` "accept" / "assign", the id of the revision the organiser decided
                about (default: the table's latest now). When a newer revision has arrived since, the
                decision is refused, unless that newer revision is this same decision (the form posted
                twice at once), whose id is then returned and nothing is stored twice.
        Returns:
            The stored revision's id.
        Raises:
            HallError: ``invalid-result`` (tournament's checks), ``not-found``, ``result-changed`` (409).
        """
        game = self.event(event_id)["game"]
        table = self.table(event_id, number, table_no)
        ids = [x["id"] for x in table["players"]]
        try:
            result = tournament.read_result(raw, ids, co_op=tournament.games.is_co_op(game))
        except InvalidEventError as err:
            raise HallError("invalid-result", "; ".join(err.problems)) from None
        source = None
        if kind in ("accept", "assign") and table["revisions"]:
            source = next((r for r in table["revisions"] if r["id"] == acting_on), None) if acting_on is not None \
                else table["revisions"][-1]
            if source is None:
                raise HallError("not-found", f"no such result at table {table_no}", 404)
        with self._write() as conn:
            self._lock_event(conn, event_id)
            rnd = self.round_row(conn, event_id, number)
            if kind in ("accept", "assign"):
                same = self._acted_on_already(conn, rnd["id"], table_no, source, kind, result)
                if same is not None:
                    return same
            rid = conn.execute(self.t["results"].insert().values(
                round_id=rnd["id"], table_no=table_no, source="organiser", kind=kind,
                game_points_json=json.dumps(result.game_points),
                ranks_json=None if result.ranks is None else json.dumps(result.ranks),
                photo_sha256=source["photo_sha256"] if source else None, note=note[:500], created_by=by,
                created_at=now_iso())).inserted_primary_key[0]
            self._bump(conn, event_id)
        return rid

    def _acted_on_already(self, conn, round_id: int, table_no: int, source: dict | None, kind: str, result) -> int | None:
        """Inside the write: has the table's latest revision moved on from ``source`` (the one the
        organiser accepted or assigned colours to)? ``None`` when it has not; the id of the latest when
        it is this very decision, already stored (the same form posted twice at once: one revision).

        Raises:
            HallError: ``result-changed`` (409) when another result arrived in between.
        """
        res = self.t["results"]
        latest = conn.execute(select(res).where(res.c.round_id == round_id, res.c.table_no == table_no)
                              .order_by(res.c.id.desc()).limit(1)).mappings().first()
        if latest is None or (source is not None and latest["id"] == source["id"]):
            return None
        ranks = None if result.ranks is None else json.loads(json.dumps(result.ranks))
        if (latest["source"] == "organiser" and latest["kind"] == kind
                and json.loads(latest["game_points_json"]) == json.loads(json.dumps(result.game_points))
                and (None if latest["ranks_json"] is None else json.loads(latest["ranks_json"])) == ranks):
            return int(latest["id"])
        raise HallError("result-changed", f"table {table_no}'s result changed while you were looking at it (a new "
                        "station report or another organiser's entry): open the table again and check it", 409)

    # -- stations ----------------------------------------------------------------------------
    def new_pairing_code(self, event_id: int, table_no: int) -> str:
        """A one-time code that pairs a station with ``table_no`` (valid :data:`PAIRING_TTL_MIN` minutes)."""
        if not 1 <= int(table_no) <= 1000:
            raise HallError("invalid-table", "table numbers run from 1")
        self.event(event_id)
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        with self._write() as conn:
            conn.execute(self.t["pairing_codes"].insert().values(
                event_id=event_id, table_no=int(table_no), code_sha256=sha256_hex(code), created_at=now_iso(),
                expires_at=now_iso(PAIRING_TTL_MIN * 60)))
        return code

    def pair(self, code: str, name: str) -> dict:
        """Trade a pairing code for a station token (the code then stops working).

        Returns ``{"token", "station_id", "event_id", "event", "game", "table"}``; the token is
        kept only as its SHA-256. Raises HallError ``pairing-code`` (401) for an unknown, used or
        expired code.
        """
        pc, st = self.t["pairing_codes"], self.t["stations"]
        token = secrets.token_urlsafe(32)
        with self._write() as conn:
            row = conn.execute(select(pc).where(pc.c.code_sha256 == sha256_hex(normalise_code(code)))).mappings().first()
            now = now_iso()
            claimed = row is not None and conn.execute(  # used once, even by stations sending it at the same moment
                pc.update().where(pc.c.id == row["id"], pc.c.used_at.is_(None), pc.c.expires_at >= now)
                .values(used_at=now)).rowcount == 1
            if not claimed:
                raise HallError("pairing-code", "this pairing code is unknown, used or expired: ask the organiser "
                                "for a new one", 401)
            sid = conn.execute(st.insert().values(
                event_id=row["event_id"], table_no=row["table_no"], name=(" ".join(str(name).split()) or "station")[:120],
                token_sha256=sha256_hex(token), created_at=now_iso())).inserted_primary_key[0]
        event = self.event(row["event_id"])
        return {"token": token, "station_id": sid, "event_id": row["event_id"], "event": event["name"],
                "game": event["game"], "table": row["table_no"]}

    def used_pairing_codes(self, codes: list[str]) -> set[str]:
        """Those of ``codes`` (as shown) that a station has already used."""
        pc = self.t["pairing_codes"]
        digests = {sha256_hex(normalise_code(c)): c for c in codes}
        if not digests:
            return set()
        with self._read() as conn:
            used = conn.execute(select(pc.c.code_sha256).where(pc.c.code_sha256.in_(list(digests)),
                                                               pc.c.used_at.is_not(None))).scalars()
            return {digests[d] for d in used}

    def station_by_token(self, token: str) -> dict | None:
        """The station a token belongs to; None for an unknown or revoked token.

        Known tokens are remembered for :data:`TOKEN_CACHE_S` seconds (a revocation by this process
        takes effect at once; by another hall process on the same database within that time)."""
        digest = sha256_hex(token)
        hit = self._tokens.get(digest)
        if hit and time.monotonic() - hit[0] < TOKEN_CACHE_S:
            return dict(hit[1])
        st = self.t["stations"]
        with self._read() as conn:
            row = conn.execute(select(st).where(st.c.token_sha256 == digest)).mappings().first()
        if row is None or row["revoked_at"] is not None:
            return None
        self._tokens[digest] = (time.monotonic(), dict(row))
        return dict(row)

    def stations(self, event_id: int) -> list[dict]:
        """The event's stations with ``last_report_at`` (their latest result's time, or None)."""
        st, res = self.t["stations"], self.t["results"]
        last = select(func.max(res.c.created_at)).where(res.c.station_id == st.c.id).scalar_subquery()
        with self._read() as conn:
            return [dict(r) for r in conn.execute(select(st, last.label("last_report_at"))
                                                  .where(st.c.event_id == event_id)
                                                  .order_by(st.c.table_no, st.c.id)).mappings()]

    def revoke_station(self, station_id: int) -> int:
        """Revoke a station's token; returns its event id."""
        st = self.t["stations"]
        with self._write() as conn:
            row = conn.execute(select(st).where(st.c.id == station_id)).mappings().first()
            if row is None:
                raise HallError("not-found", f"no station {station_id}", 404)
            conn.execute(st.update().where(st.c.id == station_id).values(revoked_at=now_iso()))
        self._tokens.pop(row["token_sha256"], None)
        return row["event_id"]

    def assignment(self, station: dict) -> dict:
        """What a station should know: its event, table, the open round and who sits at its table."""
        event = self.event(station["event_id"])
        out = {"event": event["name"], "event_id": event["id"], "game": event["game"], "table": station["table_no"],
               "round": None, "players": []}
        number = self.open_round(event["id"])
        if number is not None:
            out["round"] = number
            try:
                out["players"] = self.table(event["id"], number, station["table_no"])["players"]
            except HallError:
                out["players"] = []  # the station's table is not used this round
        return out

    def station_report(self, station: dict, report: dict) -> tuple[int, dict]:
        """Record a station's final result of its table in the open round (idempotent).

        Returns ``(http_status, body)``: 201 recorded (``needs_review`` when its players could not be
        matched or the score lacks points), 200 ``duplicate`` (already recorded).
        Raises:
            HallError: 400 ``invalid-report``; 413 ``report-too-large``; 409 ``wrong-game``, ``no-open-round``, ``round-closed``
            (the report is for an earlier round), ``table-not-seated``, ``confirmed`` (the organiser has
            already confirmed or typed this table's result).
        """
        scan_id, revision = report.get("scan_id"), report.get("revision", 0)
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2 ** 62 for v in (scan_id, revision)):
            raise HallError("invalid-report", "scan_id and revision must be whole numbers")
        said = report.get("round")
        if said is not None and (not isinstance(said, int) or isinstance(said, bool)):
            raise HallError("invalid-report", "round must be a whole number (or left out)")
        score = report.get("score")
        if not isinstance(score, dict):
            raise HallError("invalid-report", "score must be the rules engine's score object")
        res = self.t["results"]
        key = {"s": station["id"], "sc": scan_id, "r": revision}
        event = self._event_static(station["event_id"])
        with self._read() as conn:  # every check in one read transaction, in plain SQL (the hot path)
            seen = conn.execute(_SQL_SEEN, key).scalar()
            if seen is not None:
                return 200, {"result_id": seen, "duplicate": True}
            if report.get("game") not in (None, event["game"]):
                raise HallError("wrong-game", f"this event plays {event['game']}, the station sent a "
                                f"{str(report.get('game'))[:40]} result", 409)
            rnd = conn.execute(_SQL_OPEN_TABLE, {"e": event["id"], "t": station["table_no"]}).mappings().first()
            if rnd is None:
                raise HallError("no-open-round", "no round is being played: the organiser enters this result by "
                                "hand", 409)
            number = rnd["number"]
            if isinstance(report.get("round"), int) and report["round"] != number:
                raise HallError("round-closed", f"round {report['round']} is over (round {number} is being played): "
                                "the organiser enters this result by hand", 409)
            if rnd["players_json"] is None:
                raise HallError("table-not-seated", f"table {station['table_no']} is not used in round {number}", 409)
            if rnd["confirmed"]:
                raise HallError("confirmed", f"the organiser has already confirmed table {station['table_no']}'s "
                                "result", 409)
            ids = json.loads(rnd["players_json"])
            names = dict(conn.execute(_SQL_NAMES, {"e": event["id"], "ids": ids}).all())
        table = {"players": [{"id": i, "name": names.get(i, i)} for i in ids]}
        ids = [p["id"] for p in table["players"]]
        problem, result = None, None
        try:
            if tournament.games.is_co_op(event["game"]):
                result = tournament.table_result(event["game"], score, ids)
            else:
                game_players = [r.get("player") for r in score.get("players") or [] if isinstance(r, dict)]
                seats = tournament.match_seats(game_players, [(p["id"], p["name"]) for p in table["players"]],
                                               names=_str_map(report.get("names")), seats=_str_map(report.get("seats")))
                result = tournament.table_result(event["game"], score, ids, seats)
        except InvalidEventError as err:
            problem = "; ".join(err.problems)
        photo = report.get("photo_sha256")
        photo = photo if isinstance(photo, str) and len(photo) == 64 else None
        explanation = report.get("explanation") if isinstance(report.get("explanation"), str) else None
        kept = {k: report[k] for k in ("score", "names", "seats", "state", "finished_at", "round") if k in report}
        kept_json = json.dumps(kept)
        if len(kept_json) > REPORT_JSON_MAX and "state" in kept:  # the state is for the eye; the score counts
            kept_json = json.dumps({**{k: v for k, v in kept.items() if k != "state"}, "state_left_out": True})
        if len(kept_json) > REPORT_JSON_MAX:
            raise HallError("report-too-large", f"this result is {len(kept_json)} bytes of JSON, more than a score "
                            "needs: enter it by hand", 413)
        def insert(conn) -> int:
            # The event's row lock first (the version bump takes it), then the checks: at READ COMMITTED
            # they then see every close committed before, and a close waits until this one commits.
            conn.execute(_SQL_BUMP, {"e": event["id"]})
            status, confirmed = conn.execute(_SQL_ROUND_STATE, {"id": rnd["id"], "t": station["table_no"]}).one()
            if status != "open":
                raise HallError("round-closed", f"round {number} was closed before this result arrived: the "
                                f"organiser corrects table {station['table_no']}'s result by hand if needed", 409)
            if confirmed:
                raise HallError("confirmed", f"the organiser has already confirmed table {station['table_no']}'s "
                                "result", 409)
            rid = conn.execute(res.insert().values(
                round_id=rnd["id"], table_no=station["table_no"], source="station", kind="report",
                game_points_json=None if result is None else json.dumps(result.game_points),
                ranks_json=None if result is None or result.ranks is None else json.dumps(result.ranks),
                station_id=station["id"], scan_id=scan_id, scan_revision=revision, photo_sha256=photo,
                explanation=(explanation or "")[:20000], report_json=kept_json, problem=problem,
                created_by=station["name"], created_at=now_iso())).inserted_primary_key[0]
            return rid

        try:
            rid = self._grouped(insert)
        except IntegrityError:  # the same report raced in on another connection
            with self._read() as conn:
                return 200, {"result_id": conn.execute(_SQL_SEEN, key).scalar(), "duplicate": True}
        return 201, {"result_id": rid, "duplicate": False, "needs_review": result is None, "problem": problem}

    # -- photos ------------------------------------------------------------------------------
    def put_photo(self, sha: str, media_type: str, data: bytes) -> bool:
        """Keep a photo as a file named by its SHA-256 (idempotent; written to a temporary file, fsynced,
        renamed, so a killed hall never leaves half a photo); True when it was new."""
        from calibration.store import atomic_write_bytes  # temporary ".tmp-" file, fsync, rename

        path = os.path.join(self.photo_dir, sha + PHOTO_EXT[media_type])
        if os.path.exists(path):
            return False
        atomic_write_bytes(path, data)
        return True

    def photo(self, sha: str) -> tuple[bytes, str] | None:
        """A photo's bytes and media type by its SHA-256 (64 hex digits), or None."""
        if len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
            return None
        for media_type, ext in PHOTO_EXT.items():
            path = os.path.join(self.photo_dir, sha + ext)
            if os.path.exists(path):
                with open(path, "rb") as f:
                    return f.read(), media_type
        return None

    def count_results(self, event_id: int | None = None) -> dict[str, int]:
        """Result rows by source (for tests and the benchmark's lost/duplicated figures)."""
        res, r = self.t["results"], self.t["rounds"]
        q = select(res.c.source, func.count()).group_by(res.c.source)
        if event_id is not None:
            q = q.where(res.c.round_id.in_(select(r.c.id).where(r.c.event_id == event_id)))
        with self._read() as conn:
            return {row[0]: row[1] for row in conn.execute(q)}


# The station report's hot path in plain SQL (portable: SQLite and PostgreSQL).
_SQL_SEEN = text("SELECT id FROM results WHERE station_id = :s AND scan_id = :sc AND scan_revision = :r")
_SQL_OPEN_TABLE = text(
    "SELECT r.id, r.number, t.players_json, "
    "(SELECT COUNT(*) FROM results x WHERE x.round_id = r.id AND x.table_no = :t AND x.source = 'organiser') "
    "AS confirmed FROM rounds r LEFT JOIN event_tables t ON t.round_id = r.id AND t.table_no = :t "
    "WHERE r.event_id = :e AND r.status = 'open' ORDER BY r.number DESC LIMIT 1")
_SQL_NAMES = text("SELECT pid, name FROM players WHERE event_id = :e AND pid IN :ids").bindparams(
    bindparam("ids", expanding=True))
_SQL_ROUND_STATE = text(
    "SELECT r.status, (SELECT COUNT(*) FROM results x WHERE x.round_id = r.id AND x.table_no = :t "
    "AND x.source = 'organiser') AS confirmed FROM rounds r WHERE r.id = :id")
_SQL_BUMP = text("UPDATE events SET version = version + 1 WHERE id = :e")


def _round_open_message(number: int, waiting) -> str:
    """Why the next round cannot be seated yet, naming the round being played.

    >>> _round_open_message(2, (4,))
    'round 2 is still being played (table 4 has no result yet): enter the missing results and close round 2, then seat round 3'
    >>> _round_open_message(1, ())
    'round 1 is still open: close it, then seat round 2'
    """
    if waiting:
        return (f"round {number} is still being played ({waiting_text(waiting)}): enter the missing results and "
                f"close round {number}, then seat round {number + 1}")
    return f"round {number} is still open: close it, then seat round {number + 1}"


def _round_incomplete_message(without: list[str], unmatched: list[str]) -> str:
    """Why a round cannot be closed: tables without any result, tables whose station result waits
    for its colours to be matched to the seated players.

    >>> _round_incomplete_message(["3"], ["1"])
    'table 1 has a station result waiting for its colours to be matched to the players: open the table and choose who played which colour; table 3 still without a result: enter it by hand or wait for the station'
    """
    def tables(ns: list[str]) -> str:
        return f"table{'s' if len(ns) > 1 else ''} {', '.join(ns)}"

    parts = []
    if unmatched:
        parts.append(f"{tables(unmatched)} {'have' if len(unmatched) > 1 else 'has'} a station result waiting for its "
                     "colours to be matched to the players: open the table and choose who played which colour")
    if without:
        parts.append(f"{tables(without)} still without a result: enter it by hand or wait for the station")
    return "; ".join(parts)


def current_result(rows: list) -> dict | None:
    """A table's result among its revisions (rows in id order): the organiser's latest when there is
    one; else the latest station report with points, where one station's reports count in scan and
    revision order, whatever order they arrived in.

    >>> rows = [{"id": 1, "source": "station", "station_id": 5, "scan_id": 9, "scan_revision": 1, "game_points_json": "{}"},
    ...         {"id": 2, "source": "station", "station_id": 5, "scan_id": 9, "scan_revision": 0, "game_points_json": "{}"}]
    >>> current_result(rows)["id"]
    1
    """
    scored = [r for r in rows if r["game_points_json"] is not None]
    organiser = [r for r in scored if r["source"] == "organiser"]
    if organiser:
        return organiser[-1]
    best: dict = {}
    for r in scored:  # the newest report of each station, by its own scan and revision numbers
        key = (r["scan_id"] or 0, r["scan_revision"] or 0)
        if r["station_id"] not in best or key >= best[r["station_id"]][0]:
            best[r["station_id"]] = (key, r)
    return max((r for _, r in best.values()), key=lambda r: r["id"], default=None)


def same_player(name: str, club: str | None, registered: list[tuple[str, str | None]]):
    """The registered ``(name, club)`` that ``name, club`` would repeat, or None.

    Names compare trimmed, case-insensitively and Unicode-normalised (NFKC). Two players of one name are told apart only by
    their clubs (the room's pages show "Tom (Sopot)", "Tom (Hel)"), so the same name is refused
    unless both have a club and the clubs differ.

    >>> same_player(" anna ", "Sandbank", [("Anna", "Sandbank")])
    ('Anna', 'Sandbank')
    >>> same_player("Tom", "Hel", [("Tom", "Sopot")]) is None
    True
    >>> same_player("Tom", None, [("Tom", "Sopot")])
    ('Tom', 'Sopot')
    """
    def key(text: str | None) -> str:  # NFKC: "Ä" typed and "A" + combining diaeresis pasted are one name
        return unicodedata.normalize("NFKC", " ".join(str(text or "").split())).casefold()

    for other in registered:
        if key(other[0]) == key(name) and (not club or not other[1] or key(club) == key(other[1])):
            return other
    return None


def _str_map(value) -> dict[str, str] | None:
    if not isinstance(value, dict):
        return None
    return {str(k): str(v) for k, v in value.items() if isinstance(v, str)}


def _result_dict(row) -> dict:
    d = dict(row)
    return {"id": d["id"], "source": d["source"], "kind": d["kind"],
            "game_points": None if d["game_points_json"] is None else json.loads(d["game_points_json"]),
            "ranks": None if d["ranks_json"] is None else json.loads(d["ranks_json"]),
            "station_id": d["station_id"], "scan_id": d["scan_id"], "scan_revision": d["scan_revision"],
            "photo_sha256": d["photo_sha256"], "explanation": d["explanation"],
            "report": json.loads(d["report_json"]) if d["report_json"] else None, "problem": d["problem"],
            "note": d["note"], "created_by": d["created_by"], "created_at": d["created_at"]}


def _check_event(doc: dict) -> None:
    try:
        tournament.Event.from_json(doc)
    except InvalidEventError as err:
        raise HallError("invalid-event", "; ".join(err.problems[:3])) from None


class GroupCommit:
    """One writer thread that commits the jobs waiting at the same moment together.

    Each job runs in a savepoint of the shared transaction: a job that raises is rolled back alone
    and its caller gets the exception; the others commit. A failed COMMIT fails every job of it.
    """

    MAX_BATCH = 64

    def __init__(self, store: HallStore):
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
