"""Rounds, their tables and the tables' results.

Results are never overwritten: a station's report, the organiser's acceptance or correction, a
result typed by hand are each a new row (a revision); a table's result is chosen among them by
:func:`current_result`.
"""

from __future__ import annotations

import json
import secrets

from sqlalchemy import func, select

import tournament
from hall.errors import HallError
from hall.store.base import StoreBase, now_iso
from tournament.errors import InvalidEventError, waiting_text


class RoundStore(StoreBase):
    """Seating a round, closing it, a table's revisions, the organiser's results, EVENT.json."""

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

    def close_round(self, event_id: int, number: int) -> list[tuple[int, str]]:
        """Close a round once every table has a result; returns ``[(table_no, source)]`` for the tables
        whose result is a report the organiser has not accepted or corrected and no other reporter
        confirmed (it counts as sent): ``source`` is who sent the counted report, "station" or "players".

        The checks run under the event's row lock, in the transaction that closes: a station's
        result is either in before the close (and in the standings it closes with) or refused
        after it (``round-closed``), never accepted into a closed round.

        Raises HallError ``not-found``, ``round-closed`` (closed already), ``round-incomplete`` (a table
        without a result, or whose reports disagree).
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
            by_table: dict[int, list] = {}
            for row in conn.execute(select(res).where(res.c.round_id == rnd["id"]).order_by(res.c.id)).mappings():
                by_table.setdefault(row["table_no"], []).append(row)
            disputed = [str(t) for t, rows in sorted(by_table.items()) if in_conflict(rows)]
            if disputed:
                which = f"table{'s' if len(disputed) > 1 else ''} {', '.join(disputed)}"
                raise HallError("round-incomplete", f"{which}: the reports give different results; open "
                                f"the table and choose the right one (or type it), then close round {number}", 409)
            by_organiser = select(res.c.id).where(res.c.round_id == rnd["id"], res.c.table_no == et.c.table_no,
                                                  res.c.source == "organiser").exists()
            as_sent = [(t, current_result(by_table[t])["source"]) for t in conn.execute(
                select(et.c.table_no).where(et.c.round_id == rnd["id"], ~by_organiser).order_by(et.c.table_no)
            ).scalars() if not agreed(by_table.get(t, []))]
            conn.execute(r.update().where(r.c.id == rnd["id"]).values(status="closed", closed_at=now_iso()))
            self._bump(conn, event_id)
        return as_sent

    def table(self, event_id: int, number: int, table_no: int) -> dict:
        """One table of a round: ``players`` [{id, name}], ``revisions`` (oldest first), ``current`` (or None),
        ``round_status``, ``conflict`` (the different results reported while the table needs review, else []),
        ``agreed`` (station and players reported the same)."""
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
        conflict = {r["id"] for r in disputed_reports(rows)}
        both = agreed(rows)
        return {"round": number, "table": table_no, "round_status": rnd["status"],
                "players": [{"id": i, "name": names.get(i, i)} for i in ids], "revisions": revisions,
                "current": current, "conflict": [x for x in revisions if x["id"] in conflict], "agreed": both}

    def enter_result(self, event_id: int, number: int, table_no: int, raw: dict, *, kind: str = "entry",
                     by: str | None = None, note: str = "", acting_on: int | None = None,
                     seen_latest: int | None = None, no_shows: list[str] | None = None) -> int:
        """The organiser's result for a table (typed by hand, a correction, or acceptance of a report).

        Args:
            raw: ``{"game_points": {id: n}, "ranks"?: {id: rank}}`` (co-operative: ``points``).
            acting_on: for ``kind`` "accept" / "assign", the id of the revision the organiser decided
                about (default: the table's latest now). When a newer revision has arrived since, the
                decision is refused, unless that newer revision is this same decision (the form posted
                twice at once), whose id is then returned and nothing is stored twice.
            seen_latest: the table's latest revision when the organiser chose (default ``acting_on``):
                choosing among stations that disagree picks a revision older than the latest.
            no_shows: ids of the table's players who did not come (kept with the revision; their
                points and ranks are in ``raw``).
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
                seen = seen_latest if seen_latest is not None else (source["id"] if source else None)
                same = self._acted_on_already(conn, rnd["id"], table_no, seen, kind, result)
                if same is not None:
                    return same
            rid = conn.execute(self.t["results"].insert().values(
                round_id=rnd["id"], table_no=table_no, source="organiser", kind=kind,
                game_points_json=json.dumps(result.game_points),
                ranks_json=None if result.ranks is None else json.dumps(result.ranks),
                photo_sha256=source["photo_sha256"] if source else None, note=note[:500], created_by=by,
                no_shows_json=json.dumps([i for i in ids if i in no_shows]) if no_shows else None,
                created_at=now_iso())).inserted_primary_key[0]
            self._bump(conn, event_id)
        return rid

    def _acted_on_already(self, conn, round_id: int, table_no: int, seen: int | None, kind: str, result) -> int | None:
        """Inside the write: has the table's latest revision moved on from ``seen`` (the latest when the
        organiser accepted or assigned colours)? ``None`` when it has not; the id of the latest when
        it is this very decision, already stored (the same form posted twice at once: one revision).

        Raises:
            HallError: ``result-changed`` (409) when another result arrived in between.
        """
        res = self.t["results"]
        latest = conn.execute(select(res).where(res.c.round_id == round_id, res.c.table_no == table_no)
                              .order_by(res.c.id.desc()).limit(1)).mappings().first()
        if latest is None or (seen is not None and latest["id"] == seen):
            return None
        ranks = None if result.ranks is None else json.loads(json.dumps(result.ranks))
        if (latest["source"] == "organiser" and latest["kind"] == kind
                and json.loads(latest["game_points_json"]) == json.loads(json.dumps(result.game_points))
                and (None if latest["ranks_json"] is None else json.loads(latest["ranks_json"])) == ranks):
            return int(latest["id"])
        raise HallError("result-changed", f"table {table_no}'s result changed while you were looking at it (a new "
                        "station report or another organiser's entry): open the table again and check it", 409)

    def players_report(self, event_id: int, table_no: int, raw: dict) -> int:
        """The players' own report of their table's result in the open round (``raw`` as
        :meth:`enter_result` takes it); returns the revision's id. It counts like a station's report:
        the same result from both confirms it, a different one sends the table to review. The table
        has one players' report: the same one sent again stores nothing (its id is returned); a
        different one is a dispute too (review), never an overwrite.

        Raises:
            HallError: ``no-open-round``, ``not-found`` (table not seated), ``confirmed`` (the organiser
                has decided), ``invalid-result``.
        """
        number = self.open_round(event_id)
        if number is None:
            raise HallError("no-open-round", "no round is being played", 409)
        table = self.table(event_id, number, table_no)
        if any(r["source"] == "organiser" for r in table["revisions"]):
            raise HallError("confirmed", f"the organiser has already decided table {table_no}'s result", 409)
        ids = [p["id"] for p in table["players"]]
        try:
            result = tournament.read_result(raw, ids, co_op=tournament.games.is_co_op(self.event(event_id)["game"]))
        except InvalidEventError as err:
            raise HallError("invalid-result", "; ".join(err.problems)) from None
        with self._write() as conn:
            self._lock_event(conn, event_id)
            rnd = self.round_row(conn, event_id, number)
            if rnd is None or rnd["status"] != "open":
                raise HallError("round-closed", f"round {number} was closed meanwhile", 409)
            res = self.t["results"]
            before = conn.execute(select(res).where(res.c.round_id == rnd["id"], res.c.table_no == table_no,
                                                    res.c.source == "players").order_by(res.c.id.desc()).limit(1)
                                  ).mappings().first()
            if before is not None and json.loads(before["game_points_json"]) == json.loads(
                    json.dumps(result.game_points)) and before["ranks_json"] == (
                    None if result.ranks is None else json.dumps(result.ranks)):
                return int(before["id"])  # the same report sent again: nothing new
            rid = conn.execute(res.insert().values(
                round_id=rnd["id"], table_no=table_no, source="players", kind="report",
                game_points_json=json.dumps(result.game_points),
                ranks_json=None if result.ranks is None else json.dumps(result.ranks),
                created_by="players", created_at=now_iso())).inserted_primary_key[0]
            self._bump(conn, event_id)
        return rid

    def count_results(self, event_id: int | None = None) -> dict[str, int]:
        """Result rows by source (for tests and the benchmark's lost/duplicated figures)."""
        res, r = self.t["results"], self.t["rounds"]
        q = select(res.c.source, func.count()).group_by(res.c.source)
        if event_id is not None:
            q = q.where(res.c.round_id.in_(select(r.c.id).where(r.c.event_id == event_id)))
        with self._read() as conn:
            return {row[0]: row[1] for row in conn.execute(q)}


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


