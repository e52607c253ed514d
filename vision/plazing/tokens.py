"""Plażing tokens on free cells: meeples, neutral markers, resources, trash, surprise tokens.

Input: free cells' features (:func:`cell_features`) and the learned :class:`TokenModel`.
Output: per cell, a posterior over bare sand, every token class and "unknown"; how unlike
everything seen at calibration it is.

Idea: a token stands in the middle of a free cell. Each cell's central square is described by
its mean and spread of B, G, R (exact values of the illumination-normalised board, not the
quantised palette: small tokens differ from sand by a few levels), its mean gradient (flat print
vs a 3-D figure) and the shares
of each learned palette colour, all summed with integral images (no per-pixel Python). Token
classes are Gaussians with a pooled, floored covariance learned from the labelled samples
(linear discriminant analysis, Hastie et al., *Elements of Statistical Learning* §4.3). Empty
sand is not one look (plain sand, printed resource spots, ± marks …): every free cell of the
calibration shot that holds no labelled token is kept as an "empty" prototype, and a cell's
empty likelihood is that of its nearest prototype.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.plazing.cells import CellBlocks
from vision.plazing.config import TOKENS, TokenConfig

EMPTY = "empty"
UNKNOWN = "unknown"  #: a cell that no calibration class explains (a hand, an object)
#: Chromaticity (a share in [0, 1]) is scaled to grey-level-like units.
CHROMA_SCALE = 255.0


def BRIGHTNESS_FEATURES(n_features: int) -> tuple[int, int]:  # noqa: N802 - a constant of the layout
    """Indexes of the two brightness features in a feature vector of length ``n_features``
    (:func:`cell_features`: first of the core, first of the centre, the centre's 3 come last)."""
    return (0, n_features - 3)


def cell_features(board_bgr: np.ndarray, gray: np.ndarray, player_blocks: np.ndarray, cells: CellBlocks,
                  cfg: TokenConfig = TOKENS, scratch=None, keep: dict | None = None) -> np.ndarray:
    """Token features of every cell's central square, on exact colour values.

    Args:
        board_bgr: rectified, illumination-normalised board, BGR uint8 (H, W, 3).
        gray: the same board in grey, uint8 (H, W).
        player_blocks: block means of the players' colour masks (uint8 (rows·k, cols·k, P),
            :func:`vision.plazing.cells.player_masks` through ``cells.blocks``). The sand
            colour's share is left out: it swings with lighting near the sand/beige boundary.
        cells: block layout of the grid (:class:`vision.plazing.cells.CellBlocks`).
        scratch: optional ``scratch(name, shape, dtype) -> array`` giving reusable work arrays.
        keep: optional dict that receives the block means of B, G, R and of their squares
            (``"bgr"``, ``"sq"``) for other per-cell measures (the terrain's).
    Returns:
        float64 (rows, cols, 10 + n_players): brightness and chromaticity of the mean colour
        (:func:`bright_chroma`), sd B, G, R, mean gradient of grey (|gx| + |gy| of 3×3 Sobel),
        player-colour shares·100 over
        the central square, then brightness and chromaticity of a smaller centre square (the
        token itself rather than what it lies on).
    """
    alloc = scratch or (lambda name, shape, dtype: np.empty(shape, dtype))
    f = alloc("feat_f", board_bgr.shape, np.float32)
    f2 = alloc("feat_f2", board_bgr.shape, np.float32)
    np.copyto(f, board_bgr, casting="unsafe")
    cv2.multiply(f, f, dst=f2)
    bgr = cells.blocks(f)
    sq = cells.blocks(f2)
    if keep is not None:
        keep["bgr"], keep["sq"] = bgr, sq
    mean, cmean = cells.box_means(bgr, (cfg.core_share, cfg.centre_share))
    var = np.maximum(cells.box_mean(sq, cfg.core_share) - mean ** 2, 0.0)
    grad = cv2.add(cv2.convertScaleAbs(cv2.Sobel(gray, cv2.CV_16S, 1, 0)),
                   cv2.convertScaleAbs(cv2.Sobel(gray, cv2.CV_16S, 0, 1)))  # |gx| + |gy|, saturating
    g = cells.box_mean(cells.blocks(grad), cfg.core_share)[..., None]
    shares = cells.box_mean(player_blocks, cfg.core_share).reshape(mean.shape[:2] + (-1,)) / 255.0 * 100.0
    return np.concatenate([bright_chroma(mean), np.sqrt(var), g / 4.0, shares, bright_chroma(cmean)], axis=-1)


def bright_chroma(bgr: np.ndarray) -> np.ndarray:
    """Mean B, G, R (..., 3) → brightness (mean of the channels) and chromaticity b, r (shares of
    B and R in B+G+R, ×100 by :data:`CHROMA_SCALE`): a darker print of the same colour moves
    only the brightness."""
    total = np.maximum(bgr.sum(axis=-1, keepdims=True), 1.0)
    return np.concatenate([total / 3.0, bgr[..., :1] / total * CHROMA_SCALE, bgr[..., 2:] / total * CHROMA_SCALE],
                          axis=-1)


@dataclass
class TokenModel:
    """Learned token appearance: prototypes in feature space and the spread around them.

    Attributes:
        classes: token class names (calibration labels: ``meeple/red``, ``neutral``, …).
        empties: float64 (E, F) bare calibration cells (plain sand, printed spots …).
        protos: float64 (M, F) token prototypes: each labelled token, and each pasted onto the
            typical bare cells turned, scaled and shifted (:mod:`vision.plazing.augment`).
        proto_class: int (M,) class index of each prototype.
        precision: float64 (F, F) inverse of the base (diagonal) covariance that scales the
            features against each other.
        scale_empty, scale_token: how far (squared distance in the base metric, per feature) a new
            bare cell lies from the nearest calibration bare cell, and a new token from the nearest
            prototype of its class — measured leave-one-out on the calibration shot itself.
        strict: float64 (F, F) the base precision without the allowance for brightness drift: how
            far a cell is from everything seen at calibration (:func:`odd_cells`).
        scale_unknown: the spread (per feature) of every look on the calibrated board, bare cells
            and tokens together: the "unknown" class's scale.
        held_out: the calibration's own tokens and bare cells read in held-out ways
            (:func:`held_out_decisions`): per bin of the chosen class's log-odds
            (:data:`HELD_OUT_BINS`), how many were right and how many wrong — the negative evidence
            ``scripts/fit_plazing.py`` fits the token decisions' slope with.
    """

    classes: list[str]
    empties: np.ndarray
    protos: np.ndarray
    proto_class: np.ndarray
    precision: np.ndarray
    scale_empty: float = 1.0
    scale_token: float = 1.0
    strict: np.ndarray | None = None
    scale_unknown: float = 100.0
    held_out: dict | None = None

    def to_json(self) -> dict:
        """JSON-serialisable form."""
        return {"classes": self.classes, "empties": self.empties.round(3).tolist(),
                "protos": self.protos.round(3).tolist(), "proto_class": [int(x) for x in self.proto_class],
                "precision": self.precision.tolist(), "scale_empty": float(self.scale_empty),
                "scale_token": float(self.scale_token),
                "strict": (self.strict if self.strict is not None else self.precision).tolist(),
                "scale_unknown": float(self.scale_unknown), "held_out": self.held_out}

    @classmethod
    def from_json(cls, d: dict) -> "TokenModel":
        """Inverse of :meth:`to_json` (arrays as float64)."""
        F = len(d["precision"])
        return cls(list(d["classes"]), np.array(d["empties"], np.float64).reshape(-1, F),
                   np.array(d["protos"], np.float64).reshape(-1, F), np.array(d["proto_class"], int),
                   np.array(d["precision"], np.float64), float(d["scale_empty"]), float(d["scale_token"]),
                   np.array(d["strict"], np.float64), float(d["scale_unknown"]), d.get("held_out"))


def learn_tokens(feats: np.ndarray, samples: list[tuple[str, tuple[int, int]]], empty_cells: list[tuple[int, int]],
                 composites=(), tests=(), cfg: TokenConfig = TOKENS) -> TokenModel:
    """Learn token prototypes, the base metric and the leave-one-out spreads.

    Args:
        feats: float64 (rows, cols, F) from :func:`cell_features` on the calibration shot.
        samples: (label, (row, col)) of labelled tokens (and ``sand`` → bare).
        empty_cells: free cells holding no labelled token (bare prototypes).
        composites: (label, feature vector (F,), index into ``samples``) of labelled tokens pasted
            onto other backgrounds (:mod:`vision.plazing.augment`); they become prototypes.
        tests: (label, feature vector (F,)) of labelled tokens and bare cells as no prototype shows
            them (:func:`held_out_decisions`): how often, and how sure, the model is wrong on them
            gives the slope that makes its posteriors probabilities (:attr:`TokenModel.slope`).
    Returns:
        :class:`TokenModel`. The base covariance (diagonal) is the noise between near-identical
        looks — each bare cell against the most similar other bare cell, each composite against
        the most similar composite of its class (÷√2 for two noisy samples) — plus
        ``cfg.covariance_floor`` and the brightness drift allowance. The spreads: each bare cell
        against the other bare cells, each labelled token against the prototypes made from the
        *other* samples of its class (leave-one-out), as the median squared distance per feature.
    """
    F = feats.shape[-1]
    classes = sorted({lab for lab, _ in samples if lab != "sand"})
    empties = [feats[rc] for rc in empty_cells] + [feats[rc] for lab, rc in samples if lab == "sand"]
    empties = np.array(empties).reshape(-1, F)
    real = [(classes.index(lab), feats[rc], i) for i, (lab, rc) in enumerate(samples) if lab in classes]
    comp = [(classes.index(lab), f, i) for lab, f, i in composites if lab in classes]
    everything = real + comp
    protos = np.array([f for _, f, _ in everything]).reshape(-1, F)
    which = np.array([k for k, _, _ in everything], int)
    source = np.array([i for _, _, i in everything], int)
    resid = []
    for X in [empties] + [protos[which == k] for k in range(len(classes))]:
        if len(X) > 2:
            d = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
            np.fill_diagonal(d, np.inf)
            resid.append((X - X[d.argmin(axis=1)]) / np.sqrt(2.0))
    R = np.concatenate(resid) if resid else np.zeros((0, F))
    var = (R * R).sum(axis=0) / max(len(R) - 1, 1) if len(R) else np.zeros(F)
    cov = np.diag(var + cfg.covariance_floor)
    strict = np.linalg.inv(cov)
    # brightness drifts with the light from shot to shot and across the board (the global
    # normalisation removes only the mean): a floor proportional to the typical brightness
    typical = float(np.median(empties[:, 0])) if len(empties) else 128.0
    for i in BRIGHTNESS_FEATURES(F):
        cov[i, i] += (cfg.brightness_drift * typical) ** 2
    precision = np.linalg.inv(cov)
    W = np.linalg.cholesky(precision)
    scale_empty = 1.0
    if len(empties) > 2:
        d = _sq_distances(empties, empties, W)
        np.fill_diagonal(d, np.inf)
        scale_empty = t_scale(d.min(axis=1), F, cfg.t_dof, cfg.min_scale)
    loo = []
    for k, f, i in real:
        others = (which == k) & (source != i)
        if others.any():
            loo.append(float(_sq_distances(f[None], protos[others], W).min()))
    # one sample per class: its own variants (a new token of the class looks at least as different
    # as its turned, scaled copies do from one another) stand in for the other samples
    if not loo:
        for k, f, i in real:
            mine = protos[(which == k) & (source == i)]
            if len(mine) > 2:
                d = _sq_distances(mine, mine, W)
                np.fill_diagonal(d, np.inf)
                loo.append(float(np.median(d.min(axis=1))))
    scale_token = max(t_scale(np.array(loo), F, cfg.t_dof, cfg.min_scale) if loo else 1.0, scale_empty)
    # prototypes closer than the noise to one already kept add nothing but time at scan
    keep = _cover(protos, which, W, cfg.prototype_spacing_d2)  # (sorted by class)
    protos, which = protos[keep], which[keep]
    # "unknown": a look anywhere in the range the whole calibrated board spans (bare cells and every
    # token alike), centred on the nearest prototype
    allx = np.vstack([empties, protos]) if len(protos) else empties
    spread = float(((allx - allx.mean(axis=0)) @ W).var(axis=0).sum()) / F if len(allx) > 1 else 1.0
    scale_unknown = max(spread, scale_token)
    model = TokenModel(classes, empties, protos, which, precision, scale_empty, scale_token, strict, scale_unknown)
    if len(tests):
        model.held_out = held_out_counts(*held_out_decisions(model, tests, cfg))
    return model


#: Edges of the log-odds bins of :attr:`TokenModel.held_out` (a decision at p = 0.5 … 1 − 1e-9).
HELD_OUT_BINS = np.arange(0.0, 21.0, 0.5)


def held_out_counts(p: np.ndarray, right: np.ndarray) -> dict:
    """Decisions (posterior ``p``, ``right``) counted per bin of log-odds (:data:`HELD_OUT_BINS`):
    ``{"logit": bin centres, "right": counts, "wrong": counts}``, bins with none left out."""
    x = np.log(np.clip(p, 1e-9, 1 - 1e-9)) - np.log1p(-np.clip(p, 1e-9, 1 - 1e-9))
    k = np.clip(np.digitize(x, HELD_OUT_BINS) - 1, 0, len(HELD_OUT_BINS) - 1)
    ok = np.bincount(k[right], minlength=len(HELD_OUT_BINS))
    bad = np.bincount(k[~right], minlength=len(HELD_OUT_BINS))
    keep = (ok + bad) > 0
    centres = HELD_OUT_BINS + 0.25
    return {"logit": centres[keep].tolist(), "right": ok[keep].tolist(), "wrong": bad[keep].tolist()}


def held_out_decisions(model: TokenModel, tests, cfg: TokenConfig = TOKENS) -> tuple[np.ndarray, np.ndarray]:
    """The calibration's own tokens and bare cells read by the finished model in ways no prototype
    shows them (another light on the cell, another shadow, another angle and size:
    :data:`~vision.plazing.config.HELD_OUT`), as a scan reads a token: the most probable known class.
    Each class's prior is equal (a scan's priors come from its own photo).

    Args:
        tests: [(label, features (F,))]: a token label, or ``sand`` for a bare cell.
    Returns:
        (posterior of the class chosen float64 (n,), whether it is the right one bool (n,)).
    """
    X = np.array([f for _, f in tests], np.float64)
    want = np.array([0 if lab == "sand" else model.classes.index(lab) + 1 for lab, _ in tests])
    de, dk = token_distances(X, model)
    post = token_posteriors(de, dk, model, X.shape[1], replace(cfg, prior_iterations=0))
    known = post.post[:, :-1]
    best = known.argmax(axis=1)
    return known[np.arange(len(best)), best], best == want





def _cover(X: np.ndarray, which: np.ndarray, W: np.ndarray, d2_min: float) -> np.ndarray:
    """Indices of a subset of each class's prototypes such that every prototype lies within
    squared distance ``d2_min`` of a kept one of its class (greedy, in order); grouped by class."""
    keep = []
    for k in np.unique(which):
        idx = np.flatnonzero(which == k)
        Y = X[idx] @ W
        kept = []
        for j in range(len(idx)):
            if not kept or float(((Y[kept] - Y[j]) ** 2).sum(axis=1).min()) > d2_min:
                kept.append(j)
        keep += [int(idx[j]) for j in kept]
    return np.array(keep, int)


def t_scale(d2: np.ndarray, F: int, nu: float, floor: float) -> float:
    """Maximum-likelihood scale of a multivariate Student t (``nu`` degrees of freedom, ``F``
    dimensions) from squared distances ``d2`` (leave-one-out: each cell against the others), at
    least ``floor``: the spread that best predicts a new cell of the class.

    >>> round(t_scale(np.full(50, 14.0), 14, 1e9, 0.01), 1)  # Gaussian limit: mean d² / F
    1.0
    """
    d2 = np.asarray(d2, np.float64)
    d2 = d2[np.isfinite(d2)]
    if not len(d2):
        return 1.0
    grid = np.exp(np.linspace(np.log(floor), np.log(max(float(d2.max()), floor * 10)), 400))
    ll = [float(np.sum(-0.5 * F * np.log(s) - 0.5 * (nu + F) * np.log1p(d2 / (nu * s)))) for s in grid]
    return float(max(grid[int(np.argmax(ll))], floor))


def token_mask(patch_bgr: np.ndarray, cfg: TokenConfig = TOKENS) -> np.ndarray:
    """Pixels of a token standing in a cell: those that differ from the cell's background colour.

    Args:
        patch_bgr: the cell cut out of the rectified, normalised board, BGR uint8 (h, w, 3).
    Returns:
        bool (h, w): pixels whose colour is farther from the background (median of the patch's
        outer border) than ``cfg.token_share_of_contrast`` of the token's own contrast (the 98th
        percentile in the centre) and at least ``cfg.token_contrast_bgr``; only the connected
        parts that reach the centre square (not printed lines at the cell's edge).
    """
    border = np.concatenate([patch_bgr[0], patch_bgr[-1], patch_bgr[:, 0], patch_bgr[:, -1]]).astype(np.float32)
    bg = np.median(border, axis=0)
    d = np.linalg.norm(patch_bgr.astype(np.float32) - bg, axis=-1)
    h, w = d.shape
    cy0, cy1 = int(h * (1 - cfg.core_share) / 2), int(h * (1 + cfg.core_share) / 2)
    cx0, cx1 = int(w * (1 - cfg.core_share) / 2), int(w * (1 + cfg.core_share) / 2)
    peak = float(np.percentile(d[cy0:cy1, cx0:cx1], 98)) if cy1 > cy0 and cx1 > cx0 else 0.0
    thr = max(cfg.token_contrast_bgr, cfg.token_share_of_contrast * peak)
    m = (d > thr).astype(np.uint8)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, lab = cv2.connectedComponents(m, connectivity=8)
    keep = np.zeros(n, bool)
    keep[np.unique(lab[cy0:cy1, cx0:cx1])] = True
    keep[0] = False
    return keep[lab]


def background_cells(feats: np.ndarray, cells: list[tuple[int, int]],
                     cfg: TokenConfig = TOKENS) -> list[tuple[int, int]]:
    """A few typical empty cells: the medoids of a k-means clustering (seeded) of the empty
    cells' features (plain sand, printed resource spots, ± marks …).

    Args:
        feats: float64 (rows, cols, F); cells: the empty cells to choose from.
    Returns:
        up to ``cfg.background_kinds`` cells.
    """
    if not cells:
        return []
    X = np.array([feats[c] for c in cells], np.float32)
    k = min(cfg.background_kinds, len(cells))
    if k < 2:
        return [cells[0]]
    cv2.setRNGSeed(0)
    _, lab, centres = cv2.kmeans(X, k, None, (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 50, 1e-3), 3,
                                 cv2.KMEANS_PP_CENTERS)
    out = []
    for j in range(k):
        idx = np.flatnonzero(lab.ravel() == j)
        if len(idx):
            out.append(cells[int(idx[np.argmin(np.linalg.norm(X[idx] - centres[j], axis=1))])])
    return out


#: Largest matrix product (multiply-adds) done in one BLAS call: numpy's BLAS goes multi-threaded
#: above ~2.6e5, and on a busy 2-core Pi waking its threads costs more than the product.
MAX_BLAS_MACS = 200_000


def small_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for a (N, K) and b (K, M), in row chunks small enough for a single-threaded BLAS call."""
    rows = max(1, MAX_BLAS_MACS // max(a.shape[1] * b.shape[1], 1))
    if len(a) <= rows:
        return a @ b
    out = np.empty((len(a), b.shape[1]), np.result_type(a.dtype, b.dtype))
    for i in range(0, len(a), rows):  # each chunk's product written in place (no joining copy)
        np.matmul(a[i:i + rows], b, out=out[i:i + rows])
    return out


def _sq_distances(x: np.ndarray, centres: np.ndarray, W: np.ndarray, side=None) -> np.ndarray:
    """Squared Mahalanobis distances |(x − c) W|², float64 (N, M), for x (N, F), centres (M, F).
    ``side``: the centres' part (:func:`_centre_side`) when the caller has it."""
    if len(centres) == 0:
        return np.full((len(x), 0), np.inf)
    a = small_matmul(x, W)
    bT, bb = side if side is not None else _centre_side(centres, W)
    # (|a|² + |b|²) − 2 a·b, with 2 a·b as (2a)·b (exact: doubling is) and the rest in place
    d = np.add.outer((a * a).sum(1), bb)
    d -= small_matmul(a * 2.0, bT)
    return np.maximum(d, 0.0, out=d)


def _centre_side(centres: np.ndarray, W: np.ndarray):
    """What :func:`_sq_distances` needs of the centres alone: (c W)ᵀ contiguous, |c W|² per centre."""
    b = small_matmul(centres, W)
    return np.ascontiguousarray(b.T), (b * b).sum(1)


def _scan_constants(model: "TokenModel") -> dict:
    """What every scan of one calibration needs of its token model alone, made on first use and
    kept with it (made again if the model's arrays are replaced): the precision's Cholesky factor,
    the bare cells' and prototypes' side of the distances, the strict metric's factor and all
    references stacked."""
    key = (model.precision, model.empties, model.protos, model.strict)
    got = model.__dict__.get("_scan_constants")
    if got is not None and all(a is b for a, b in zip(got[0], key)):
        return got[1]
    W = np.linalg.cholesky(model.precision)
    c = {"W": W,
         "empties": _centre_side(model.empties, W) if len(model.empties) else None,
         "protos": _centre_side(model.protos, W) if len(model.protos) else None}
    refs = [r for r in (model.empties, model.protos) if len(r)]
    if refs:
        c["Ws"] = np.linalg.cholesky(model.strict if model.strict is not None else model.precision)
        c["allrefs"] = np.vstack(refs)
    model.__dict__["_scan_constants"] = (key, c)
    return c


@dataclass
class TokenPosteriors:
    """Token decisions of N free cells.

    Attributes:
        names: list of N chosen class names (:data:`EMPTY`, a token class, or :data:`UNKNOWN`).
        post: float64 (N, K + 2) posterior of [empty, class 0 … K − 1, unknown] per cell.
        names_all: the K + 2 names in the order of ``post``.
    """

    names: list
    post: np.ndarray
    names_all: list

    @property
    def p(self) -> np.ndarray:
        """float64 (N,): posterior of each cell's chosen class."""
        return self.post.max(axis=1)

    @property
    def p_unknown(self) -> np.ndarray:
        """float64 (N,): posterior that nothing learned explains the cell (a hand, an object)."""
        return self.post[:, -1]

    def runner_up(self, i: int) -> tuple[str, float]:
        """The second most probable known class of cell ``i`` and its posterior."""
        order = np.argsort(-self.post[i, :-1])
        j = int(order[1]) if len(order) > 1 else int(order[0])
        return self.names_all[j], float(self.post[i, j])


def _log_t(d2: np.ndarray, scale: float, F: int, nu: float) -> np.ndarray:
    """Log density (up to a constant shared by every class) of a multivariate Student t with ``nu``
    degrees of freedom and covariance ``scale`` × the base covariance, at squared base distance d²."""
    return -0.5 * F * np.log(scale) - 0.5 * (nu + F) * np.log1p(d2 / (nu * scale))


def _posterior(logl: np.ndarray, prior: np.ndarray) -> np.ndarray:
    logp = logl + np.log(prior)
    logp -= logp.max(axis=1, keepdims=True)
    post = np.exp(logp)
    return post / post.sum(axis=1, keepdims=True)


def classify_tokens(feats: np.ndarray, model: TokenModel, cfg: TokenConfig = TOKENS,
                    keep: dict | None = None) -> TokenPosteriors:
    """Posterior of every cell's token class, bare sand, or "unknown".

    Each class's likelihood is a multivariate Student t (``cfg.t_dof`` degrees of freedom: heavy
    tails, so one odd feature does not decide; Lange, Little & Taylor 1989) around its nearest
    prototype, scaled by the class's leave-one-out spread (times ``cfg.scene_spread``); "unknown" is
    the same density with the spread of the whole calibrated board's looks, with prior
    ``cfg.unknown_prior``; bare sand and the token classes share the rest of the prior as common as
    they are in this photo (EM on the mixing proportions, ``cfg.prior_iterations`` rounds).

    Args:
        feats: float64 (N, F) features of the cells to classify.
        keep: optional dict receiving the distances (:func:`token_distances`).
    """
    de, dk = token_distances(feats, model, keep=keep)
    return token_posteriors(de, dk, model, feats.shape[1], cfg)


def token_distances(feats: np.ndarray, model: TokenModel, W: np.ndarray | None = None,
                    keep: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Squared base distances of each cell to the nearest bare calibration cell and to each token
    class's nearest prototype: float64 (N,), float64 (N, K). ``W``: the precision's Cholesky factor
    when the caller has it; ``keep``: a dict that receives the distances to every bare cell and
    prototype (``"empties"`` (N, E), ``"protos"`` (N, M)) for :func:`odd_cells`."""
    sides = {}
    if W is None:  # precision = W Wᵀ, so d² = |(x − m) W|²
        sides = _scan_constants(model)
        W = sides["W"]
    N = len(feats)
    K = len(model.classes)
    da = _sq_distances(feats, model.empties, W, sides.get("empties")) if len(model.empties) else np.full((N, 0), np.inf)
    de = da.min(axis=1, initial=np.inf)
    dk = np.full((N, K), np.inf)
    dp = np.full((N, 0), np.inf)
    if len(model.protos):
        dp = _sq_distances(feats, model.protos, W, sides.get("protos"))
        cls = model.proto_class
        if len(cls) and np.all(cls[1:] >= cls[:-1]):  # grouped by class (as learned): one pass
            starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]])
            dk[:, cls[starts]] = np.minimum.reduceat(dp, starts, axis=1)
        else:
            for k in range(K):
                sel = cls == k
                if sel.any():
                    dk[:, k] = dp[:, sel].min(axis=1)
    if keep is not None:
        keep["empties"], keep["protos"] = da, dp
    return de, dk


def token_posteriors(de: np.ndarray, dk: np.ndarray, model: TokenModel, F: int,
                     cfg: TokenConfig = TOKENS) -> TokenPosteriors:
    """:func:`classify_tokens` from the distances of :func:`token_distances` (``F`` features)."""
    K = len(model.classes)
    nu = cfg.t_dof
    k = cfg.scene_spread
    logl = np.concatenate([_log_t(de, k * model.scale_empty, F, nu)[:, None], _log_t(dk, k * model.scale_token, F, nu),
                           _log_t(np.minimum(de, dk.min(axis=1, initial=np.inf)), model.scale_unknown, F, nu)[:, None]],
                          axis=1)
    # how common bare sand and each token are in this photo (empirical Bayes: EM on the mixing
    # proportions, a Dirichlet pseudo-count of one per class); "unknown" keeps its fixed prior
    prior = np.full(K + 2, (1.0 - cfg.unknown_prior) / (K + 1))
    prior[-1] = cfg.unknown_prior
    for _ in range(cfg.prior_iterations):
        post = _posterior(logl, prior)
        counts = post[:, :-1].sum(axis=0) + 1.0
        prior[:-1] = (1.0 - cfg.unknown_prior) * counts / counts.sum()
    post = _posterior(logl, prior)
    names = [EMPTY] + model.classes + [UNKNOWN]
    return TokenPosteriors([names[b] for b in post.argmax(axis=1)], post, names)


def _first_min(da: np.ndarray, dp: np.ndarray, rows: np.ndarray):
    """``argmin`` and ``min`` per row of ``np.hstack([da, dp])`` (the first minimum; a NaN, as
    numpy's, counts as the minimum), from the two halves."""
    E = da.shape[1]
    if not E or not dp.shape[1]:  # one half only: its own indices are the joined ones
        base = da if E else dp
        first = base.argmin(axis=1)
        return first, base[rows, first]
    ia, ip = da.argmin(axis=1), dp.argmin(axis=1)
    va, vp = da[rows, ia], dp[rows, ip]
    use_a = np.isnan(va) | ~((vp < va) | np.isnan(vp))
    return np.where(use_a, ia, E + ip), np.where(use_a, va, vp)


def odd_cells(feats: np.ndarray, model: TokenModel, limit: float, dists: dict | None = None) -> np.ndarray:
    """Which cells are unlike everything seen at calibration.

    A cell is odd when its Mahalanobis distance in the strict base metric (no allowance for
    brightness drift) to the nearest bare cell or token prototype of the calibration exceeds
    ``limit``. A lone odd cell is a smudge or a token in an unusual light; a blob of them is
    something over the board. The strict metric is never shorter than the base one (it only lacks
    the drift's variance), so only the references within ``limit`` in the base metric are measured
    again (``dists``: :func:`token_distances`'s ``keep``; without it every reference is).

    Args:
        feats: float64 (N, F) cell features.
    Returns:
        bool (N,).
    """
    if not (len(model.empties) or len(model.protos)):
        return np.zeros(len(feats), bool)
    sc = _scan_constants(model)
    Ws, allrefs = sc["Ws"], sc["allrefs"]
    lim2 = float(limit) ** 2
    if dists is None:
        return _sq_distances(feats, allrefs, Ws).min(axis=1) > lim2
    da, dp = dists["empties"], dists["protos"]

    def within(i, j):  # strict d² ≤ lim² for the pairs (cell i, reference j)
        d = small_matmul(feats[i] - allrefs[j], Ws)
        return (d * d).sum(axis=1) <= lim2

    # the nearest reference in the base metric settles almost every cell; the rest try all within reach
    near = np.zeros(len(feats), bool)
    rows = np.arange(len(feats))
    first, nearest = _first_min(da, dp, rows)  # as over the two side by side, without joining them
    reach = nearest <= lim2
    near[reach] = within(rows[reach], first[reach])
    left = reach & ~near
    if left.any():
        i, j = np.nonzero(np.hstack([da[left], dp[left]]) <= lim2)
        i = np.flatnonzero(left)[i]
        near[i[within(i, j)]] = True
    return ~near
