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
