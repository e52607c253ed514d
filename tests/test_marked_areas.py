"""A Plażing reading with a closed area the rules would have marked (beachscore.marked_areas)."""
from __future__ import annotations

import pytest

import scoring
from beachscore.marked_areas import UNMARKED_CONFIDENCE, settle_unmarked
from vision.types import Reading

SETUP = {"terrain": ["......", "......", "......", "......"], "players": ["red", "blue", "green"]}
LEFT = {"player": "red", "kind": "gear", "cells": [[0, 0], [1, 0]]}
RIGHT = {"player": "blue", "kind": "gear", "cells": [[0, 4], [1, 4]]}
SCREEN = {"player": "green", "kind": "screen", "cells": [[2, 1], [2, 2], [2, 3]], "facing": "S"}
RED_SCREEN = dict(SCREEN, player="red")
AMBER = {"kind": "amber", "cell": [0, 2]}


def state(pieces, resources=(), meeples=(), neutral=(), doubtful=()):
    return {"game": "plazing", "rows": 4, "cols": 6, "pieces": [dict(p) for p in pieces], "meeples": list(meeples),
            "neutral": [list(c) for c in neutral], "resources": list(resources), "trash": [], "surprises": [],
            "cell_confidence": {"min": 0.5, "mean": 0.9, "doubtful": [list(c) for c in doubtful]}}


def settle(primary: dict, alternatives=(), confidence=0.9):
    reading = Reading(state=primary, confidence=confidence, warnings=[],
                      alternatives=[Reading(state=s, confidence=c) for s, c in alternatives])
    return settle_unmarked(reading, scoring.score(primary, SETUP), SETUP)


def test_a_neutral_area_holding_a_resource_takes_the_reading_with_its_marker():
    tie = [LEFT, RIGHT, SCREEN]  # red, blue and green each one ring piece: neutral
    marker = state(tie, neutral=[[0, 2]])
    reading, score = settle(state(tie, [AMBER], doubtful=[[0, 2]]), [(marker, 0.7)])
    assert reading.state is marker and reading.confidence == 0.7
    assert [a["marked"] for a in score["areas"] if a["closed"]] == ["neutral"]


def test_an_alternative_that_leaves_the_area_unmarked_is_passed_over():
    tie = [LEFT, RIGHT, SCREEN]
    still = state(tie, [dict(AMBER, kind="shell")])
    reading, _ = settle(state(tie, [AMBER]), [(still, 0.6)])
    assert reading.confidence == UNMARKED_CONFIDENCE and reading.state["resources"] == [AMBER]
    assert "the area at B1–D2 is neutral (a tie) but shows no neutral marker" in reading.warnings[-1]


def test_a_marked_neutral_area_is_left_alone():
    primary = state([LEFT, RIGHT, SCREEN], neutral=[[0, 2]])
    reading, _ = settle(primary, confidence=0.95)
    assert reading.state is primary and reading.confidence == 0.95 and reading.warnings == []


@pytest.mark.parametrize("doubtful, resources, doubted", [
    ([[0, 2]], [AMBER], True),  # the reader doubts a cell of the unmarked area
    ([], [AMBER], False),  # sure of every cell: an owner who has not put the meeple in yet
    ([[3, 5]], [AMBER], False),  # the doubt lies elsewhere
    ([[0, 2]], [{"kind": "amber", "cell": [r, c]} for r in (0, 1) for c in (1, 2, 3)], False),  # no room for it
])
def test_an_owned_area_without_its_meeple_is_doubted_only_where_the_reader_doubts_it(doubtful, resources, doubted):
    primary = state([LEFT, RIGHT, RED_SCREEN], resources, doubtful=doubtful)  # red 2, blue 1: red's
    reading, _ = settle(primary)
    assert reading.state is primary
    assert (reading.confidence == UNMARKED_CONFIDENCE) is doubted
    assert any("is closed but shows no meeple" in w for w in reading.warnings) is doubted


def test_other_games_pass_untouched():
    reading = Reading(state={"game": "strand-unter"}, confidence=0.9)
    assert settle_unmarked(reading, {"areas": [{"closed": True, "owner": "neutral"}]}, None) == (
        reading, {"areas": [{"closed": True, "owner": "neutral"}]})
