"""A new game's set-up, checked before the game starts: by the rules engine on an empty board of
its game, and against the player colours the calibration learned."""

from __future__ import annotations

import copy

import scoring
from beachscore.checks import unlearned_players
from beachscore.station import plazing, seashells

#: An empty board of each game: a new game's set-up is checked against it by the rules engine.
EMPTY_STATES = {
    "strand-unter": {"game": "strand-unter", "sea_front": 1, "grooves": []},
    "plazing": {"game": "plazing", "rows": plazing.GRID[0], "cols": plazing.GRID[1]},
    "seashells": {"game": "seashells", "players": []},
    "sand-castles": {"game": "sand-castles", "lanes": {}},
    "grid": {"game": "grid", "rows": 1, "cols": 1, "cells": [["empty"]]},
}


def problems(game: str, setup: dict, cal) -> list[str]:
    """What the rules engine finds wrong with a new game's set-up (empty when it fits).

    The set-up is checked with ``scoring.problems`` on an empty board of the game (for Plażing
    the calibrated grid, :func:`beachscore.station.plazing.grid`), so the web refuses what a scan
    with this set-up would refuse; with a calibration of the same game, players named by colours
    it did not learn are refused too.

    Args:
        game: the game's name; setup: its setup.json (anything: a non-object is a problem).
        cal: the station's calibration (``calibration.store.Calibration``) or None.

    >>> problems("strand-unter", {}, None), problems("grid", [], None)
    ([], ['setup: expected a JSON object'])
    """
    if not isinstance(setup, dict):
        return ["setup: expected a JSON object"]
    state = copy.deepcopy(EMPTY_STATES.get(game, {"game": game}))
    if game == "plazing":
        state["rows"], state["cols"] = plazing.grid(cal)
    if game == "seashells":  # one empty mat per player, so that their secret cards are checked
        state["players"] = seashells.empty_mats(setup)
    known = set(scoring.problems(state))
    found = [p for p in scoring.problems(state, setup) if p not in known]
    if cal is not None and cal.game == game:  # players named by colours the calibration learned
        found += unlearned_players(setup, cal)
    return found
