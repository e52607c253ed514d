"""Errors of the tournament model."""

from __future__ import annotations


class InvalidEventError(ValueError):
    """An event file (or a result) breaks the contract; ``problems`` lists every problem found.

    >>> err = InvalidEventError(["players[0].name: missing", "rounds[1].number: expected 2, got 3"])
    >>> str(err)
    'invalid event: players[0].name: missing; rounds[1].number: expected 2, got 3'
    """

    def __init__(self, problems: list[str] | str):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("invalid event: " + "; ".join(self.problems))


class RoundOpenError(ValueError):
    """The next round cannot be seated: round ``number`` is still being played.

    ``waiting`` are its tables without a result (empty when every table has one but the round is
    still marked ``"status": "open"``, as the hall's export marks a round its organiser has not closed).

    >>> str(RoundOpenError(2, (3, 5)))
    'round 2 is still being played (tables 3, 5 have no result yet): add the missing results, then seat round 3'
    >>> str(RoundOpenError(1, ()))
    'round 1 is still open (the hall has not closed it): close it, then seat round 2'
    """

    def __init__(self, number: int, waiting: tuple[int, ...]):
        self.number, self.waiting = number, tuple(waiting)
        super().__init__(f"round {number} is still being played ({waiting_text(self.waiting)}): add the missing "
                         f"results, then seat round {number + 1}" if self.waiting else
                         f"round {number} is still open (the hall has not closed it): close it, then seat round "
                         f"{number + 1}")


def waiting_text(tables) -> str:
    """Tables still without a result, in words.

    >>> waiting_text([2]), waiting_text([1, 4])
    ('table 2 has no result yet', 'tables 1, 4 have no result yet')
    """
    tables = list(tables)
    return (f"table {tables[0]} has" if len(tables) == 1 else f"tables {', '.join(map(str, tables))} have") + \
        " no result yet"
