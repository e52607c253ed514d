"""Test doubles for the station, shipped with the package (like ``hardware.mock_camera``).

:class:`FakeScanner` stands in for the vision pipeline so station and web tests do not depend on
reading accuracy; :func:`fake_score` stands in for ``scoring`` when a test wants no game rules.
"""

from __future__ import annotations

import contextlib
import copy
import threading
import time
from dataclasses import dataclass, field

import numpy as np

import scoring
from beachscore.errors import BeachscoreError
from vision.types import Reading

#: A small Strand unter reading (contract shape): two grooves, two players.
STRAND_STATE = {
    "game": "strand-unter", "sea_front": 3, "sandpiper": None,
    "grooves": [
        {"number": 1, "shells": {"white": 1, "gray": 0, "brown": 0, "black": 0},
         "castles": [{"player": "red", "value": 2}]},
        {"number": 2, "shells": {"white": 0, "gray": 1, "brown": 0, "black": 0},
         "castles": [{"player": "yellow", "value": 1}]},
    ],
}


def fake_score(state: dict, setup: dict | None = None) -> dict:
    """Score any state by a toy rule: each castle is worth its value × groove number.

    >>> fake_score(STRAND_STATE)["players"][0]
    {'player': 'red', 'castle_points': 2, 'total': 2}
    """
    if not isinstance(state, dict) or not isinstance(state.get("grooves", []), list):
        raise BeachscoreError("invalid-state", "state needs a grooves list")
    totals: dict[str, int] = {}
    for g in state.get("grooves", []):
        for c in g.get("castles", []):
            totals[c["player"]] = totals.get(c["player"], 0) + int(c["value"]) * int(g["number"])
    players = [{"player": p, "castle_points": t, "total": t} for p, t in sorted(totals.items())]
    best = max(totals.values(), default=None)
    return {"players": players, "winners": [p for p, t in totals.items() if t == best]}


@dataclass
class FakeRegistration:
    """The registration surface a followed game reads (``beachscore.follow``): its warnings."""

    warnings: list = field(default_factory=list)


@dataclass
class FakeResult:
    """What :class:`FakeScanner` returns: the ``ScanResult`` surface the station uses (the reading
    and registration too, as :class:`beachscore.follow.FollowedGame` reads them)."""

    game: str
    state: dict
    score: dict
    image: np.ndarray = field(repr=False)
    confidence: float = 0.9
    warnings: list = field(default_factory=list)
    reading: Reading | None = field(default=None, repr=False)
    registration: FakeRegistration = field(default_factory=FakeRegistration, repr=False)

    def __post_init__(self):
        if self.reading is None:
            self.reading = Reading(state=self.state, confidence=self.confidence, warnings=list(self.warnings))

    def to_json(self) -> dict:
        return {"game": self.game, "state": self.state, "score": self.score, "confidence": self.confidence,
                "warnings": list(self.warnings), "timing_ms": {"detect": 1.0}}

    def annotate(self) -> np.ndarray:
        out = self.image.copy()
        out[-20:, :] = (0, 255, 0)
        return out


class FakeScanner:
    """A pipeline stand-in: ``(image_bgr, calibration, setup) -> FakeResult``.

    Args:
        state: the state every scan "reads" (deep-copied); default :data:`STRAND_STATE`.
        scorer: scores the state; default :func:`fake_score`.
        delay_s: seconds each scan takes (to test busy handling and crashes mid-scan).
        error: a BeachscoreError to raise instead of reading (e.g. an unreadable board).
        warnings: the warnings every reading carries (as a reader words them).
    Attributes:
        calls: number of scans; ``started`` is set when a scan begins.
    """

    def __init__(self, state: dict | None = None, *, scorer=fake_score, delay_s: float = 0.0,
                 error: BeachscoreError | None = None, confidence: float = 0.9, warnings: tuple = ()):
        self.state = copy.deepcopy(state or STRAND_STATE)
        self.warnings = list(warnings)
        self.confidence = confidence
        self.scorer = scorer
        self.delay_s = delay_s
        self.error = error
        self.calls = 0
        self.started = threading.Event()

    def __call__(self, image, calibration, setup):
        self.calls += 1
        self.started.set()
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.error is not None:
            raise self.error
        state = copy.deepcopy(self.state)
        return FakeResult(game=state.get("game", "strand-unter"), state=state, score=self.scorer(state, setup),
                          image=image, confidence=self.confidence, warnings=list(self.warnings))


@dataclass
class FakeCalibration:
    """Enough of ``calibration.store.Calibration`` for the station: game, profile, model."""

    game: str = "strand-unter"
    profile: dict = field(default_factory=lambda: {"game": "strand-unter", "board_mm": [440, 380]})
    model: dict = field(default_factory=dict)


#: Three Seashells player mats (contract shape, one player each), as a mat scan reads them.
SEASHELLS_MATS = {
    "red": {"shells": [["conch", "pink"], ["conch", "blue"], ["whelk", "pink"]], "fossil_heads": 1,
            "fossil_tails": 1, "sand_dollars": 1, "bottles": 0},
    "blue": {"shells": [["scallop", "blue"], ["whelk", "green"]], "fossil_heads": 0, "fossil_tails": 1,
             "sand_dollars": 2, "bottles": 1},
    "green": {"shells": [["oyster", "white"]], "fossil_heads": 1, "fossil_tails": 0, "sand_dollars": 0,
              "bottles": 0},
}


#: The rules engine's scorer (it validates the state first), for stations built with fakes.
score_with_rules = scoring.score


class MatScanner(FakeScanner):
    """A Seashells mat reader stand-in: each scan "reads" the mat of ``setup["player"]`` from ``mats``
    (an empty mat for a player it does not know), named as the vision reader names it.

    Args:
        mats: ``{player: mat fields}``; default :data:`SEASHELLS_MATS`.
        delay_s, error: as :class:`FakeScanner`.
    Attributes:
        players: whose mat each scan read, in order.
    """

    def __init__(self, mats: dict | None = None, *, delay_s: float = 0.0, error: BeachscoreError | None = None):
        super().__init__({"game": "seashells", "players": []}, scorer=score_with_rules, delay_s=delay_s, error=error)
        self.mats = copy.deepcopy(mats if mats is not None else SEASHELLS_MATS)
        self.players: list = []

    def __call__(self, image, calibration, setup):
        who = (setup or {}).get("player") or "mat"
        self.players.append(who)
        mat = copy.deepcopy(self.mats.get(who, {"shells": []}))
        self.state = {"game": "seashells", "players": [{"player": who, **mat}]}
        for key in ("scoring", "sun"):
            if key in (setup or {}):
                self.state[key] = setup[key]
        return super().__call__(image, calibration, setup)


@contextlib.contextmanager
def mock_pin_factory():
    """Swap gpiozero's pin factory for a ``MockFactory`` for the duration; yields the factory."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = previous


class FullDiskDatabase:
    """Wraps a store's ``sqlite3.Connection`` to answer as SQLite does on a full disk: every INSERT
    and UPDATE raises ``sqlite3.OperationalError("database or disk is full")``; reads pass through.
    Use: ``store._db = FullDiskDatabase(store._db)``."""

    def __init__(self, db):
        self._db = db

    def execute(self, sql: str, *args):
        import sqlite3

        if sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
            raise sqlite3.OperationalError("database or disk is full")
        return self._db.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._db, name)
