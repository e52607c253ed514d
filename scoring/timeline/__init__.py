"""A game's timeline: its accepted readings in order, compared two by two under the game's rules.

Pure (states in, changes and facts out; never pixels). One module per game says what may change
between two readings and what the game learns from the changes; :class:`Timeline` keeps the last
accepted state and the facts so far.

>>> t = Timeline("plazing", {"players": ["red", "blue"]})
>>> red = {"game": "plazing", "rows": 3, "cols": 5, "pieces": [
...     {"player": "red", "kind": "screen", "cells": [[1, 1], [1, 2], [1, 3]], "facing": "S"},
...     {"player": "red", "kind": "gear", "cells": [[0, 0]]}]}
>>> t.accept(red, t.propose(red))
>>> blue = dict(red, pieces=red["pieces"] + [{"player": "blue", "kind": "gear", "cells": [[0, 4]]}])
>>> step = t.propose(blue)
>>> [c["text"] for c in step.changes], step.impossible
(['blue placed a gear on E1', "blue closed the area at B1–D1 (3 squares, red's)"], [])
>>> t.accept(blue, step)
>>> t.to_json()["closings"]
{'red': 0, 'blue': 1}
>>> [c["kind"] for c in t.propose(red).impossible]
['removed']
"""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType

from scoring.errors import UnknownGameError
from scoring.timeline.common import Step, change

#: The timeline module of each game that has one.
GAMES = {
    "plazing": "scoring.timeline.plazing",
    "strand-unter": "scoring.timeline.strand_unter",
    "seashells": "scoring.timeline.seashells",
    "sand-castles": "scoring.timeline.sand_castles",
}

__all__ = ["GAMES", "Step", "Timeline", "change", "compare", "game_module"]


def game_module(game: str) -> ModuleType:
    """The timeline module of ``game``.

    Raises:
        UnknownGameError: the game has no timeline.
    """
    if game not in GAMES:
        raise UnknownGameError(f"game: no timeline for {game!r}; expected one of {', '.join(GAMES)}")
    return importlib.import_module(GAMES[game])


def compare(before: dict | None, after: dict, setup: dict | None = None, facts: dict | None = None) -> Step:
    """Compare ``after`` with the last accepted state ``before`` (None: the game's first reading).

    Args:
        before, after: contract states of one game.
        setup: the game's setup.json dict (or None).
        facts: the timeline's facts so far (None: the game's start).
    Returns:
        :class:`Step`: ``changes``, ``impossible``, the ``facts`` once ``after`` is accepted, ``notes``.
    Raises:
        UnknownGameError: ``after`` names no game with a timeline.
        InvalidStateError: ``before`` is of another game, or a state breaks the single-photo rules.
    """
    game = after.get("game") if isinstance(after, dict) else None
    if before is not None and before.get("game") != game:
        raise UnknownGameError(f"game: the previous reading is of {before.get('game')!r}, this one of {game!r}")
    return game_module(game).compare(before, after, setup, facts)


class Timeline:
    """One game followed reading by reading.

    Attributes:
        game: the game's name.
        setup: the game's setup.json dict (or None).
        last: the last accepted state, None before the first.
        facts: what the game learned so far (per game; Plażing: ``closings``, ``collected``, ``track``).
        notes: what the timeline could not decide for sure, in order.
        accepted: how many readings were accepted.
    """

    def __init__(self, game: str, setup: dict | None = None, last: dict | None = None, facts: dict | None = None):
        self.module = game_module(game)
        self.game, self.setup, self.last, self.facts = game, setup, last, facts
        self.notes: list[str] = []
        self.accepted = 0 if last is None else 1

    def propose(self, state: dict) -> Step:
        """Compare ``state`` with the last accepted one; nothing is kept (see :meth:`accept`)."""
        return compare(self.last, state, self.setup, self.facts)

    def propose_correction(self, state: dict) -> Step:
        """Compare a player's correction ``state`` with the last accepted reading, its facts those the
        game learns when the correction is the truth (the game module's ``corrected_facts``: a castle
        the correction changed replaces the one misread before); nothing is kept (see :meth:`accept`)."""
        step = self.propose(state)
        fix = getattr(self.module, "corrected_facts", None)
        return dataclasses.replace(step, facts=fix(step, state)) if fix else step

    def accept(self, state: dict, step: Step) -> None:
        """Make ``state`` (compared as ``step``) the last accepted reading and keep its facts."""
        self.last, self.facts = state, step.facts
        self.notes += step.notes
        self.accepted += 1

    def to_json(self) -> dict:
        """The facts so far (the contract's ``timeline``), plus ``readings`` and ``notes``."""
        facts = self.facts if self.facts is not None else self.module.initial_facts(self._players())
        shown = getattr(self.module, "public_facts", None)
        return dict(shown(facts) if shown else facts, readings=self.accepted, notes=list(self.notes))

    def score_setup(self) -> dict:
        """The setup with the timeline's facts filled in (what the game's final score uses)."""
        return self.module.with_facts(self.setup, self.facts)

    def _players(self) -> list[str]:
        players = (self.setup or {}).get("players")
        return list(players) if isinstance(players, list) else []
