"""Stage 8 — the next most likely readings, for when the rules reject the first.

Input: the reading's state and its :class:`~vision.plazing.ledger.Ledger`. Output: alternative
readings (each a state, its probability before the rules were consulted, and what was changed), in
order of probability: the runner-up of each of the least certain decisions (a token's next-best
class, a group's next-best split into pieces, a screen's other facing), then pairs of them.

The scan pipeline scores the first reading the rules accept (:func:`beachscore.pipeline.scan_image`);
by Bayes' rule its confidence is its probability among the readings the rules have not rejected.
"""

from __future__ import annotations

import itertools

import numpy as np

from vision.plazing.config import REVISIT, RevisitConfig
from vision.plazing.ledger import Ledger


def alternatives(state: dict, ledger: Ledger, cfg: RevisitConfig = REVISIT) -> list[tuple[dict, float, list[str]]]:
    """Alternative states, most probable first.

    Returns:
        [(state, log probability, [change in words, …])], at most ``cfg.most`` of them.
    """
    base = ledger.log_p()
    doubts = ledger.least_certain(cfg.decisions)
    out = []
    for k in (1, 2):
        for combo in itertools.combinations(doubts, k):
            cells = [set(map(tuple, d.cells)) for d in combo]
            if k == 2 and cells[0] & cells[1]:
                continue  # two changes to the same cells cannot both be written
            st = state
            try:
                for d in combo:
                    st = d.apply_alt(st)
            except (KeyError, ValueError):
                continue
            lp = base + sum(d.log_ratio(ledger.cfg) for d in combo)
            out.append((st, float(lp), ["{1} instead of {0}".format(*d.words()) for d in combo]))
    out.sort(key=lambda x: -x[1])
    return out[:cfg.most]


def conditional_log_p(log_ps: list[float], primary_log_p: float) -> list[float]:
    """Log probability of each alternative given that the primary reading and every alternative
    before it were rejected: p_i / (1 − p_0 − Σ_{j<i} p_j) (the rest of the probability assumed to be
    readings the rules accept, so this is the most the reading can claim)."""
    rest = 1.0 - float(np.exp(primary_log_p))
    out = []
    for lp in log_ps:
        p = float(np.exp(lp))
        out.append(float(np.log(min(p / max(rest, p, 1e-300), 1.0))))
        rest -= p
    return out
