"""Plażing tokens on free cells: meeples, neutral markers, resources, trash, surprise tokens.

Idea: a token stands in the middle of a free cell. Each cell's central square is described by
its mean and spread of B, G, R (exact values of the illumination-normalised board, not the
quantised palette: small tokens differ from sand by a few levels), its mean gradient (flat print vs a 3-D figure) and the shares
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

from vision.plazing_cells import Grid, box_areas, box_sums
from vision.plazing_config import TOKENS, TokenConfig

EMPTY = "empty"


def cell_features(board_bgr: np.ndarray, gray: np.ndarray, integrals, grid: Grid, px_per_mm: float,
                  cfg: TokenConfig = TOKENS) -> np.ndarray:
    """Token features of every cell's central square, on exact colour values.

    Args:
        board_bgr: rectified, illumination-normalised board, BGR uint8 (H, W, 3).
        gray: the same board in grey, uint8 (H, W).
        integrals: integral images of each player's pixel mask
            (:func:`vision.plazing_cells.player_integrals`). The sand colour's share is left
            out: it swings with lighting near the sand/beige boundary.
        grid: board grid; px_per_mm: resolution.
    Returns:
        float64 (rows, cols, 10 + n_players): mean B, G, R, sd B, G, R, mean gradient of grey,
        player-colour shares·100 over the central square, then mean B, G, R of a smaller centre
        square (the token itself rather than what it lies on).
    """
    boxes = grid.boxes_px(px_per_mm, cfg.core_share)
    area = box_areas(boxes, board_bgr.shape)[..., None]
    s, sq = cv2.integral2(board_bgr, sdepth=cv2.CV_32F, sqdepth=cv2.CV_64F)
    mean = box_sums(s, boxes) / area
    var = np.maximum(box_sums(sq, boxes) / area - mean ** 2, 0.0)
    grad = cv2.magnitude(cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1))
    g = box_sums(cv2.integral(grad), boxes)[..., None] / area
    shares = [box_sums(integ, boxes)[..., None] / area * 100.0 for integ in integrals]
    centre = grid.boxes_px(px_per_mm, cfg.centre_share)
    cmean = box_sums(s, centre) / box_areas(centre, board_bgr.shape)[..., None]
    return np.concatenate([mean, np.sqrt(var), g / 4.0] + shares + [cmean], axis=-1)


@dataclass
class TokenModel:
    """Learned token appearance.

    Attributes:
        classes: token class names (calibration labels: ``meeple/red``, ``neutral``, …).
        means: float64 (K, F) class means.
        empties: float64 (E, F) empty-cell prototypes.
        empty_marks: terrain character of each prototype's cell ('.', '+', '-', 'x').
        precision: float64 (F, F) inverse pooled covariance.
    """

    classes: list[str]
    means: np.ndarray
    empties: np.ndarray
    precision: np.ndarray
    empty_marks: str = ""

    def to_json(self) -> dict:
        return {"classes": self.classes, "means": self.means.round(4).tolist(),
                "empties": self.empties.round(3).tolist(), "precision": self.precision.tolist(),
                "empty_marks": self.empty_marks}

    @classmethod
    def from_json(cls, d: dict) -> "TokenModel":
        return cls(list(d["classes"]), np.array(d["means"], np.float64).reshape(len(d["classes"]), -1),
                   np.array(d["empties"], np.float64), np.array(d["precision"], np.float64),
                   d.get("empty_marks", ""))


def learn_tokens(feats: np.ndarray, samples: list[tuple[str, tuple[int, int]]], empty_cells: list[tuple[int, int]],
                 marks: str = "", cfg: TokenConfig = TOKENS) -> TokenModel:
    """Learn token classes and empty prototypes.

    Args:
        feats: float64 (rows, cols, F) from :func:`cell_features` on the calibration shot.
        samples: (label, (row, col)) of labelled tokens (and ``sand`` → empty).
        empty_cells: free cells holding no labelled token (become empty prototypes).
        marks: terrain character of each empty cell ('.' when unknown).
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
    if len(empties) > 1:
        resid.append(empties - np.median(empties, axis=0))
    R = np.concatenate(resid) if resid else np.zeros((0, F))
    cov = (R.T @ R / max(len(R) - 1, 1)) if len(R) else np.zeros((F, F))
    cov = 0.5 * np.diag(np.diag(cov)) + 0.5 * cov + np.eye(F) * cfg.covariance_floor
    marks = (marks or "." * len(empty_cells)) + "." * sum(1 for lab, _ in samples if lab == "sand")
    return TokenModel(classes, means, empties, np.linalg.inv(cov), marks)


def classify_tokens(feats: np.ndarray, model: TokenModel, cfg: TokenConfig = TOKENS):
    """Give every cell its most likely token class (or :data:`EMPTY`).

    Args:
        feats: float64 (N, F) features of the cells to classify.
    Returns:
        ``(labels, prob, distance)``: list of N names; float64 (N,) posterior of the choice
        (softmax over −d²/2 of the empty prototype nearest and of every class); float64 (N,)
        Mahalanobis distance to the chosen class.
    """
    W = np.linalg.cholesky(model.precision)  # precision = W Wᵀ, so d² = |(x − m) W|²

    def d2(x, centres):
        if len(centres) == 0:
            return np.full((len(x), 0), np.inf)
        a, b = x @ W, centres @ W
        return np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None] - 2 * a @ b.T, 0.0)

    de = d2(feats, model.empties).min(axis=1, initial=np.inf)[:, None] if len(model.empties) else \
        np.full((len(feats), 1), 1e6)
    dk = d2(feats, model.means)
    D = np.concatenate([de, dk], axis=1)
    logp = -0.5 * (D - D.min(axis=1, keepdims=True))
    post = np.exp(logp)
    post /= post.sum(axis=1, keepdims=True)
    best = post.argmax(axis=1)
    names = [EMPTY] + model.classes
    n = np.arange(len(best))
    return [names[b] for b in best], post[n, best], np.sqrt(D[n, best])
