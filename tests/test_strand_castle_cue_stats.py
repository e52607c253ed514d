"""Pure helpers of scripts/strand_castle_cue_stats.py."""

import numpy as np

from tests.script_module import load_script

m = load_script("strand_castle_cue_stats")


def _row(**kw):
    r = {"towers": 2, "towers_p": {v: [0.1, 0.1, 0.7, 0.1] if v == "1" else [0.7, 0.1, 0.1, 0.1] for v in m.VALUES},
         "towers_seen": {"0": 1, "1": 2, "2": 3, "3": 3}, "tower_reliability": 0.5, "true": 1, "read": 1,
         "player": "red", "ll_platform": [-3.0, 0.0, -3.0, -6.0], "ll_footprint": [-1.0, 0.0, -1.0, -2.0]}
    r.update(kw)
    r["ll_towers"] = m.tower_ll(r).tolist()
    return r


def test_tower_ll_as_the_reader_builds_it():
    r = _row()
    # own count 2 at value 1 (=k): (1 + 0.7) / 2 = 0.85; value 0: (0 + 0.1) / 2; mixed with reliability 0.5 over 4 counts
    want = np.array([0.5 * 0.05 + 0.125, 0.5 * 0.85 + 0.125, 0.5 * 0.05 + 0.125, 0.5 * 0.05 + 0.125])
    assert np.allclose(m.tower_ll(r, 1.0), np.log(want))
    assert np.allclose(m.tower_ll(r, 0.0), 0.0)
    assert np.allclose(m.tower_ll(r, 1.0, reliability=0.0), np.log(0.25))


def test_rank_posterior_guide():
    assert m.rank_of([0.0, 1.0, 1.0, -1.0], 2) == 1 and m.rank_of([0.0, 1.0, 0.5, -1.0], 0) == 3
    assert np.isclose(m.posterior(np.zeros(4)).sum(), 1.0)
    rows = [_row(), _row(true=0, read=1)]
    g = m.guide(rows, lambda r: m.cue_ll(r, "platform"))
    assert g["wrong"] == 1 and g["wrong>=0.8"] == 1 and g["reader_wrong_backed"] == 1
    assert m.temper_scale(20.0, 40.0) == 0.5 and m.temper_scale(-5.0, 40.0) == 0.0


def test_agreement_and_cue_table():
    rows = [_row(towers=2), _row(towers=4), _row(towers=1, true=0, read=1)]
    a = m.agreement(rows)
    assert a["agree"] == round(2 / 3, 4) and a["too_many"] == round(1 / 3, 4)
    t = m.cue_table(rows)
    assert t["platform"]["wrong_favoured"] == "1/1"
