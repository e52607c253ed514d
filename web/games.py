"""Game set-up: which game, players and their colours, and what the photo cannot show."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, render_template, request

from beachscore.errors import BadInputError

bp = Blueprint("games", __name__)

GAMES = ("strand-unter", "plazing", "seashells", "sand-castles")
WEATHER = ("sun", "rain", "wind-N", "wind-S", "wind-E", "wind-W")


def station():
    return current_app.extensions["station"]


@bp.get("/game")
def page():
    st = station()
    cal = st.calibration
    grid = (cal.profile.get("grid") if cal is not None and cal.game == "plazing" else None) or {"rows": 12, "cols": 20}
    return render_template("game.html", games=GAMES, weather=WEATHER, current=st.store.current_game(),
                           grid=grid, default_game=cal.game if cal is not None else GAMES[0])


@bp.post("/api/games")
def new_game():
    """Start a new game. Body: ``{"game": str, "setup": {...}, "display"?: {"names", "swatches"}}``;
    returns ``{"game_id": int}``."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("game"), str):
        raise BadInputError("invalid-json", "expected {\"game\": ..., \"setup\": {...}}")
    setup = body.get("setup") or {}
    if not isinstance(setup, dict):
        raise BadInputError("invalid-json", "setup must be a JSON object")
    display = body.get("display") if isinstance(body.get("display"), dict) else {}
    check_setup(body["game"], setup)
    return jsonify({"game_id": station().new_game(body["game"], setup, display)}), 201


def check_setup(game: str, setup: dict) -> None:
    """Shape checks the form can get wrong; the scorer checks the rest.

    Raises:
        BadInputError: ``invalid-setup`` quoting the bad field.
    """
    if game == "plazing":
        terrain = setup.get("terrain")
        if terrain is not None and not (isinstance(terrain, list) and terrain and all(
                isinstance(r, str) and len(r) == len(terrain[0]) and set(r) <= set(".#+-x") for r in terrain)):
            raise BadInputError("invalid-setup", "terrain: rows of equal length made of . # + - x")
        if setup.get("weather") not in (None, *WEATHER):
            raise BadInputError("invalid-setup", f"weather {setup.get('weather')!r}: expected one of {WEATHER}")
    players = setup.get("players")
    if players is not None and not isinstance(players, (list, dict)):
        raise BadInputError("invalid-setup", "players: a list of colours or an object per colour")
