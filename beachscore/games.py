"""Which reader reads each game: a registry of :class:`vision.types.Reader` objects.

Each game's reader package exposes ``READER``; it is imported when the game is first asked for,
so a command that reads one game never loads the others. Scoring dispatches on ``state["game"]``
itself (:mod:`scoring`).
"""

from __future__ import annotations

import importlib

from beachscore.errors import BadInputError
from vision.types import Reader

#: The reader package of each game (its ``READER``).
READERS = {
    "strand-unter": "vision.strand_unter",
    "plazing": "vision.plazing",
    "grid": "vision.grid",
    "seashells": "vision.seashells",
    "sand-castles": "vision.sand_castles",
}


def reader(game: str) -> Reader:
    """The reader of ``game``.

    Raises:
        BadInputError: ``unknown-game``.
    """
    try:
        name = READERS[game]
    except KeyError:
        raise BadInputError("unknown-game", f"unknown game {game!r}; expected one of {', '.join(READERS)}") from None
    return importlib.import_module(name).READER
