"""The pure helpers of scripts/plazing_seam_stats.py (a measuring script: no scans here)."""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))

import plazing_seam_stats as pss  # noqa: E402

TRUTH = {"state": {"pieces": [
    {"player": "red", "kind": "gear", "cells": [[0, 5]]},
    {"player": "red", "kind": "gear", "cells": [[1, 5]]},
    {"player": "red", "kind": "gear", "cells": [[0, 3], [1, 3]]},
    {"player": "yellow", "kind": "gear", "cells": [[2, 5]]}]}}


def test_edge_truth_cut_joined_other():
    tp = pss.truth_pieces(TRUTH)
    assert pss.edge_truth(tp, (0, 5), (1, 5), "red") == "cut"
    assert pss.edge_truth(tp, (0, 3), (1, 3), "red") == "joined"
    assert pss.edge_truth(tp, (1, 5), (2, 5), "red") == "other"  # the reader's owner is wrong there
    assert pss.edge_truth(tp, (5, 5), (6, 5), "red") == "other"  # no piece in the truth


def test_robust_sd_and_floor():
    assert pss.robust_sd([], 1.5) == 1.5
    assert pss.robust_sd([0.1, 0.1, 0.1], 1.5) == 1.5
    assert math.isclose(pss.robust_sd([2.0, 2.0, 2.0]), 2.0 / math.sqrt(0.4549))


def test_p_joined_and_quantiles():
    assert pss.p_joined(0.0) == 0.5
    assert pss.p_joined(math.log(9)) > 0.899
    assert pss.p_joined(1e6) <= 1.0
    assert pss.quantiles([]) == []
    assert pss.quantiles([1, 2, 3], (0.0, 0.5, 1.0)) == [1.0, 2.0, 3.0]


def test_flips_counts_right_and_wrong():
    rows = [{"truth": "cut", "old": True, "new": False},     # cut now read right
            {"truth": "joined", "old": True, "new": False},  # join now read wrong
            {"truth": "joined", "old": True, "new": True},   # unchanged
            {"truth": "other", "old": True, "new": False}]   # not counted
    f = pss.flips(rows, "old", "new")
    assert f == {"cut": {"to_right": 1, "to_wrong": 0}, "joined": {"to_right": 0, "to_wrong": 1}}
