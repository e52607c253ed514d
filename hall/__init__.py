"""The hall server: events, rounds, seating, standings, and the stations that report to it (Flask).

``create_app(test_config=None, *, store=None)`` is the app factory; one blueprint per feature:
:mod:`hall.organiser` (login, events, players, rounds, results by hand, pairing codes),
:mod:`hall.public` (big-screen standings, "where do I sit", exports — open to everyone) and
:mod:`hall.stations` (the API stations report through, with their tokens). Storage is
:class:`hall.store.HallStore` on SQLite or PostgreSQL. The hall never imports the station.
"""

from __future__ import annotations

from hall.app import create_app

__all__ = ["create_app"]
