"""Seashells at the station: one scan per player's mat, and the table's score from every
player's latest mat with the set-up's secret cards and Sun shell.

A Seashells game whose set-up names its players is read mat by mat: each scan's ``extra`` holds
``mat_player`` (whose mat it read); the table's score merges the latest readable scan of each mat.
"""

from __future__ import annotations

import copy
from typing import Callable

import scoring
from beachscore.errors import BeachscoreError
from scoring.seashells_mats import merge_mats

#: Set-up fields of a Seashells game passed on to each mat's scan (with ``player``, whose mat it is).
SCAN_KEYS = ("scoring", "sun", "secrets")


def mat_players(game: dict | None) -> list[str]:
    """The players of a Seashells game whose mats the station reads one per scan ([] otherwise).

    >>> mat_players({"game": "seashells", "setup": {"players": ["red", 3, "blue"]}})
    ['red', 'blue']
    """
    if not game or game["game"] != "seashells":
        return []
    players = game["setup"].get("players")
    return [p for p in players if isinstance(p, str)] if isinstance(players, list) else []


def shared_setup(setup: dict) -> dict:
    """The fields of a Seashells set-up that every mat's scan gets (:data:`SCAN_KEYS`)."""
    return {k: setup[k] for k in SCAN_KEYS if k in setup}


def mat_setup(setup: dict, player: str) -> dict:
    """The setup a scan of ``player``'s mat gets: the game's :func:`shared_setup` and ``player``."""
    return {**shared_setup(setup), "player": player}


def latest_mats(store, game: dict) -> dict[str, dict]:
    """The latest readable scan of each player's mat in a Seashells game.

    Args:
        store: the station's :class:`~beachscore.station.store.Store`.
        game: the game's record (``Store.game``).
    Returns:
        ``{player: {"scan_id", "created_at", "corrected", "state"}}``; ``state`` is the scan's
        current state (latest correction, else the machine reading) with the mat named after
        the player. Players without a read mat are absent.
    """
    players = mat_players(game)
    out: dict[str, dict] = {}
    for scan in store.scans(game_id=game["id"], limit=1000):  # newest first
        who = (scan.get("extra") or {}).get("mat_player")
        if who not in players or who in out or scan["status"] != "ok" or scan.get("game") != "seashells":
            continue
        state = copy.deepcopy(scan["current_state"])
        if isinstance(state, dict) and isinstance(state.get("players"), list) and len(state["players"]) == 1 \
                and isinstance(state["players"][0], dict):
            state["players"][0]["player"] = who
        out[who] = {"scan_id": scan["id"], "created_at": scan["created_at"], "corrected": bool(scan["revisions"]),
                    "state": state}
    return out


def next_mat(store, game: dict | None) -> str | None:
    """The first player of ``game`` (the current game) whose mat is not read yet (None: all read)."""
    read = latest_mats(store, game) if game else {}
    return next((p for p in mat_players(game) if p not in read), None)


def table(store, game: dict | None, scorer: Callable) -> dict | None:
    """The combined Seashells score of a game: every player's latest mat merged (``merge_mats``)
    with the secret cards and the Sun shell of the set-up.

    Args:
        store: the station's store; game: the game's record or None.
        scorer: ``(state, setup) -> score dict`` (the station's scorer).
    Returns:
        None for another game; else ``{"players", "mats": {player: {"scan_id", "created_at",
        "corrected"}}, "missing": [players], "next": player or None, "complete": bool,
        "score": the Seashells score or None, "problems": [str]}``. With mats missing the score
        covers the players read so far (the page says it is provisional).
    """
    players = mat_players(game)
    if not players:
        return None
    mats = latest_mats(store, game)
    missing = [p for p in players if p not in mats]
    out = {"players": players, "missing": missing, "next": missing[0] if missing else None,
           "complete": not missing, "score": None, "problems": [],
           "mats": {p: {k: m[k] for k in ("scan_id", "created_at", "corrected")} for p, m in mats.items()}}
    if not mats:
        return out
    setup = shared_setup(game["setup"])
    try:
        merged = merge_mats([mats[p]["state"] for p in players if p in mats],
                            {k: setup[k] for k in ("scoring", "sun") if k in setup})
        out["problems"] = scoring.problems(merged, setup)
        if not out["problems"]:
            out["score"] = scorer(merged, setup)
    except (BeachscoreError, ValueError) as err:  # InvalidStateError is a ValueError
        out["problems"] = out["problems"] or [getattr(err, "message", None) or str(err)]
    return out


def empty_mats(setup: dict) -> list[dict]:
    """One empty mat per player named in a set-up, so that a new game's secret cards are checked."""
    players = setup.get("players") if isinstance(setup.get("players"), list) else []
    return [{"player": p, "shells": []} for p in players if isinstance(p, str) and p]
