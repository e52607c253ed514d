"""When the rules reject a reading, the reader's least certain decisions are revisited: the next
most likely readings (a token's runner-up class, a group's runner-up split) are tried in order, and
the one the rules accept is scored with its doubt in its warnings and its confidence."""

from __future__ import annotations

import copy

import numpy as np

from beachscore import pipeline
from vision.plazing.ledger import Decision, Ledger, calibrated
from vision.plazing.revisit import alternatives, conditional_log_p
from vision.types import Reading

STATE = {"game": "plazing", "rows": 3, "cols": 5, "meeples": [], "neutral": [], "resources": [], "trash": [],
         "surprises": [], "pieces": [{"player": "red", "kind": "gear", "cells": [[0, 0]]}]}


def _add_gear(cell):
    def apply(state):
        st = copy.deepcopy(state)
        st["pieces"].append({"player": "red", "kind": "gear", "cells": [list(cell)]})
        return st
    return apply


def test_alternatives_come_most_likely_first_and_their_confidence_is_conditional():
    led = Ledger((3, 5))
    led.add(Decision("token", [(1, 1)], 0.9, "sand on B2", 0.1, "a gear on B2", _add_gear((1, 1))))
    led.add(Decision("token", [(2, 3)], 0.6, "sand on D3", 0.4, "a gear on D3", _add_gear((2, 3))))
    alts = alternatives(STATE, led)
    assert [a[2] for a in alts[:2]] == [["a gear on D3 instead of sand on D3"], ["a gear on B2 instead of sand on B2"]]
    assert alts[0][1] > alts[1][1]
    both = [a for a in alts if len(a[2]) == 2]
    assert both and len(both[0][0]["pieces"]) == 3
    # given that the reading (p = 0.54) was rejected, the first alternative (0.36) has 0.36 / 0.46
    cond = conditional_log_p([a[1] for a in alts], led.log_p())
    assert np.isclose(np.exp(cond[0]), np.exp(alts[0][1]) / (1 - np.exp(led.log_p())), rtol=1e-6)


def test_the_pipeline_scores_the_first_alternative_the_rules_accept():
    bad = copy.deepcopy(STATE)
    bad["pieces"].append({"player": "red", "kind": "gear", "cells": [[0, 0]]})  # two pieces on one cell
    also_bad = copy.deepcopy(bad)
    good = copy.deepcopy(STATE)
    good["pieces"].append({"player": "red", "kind": "gear", "cells": [[2, 4]]})
    alts = [Reading(also_bad, 0.5, ["first alternative"]), Reading(good, calibrated(np.log(0.3)), ["the lawful one"])]
    reading, score = pipeline._score_lawful(Reading(bad, 0.9, [], alternatives=alts), None)
    assert reading.state == good and reading.warnings == ["the lawful one"] and "areas" in score


def test_no_lawful_alternative_is_a_rules_conflict():
    bad = copy.deepcopy(STATE)
    bad["pieces"].append({"player": "red", "kind": "gear", "cells": [[0, 0]]})
    try:
        pipeline._score_lawful(Reading(bad, 0.9, [], alternatives=[Reading(bad, 0.5)]), None)
    except pipeline.UnreadableBoardError as err:
        assert err.code == "rules-conflict"
    else:
        raise AssertionError("a reading that breaks the rules was scored")