#: Who reports a table's result besides the organiser: its station, and its players (one report
#: for the table, :meth:`RoundStore.players_report`; ``station_id`` None).
REPORTERS = ("station", "players")


def latest_reports(rows: list) -> list:
    """Each reporter's newest report with points among a table's revisions (rows in id order): a
    station's by its own scan and revision numbers, whatever order they arrived in; the players'
    latest; oldest first."""
    best: dict = {}
    for r in rows:
        if r["source"] not in REPORTERS or r["game_points_json"] is None:
            continue
        key = (r["scan_id"] or 0, r["scan_revision"] or 0)
        if r["station_id"] not in best or key >= best[r["station_id"]][0]:
            best[r["station_id"]] = (key, r)
    return sorted((r for _, r in best.values()), key=lambda r: r["id"])


def _same_result(a, b) -> bool:
    def ranks(r):
        return None if r["ranks_json"] is None else json.loads(r["ranks_json"])
    return json.loads(a["game_points_json"]) == json.loads(b["game_points_json"]) and ranks(a) == ranks(b)


def _disagreed(rows: list) -> bool:
    """Whether the table's reports ever disagreed (rows in id order): after some report, two
    reporters' newest reports differ, or a players' report differs from the players' one before."""
    players = None
    for n, r in enumerate(rows):
        if r["source"] not in REPORTERS or r["game_points_json"] is None:
            continue
        if r["source"] == "players":
            if players is not None and not _same_result(players, r):
                return True
            players = r
        reports = latest_reports(rows[:n + 1])
        if any(not _same_result(reports[0], x) for x in reports[1:]):
            return True
    return False


