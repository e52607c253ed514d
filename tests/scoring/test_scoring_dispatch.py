"""The package entry points dispatch on state["game"] and reject what they cannot score."""

from __future__ import annotations

import json

import pytest

import scoring
from scoring import InvalidStateError, UnknownGameError


@pytest.mark.parametrize("state", [{}, {"game": "chess"}, {"game": None}])
def test_unknown_or_missing_game_is_an_invalid_state(state):
    for fn in (scoring.score, scoring.validate, scoring.explain):
        with pytest.raises(UnknownGameError) as err:
            fn(state)
        assert isinstance(err.value, InvalidStateError) and isinstance(err.value, ValueError)
        assert err.value.problems and "game" in err.value.problems[0]


def test_a_state_that_is_not_an_object_is_invalid():
    with pytest.raises(InvalidStateError):
        scoring.score([1, 2])  # type: ignore[arg-type]


def test_grid_scores_empty_and_checks_its_shape():
    state = {"game": "grid", "rows": 2, "cols": 2, "cells": [["empty", "black"], ["white", "empty"]]}
    assert scoring.score(state) == {}
    assert "black 1" in scoring.explain(state)
    with pytest.raises(InvalidStateError, match="cells\\[1\\]: 1 cells, expected 2"):
        scoring.validate({**state, "cells": [["empty", "black"], ["white"]]})


def test_explain_is_still_the_function_after_every_module_is_imported():
    for name in scoring.GAMES.values():
        __import__(name)
    assert callable(scoring.explain) and callable(scoring.score) and callable(scoring.validate)


@pytest.mark.parametrize("state", [
    {"game": "strand-unter", "sea_front": 3, "grooves": [{"number": 1, "castles": [{"player": "red", "value": 2}]},
                                                      {"number": 2}]},
    {"game": "plazing", "rows": 2, "cols": 3, "pieces": [{"player": "red", "kind": "gear", "cells": [[0, 1]]}]},
    {"game": "seashells", "players": [{"player": "a", "shells": [["conch", "blue"]]}]},
    {"game": "sand-castles", "lanes": {"top": {"length": 8, "wave": 1, "castle_pieces": 1}}},
], ids=lambda s: s["game"])
def test_scores_are_json_with_string_keys_and_inputs_are_not_changed(state):
    before = json.dumps(state, sort_keys=True)
    out = scoring.score(state)
    assert json.loads(json.dumps(out, allow_nan=False)) == out
    assert json.dumps(state, sort_keys=True) == before
    assert isinstance(scoring.explain(state), str)
