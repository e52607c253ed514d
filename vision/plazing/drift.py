"""Plażing tokens: the scene's colour drift, measured on the tokens the photo itself shows surely.

Input: the free cells' features and first-pass posteriors, and the calibration's
:class:`~vision.plazing.tokens.TokenModel`. Output: a shift per token class of its prototypes in
the colour features (:func:`scene_drift`), and the model so moved (:func:`drifted`), with which
the reader reads the cells again.

A class with sure cells of its own drifts by their mean residual, the others borrow the common
shift of every sure token. The guard (:func:`hold_unsure_odds`): the second reading never makes a
class that drifted by its own sure cells likelier, against the first reading, than a class whose
own drift the photo does not show, so that no class is moved onto such a class's cells.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.plazing.config import TOKENS, TokenConfig
from vision.plazing.tokens import TokenModel, TokenPosteriors, _scan_constants, _sq_distances


def COLOUR_FEATURES(n_features: int) -> tuple[int, ...]:  # noqa: N802 - a constant of the layout
    """Indexes of the colour features (brightness and chromaticity b, r of the core, then of the
    centre: :func:`~vision.plazing.tokens.cell_features`) in a feature vector of length ``n_features``."""
    return (0, 1, 2, n_features - 3, n_features - 2, n_features - 1)


def hold_unsure_odds(again: np.ndarray, first: np.ndarray, own: np.ndarray) -> np.ndarray:
    """The second reading's posteriors with no token class that drifted by its own sure cells
    gaining odds, against the first reading, over a token class that has no sure cells of its own.

    The latter's own drift is not shown by the photo (it borrows the common shift), so a cell
    between the two stays as sure of either as the calibration's prototypes made it; the odds of
    the sure classes against each other and against bare sand are the second reading's.

    Args:
        again: float (N, K + 2) the second reading's posteriors (bare sand, the K token classes,
            "unknown"), after the flatness weighing.
        first: float (N, K + 2) the first reading's, likewise.
        own: bool (K,) whether each token class drifted by its own sure cells (:func:`scene_drift`'s
            ``keep["own"]``).
    Returns:
        float64 (N, K + 2), rows summing to 1: each unsure class j's posterior raised to at least
        ``again[k] · first[j] / first[k]`` for every sure class k with ``first[k] > 0``, then the
        row renormalised (which leaves every such odds k : j at most its first-reading value).
    """
    own = np.asarray(own, bool)
    out = np.array(again, np.float64)
    if own.all() or not own.any():
        return out
    p = np.asarray(first, np.float64)
    S, U = np.flatnonzero(own) + 1, np.flatnonzero(~own) + 1
    pk = p[:, S]
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(pk > 0, out[:, S] / pk, 0.0).max(axis=1)  # (N,) the most q_k / p_k
    out[:, U] = np.maximum(out[:, U], p[:, U] * gain[:, None])
    return out / out.sum(axis=1, keepdims=True)


def scene_drift(feats: np.ndarray, post: TokenPosteriors, model: TokenModel, dists: dict,
                cfg: TokenConfig = TOKENS, keep: dict | None = None) -> np.ndarray | None:
    """How far this photo's tokens have drifted in colour from the calibration's, per token class,
    measured on the tokens the photo itself shows surely.

    A cell read as token class k with posterior at least ``cfg.drift_sure`` gives its residual
    from the nearest prototype of k in the colour features (:func:`COLOUR_FEATURES`); a class with
    at least ``cfg.drift_min_cells`` such cells drifts by their mean residual, the others by the mean
    over every sure token cell (none when fewer than ``cfg.drift_min_total`` in all), in
    ``cfg.drift_rounds`` rounds (each round's nearest prototypes moved by the last round's shift);
    the shift is that times ``cfg.drift_share``. Bare sand never drifts (the light normalisation
    is measured on the board's print; bare cells are many looks, not one).

    Args:
        feats: float64 (N, F) the free cells' features (:func:`~vision.plazing.tokens.cell_features`).
        post: their first-pass posteriors (:func:`~vision.plazing.tokens.classify_tokens`, the
            reader's after the flatness weighing).
        dists: :func:`~vision.plazing.tokens.token_distances`'s ``keep`` for ``feats``
            (``"protos"``: float64 (N, M) squared distances to every prototype).
        keep: when given, ``keep["own"]`` is set to bool (K,): which classes drifted by their own
            sure cells (the others borrowed; :func:`hold_unsure_odds`).
    Returns:
        float64 (K, F) the shift of each token class's prototypes, feature units (0 outside the
        colour features), or None when nothing is shifted.
    """
    K, F = len(model.classes), feats.shape[1]
    dp = dists.get("protos")
    if cfg.drift_share <= 0 or not K or dp is None or not dp.size:
        return None
    known = post.post[:, :-1]
    best = known.argmax(axis=1)
    sure = (best > 0) & (known[np.arange(len(best)), best] >= cfg.drift_sure)
    if sure.sum() < cfg.drift_min_total:
        return None
    cols = list(COLOUR_FEATURES(F))
    idx = np.flatnonzero(sure)
    cls = best[idx] - 1
    shift = np.zeros((K, F))
    for r in range(max(1, cfg.drift_rounds)):
        sums, counts = np.zeros((K, len(cols))), np.zeros(K)
        for k in np.unique(cls).tolist():
            mine = np.flatnonzero(model.proto_class == k)
            rows = idx[cls == k]
            if r == 0:  # the first round's nearest prototypes are the first pass's
                d = dp[np.ix_(rows, mine)]
            else:
                d = _sq_distances(feats[rows], model.protos[mine] + shift[k], _scan_constants(model)["W"])
            j = mine[d.argmin(axis=1)]
            sums[k] = (feats[np.ix_(rows, cols)] - model.protos[np.ix_(j, cols)]).sum(axis=0)
            counts[k] = len(rows)
        own = counts >= cfg.drift_min_cells
        overall = sums.sum(axis=0) / counts.sum()
        moved = np.where(own[:, None], sums / np.maximum(counts, 1)[:, None], overall[None, :])
        shift[:, cols] = moved
    if keep is not None:
        keep["own"] = own
    return shift * cfg.drift_share


def drifted(model: TokenModel, shift: np.ndarray) -> TokenModel:
    """The model with each token class's prototypes moved by ``shift`` (float64 (K, F),
    :func:`scene_drift`); everything else shared with ``model``."""
    return replace(model, protos=model.protos + shift[model.proto_class])
