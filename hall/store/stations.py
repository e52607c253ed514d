"""Stations: pairing codes, tokens, assignments and the reports they send.

A station's report is keyed by (station, scan id, scan revision): the same report sent twice is
stored once.
"""

from __future__ import annotations

import json
import secrets
import time

from sqlalchemy import bindparam, func, select, text
from sqlalchemy.exc import IntegrityError

import tournament
from hall.errors import HallError
from hall.store.base import StoreBase, now_iso, sha256_hex
from tournament.errors import InvalidEventError

#: Minutes a pairing code stays valid.
PAIRING_TTL_MIN = 15
#: Characters of a pairing code (no 0/O, 1/I/L look-alikes).
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
#: Seconds a station token's lookup is remembered.
TOKEN_CACHE_S = 5.0
#: Game points a station may report for one player before the report waits for the organiser
#: (beach table games score in the tens or hundreds).
STATION_POINTS_MAX = 10_000
#: Largest JSON kept of a station's report (characters); a bigger state is left out, never cut in half.
REPORT_JSON_MAX = 200_000


def normalise_code(code: str) -> str:
    """A pairing code as typed (any case, spaces or dashes) in its canonical form.

    >>> normalise_code(" abcd-2345 ")
    'ABCD2345'
    """
    return "".join(ch for ch in str(code).upper() if ch.isalnum())



class StationStore(StoreBase):
    """Pairing, tokens (cached), assignments, and the stations' reports of their tables."""

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
        kept only as its SHA-256. The station paired to that table before is unpaired (its token
        stops working). Raises HallError ``pairing-code`` (401) for an unknown, used or
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
            earlier = conn.execute(select(st.c.id, st.c.token_sha256).where(  # one station per table
                st.c.event_id == row["event_id"], st.c.table_no == row["table_no"], st.c.revoked_at.is_(None))).all()
            if earlier:
                conn.execute(st.update().where(st.c.id.in_([e.id for e in earlier])).values(revoked_at=now))
            sid = conn.execute(st.insert().values(
                event_id=row["event_id"], table_no=row["table_no"], name=(" ".join(str(name).split()) or "station")[:120],
                token_sha256=sha256_hex(token), created_at=now_iso())).inserted_primary_key[0]
        for e in earlier:
            self._tokens.pop(e.token_sha256, None)
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
        kind = "report"
        doubt = implausible(score, result)
        if doubt is not None:
            kind, problem, result = "review", doubt, None
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
                round_id=rnd["id"], table_no=station["table_no"], source="station", kind=kind,
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


def implausible(score: dict, result) -> str | None:
    """Why a station's score cannot be counted without the organiser's look, or None: points no table
    game gives (more than :data:`STATION_POINTS_MAX` either way), a ranking that names a player twice.

    >>> implausible({"ranking": [["red"], ["blue", "red"]]}, None)
    "the station's ranking names red twice: check the photo and enter the result by hand"
    >>> implausible({}, None) is None
    True
    """
    ranking = score.get("ranking")
    if isinstance(ranking, list):
        named = [str(g) for group in ranking if isinstance(group, list) for g in group]
        twice = sorted({g for g in named if named.count(g) > 1})
        if twice:
            return f"the station's ranking names {', '.join(twice)[:80]} twice: check the photo and enter the result by hand"
    if result is not None:
        wild = [v for v in result.game_points.values() if abs(v) > STATION_POINTS_MAX]
        if wild:
            return (f"the station reported {wild[0]:.6g} points, more than a table game gives: check the photo and "
                    "enter the result by hand")
    return None


def _str_map(value) -> dict[str, str] | None:
    if not isinstance(value, dict):
        return None
    return {str(k): str(v) for k, v in value.items() if isinstance(v, str)}

