"""Default board profiles of the four boxed games, shipped as package data (``<game>.json``).

A user with the boxed board needs no profile.json of their own: the calibration wizard offers
these (copied from ``shared/samples/<game>/profile.json``).

>>> sorted(GAMES)
['plazing', 'sand-castles', 'seashells', 'strand-unter']
>>> default_profile("seashells")["kind"]
'player-mat'
"""

from __future__ import annotations

import copy
import functools
import json
import os

from calibration.errors import CalibrationError

HERE = os.path.dirname(os.path.abspath(__file__))
#: Games with a default profile (file ``<game>.json`` beside this module).
GAMES = ("strand-unter", "plazing", "seashells", "sand-castles")


@functools.cache
def _load(game: str) -> dict:
    with open(os.path.join(HERE, f"{game}.json"), encoding="utf-8") as f:
        return json.load(f)


def default_profile(game: str) -> dict:
    """A fresh copy of the boxed board's profile of ``game``.

    Raises:
        CalibrationError: ``unknown-game`` for a game without a default profile.
    """
    if game not in GAMES:
        raise CalibrationError("unknown-game", f"no default profile for {str(game)[:40]!r}; expected one of "
                               f"{', '.join(GAMES)}")
    return copy.deepcopy(_load(game))


def default_profiles() -> dict[str, dict]:
    """Every default profile by game."""
    return {g: default_profile(g) for g in GAMES}
