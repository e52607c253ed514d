"""History: every scan of every game with its photo, reading, score and revisions."""

from __future__ import annotations

import re

from flask import Blueprint, current_app, jsonify, render_template, request

from beachscore.station.wording import in_game_order, source_for_the_page
from web.inputs import query_id
from web.live import shown_score

bp = Blueprint("history", __name__)
bp.add_app_template_filter(source_for_the_page, "scan_source")

#: A player label that is itself a CSS colour name (``red``), used as its swatch when the game gave none.
COLOUR_WORD = re.compile(r"[a-z]{3,20}")


def player_chip(player: str, display: dict) -> dict:
    """How the pages name a player (a colour label): ``{"label", "name", "swatch"}``; ``name`` is the
    name typed at set-up (None when none), ``swatch`` the set-up's ``#rrggbb``, else the label when it
    is a colour word, else None.

    >>> player_chip("red", {"names": {"red": "Hannah"}})
    {'label': 'red', 'name': 'Hannah', 'swatch': 'red'}
    >>> player_chip("p1", {"swatches": {"p1": "#112233"}})
    {'label': 'p1', 'name': None, 'swatch': '#112233'}
    """
    swatch = (display.get("swatches") or {}).get(player)
    if swatch is None and isinstance(player, str) and COLOUR_WORD.fullmatch(player):
        swatch = player
    return {"label": player, "name": (display.get("names") or {}).get(player), "swatch": swatch}


#: A co-operative score's outcome (Sand Castles' ``outcome``) as the pages say it.
OUTCOMES = {"won": "won: every castle complete", "lost-castle": "a castle flooded, play on",
            "playing": "playing"}


def together_line(score: dict | None) -> str | None:
    """A co-operative score (Sand Castles: ``points``, ``max_points``, ``outcome``, no ``players``) in
    one line, e.g. ``"castles 6 of 15 points · playing"``; None for a score with player rows.

    >>> together_line({"points": 6, "max_points": 15, "outcome": "lost-castle"})
    'castles 6 of 15 points · a castle flooded, play on'
    >>> together_line({"players": []}), together_line(None)
    (None, None)
    """
    if not isinstance(score, dict) or "players" in score or "points" not in score:
        return None
    points = "?" if score.get("points") is None else score["points"]
    of = f" of {score['max_points']}" if score.get("max_points") is not None else ""
    outcome = OUTCOMES.get(score.get("outcome"), score.get("outcome"))
    return f"castles {points}{of} points" + (f" · {outcome}" if outcome else "")


def station():
    return current_app.extensions["station"]


@bp.get("/history")
def page():
    """Every scan (of one game, ``?game=``) with its photo and totals: a finished game's final scan with
    the totals Game over gave (:func:`web.live.shown_score`)."""
    store = station().store
    game_id = request.args.get("game", type=query_id)  # not an id: every game
    games = store.games()
    scans = store.scans(game_id=game_id, limit=500)
    displays = {g["id"]: g.get("display") or {} for g in games}
    shown = {s.get("game_id") for s in scans}
    endings = {g["id"]: station().game_ending(g["id"]) for g in games if g.get("ended_at") and g["id"] in shown}
    scans = [{**s, "current_score": shown_score(s, endings.get(s.get("game_id")))} for s in scans]
    return render_template("history.html", games=games, scans=scans, game_id=game_id, displays=displays,
                           player_chip=player_chip, together_line=together_line, in_game_order=in_game_order)


@bp.get("/scans/<id:scan_id>")
def scan_page(scan_id: int):
    """The scan's photos, its score table as the live page shows it, its reading and revisions."""
    st = station()
    scan = st.told_scan(st.store.scan(scan_id))
    game = st.store.game(scan["game_id"]) if scan.get("game_id") is not None else None
    ending = st.game_ending(game["id"]) if game is not None else None
    return render_template("scan.html", scan=scan, score=shown_score(scan, ending),
                           display=(game or {}).get("display") or {}, together_line=together_line,
                           game_over=bool((game or {}).get("ended_at")))


@bp.get("/api/scans/<id:scan_id>")
def scan_json(scan_id: int):
    """The scan (machine reading, revisions, current state/score), its game's set-up and display
    (player names, swatch colours), ``game_over`` (its game has ended) and, when the station's calibration is for the same game, the
    profile (for clicking on the photo)."""
    st = station()
    scan = st.told_scan(st.store.scan(scan_id))
    cal = st.calibration
    profile = cal.profile if cal is not None and cal.game == scan.get("game") else None
    game = st.store.game(scan["game_id"]) if scan.get("game_id") is not None else {}
    return jsonify({"scan": scan, "profile": profile, "setup": st.setup_of_scan(scan), "display": game.get("display") or {},
                    "game_over": bool(game.get("ended_at"))})


@bp.get("/api/scans")
def scans_json():
    return jsonify({"scans": station().store.scans(game_id=request.args.get("game", type=query_id), limit=200)})
