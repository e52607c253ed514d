"""The hall's store: events, players, rounds, tables, results, stations and photos (SQLAlchemy Core).

One module per thing stored (:mod:`~hall.store.organisers`, :mod:`~hall.store.events`,
:mod:`~hall.store.rounds`, :mod:`~hall.store.stations`, :mod:`~hall.store.photos`) on the
transactions of :mod:`~hall.store.base`; :class:`HallStore` is all of them on one engine.
"""

from __future__ import annotations

from hall.errors import HallError
from hall.store.base import StoreBase, now_iso, sha256_hex
from hall.store.events import EventStore, same_player
from hall.store.organisers import OrganiserStore
from hall.store.photos import PHOTO_EXT, PhotoStore
from hall.store.rounds import RoundStore, current_result
from hall.store.stations import PAIRING_TTL_MIN, TOKEN_CACHE_S, StationStore, normalise_code

__all__ = ["HallStore", "HallError", "StoreBase", "now_iso", "sha256_hex", "same_player", "current_result",
           "normalise_code", "PAIRING_TTL_MIN", "TOKEN_CACHE_S", "PHOTO_EXT"]


class HallStore(OrganiserStore, EventStore, RoundStore, StationStore, PhotoStore):
    """All reads and writes of the hall; thread-safe (one engine, a connection per call).

    Args:
        engine: a migrated engine (:func:`hall.db.open_engine`).
        photo_dir: folder for the stations' photos (files named by their SHA-256); default the
            ``photos`` folder beside an SQLite database.
    """
