"""Plażing tokens on free cells: meeples, neutral markers, resources, trash, surprise tokens.

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

from dataclasses import dataclass

import cv2
import numpy as np

from vision.plazing.cells import CellBlocks
from vision.plazing.config import TOKENS, TokenConfig

EMPTY = "empty"
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
    mean = cells.box_mean(bgr, cfg.core_share)
    var = np.maximum(cells.box_mean(sq, cfg.core_share) - mean ** 2, 0.0)
    grad = cv2.add(cv2.convertScaleAbs(cv2.Sobel(gray, cv2.CV_16S, 1, 0)),
                   cv2.convertScaleAbs(cv2.Sobel(gray, cv2.CV_16S, 0, 1)))  # |gx| + |gy|, saturating
    g = cells.box_mean(cells.blocks(grad), cfg.core_share)[..., None]
    shares = cells.box_mean(player_blocks, cfg.core_share).reshape(mean.shape[:2] + (-1,)) / 255.0 * 100.0
    cmean = cells.box_mean(bgr, cfg.centre_share)
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
    """Learned token appearance.

    Attributes:
        classes: token class names (calibration labels: ``meeple/red``, ``neutral``, …).
        means: float64 (K, F) class means.
        empties: float64 (E, F) empty-cell prototypes.
        empty_marks: terrain character of each prototype's cell ('.', '+', '-', 'x').
        precision: float64 (F, F) inverse pooled covariance.
        protos: float64 (M, F) extra prototypes of the classes: each labelled token pasted onto
            the typical empty backgrounds of the calibration shot (plain sand, printed spots …).
        proto_class: int (M,) class index of each extra prototype.
        strict: float64 (F, F) inverse covariance without the brightness-drift allowance: how
            far a cell is from everything seen at calibration (:func:`strangeness`).
    """

    classes: list[str]
    means: np.ndarray
    empties: np.ndarray
    precision: np.ndarray
    empty_marks: str = ""
    protos: np.ndarray | None = None
    proto_class: np.ndarray | None = None
    strict: np.ndarray | None = None

    def to_json(self) -> dict:
        """JSON-serialisable form."""
        protos = self.protos if self.protos is not None else np.zeros((0, self.means.shape[1]))
        which = self.proto_class if self.proto_class is not None else np.zeros(0, int)
        return {"classes": self.classes, "means": self.means.round(4).tolist(),
                "empties": self.empties.round(3).tolist(), "precision": self.precision.tolist(),
                "empty_marks": self.empty_marks, "protos": protos.round(3).tolist(),
                "proto_class": [int(x) for x in which],
                "strict": (self.strict if self.strict is not None else self.precision).tolist()}

    @classmethod
    def from_json(cls, d: dict) -> "TokenModel":
        """Inverse of :meth:`to_json` (arrays as float64)."""
        F = len(d["precision"])
        return cls(list(d["classes"]), np.array(d["means"], np.float64).reshape(len(d["classes"]), -1),
                   np.array(d["empties"], np.float64), np.array(d["precision"], np.float64),
                   d.get("empty_marks", ""), np.array(d.get("protos", []), np.float64).reshape(-1, F),
                   np.array(d.get("proto_class", []), int), np.array(d.get("strict", d["precision"]), np.float64))


def learn_tokens(feats: np.ndarray, samples: list[tuple[str, tuple[int, int]]], empty_cells: list[tuple[int, int]],
                 marks: str = "", composites=(), cfg: TokenConfig = TOKENS) -> TokenModel:
    """Learn token classes and empty prototypes.

    Args:
        feats: float64 (rows, cols, F) from :func:`cell_features` on the calibration shot.
        samples: (label, (row, col)) of labelled tokens (and ``sand`` → empty).
        empty_cells: free cells holding no labelled token (become empty prototypes).
        marks: terrain character of each empty cell ('.' when unknown).
        composites: (label, feature vector (F,)) of labelled tokens pasted onto other backgrounds
            (:func:`paste_token`); they become extra prototypes of their class.
    Returns:
        :class:`TokenModel`. The pooled covariance comes from the empty prototypes and the
        token samples around their class means, plus ``cfg.covariance_floor`` on the diagonal.
    """
    F = feats.shape[-1]
    classes = sorted({lab for lab, _ in samples if lab != "sand"})
    groups = {k: np.array([feats[rc] for lab, rc in samples if lab == k]) for k in classes}
    empties = [feats[rc] for rc in empty_cells] + [feats[rc] for lab, rc in samples if lab == "sand"]
    empties = np.array(empties) if empties else np.zeros((0, F))
    means = np.array([groups[k].mean(axis=0) for k in classes]) if classes else np.zeros((0, F))
    resid = [g - g.mean(axis=0) for g in groups.values() if len(g) > 1]
    for k in classes:  # a token seen on other backgrounds: how much its look varies with what it lies on
        pasted = np.array([f for lab, f in composites if lab == k]).reshape(-1, F)
        if len(pasted):
            allk = np.vstack([groups[k], pasted])
            resid.append(allk - allk.mean(axis=0))
    if len(empties) > 2:
        # empty sand is several looks (plain, printed spots, marks): its noise is the difference
        # to the most similar other empty cell (÷√2 for two noisy samples), not the spread of all
        d = ((empties[:, None, :] - empties[None, :, :]) ** 2).sum(-1)
        np.fill_diagonal(d, np.inf)
        resid.append((empties - empties[d.argmin(axis=1)]) / np.sqrt(2.0))
    R = np.concatenate(resid) if resid else np.zeros((0, F))
    cov = (R.T @ R / max(len(R) - 1, 1)) if len(R) else np.zeros((F, F))
    cov = np.diag(np.diag(cov)) + np.eye(F) * cfg.covariance_floor
    strict = np.linalg.inv(cov)
    # brightness drifts with the light from shot to shot and across the board (the global
    # normalisation removes only the mean): a floor proportional to the typical brightness
    typical = float(np.median(empties[:, 0])) if len(empties) else 128.0
    for i in BRIGHTNESS_FEATURES(F):
        cov[i, i] += (cfg.brightness_drift * typical) ** 2
    marks = (marks or "." * len(empty_cells)) + "." * sum(1 for lab, _ in samples if lab == "sand")
    comp = [(classes.index(lab), f) for lab, f in composites if lab in classes]
    protos = np.array([f for _, f in comp]).reshape(-1, F)
    return TokenModel(classes, means, empties, np.linalg.inv(cov), marks, protos, np.array([k for k, _ in comp], int),
                      strict)


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
    return np.concatenate([a[i:i + rows] @ b for i in range(0, len(a), rows)])


def _sq_distances(x: np.ndarray, centres: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Squared Mahalanobis distances |(x − c) W|², float64 (N, M), for x (N, F), centres (M, F)."""
    if len(centres) == 0:
        return np.full((len(x), 0), np.inf)
    a, b = small_matmul(x, W), small_matmul(centres, W)
    return np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None] - 2 * small_matmul(a, np.ascontiguousarray(b.T)),
                      0.0)


