"""Game set-up: which game, players and their colours, and what the photo cannot show."""

from __future__ import annotations

import json

from flask import Blueprint, current_app, jsonify, render_template

from beachscore.errors import BadInputError
from beachscore.station import plazing
from scoring.plazing_state import cell_name
from scoring.seashells import COLOURS, SHAPES
from web.inputs import MAX_SETUP_BYTES, check_display, check_name, check_players, json_body

bp = Blueprint("games", __name__)

GAMES = ("strand-unter", "plazing", "seashells", "sand-castles")
WEATHER = ("sun", "rain", "wind-N", "wind-S", "wind-E", "wind-W")


def station():
    return current_app.extensions["station"]


def seashells_vocabulary() -> dict:
    """Shapes and colours of the Seashells mats: the calibrated mat's towel, else the game's own."""
    cal = station().calibration
    towel = cal.profile.get("towel") if cal is not None and cal.game == "seashells" else None
    if isinstance(towel, dict) and isinstance(towel.get("rows"), list) and isinstance(towel.get("cols"), list):
        return {"shapes": [str(x) for x in towel["rows"]], "colours": [str(x) for x in towel["cols"]]}
    return {"shapes": list(SHAPES), "colours": list(COLOURS)}


def terrain_grid(rows: int, cols: int) -> dict:
    """The Plażing terrain grid as the Game page draws it: its size, the column letters across and
    the row numbers down from the sea, and every square's name as the game names places
    (:func:`scoring.plazing_state.cell_name`, ``"N5"``).

    >>> g = terrain_grid(2, 3)
    >>> g["col_names"], g["row_names"], g["names"][1][2]
    (['A', 'B', 'C'], ['1', '2'], 'C2')
    """
    return {"rows": rows, "cols": cols,
            "col_names": [cell_name((0, c)).removesuffix("1") for c in range(cols)],
            "row_names": [cell_name((r, 0)).removeprefix("A") for r in range(rows)],
            "names": [[cell_name((r, c)) for c in range(cols)] for r in range(rows)]}


@bp.get("/game")
def page():
    st = station()
    cal = st.calibration
    rows, cols = st.plazing_grid()  # a sane grid even when the calibration's is not
    return render_template("game.html", games=GAMES, weather=WEATHER, current=st.store.current_game(),
                           grid=terrain_grid(rows, cols), default_game=cal.game if cal is not None else GAMES[0],
                           seashells=seashells_vocabulary(),
                           reads_terrain=("yes" if plazing.reads_terrain(cal) else "no")
                           if cal is not None and cal.game == "plazing" else "unknown")


@bp.post("/api/games")
def new_game():
    """Start a new game. Body: ``{"game": str, "setup": {...}, "display"?: {"names", "swatches"}}``;
    returns ``{"game_id": int}``.

    The set-up is checked for shape and size here, then by the rules engine on an empty board of
    the game (:meth:`beachscore.station.Station.setup_problems`): 400 ``invalid-setup`` lists
    every problem.
    """
    body = json_body()
    if not isinstance(body.get("game"), str):
        raise BadInputError("invalid-json", "expected {\"game\": ..., \"setup\": {...}}")
    unknown = sorted(set(body) - {"game", "setup", "display"})
    if unknown:
        raise BadInputError("invalid-json", f"unknown key {unknown[0][:40]!r}; expected game, setup, display")
    setup = body.get("setup") or {}
    if not isinstance(setup, dict):
        raise BadInputError("invalid-json", "setup must be a JSON object")
    display = check_display(body.get("display"))
    check_setup(body["game"], setup)
    check_terrain_known(body["game"], setup)
    return jsonify({"game_id": station().new_game(body["game"], setup, display)}), 201


def check_terrain_known(game: str, setup: dict) -> None:
    """A Plażing game needs its terrain, from the set-up or read from the photos; refuse a game
    without it when the Plażing calibration cannot read it (every scan would be refused).

    Raises:
        BadInputError: ``terrain-missing``.
    """
    cal = station().calibration
    if (game == "plazing" and setup.get("terrain") is None and cal is not None and cal.game == "plazing"
            and not plazing.reads_terrain(cal)):
        raise BadInputError("terrain-missing", "enter this game's terrain: click its cells on the terrain grid "
                            "(this calibration cannot read the terrain from photos; its calibration shot came "
                            "without its terrain)")


def check_setup(game: str, setup: dict) -> None:
    """Shape and size checks the form can get wrong; the rules engine checks the rest.

    Raises:
        BadInputError: ``invalid-setup`` quoting the bad field.
    """
    size = len(json.dumps(setup))
    if size > MAX_SETUP_BYTES:
        raise BadInputError("invalid-setup", f"setup: {size} bytes of JSON; at most {MAX_SETUP_BYTES}")
    if game == "plazing":
        terrain = setup.get("terrain")
        if terrain is not None and not (isinstance(terrain, list) and terrain and all(
                isinstance(r, str) and len(r) == len(terrain[0]) and set(r) <= set(".#+-x") for r in terrain)):
            raise BadInputError("invalid-setup", "terrain: rows of equal length made of . # + - x")
        if setup.get("weather") not in (None, *WEATHER):
            raise BadInputError("invalid-setup", f"weather {setup.get('weather')!r}: expected one of {WEATHER}")
    check_players(setup.get("players"))
    if "player" in setup:
        check_name(setup["player"], "player")
    if game == "seashells":
        players = setup.get("players")
        if players is not None and not (isinstance(players, list) and all(isinstance(p, str) for p in players)):
            raise BadInputError("invalid-setup", "players: a list of player names, one mat each")
        if players is not None and len(set(players)) != len(players):
            raise BadInputError("invalid-setup", "players: a player is listed twice")
        secrets = setup.get("secrets")
        if secrets is not None:
            if not isinstance(secrets, dict):
                raise BadInputError("invalid-setup", "secrets: expected {player: {\"shapes\": [...], \"colours\": [...]}}")
            unknown = [p for p in secrets if players is not None and p not in players]
            if unknown:
                raise BadInputError("invalid-setup", f"secrets: {unknown[0][:40]!r} is not one of the players")
