"""Every validate / score path survives any JSON-like value: success or InvalidStateError, nothing else.

Values are thrown three ways per game: a whole arbitrary state (with the right ``game``), a valid
state with one field somewhere replaced by an arbitrary value, and an arbitrary setup. Seeded
(``derandomize``) and small, so the suite stays fast and repeatable.
"""

from __future__ import annotations

import copy
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scoring
from scoring import InvalidStateError

# Field names the games read, so arbitrary objects often hit real code paths.
KEYS = ["game", "sea_front", "sandpiper", "grooves", "number", "shells", "castles", "player", "value",
        "players", "bucket", "open_cards", "needs", "house_rules", "multiply", "white", "gray", "brown",
        "black", "any", "rows", "cols", "cells", "pieces", "kind", "facing", "meeples", "neutral",
        "resources", "trash", "surprises", "terrain", "weather", "collected", "closings", "track",
        "expansions", "clean_beach", "scoring", "shapes", "colours", "sun", "shape", "colour", "beach",
        "items", "item", "cell", "stroll", "shovels_at", "shovels", "fossil_heads", "fossil_tails",
        "sand_dollars", "bottles", "secret", "secrets", "lanes", "top", "middle", "bottom", "length",
        "wave", "wall", "castle_pieces", "flooded", "castle_needs", "walls_left", "confidence",
        "screen", "blanket", "gear", "red", "mat"]

SCALARS = (
    st.none() | st.booleans()
    | st.integers(min_value=-5, max_value=15)
    | st.sampled_from([10**30, -10**30, 2**63, 0]) | st.builds(lambda: 10 ** 5000)  # repr() of 10**5000 raises
    | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([1e308, math.nan, -0.0, 2.0])
    | st.text(max_size=6) | st.sampled_from(KEYS) | st.sampled_from(["x" * 5000, "", "N", "#"])
)
JSONISH = st.recursive(
    SCALARS,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), kids, max_size=4),
    max_leaves=8,
)

VALID = {
    "strand-unter": {"game": "strand-unter", "sea_front": 4, "sandpiper": 2, "grooves": [
        {"number": 1, "shells": {"white": 1, "gray": 0, "brown": 0, "black": 2}, "castles": [{"player": "red", "value": 2}]},
        {"number": 2, "shells": {}, "castles": []},
        {"number": 3, "castles": [{"player": "blue", "value": 3}, {"player": "red", "value": 0}]}],
        "players": {"red": {"bucket": {"white": 1, "brown": 2},
                            "open_cards": [{"value": 3, "needs": {"white": 2, "gray": 1, "any": 1}}]},
                    "blue": {"bucket": {"gray": 1}, "open_cards": []}},
        "house_rules": {"multiply": False}},
    "plazing": {"game": "plazing", "rows": 3, "cols": 5, "terrain": ["..+..", ".....", "-...."], "weather": "wind-S",
                "players": ["red", "blue"],
                "pieces": [{"player": "red", "kind": "screen", "cells": [[1, 1], [1, 2], [1, 3]], "facing": "S"},
                           {"player": "blue", "kind": "gear", "cells": [[0, 0]]},
                           {"player": "red", "kind": "gear", "cells": [[0, 4]]}],
                "meeples": [{"player": "red", "cell": [0, 2]}], "neutral": [[2, 0]],
                "resources": [{"kind": "amber", "cell": [0, 1]}], "trash": [], "surprises": [[2, 4]],
                "collected": {"red": {"amber": 1}, "blue": {}}, "closings": {"red": 1, "blue": 0}, "track": {"red": 3}},
    "seashells": {"game": "seashells", "scoring": "advanced", "sun": {"shape": "conch", "colour": "pink"},
                  "players": [{"player": "ana", "shells": [["scallop", "blue"], ["whelk", "pink"]], "sand_dollars": 1,
                               "secret": {"shapes": ["conch"], "colours": ["blue"]}},
                              {"player": "ben", "shells": [["scallop", "white"]], "fossil_heads": 1, "fossil_tails": 1}],
                  "beach": {"rows": 8, "cols": 8, "items": [{"cell": [0, 3], "item": "bottle"},
                                                           {"cell": [4, 0], "item": "shell", "shape": "oyster", "colour": "green"}],
                            "bucket": [4, 3]},
                  "stroll": {"items": [{"item": "bottle"}, {"item": "sand_dollar"}], "shovels_at": 1, "shovels": 1}},
    "sand-castles": {"game": "sand-castles", "walls_left": 3, "lanes": {
        "top": {"length": 7, "wave": 3, "wall": False, "castle_pieces": 2, "flooded": False},
        "middle": {"length": 7, "wave": 5, "wall": True, "castle_pieces": 3, "flooded": False},
        "bottom": {"length": 7, "wave": 7, "wall": False, "castle_pieces": 0, "flooded": True}}},
    "grid": {"game": "grid", "rows": 1, "cols": 2, "cells": [["empty", "black"]], "confidence": [[0.5, 1]]},
}
GAMES = list(VALID)
FUZZ = settings(max_examples=200, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))


def survives(state, setup=None):
    """validate / problems agree; score and explain succeed after validate passes."""
    try:
        scoring.validate(state, setup)
    except InvalidStateError as err:
        assert err.problems and all(isinstance(m, str) for m in err.problems)
        assert scoring.problems(state, setup) == err.problems
        return
    assert scoring.problems(state, setup) == []
    out = scoring.score(state, setup)
    json.dumps(out)
    assert isinstance(scoring.explain(state, setup), str)


def paths(value, here=()):
    """Every path (tuple of keys / indexes) inside a JSON value, the root included."""
    yield here
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, here + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, here + (i,))


def replaced(value, path, new):
    out = copy.deepcopy(value)
    if not path:
        return new
    node = out
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = new
    return out


@pytest.mark.parametrize("game", GAMES)
def test_valid_bases_are_valid(game):
    scoring.validate(VALID[game])
    survives(VALID[game])


def cases(game):
    """(state, setup) pairs for one game: a whole arbitrary state, a valid state with one field (at
    any depth) replaced, or a valid state with an arbitrary setup. Built once per game."""
    base = VALID[game]
    where = st.sampled_from([p for p in paths(base) if p and p != ("game",)])
    whole = st.dictionaries(st.sampled_from(KEYS), JSONISH, max_size=6).map(lambda d: ({**d, "game": game}, None))
    field = st.tuples(where, JSONISH).map(lambda t: (replaced(base, *t), None))
    setup = (JSONISH | st.dictionaries(st.sampled_from(KEYS), JSONISH, max_size=5)).map(lambda v: (base, v))
    return st.one_of(whole, field, field, setup)


CASES = {game: cases(game) for game in GAMES}


@pytest.mark.parametrize("game", GAMES)
@FUZZ
@given(data=st.data())
def test_any_json_value_is_scored_or_rejected_cleanly(game, data):
    """~200 examples per game, success or InvalidStateError only."""
    state, setup = data.draw(CASES[game])
    survives(state, setup)


@settings(FUZZ, max_examples=100)
@given(value=JSONISH)
def test_any_json_value_as_state_or_game(value):
    survives(value)
    survives({"game": value})
