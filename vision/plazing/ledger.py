"""Stage 7 — confidence: every decision of a reading with its posterior, and what its runner-up is.

Input: the decisions the stages take (a cell's cover, a free cell's token, a group's split into
pieces, a screen's facing, a terrain cell read from the photo), each with the posterior of the
choice and, where one exists, the runner-up and its posterior. Output: the reading's confidence,
per-cell confidence, and the least certain decisions with their runner-ups (what the reader
revisits when the rules reject its reading, :mod:`vision.plazing.revisit`).

The reading is right when every decision is: its confidence is the product of the decisions'
posteriors (each cell and piece is decided on its own evidence, so they are treated as
independent), each first made a probability of being right (its log-odds scaled per kind of
decision), then mapped through :data:`~vision.plazing.config.CONFIDENCE` (a logistic map); both
are fitted on development set-ups so that the number is a probability: among readings at 0.8,
four in five are right.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.plazing.config import CONFIDENCE, ConfidenceConfig


@dataclass
class Decision:
    """One decision of a reading.

    Attributes:
        kind: ``cover``, ``token``, ``split``, ``facing`` or ``terrain``.
        cells: the cells it is about, [(row, col)].
        p: posterior of the choice.
        text: the choice in words ("a red meeple on D3"), or a function giving it (words are only
            written for the decisions someone reads about).
        alt_p: posterior of the runner-up (0 when there is none).
        alt_text: the runner-up in words (or a function giving them).
        apply_alt: ``state -> state`` giving the reading with the runner-up instead (a new dict), or
            None when the runner-up cannot be written into a state on its own.
        alt_log_ratio: log of P(reading with the runner-up) / P(this reading) when it is not
            log(alt_p / p) (the runner-up also replaces other decisions); None otherwise.
        claim: what was decided, as data (``scripts/fit_plazing.py`` checks it against the truth):
            token ``(cell, name)``, cover ``(cell, covered)``, split ``[(kind, cells)]``, facing
            ``(cells, facing)``, print ``cells``, terrain ``(cell, character)``.
    """

    kind: str
    cells: list
    p: float
    text: object = ""
    alt_p: float = 0.0
    alt_text: object = ""
    apply_alt: object = None
    alt_log_ratio: float | None = None
    claim: object = None

    def log_ratio(self, cfg: "ConfidenceConfig" = None) -> float:
        """log P(reading with the runner-up) − log P(this reading), with the choice's calibrated
        posterior (:func:`calibrated_p`) and the runner-up's share of what is left."""
        if self.alt_log_ratio is not None:
            return self.alt_log_ratio
        p = float(calibrated_p(self.kind, self.p, cfg or CONFIDENCE))
        alt = (1.0 - p) * self.alt_p / max(1.0 - self.p, 1e-12)
        return float(np.log(max(alt, 1e-300)) - np.log(p))

    def words(self) -> tuple[str, str]:
        """(the choice, the runner-up) in words."""
        return tuple(t() if callable(t) else t for t in (self.text, self.alt_text))


@dataclass
class Ledger:
    """The decisions of one reading: single ones (:class:`Decision`) and, for the many per-cell
    decisions that have no runner-up worth trying, arrays of posteriors."""

    shape: tuple
    decisions: list = field(default_factory=list)
    bulk: list = field(default_factory=list)  #: [(kind, cells int (n, 2), posteriors (n,), claims (n,))]
    cfg: ConfidenceConfig = CONFIDENCE  #: how this reading's posteriors are calibrated
    px_per_mm: float = 0.0  #: the photo's scale, px per board mm as read (0: unknown); ``cfg`` is for it

    @classmethod
    def for_photo(cls, shape: tuple, px_per_mm: float, cfg: ConfidenceConfig = CONFIDENCE) -> "Ledger":
        """An empty ledger whose posteriors are calibrated for a photo of this scale
        (:meth:`~vision.plazing.config.ConfidenceConfig.at_scale`)."""
        return cls(shape, cfg=cfg.at_scale(px_per_mm), px_per_mm=float(px_per_mm))

    def add(self, decision: Decision) -> Decision:
        """Record a decision (its posterior clipped into (0, 1])."""
        decision.p = float(min(max(decision.p, 1e-12), 1.0))
        self.decisions.append(decision)
        return decision

    def add_many(self, kind: str, cells: np.ndarray, p: np.ndarray, claims=None) -> None:
        """Record many one-cell decisions with no runner-up to try (the cover of each cell); ``claims``
        says what each decided (as :attr:`Decision.claim` without the cell)."""
        cells = np.asarray(cells, int).reshape(-1, 2)
        self.bulk.append((kind, cells, np.clip(np.asarray(p, np.float64), 1e-12, 1.0),
                          list(claims) if claims is not None else [None] * len(cells)))

    def log_p(self, cfg: ConfidenceConfig | None = None) -> float:
        """Sum of the calibrated log posteriors (:func:`calibrated_p`): log of the probability that
        every decision is right."""
        cfg = cfg or self.cfg
        return float(sum(np.log(calibrated_p(d.kind, d.p, cfg)).sum() for d in self.decisions)
                     + sum(np.log(calibrated_p(kind, p, cfg)).sum() for kind, _, p, _ in self.bulk))

    def confidence(self, cfg: ConfidenceConfig | None = None) -> float:
        """Probability that the whole reading is right (see the module docstring)."""
        cfg = cfg or self.cfg
        return calibrated(self.log_p(cfg), cfg)

    def cell_confidence(self) -> np.ndarray:
        """float64 (rows, cols): per cell, the product of the posteriors of the decisions about it."""
        out = np.ones(self.shape)
        for d in self.decisions:
            for r, c in d.cells:
                out[r, c] *= d.p
        for _, cells, p, _ in self.bulk:
            np.multiply.at(out, (cells[:, 0], cells[:, 1]), p)
        return out

    def least_certain(self, n: int) -> list:
        """The ``n`` decisions whose runner-up is most probable relative to the choice, that have
        a runner-up that can be written into a state."""
        cand = [d for d in self.decisions if d.apply_alt is not None and d.alt_p > 0]
        cand.sort(key=lambda d: d.log_ratio(self.cfg), reverse=True)
        return cand[:n]


def calibrated_p(kind: str, p, cfg: ConfidenceConfig = CONFIDENCE):
    """A decision's posterior made a probability of being right: its log-odds scaled by the
    decision kind's slope (``cfg.slopes``, fitted by ``scripts/fit_plazing.py``: e.g. a split's
    posterior, humble about pieces pressed together, is right more often than it says). Works on
    floats and arrays."""
    b = cfg.slopes.get(kind, 1.0)
    p = np.clip(np.asarray(p, np.float64), 1e-12, 1 - 1e-12)
    if b == 1.0:
        return p
    return 1.0 / (1.0 + np.exp(-b * (np.log(p) - np.log1p(-p))))


def calibrated(log_p: float, cfg: ConfidenceConfig = CONFIDENCE) -> float:
    """The product of posteriors (as its log) mapped to a probability of being right: logistic in
    its log-odds, ``1 / (1 + exp(−(a + b·logit p)))`` (Platt scaling) with ``a = cfg.intercept``,
    ``b = cfg.slope``; ``a = 0, b = 1`` trusts the product as it is."""
    p = float(np.exp(log_p))
    if p >= 1.0:
        p = 1.0 - 1e-12
    logit = np.log(p) - np.log1p(-p)
    z = cfg.intercept + cfg.slope * logit
    return float(1.0 / (1.0 + np.exp(-z)))
