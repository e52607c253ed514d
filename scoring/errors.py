"""Errors raised by the scoring core.

Every error subclasses a builtin so callers that know nothing about ``scoring`` can still
catch it (``except ValueError``).
"""

from __future__ import annotations


class InvalidStateError(ValueError):
    """A game state (or its setup) cannot be scored as given.

    Attributes:
        problems: every problem found, one human-readable string each, naming the field or
            cell and quoting the bad value (``"pieces[3] covers terrain '#' at [2, 5]"``).
        code: short machine-readable reason for the command line (``"invalid-state"``).

    >>> err = InvalidStateError(["sea_front: expected an integer 1..12, got 'x'"])
    >>> err.problems
    ["sea_front: expected an integer 1..12, got 'x'"]
    >>> str(err)
    "invalid state: sea_front: expected an integer 1..12, got 'x'"
    """

    code = "invalid-state"

    def __init__(self, problems: list[str] | str):
        if isinstance(problems, str):
            problems = [problems]
        self.problems: list[str] = list(problems)
        super().__init__("invalid state: " + "; ".join(self.problems))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.problems!r})"


class UnknownGameError(InvalidStateError):
    """``state["game"]`` is missing or names a game the scoring core does not know."""

    code = "unknown-game"