def in_conflict(rows: list) -> bool:
    """Whether the table needs review: its reports disagreed (:func:`_disagreed`: stations, station
    and players, or the players' own reports) and the organiser has not decided since. No later
    report clears it; only the organiser's result does."""
    if any(r["source"] == "organiser" and r["game_points_json"] is not None for r in rows):
        return False
    return _disagreed(rows)


def disputed_reports(rows: list) -> list:
    """The results the organiser chooses among while :func:`in_conflict`: each different result
    reported (stations and players), the newest row of each, oldest first; [] otherwise."""
    if not in_conflict(rows):
        return []
    newest: list = []
    for r in reversed(rows):
        if r["source"] in REPORTERS and r["game_points_json"] is not None \
                and not any(_same_result(r, x) for x in newest):
            newest.append(r)
    return newest[::-1]


def agreed(rows: list) -> bool:
    """Whether the table's station and its players both reported and their newest reports agree
    (and never disagreed)."""
    reports = latest_reports(rows)
    return {r["source"] for r in reports} == set(REPORTERS) and not in_conflict(rows)


def current_result(rows: list) -> dict | None:
    """A table's result among its revisions (rows in id order): the organiser's latest when there is
    one; else the newest station report with points (each station's reports in scan and revision
    order) — None while the table's reports disagree (:func:`in_conflict`): the organiser picks
    one.

    >>> rows = [{"id": 1, "source": "station", "station_id": 5, "scan_id": 9, "scan_revision": 1, "game_points_json": "{}", "ranks_json": None},
    ...         {"id": 2, "source": "station", "station_id": 5, "scan_id": 9, "scan_revision": 0, "game_points_json": "{}", "ranks_json": None}]
    >>> current_result(rows)["id"]
    1
    >>> other = {"id": 3, "source": "station", "station_id": 6, "scan_id": 1, "scan_revision": 0, "game_points_json": '{"a": 1}', "ranks_json": None}
    >>> current_result(rows + [other]) is None
    True
    """
    organiser = [r for r in rows if r["game_points_json"] is not None and r["source"] == "organiser"]
    if organiser:
        return organiser[-1]
    if in_conflict(rows):
        return None
    return max(latest_reports(rows), key=lambda r: r["id"], default=None)


def _result_dict(row) -> dict:
    d = dict(row)
    return {"id": d["id"], "source": d["source"], "kind": d["kind"],
            "game_points": None if d["game_points_json"] is None else json.loads(d["game_points_json"]),
            "ranks": None if d["ranks_json"] is None else json.loads(d["ranks_json"]),
            "station_id": d["station_id"], "scan_id": d["scan_id"], "scan_revision": d["scan_revision"],
            "photo_sha256": d["photo_sha256"], "explanation": d["explanation"],
            "report": json.loads(d["report_json"]) if d["report_json"] else None, "problem": d["problem"],
            "note": d["note"], "created_by": d["created_by"], "created_at": d["created_at"],
            "no_shows": json.loads(d["no_shows_json"]) if d.get("no_shows_json") else None}

