"""Tournament scorekeeping, pure: events, rounds, seating, standings (no I/O, like ``scoring``).

Contract: shared/contracts/tournament.md. An :class:`Event` is read from EVENT.json
(:meth:`Event.from_json`); :func:`standings` ranks its players, :func:`seat` proposes the next
round, :func:`table_result` turns the rules engine's score of a table into its result.

>>> ev = Event.from_json({"event": "Club night", "game": "plazing",
...     "players": [{"id": "p1", "name": "Ana"}, {"id": "p2", "name": "Bo"}, {"id": "p3", "name": "Cy"}]})
>>> first = seat(ev, seed=7)
>>> [len(t.players) for t in first.tables]
[3]
>>> ev = ev.with_round(first.to_round())
>>> standings_json(ev)["rounds_played"]
0
"""

from tournament.errors import InvalidEventError, RoundOpenError
from tournament.event import Event, Player, Result, Round, Scoring, Seating, Table, read_result
from tournament.results import match_seats, seashells_result, table_result
from tournament.seating import NextRound, seat, table_sizes
from tournament.standings import Standing, rounds_played, split_places, standings, standings_json

__all__ = ["Event", "InvalidEventError", "NextRound", "Player", "Result", "Round", "RoundOpenError", "Scoring",
           "Seating", "Standing", "Table", "match_seats", "read_result", "rounds_played", "seashells_result", "seat",
           "split_places", "standings", "standings_json", "table_result", "table_sizes"]
