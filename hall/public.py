"""Pages for the room (no login): big-screen standings, "where do I sit", and the exports.

The pages ask ``/api/events/<id>/standings`` and ``/api/events/<id>/seating`` every few seconds
(``REFRESH_MS``) with ``If-None-Match``; the answer is 304 until the event's version moves, so
polling stays cheap with many screens and phones. Standings are computed once per version.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
import json
import threading
import time

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

import tournament
from hall.auth import organiser_required
from tournament.standings import as_number, outcomes

bp = Blueprint("public", __name__)


def store():
    return current_app.extensions["hall_store"]


class StandingsCache:
    """Standings JSON per event, recomputed when the event's version moved — at most every ``min_age_s``.

    While results pour in (a hundred stations at once) the screens get standings at most
    ``min_age_s`` old instead of one recomputation per result; the answer carries the version it
    was computed at, so a screen asks again and catches up.
    """

    def __init__(self, min_age_s: float = 0.5):
        self.min_age_s = min_age_s
        self._lock = threading.Lock()
        self._data: dict[int, tuple[int, float, dict]] = {}

    def get(self, event_id: int, version: int) -> dict:
        hit = self._data.get(event_id)
        if hit and (hit[0] >= version or time.monotonic() - hit[1] < self.min_age_s):
            return hit[2]
        with self._lock:
            hit = self._data.get(event_id)
            if hit and (hit[0] >= version or time.monotonic() - hit[1] < self.min_age_s):
                return hit[2]
            version = store().version(event_id)
            model = store().model(event_id)
            doc = tournament.standings_json(model)
            doc["version"] = version
            doc["open_round"] = store().open_round(event_id)
            doc["players_total"] = len(model.players)
            self._data[event_id] = (version, time.monotonic(), doc)
            return doc


def _cache() -> StandingsCache:
    return current_app.extensions.setdefault("standings_cache", StandingsCache())


def _etag_response(event_id: int, kind: str, build):
    """``build(version) -> doc`` as JSON with an ETag of the doc's own version; 304 when the client has it."""
    def tag(v: int) -> str:
        return f'"{kind}-{event_id}-{v}"'

    version = store().version(event_id)
    if tag(version) in request.headers.get("If-None-Match", ""):
        return Response(status=304, headers={"ETag": tag(version), "Cache-Control": "no-cache"})
    doc = build(version)
    response = jsonify(doc)
    response.headers["ETag"] = tag(doc.get("version", version))
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/api/events/<int:event_id>/standings")
def standings_json(event_id: int):
    """The contract's standings JSON plus ``version`` and ``open_round``."""
    return _etag_response(event_id, "standings", lambda v: _cache().get(event_id, v))


def seating_doc(event_id: int) -> dict:
    """The latest round's seating with names: ``{"round", "status", "tables": [...], "byes", "players": {id: table}}``."""
    doc = store().event_doc(event_id)
    names = {p["id"]: p["name"] for p in doc["players"]}
    shared = {n for n, count in Counter(names.values()).items() if count > 1}
    label = {p["id"]: f"{p['name']} ({p.get('club') or p['id']})" if p["name"] in shared else p["name"]
             for p in doc["players"]}  # two players of one name: each finds their own table
    if not doc["rounds"]:
        return {"event": doc["event"], "round": None, "status": None, "tables": [], "byes": [], "where": {}}
    rnd = doc["rounds"][-1]
    where = {}
    tables = []
    for t in rnd["tables"]:
        tables.append({"table": t["table"], "players": [{"id": p, "name": names[p]} for p in t["players"]],
                       "played": "result" in t})
        for p in t["players"]:
            where[p] = t["table"]
    return {"event": doc["event"], "round": rnd["number"], "status": rnd["status"], "tables": tables,
            "byes": [{"id": p, "name": names[p]} for p in rnd.get("byes", [])],
            "where": {label[p]: n for p, n in sorted(where.items(), key=lambda kv: label[kv[0]].casefold())}}


@bp.get("/api/events/<int:event_id>/seating")
def seating_json(event_id: int):
    return _etag_response(event_id, "seating", lambda v: {**seating_doc(event_id), "version": v})


#: How the standings page names each tiebreaker (tournament.event.TIEBREAKERS).
TIEBREAKER_WORDS = {"game_points": "game points", "wins": "wins", "opponents": "opponents' mean tournament points",
                    "head_to_head": "head-to-head"}


def tiebreak_text(tiebreakers) -> str:
    """The event's tiebreak order in words, as the room sees it before the first round.

    >>> tiebreak_text(["wins", "game_points"])
    'Ties: tournament points, then wins, then game points'
    """
    return "Ties: " + ", then ".join(["tournament points"] + [TIEBREAKER_WORDS.get(t, t) for t in tiebreakers])


@bp.get("/events/<int:event_id>/standings")
def standings_page(event_id: int):
    return render_template("standings.html", event=store().event(event_id), refresh_ms=current_app.config["REFRESH_MS"],
                           tiebreaks=tiebreak_text(store().model(event_id).scoring.tiebreakers))


@bp.get("/events/<int:event_id>/seating")
def seating_page(event_id: int):
    return render_template("seating.html", event=store().event(event_id), refresh_ms=current_app.config["REFRESH_MS"])


@bp.get("/events/<int:event_id>/export/event.json")
def export_event(event_id: int):
    """The whole event as EVENT.json: ``beachscore standings`` and ``seat`` read it as it is."""
    body = json.dumps(store().event_doc(event_id), indent=1)
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="event-{event_id}.json"'})


@bp.get("/events/<int:event_id>/export/standings.json")
def export_standings_json(event_id: int):
    return Response(json.dumps(tournament.standings_json(store().model(event_id)), indent=1),
                    mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="standings-{event_id}.json"'})


#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A cell as a spreadsheet should show it: text starting like a formula gets a leading ``'``
    (numbers stay numbers).

    >>> csv_cell("@SUM(A1:A9)"), csv_cell("-Ana"), csv_cell(-3), csv_cell("Bo")
    ("'@SUM(A1:A9)", "'-Ana", -3, 'Bo')
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _csv(rows: list[list], name: str) -> Response:
    out = io.StringIO()
    csv.writer(out).writerows([[csv_cell(v) for v in row] for row in rows])
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.get("/events/<int:event_id>/export/standings.csv")
def export_standings_csv(event_id: int):
    doc = tournament.standings_json(store().model(event_id))
    rows = [["rank", "player", "name", "club", "tournament_points", "game_points", "wins", "opponents", "played"]]
    rows += [[s["rank"], s["player"], s["name"], s.get("club", ""), s["tournament_points"], s["game_points"],
              s["wins"], round(s["opponents"], 4), s["played"]] for s in doc["standings"]]
    return _csv(rows, f"standings-{event_id}.csv")


@bp.get("/events/<int:event_id>/export/results.csv")
def export_results_csv(event_id: int):
    """One line per player per played table: round, table, player, game points, rank, tournament points."""
    model = store().model(event_id)
    names = {p.id: p.name for p in model.players}
    rows = [["round", "table", "player", "name", "game_points", "rank", "tournament_points"]]
    for o in outcomes(model):
        for p in o.table.players:
            rows.append([o.round, o.table.number, p, names[p], o.table.result.game_points[p], o.places[p],
                         as_number(o.points[p])])
    return _csv(rows, f"results-{event_id}.csv")


@bp.get("/photos/<sha>")
@organiser_required
def photo(sha: str):
    found = store().photo(sha) if len(sha) == 64 else None
    if found is None:
        abort(404)
    data, media = found
    return Response(data, mimetype=media, headers={"Cache-Control": "private, max-age=86400"})
