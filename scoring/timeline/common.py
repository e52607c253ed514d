"""What every game's timeline shares: a change, one step's outcome, and how they are written.

A *change* is one thing that happened between two accepted readings of a game, as the contract's
``changes`` and ``impossible`` lists show it (``shared/contracts/README.md`` §One game, photo after
photo): a JSON object with a ``kind`` (``placed``, ``removed``, ``closed``, ``collected``,
``built``, ``washed``, ``moved`` …), a human ``text``, and whatever the game adds (``player``,
``cells``, ``groove`` …).
"""

from __future__ import annotations

from dataclasses import dataclass, field


def change(kind: str, text: str, **extra) -> dict:
    """One change as the contract writes it: ``{"kind", "text", **extra}`` (extra keys with None dropped).

    >>> change("placed", "red placed a screen on C4–C6", player="red", cells=None)
    {'kind': 'placed', 'text': 'red placed a screen on C4–C6', 'player': 'red'}
    """
    out = {"kind": kind, "text": text}
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


@dataclass
class Step:
    """The outcome of comparing a reading with the last accepted one.

    Attributes:
        changes: what the rules allow and happened, in the order found (contract ``changes``).
        impossible: changes the rules forbid (contract ``impossible``); empty when none.
        facts: the timeline's facts once this reading is accepted (per game; Plażing:
            ``closings``, ``collected``, ``track``).
        notes: what the timeline could not decide for sure (e.g. which of two players closed an
            area), human sentences.
    """

    changes: list[dict] = field(default_factory=list)
    impossible: list[dict] = field(default_factory=list)
    facts: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def lawful(self) -> bool:
        """True when no change breaks the rules."""
        return not self.impossible


def plural(n: int, word: str) -> str:
    """``"1 shell"``, ``"3 shells"``.

    >>> plural(1, "shell"), plural(2, "castle")
    ('1 shell', '2 castles')
    """
    return f"{n} {word}{'' if n == 1 else 's'}"
