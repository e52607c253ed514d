"""What the tournament model needs to know about each game: players per table, co-operative or not.

Sources: shared/rules/ and the rulebooks in shared/seeds/ (Strand unter: 4 shell dials;
Plażing: set-ups for 2, 3 and 4 players; Seashells: 5 player mats; Sand Castles: co-operative).
"""

from __future__ import annotations

#: (fewest, most) players at one table of each game.
PLAYERS = {
    "strand-unter": (2, 4),
    "plazing": (2, 4),
    "seashells": (2, 5),
    "sand-castles": (2, 4),
}
#: Co-operative games: the players of a table are one team, ranked against the other tables by points.
CO_OP = frozenset({"sand-castles"})
#: The table size seating aims for when the event does not say.
DEFAULT_TABLE_SIZE = 4


def player_range(game: str) -> tuple[int, int]:
    """(fewest, most) players at a table of ``game``.

    >>> player_range("seashells")
    (2, 5)
    """
    return PLAYERS[game]


def is_co_op(game: str) -> bool:
    """True for a co-operative game (a table is a team).

    >>> is_co_op("sand-castles"), is_co_op("plazing")
    (True, False)
    """
    return game in CO_OP