def classify_tokens(feats: np.ndarray, model: TokenModel, cfg: TokenConfig = TOKENS):
    """Give every cell its most likely token class (or :data:`EMPTY`).

    Args:
        feats: float64 (N, F) features of the cells to classify.
    Returns:
        ``(labels, prob, distance)``: list of N names; float64 (N,) posterior of the choice
        (softmax over −d²/2 of the empty prototype nearest and of every class, each class at its
        nearest prototype); float64 (N,) Mahalanobis distance to the chosen class.
    """
    W = np.linalg.cholesky(model.precision)  # precision = W Wᵀ, so d² = |(x − m) W|²

    def d2(x, centres):
        return _sq_distances(x, centres, W)

    de = d2(feats, model.empties).min(axis=1, initial=np.inf)[:, None] if len(model.empties) else \
        np.full((len(feats), 1), 1e6)
    dk = d2(feats, model.means)
    if model.protos is not None and len(model.protos):
        dp = d2(feats, model.protos)
        for k in range(len(model.classes)):
            sel = model.proto_class == k
            if sel.any():
                dk[:, k] = np.minimum(dk[:, k], dp[:, sel].min(axis=1))
    D = np.concatenate([de, dk], axis=1)
    logp = -0.5 * (D - D.min(axis=1, keepdims=True))
    post = np.exp(logp)
    post /= post.sum(axis=1, keepdims=True)
    best = post.argmax(axis=1)
    names = [EMPTY] + model.classes
    n = np.arange(len(best))
    return [names[b] for b in best], post[n, best], np.sqrt(D[n, best])


def strangeness(feats: np.ndarray, model: TokenModel) -> np.ndarray:
    """How unlike everything seen at calibration each cell is.

    Args:
        feats: float64 (N, F) cell features.
    Returns:
        float64 (N,): Mahalanobis distance (strict covariance: no allowance for brightness drift)
        to the nearest empty prototype, class mean or pasted prototype. A lone odd cell is a
        smudge; a large blob of them is something over the board (:func:`vision.plazing.read`).
    """
    W = np.linalg.cholesky(model.strict if model.strict is not None else model.precision)
    refs = [model.empties, model.means] + ([model.protos] if model.protos is not None and len(model.protos) else [])
    R = np.vstack([r for r in refs if len(r)]) if any(len(r) for r in refs) else np.zeros((1, feats.shape[1]))
    return np.sqrt(_sq_distances(feats, R, W).min(axis=1))


def with_scan_marks(tokens: TokenModel, feats: np.ndarray, free: np.ndarray, terrain: np.ndarray):
    """Add empty prototypes for printed marks (± squares, crossed sticks) the calibration shot never
    showed free: the median look of this photo's free cells bearing that mark (most are empty).

    Returns:
        (token model to use, set of marks that had no calibration prototype).
    """
    unseen = set()
    extra = []
    for mark in "+-x":
        if mark in tokens.empty_marks:
            continue
        cells = [tuple(rc) for rc in free.tolist() if terrain[rc[0], rc[1]] == mark]
        if cells:
            unseen.add(mark)
            extra.append(np.median(np.array([feats[rc] for rc in cells]), axis=0))
    if not extra:
        return tokens, unseen
    return TokenModel(tokens.classes, tokens.means, np.vstack([tokens.empties] + extra), tokens.precision,
                      tokens.empty_marks + "".join(sorted(unseen)), tokens.protos, tokens.proto_class,
                      tokens.strict), unseen
