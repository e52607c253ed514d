"""The station's store (SQLite + photo files). See :mod:`beachscore.store.db`."""

from beachscore.store.db import Store, StoreError, now_iso

__all__ = ["Store", "StoreError", "now_iso"]
