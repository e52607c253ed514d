"""The confidence of a Strand unter reading: the product of its decisions' posteriors.

Input: every decision the stages made, each with the posterior probability that it is right
(sea front, each castle's value, owner and groove, each shell part's colour, count and groove,
the sandpiper, that nothing unexplained hides a piece, the registration) and the sentence to
show when it is unsure.
Output: ``(confidence, warnings)``: the probability that the whole state is right, taking the
decisions as independent (their product), bounded by ``cap`` where a stage lacks positive
evidence; the warnings name every decision less sure than ``doubt_below`` (the weakest first)
after the stages' own remarks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import math

from vision.strand_unter.config import CONFIDENCE


def calibrated(p: float, slope: float) -> float:
    """A posterior ``p`` in [0, 1] with its log-odds multiplied by ``slope`` (Platt scaling through
    the origin: 0.5 stays 0.5; a slope below 1 makes the stage less sure).

    >>> round(calibrated(0.9, 0.5), 3), calibrated(1.0, 0.5), calibrated(0.7, 1.0)
    (0.75, 1.0, 0.7)
    """
    if slope == 1.0 or p <= 0.0 or p >= 1.0:
        return p
    return 1.0 / (1.0 + math.exp(-slope * math.log(p / (1.0 - p))))


@dataclass
class Decisions:
    """The decisions of one reading (see the module docstring)."""

    items: list = field(default_factory=list)       # (what, posterior, sentences)
    doubts: list = field(default_factory=list)      # remarks that are no decision (a moved board, uneven light)
    cap: float = 1.0

    def add(self, what: str, posterior: float, sentences, kind: str | None = None, cfg=CONFIDENCE) -> None:
        """Record one decision and the sentences that explain it when it is unsure.

        ``kind`` (``"castle value"``, ``"shell count"``, …) names the fitted slope
        (``cfg.slopes``) that turns the stage's posterior into the probability of being right.
        """
        q = min(max(float(posterior), 0.0), 1.0)
        if kind is not None:
            q = calibrated(q, cfg.slopes.get(kind, 1.0))
        self.items.append((what, q, list(sentences)))

    def result(self, cfg=CONFIDENCE) -> tuple[float, list[str]]:
        """(confidence in [0, cap], warnings)."""
        p = 1.0
        for _, q, _ in self.items:
            p *= q
        warnings = list(self.doubts)
        for what, q, sentences in sorted(self.items, key=lambda t: t[1]):
            if q < cfg.doubt_below:
                warnings += [s for s in sentences if s not in warnings]
        return min(p, self.cap), warnings

    def table(self) -> list:
        """``[(what, posterior)]`` rounded, for the logs."""
        return [(what, round(q, 4)) for what, q, _ in self.items]
