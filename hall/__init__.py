"""The hall server: events, rounds, seating, standings, and the stations that report to it (Flask).

``create_app(test_config=None, *, store=None)`` (:mod:`hall.app`) is the app factory; one
blueprint per feature: :mod:`hall.organiser` (login, account, events, players, rounds, results
by hand, pairing codes), :mod:`hall.public` (big-screen standings, "where do I sit", exports —
open to everyone), :mod:`hall.stations` (the API stations report through, with their tokens) and
:mod:`hall.reporting` (players report their table with the code on its slip). Storage is
:class:`hall.store.HallStore` on SQLite or PostgreSQL; :mod:`hall.serve` runs it on waitress with
the limits of :mod:`hall.http_limits`. The hall never imports the station or the web pages.
"""

from __future__ import annotations

from hall.app import create_app

__all__ = ["create_app"]
