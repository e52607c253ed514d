"""Pure scoring core: game state (dict) → score (dict), validation and explanations.

No I/O, no pixels. Each game module exposes ``validate(state, setup=None)``,
``score(state, setup=None)`` and ``explain(state, setup=None)``; the functions here
dispatch on ``state["game"]``.

>>> score({"game": "grid", "rows": 1, "cols": 1, "cells": [["empty"]]})
{}
>>> score({"game": "chess"})
Traceback (most recent call last):
...
scoring.errors.UnknownGameError: invalid state: game: unknown game 'chess'; expected one of strand-unter, plazing, seashells, sand-castles, grid
"""

from __future__ import annotations

import importlib
from types import ModuleType

from scoring.checks import show
from scoring.errors import InvalidStateError, UnknownGameError

GAMES = {
    "strand-unter": "scoring.strand_unter",
    "plazing": "scoring.plazing",
    "seashells": "scoring.seashells",
    "sand-castles": "scoring.sand_castles",
    "grid": "scoring.grid",
}

__all__ = ["GAMES", "InvalidStateError", "UnknownGameError", "complete_state", "explain", "game_module", "problems",
           "score", "validate"]


def game_module(state: dict) -> ModuleType:
    """The scoring module for ``state["game"]``.

    Raises:
        InvalidStateError: the state is not an object.
        UnknownGameError: ``game`` is missing or unknown.
    """
    if not isinstance(state, dict):
        raise InvalidStateError(f"state: expected an object, got {type(state).__name__}")
    game = state.get("game")
    if game is None:
        raise UnknownGameError(f"game: missing; expected one of {', '.join(GAMES)}")
    if not isinstance(game, str):  # a list or dict would not even hash
        raise UnknownGameError(f"game: expected a string, got {show(game)}; expected one of {', '.join(GAMES)}")
    if game not in GAMES:
        raise UnknownGameError(f"game: unknown game {show(game)}; expected one of {', '.join(GAMES)}")
    return importlib.import_module(GAMES[game])


def _check_setup(setup: dict | None) -> None:
    if setup is not None and not isinstance(setup, dict):
        raise InvalidStateError(f"setup: expected an object, got {type(setup).__name__}")


def validate(state: dict, setup: dict | None = None) -> None:
    """Check a state (and setup) strictly for its game.

    Raises:
        InvalidStateError: with ``.problems`` listing every problem (UnknownGameError for
            a missing or unknown game).
    """
    _check_setup(setup)
    game_module(state).validate(state, setup)


def complete_state(state: dict, setup: dict | None = None) -> dict:
    """The state with the off-board facts its setup fills in (what the score was computed from).

    Games whose state has no such facts return a copy unchanged. Never raises on a state that
    :func:`validate` accepts.
    """
    module = game_module(state)
    fill = getattr(module, "complete_state", None)
    return fill(state, setup) if fill else dict(state)


def problems(state: dict, setup: dict | None = None) -> list[str]:
    """Lenient check: every problem ``validate`` would raise, as a list (empty when valid).

    For callers that prefer to show problems as warnings next to a partial answer (e.g. a
    scan whose reading broke a rule) instead of failing.

    >>> problems({"game": "sand-castles", "lanes": {"top": {"length": 8, "wave": 0}}})
    ['lanes.top.wave: expected an integer 1..8, got 0']
    """
    try:
        validate(state, setup)
    except InvalidStateError as err:
        return list(err.problems)
    return []


def score(state: dict, setup: dict | None = None) -> dict:
    """Score a state for its game; JSON-serialisable dict (the game's contract score).

    Raises:
        InvalidStateError: the state or setup is invalid.
    """
    _check_setup(setup)
    return game_module(state).score(state, setup)


def explain(state: dict, setup: dict | None = None) -> str:
    """Human-readable explanation of the score a player can check at the table.

    Raises:
        InvalidStateError: the state or setup is invalid.
    """
    _check_setup(setup)
    return game_module(state).explain(state, setup)
