"""The station's store (SQLite + photo files). See :mod:`beachscore.station.store.db`."""

from beachscore.station.store.db import Store, StoreError, now_iso

__all__ = ["Store", "StoreError", "now_iso"]
