"""Plażing terrain read from the photo, learned from the calibration shot's own terrain.

Idea: the tiles are shuffled every game, but the drawn objects on them (bars, stands, boats …),
the darker sand and the printed ± squares and crossed sticks are the same prints from game to
game. The calibration shot comes with its terrain (``calib.setup.json`` beside the photo), so
every one of its cells is a labelled example of how a terrain character — or a piece lying on
sand — looks under this camera and light. A scan without ``--setup`` labels each cell by its
nearest calibration cells (per class, in standardised colour features of the whole cell, its
core and its centre), with a posterior from the distance margin between the best and the
second-best class.

Classes: ``#`` closing terrain, ``.`` sand, ``+`` / ``-`` / ``x`` printed marks (only those the
calibration shows free), ``p`` a piece on placeable terrain (read as ``.``: a piece hides the
mark under it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.plazing_cells import CellBlocks
from vision.plazing_tokens import _bright_chroma

PIECE = "p"  #: class of a calibration cell covered by a piece (its terrain cannot be seen)
#: Floor on each standardised feature's scale (feature units), so a feature constant at calibration
#: does not dominate.
SCALE_FLOOR = 3.0
#: Posterior slope per unit of (squared-distance margin / 2) between the best two classes.
MARGIN_SLOPE = 1.0
#: A cell farther than this (standardised units) from every calibration cell is unlike the board.
MAX_DISTANCE = 6.0


def terrain_features(board_bgr: np.ndarray, player_blocks: np.ndarray, cells: CellBlocks) -> np.ndarray:
    """Per-cell look for terrain: brightness/chromaticity of the whole cell, its core and centre,
    sd of B, G, R over the whole cell, players' shares over the whole cell.

    Returns:
        float64 (rows, cols, 12 + P).
    """
    f = board_bgr.astype(np.float32)
    blocks = cells.blocks(f)
    sq = cells.blocks(f * f)
    whole = cells.box_mean(blocks, 1.0)
    var = np.maximum(cells.box_mean(sq, 1.0) - whole ** 2, 0.0)
    core = cells.box_mean(blocks, 0.6)
    centre = cells.box_mean(blocks, 0.3)
    shares = cells.box_mean(player_blocks, 1.0).reshape(whole.shape[:2] + (-1,)) / 255.0 * 100.0
    return np.concatenate([_bright_chroma(whole), _bright_chroma(core), _bright_chroma(centre), np.sqrt(var),
                           shares], axis=-1)


@dataclass
class TerrainModel:
    """Labelled calibration cells: features (N, F), class characters (N,), feature scale (F,)."""

    feats: np.ndarray
    labels: list
    scale: np.ndarray

    @classmethod
    def learn(cls, feats: np.ndarray, terrain: np.ndarray, owner: np.ndarray) -> "TerrainModel":
        """From the calibration's cell features (rows, cols, F), its terrain (rows, cols) of str and
        the cover decision (rows, cols; ≥ 0 covered)."""
        labels = np.where(terrain == "#", "#", np.where(owner >= 0, PIECE, terrain))
        x = feats.reshape(-1, feats.shape[-1])
        scale = np.maximum(x.std(axis=0), SCALE_FLOOR)
        return cls(x.astype(np.float64), [str(v) for v in labels.ravel()], scale)

    def to_json(self) -> dict:
        """JSON-serialisable form."""
        return {"feats": np.round(self.feats, 2).tolist(), "labels": "".join(self.labels),
                "scale": np.round(self.scale, 4).tolist()}

    @classmethod
    def from_json(cls, d: dict | None) -> "TerrainModel | None":
        """Inverse of :meth:`to_json` (None for a calibration without terrain)."""
        if not d:
            return None
        return cls(np.array(d["feats"], np.float64), list(d["labels"]), np.array(d["scale"], np.float64))

    @property
    def classes(self) -> list:
        """Classes seen at calibration, sorted."""
        return sorted(set(self.labels))

    def classify(self, feats: np.ndarray):
        """Label every cell.

        Returns:
            ``(terrain, prob, dist)``: str (rows, cols) of terrain characters (``p`` read as
            ``.``), float64 (rows, cols) posterior of the decision '#' vs not (and of the mark),
            float64 (rows, cols) standardised distance to the nearest calibration cell.
        """
        shape = feats.shape[:2]
        x = feats.reshape(-1, feats.shape[-1]) / self.scale
        ref = self.feats / self.scale
        d2 = (x * x).sum(1)[:, None] + (ref * ref).sum(1)[None] - 2.0 * x @ ref.T
        d2 = np.maximum(d2, 0.0) / x.shape[1]  # mean squared standardised difference per feature
        labels = np.array(self.labels)
        classes = self.classes
        per = np.stack([d2[:, labels == c].min(axis=1) for c in classes], axis=1)  # (n, C)
        best = per.argmin(axis=1)
        chars = np.array(classes)[best]
        # '#' against everything else decides the areas; marks only the fields
        is_wall = np.array([c == "#" for c in classes])
        d_wall = per[:, is_wall].min(axis=1) if is_wall.any() else np.full(len(x), np.inf)
        d_free = per[:, ~is_wall].min(axis=1)
        margin = np.abs(d_wall - d_free) * x.shape[1] / 2.0
        p = 1.0 / (1.0 + np.exp(-MARGIN_SLOPE * np.minimum(margin, 50.0)))
        # a mark: its own margin against the other free classes
        free_per = np.where(is_wall[None], np.inf, per)
        srt = np.sort(free_per, axis=1)
        mark_margin = (srt[:, 1] - srt[:, 0]) * x.shape[1] / 2.0 if free_per.shape[1] > 1 else np.full(len(x), 50.0)
        p_mark = 1.0 / (1.0 + np.exp(-MARGIN_SLOPE * np.minimum(mark_margin, 50.0)))
        marks = np.isin(chars, ["+", "-", "x"])
        p = np.where(marks, p * p_mark, p)
        chars = np.where(chars == PIECE, ".", chars)
        return chars.reshape(shape), p.reshape(shape), np.sqrt(d2.min(axis=1)).reshape(shape)
