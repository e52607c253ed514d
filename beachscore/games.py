"""Which module reads and which module scores each game.

A reader module in ``vision/`` exposes::

    learn(shot: CalibrationShot) -> dict          # JSON-serialisable appearance model
    read(photo: Photo) -> Reading                 # game state from a registered photo
    annotate(photo: Photo, reading: Reading) -> np.ndarray   # BGR picture for a person to check

and may expose ``REGISTRATION_SIDES`` (board sides whose outline never changes) and
``registration_exclude(image_bgr, calibration) -> mask | None``.
A scoring module exposes ``validate``, ``score`` and ``explain`` (see ``scoring``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from beachscore.errors import BadInputError

READERS = {
    "strand-unter": "vision.strand_unter",
    "plazing": "vision.plazing",
    "grid": "vision.grid.reader",
    "seashells": "vision.seashells.reader",
    "sand-castles": "vision.sand_castles.reader",
}


def reader(game: str) -> ModuleType:
    """Import the vision module of ``game``.

    Raises:
        BadInputError: ``unknown-game``.
    """
    try:
        name = READERS[game]
    except KeyError:
        raise BadInputError("unknown-game", f"unknown game {game!r}; expected one of {', '.join(READERS)}") from None
    return importlib.import_module(name)
