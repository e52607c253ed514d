"""Plażing terrain read from the photo, learned from the calibration shot's own terrain.

Input: every cell's look (:func:`terrain_features`). Output: the terrain characters and the
posterior of each cell's.

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

import cv2
import numpy as np

from vision.errors import BadInputError
from vision.plazing.cells import CellBlocks, Grid
from vision.plazing.config import TERRAIN
from vision.plazing.tokens import bright_chroma, small_matmul

PIECE = "p"  #: class of a calibration cell covered by a piece (its terrain cannot be seen)
MARKS = ("+", "-", "x")  #: the terrain's printed marks


def setup_terrain(setup: dict | None, grid: Grid) -> np.ndarray:
    """The setup's terrain characters as a (rows, cols) array of str; '.' everywhere when the setup
    gives none.

    Raises:
        BadInputError: ``invalid-setup`` when the terrain does not fit the grid.
    """
    t = np.full((grid.rows, grid.cols), ".", dtype="<U1")
    rows = (setup or {}).get("terrain")
    if rows is None:
        return t
    if (not isinstance(rows, list) or len(rows) != grid.rows
            or any(not isinstance(r, str) or len(r) != grid.cols for r in rows)):
        raise BadInputError("invalid-setup", f"setup terrain must be {grid.rows} strings of {grid.cols} "
                            "characters (the profile's grid)")
    for r, row in enumerate(rows):
        t[r] = list(row)
    return t


def terrain_features(blocks: np.ndarray, sq_blocks: np.ndarray, cells: CellBlocks) -> np.ndarray:
    """Per-cell look for terrain: brightness/chromaticity of the whole cell, its core and centre,
    sd of B, G, R over the whole cell.

    Args:
        blocks, sq_blocks: block means (:meth:`CellBlocks.blocks`) of the illumination-normalised
            board's B, G, R (float32) and of their squares — those the token features computed.
    Returns:
        float64 (rows, cols, 12).
    """
    g = cells.grid
    whole, core, centre = cells.box_means(blocks, (1.0, 0.6, 0.3))  # one integral image for the three
    sq = cv2.resize(sq_blocks, (g.cols, g.rows), interpolation=cv2.INTER_AREA).astype(np.float64)  # whole cells
    var = np.maximum(sq - whole ** 2, 0.0)
    return np.concatenate([bright_chroma(whole), bright_chroma(core), bright_chroma(centre), np.sqrt(var)],
                          axis=-1)


@dataclass
class TerrainModel:
    """Labelled calibration cells: features (N, F), class characters (N,), feature scale (F,)."""

    feats: np.ndarray
    labels: list
    scale: np.ndarray
    known: bool = True  #: whether the calibration shot's terrain was given (else only the looks count)
    #: the printed marks (``+``, ``-``, ``x``) the given terrain has but the shot shows on no bare
    #: square (all under pieces): scans cannot read them
    unseen: str = ""

    @classmethod
    def learn(cls, feats: np.ndarray, terrain: np.ndarray, owner: np.ndarray, known: bool = True) -> "TerrainModel":
        """From the calibration's cell features (rows, cols, F), its terrain (rows, cols) of str,
        the cover decision (rows, cols; ≥ 0 covered), and whether that terrain was given."""
        labels = np.where(terrain == "#", "#", np.where(owner >= 0, PIECE, terrain))
        x = feats.reshape(-1, feats.shape[-1])
        scale = np.maximum(x.std(axis=0), TERRAIN.scale_floor)
        unseen = "".join(m for m in MARKS if known and (terrain == m).any() and not (labels == m).any())
        return cls(x.astype(np.float64), [str(v) for v in labels.ravel()], scale, bool(known), unseen)

    def to_json(self) -> dict:
        """JSON-serialisable form (``unseen`` only when some mark is)."""
        return {"feats": np.round(self.feats, 2).tolist(), "labels": "".join(self.labels),
                "scale": np.round(self.scale, 4).tolist(), "known": self.known,
                **({"unseen": self.unseen} if self.unseen else {})}

    @classmethod
    def from_json(cls, d: dict | None) -> "TerrainModel | None":
        """Inverse of :meth:`to_json` (None for a calibration of an older reader)."""
        if not d:
            return None
        return cls(np.array(d["feats"], np.float64), list(d["labels"]), np.array(d["scale"], np.float64),
                   bool(d.get("known", True)), str(d.get("unseen", "")))

    def nearest(self, feats: np.ndarray) -> np.ndarray:
        """Mean squared standardised difference per feature from each cell (rows, cols, F) to the
        most alike calibration cell: float64 (rows, cols). Clean photos stay well below
        ``QUALITY.unlike_look``; a flat patch hiding the board, an arm or a strong colour cast
        give more (``docs/tuning.md``)."""
        x = feats.reshape(-1, feats.shape[-1]) / self.scale
        ref = self.feats / self.scale
        d2 = (x * x).sum(1)[:, None] + (ref * ref).sum(1)[None] - 2.0 * small_matmul(x, np.ascontiguousarray(ref.T))
        return (np.maximum(d2, 0.0).min(axis=1) / x.shape[1]).reshape(feats.shape[:2])

    def wall_distances(self, feats: np.ndarray, walls: np.ndarray):
        """For the cells ``walls`` (bool (rows, cols)): the mean squared standardised difference per
        feature to the nearest calibration closing cell (``d_wall``) and to the nearest placeable one
        (``d_free``), both float64 (n,) in ``np.argwhere(walls)`` order, and the largest distance of a
        calibration closing cell to its nearest other one (float). None when the calibration shows no
        two closing cells or no placeable cell.

        Args:
            feats: float64 (rows, cols, F) cell looks (:func:`terrain_features`).
        """
        labels = np.array(self.labels)
        wall = labels == "#"
        if wall.sum() < 2 or wall.all():
            return None
        ref = self.feats / self.scale
        x = feats[walls] / self.scale
        F = x.shape[1]

        def d2(a, b):
            return np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None]
                              - 2.0 * small_matmul(a, np.ascontiguousarray(b.T)), 0.0) / F

        own = d2(ref[wall], ref[wall])
        np.fill_diagonal(own, np.inf)
        return d2(x, ref[wall]).min(axis=1), d2(x, ref[~wall]).min(axis=1), float(own.min(axis=1).max())

    def placeable_walls(self, feats: np.ndarray, walls: np.ndarray) -> np.ndarray:
        """Which of the cells ``walls`` (bool (rows, cols): the setup's closing terrain) look
        placeable, judged object by object (:func:`placeable_objects` on :meth:`wall_distances`):
        the cells of each 4-connected closing object whose mean look is nearer a placeable
        calibration cell (sand, a mark, a piece) than any of the calibration's closing cells, and
        farther from those than any calibration closing cell is from the nearest other one.

        Args:
            feats: float64 (rows, cols, F) cell looks (:func:`terrain_features`).
        Returns:
            bool (rows, cols); all False when the calibration shows no closing and no placeable cell.
        """
        out = np.zeros(walls.shape, bool)
        d = self.wall_distances(feats, walls)
        if d is not None:
            out[walls] = placeable_objects(walls, *d)
        return out

    @property
    def classes(self) -> list:
        """Classes seen at calibration, sorted."""
        return sorted(set(self.labels))

    def objects(self, cols: int) -> list:
        """The calibration's closing-terrain objects (4-connected groups of ``#`` cells):
        [(offsets [(dr, dc)], standardised features (n, F))]."""
        lab = np.array(self.labels).reshape(-1, cols)
        n, cc = cv2.connectedComponents((lab == "#").astype(np.uint8), connectivity=4)
        x = (self.feats / self.scale).reshape(lab.shape + (-1,))
        out = []
        for k in range(1, n):
            cells = np.argwhere(cc == k)
            r0, c0 = cells.min(axis=0)
            out.append(([(int(r - r0), int(c - c0)) for r, c in cells], np.array([x[r, c] for r, c in cells])))
        return out

    def classify(self, feats: np.ndarray):
        """Label every cell.

        Closing terrain is found object by object: each calibration object is slid over the grid
        and accepted where its cells match the photo's (mean squared standardised difference per
        feature ``d``) much better than any placeable look does (``alt``): ``d < TERRAIN.object_max`` and
        ``alt / d > TERRAIN.object_ratio``; overlapping candidates keep the best. A cell-by-cell decision
        would mistake a plain cell of a piece for a flat-coloured object of the same hue.
        The other cells take the nearest placeable class (sand, a printed mark, a piece).

        Returns:
            ``(terrain, prob, n_objects)``: str (rows, cols) of terrain characters (``p`` read as
            ``.``); float64 (rows, cols) posterior per cell (object decisions are put on one
            cell of the object, so the product over cells counts each once); objects found.
        """
        rows, cols = feats.shape[:2]
        x = feats.reshape(-1, feats.shape[-1]) / self.scale
        ref = self.feats / self.scale
        F = x.shape[1]
        d2 = (x * x).sum(1)[:, None] + (ref * ref).sum(1)[None] - 2.0 * small_matmul(x, np.ascontiguousarray(ref.T))
        d2 = np.maximum(d2, 0.0) / F
        labels = np.array(self.labels)
        free_classes = [c for c in self.classes if c != "#"]
        per = np.stack([d2[:, labels == c].min(axis=1) for c in free_classes], axis=1)  # (n, C)
        best = per.argmin(axis=1)
        chars = np.array(free_classes)[best]
        srt = np.sort(per, axis=1)
        prob = np.ones(len(x))
        if per.shape[1] > 1:  # a mark: its margin against the other placeable classes
            margin = (srt[:, 1] - srt[:, 0]) * F / 2.0
            p_mark = 1.0 / (1.0 + np.exp(-TERRAIN.margin_slope * np.minimum(margin, 50.0)))
            marks = np.isin(chars, MARKS)
            prob = np.where(marks, p_mark, 1.0)
        chars = np.where(chars == PIECE, ".", chars).reshape(rows, cols)
        prob = prob.reshape(rows, cols)
        d_free = srt[:, 0].reshape(rows, cols)
        xg = x.reshape(rows, cols, F)
        # every object at every position at once (the same sums, in the same order, as one
        # position at a time); a candidate neither accepted nor nearly so (p ≤ 0.02) changes
        # nothing, so only the others are walked through, best first
        ds, alts, spots, starts = [], [], [], [0]
        for offs, of in self.objects(cols):
            h = max(o[0] for o in offs) + 1
            w = max(o[1] for o in offs) + 1
            dr = np.array([o[0] for o in offs])
            dc = np.array([o[1] for o in offs])
            r0, c0 = np.mgrid[0:rows - h + 1, 0:cols - w + 1]
            r0, c0 = r0.ravel(), c0.ravel()
            rr, cc = r0[:, None] + dr[None], c0[:, None] + dc[None]  # (positions, cells of the object)
            ds.append(((xg[rr, cc] - of) ** 2).reshape(len(r0), -1).mean(axis=1))
            alts.append(d_free[rr, cc].mean(axis=1))
            spots.append((rr, cc))
            starts.append(starts[-1] + len(r0))
        d_all = np.concatenate(ds) if ds else np.zeros(0)
        alt_all = np.concatenate(alts) if alts else np.zeros(0)
        ratio_all = np.log(np.maximum(alt_all, 1e-6) / np.maximum(d_all, 1e-6))
        p_all = 1.0 / (1.0 + np.exp(-TERRAIN.object_slope * (ratio_all - np.log(TERRAIN.object_ratio))))
        accept = (d_all < TERRAIN.object_max) & (ratio_all > np.log(TERRAIN.object_ratio))
        order = np.argsort(d_all, kind="stable")
        order = order[(accept | (p_all > 0.02))[order]]
        wall = np.zeros((rows, cols), bool)
        found = 0
        near = []
        for i in order.tolist():
            k = int(np.searchsorted(starts, i, side="right")) - 1
            rr, cc = spots[k][0][i - starts[k]], spots[k][1][i - starts[k]]
            cells = list(zip(rr.tolist(), cc.tolist()))
            if any(wall[c] for c in cells):
                continue  # overlaps a better object
            p = float(p_all[i])
            if accept[i]:
                for c in cells:
                    wall[c] = True
                prob[cells[0]] *= p
                found += 1
            else:
                near.append((p, cells))
        for p, cells in near:  # rejected candidates that were nearly accepted make their cells doubtful
            if p > 0.02 and not any(wall[c] for c in cells):
                prob[cells[0]] *= 1.0 - p
        chars[wall] = "#"
        prob[wall & (prob > 1.0)] = 1.0
        return chars, prob, found


def wall_objects(walls: np.ndarray) -> list:
    """The 4-connected closing objects of ``walls`` (bool (rows, cols)): each as the int indices of
    its cells in ``np.argwhere(walls)`` order (the order of :meth:`TerrainModel.wall_distances`)."""
    n, cc = cv2.connectedComponents(walls.astype(np.uint8), connectivity=4)
    flat = cc[walls]
    return [np.flatnonzero(flat == k) for k in range(1, n)]


def placeable_objects(walls: np.ndarray, d_wall: np.ndarray, d_free: np.ndarray, own: float) -> np.ndarray:
    """Per cell of ``walls`` (``np.argwhere`` order): whether its closing object (:func:`wall_objects`)
    looks placeable, its cells' mean ``d_wall`` above their mean ``d_free`` and above ``own``
    (:meth:`TerrainModel.wall_distances`). Judged per object, not per cell: one print of an object
    can look like sand (a pale patch, a grey stick) while the object as a whole does not. bool (n,)."""
    odd = np.zeros(len(d_wall), bool)
    for idx in wall_objects(walls):
        dw = float(d_wall[idx].mean())
        odd[idx] = dw > float(d_free[idx].mean()) and dw > own
    return odd
