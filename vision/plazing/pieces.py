"""Plażing pieces: split same-colour cells into physical pieces and name each piece's kind.

Input: one player's touching cells, the edges' seam and jog evidence, the print scorer.
Output: the most probable split into catalogue pieces, its posterior and the runner-up.

Each 4-connected group of one player's cells is tiled exactly with shapes of the profile's
catalogue (any rotation). Two kinds of evidence weigh the tilings, both learned or measured, none
tuned to a photo: the **seams** between cells (:mod:`vision.plazing.seams`: cut where it cuts,
joined where it joins) and the **printed patterns** of the pieces
(:mod:`vision.plazing.patterns`). The posterior of the best tiling against all others is the
confidence of the split: when two tilings explain the photo equally well, it is ≤ 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.plazing.seam_config import SEAM, SeamConfig
from vision.plazing.seams import jog_log_likelihoods, seam_log_likelihoods

Cell = tuple[int, int]
FACINGS = "NESW"  #: a canonical screen faces N; k clockwise quarter turns make it face FACINGS[k]


def normalise(cells) -> tuple[Cell, ...]:
    """Cells shifted so the smallest row and column are 0, sorted."""
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def rotate(cells, k: int) -> list[Cell]:
    """Cells turned k quarter turns clockwise (image view, rows down), in input order."""
    out = [tuple(c) for c in cells]
    for _ in range(k % 4):
        out = [(c, -r) for r, c in out]
    return out


def rotations(cells) -> set[tuple[Cell, ...]]:
    """The four rotations of a shape (contract: any rotation is allowed), each normalised."""
    return {normalise(rotate(cells, k)) for k in range(4)}


def catalogue_shapes(profile: dict) -> list[tuple[str, tuple[Cell, ...]]]:
    """Every (kind, oriented shape) of ``profile["pieces"]`` with all rotations, deduplicated.

    Returns:
        list of (kind, normalised cells); cells are (row, col) offsets.
    """
    shapes = []
    seen = set()
    for kind, variants in profile.get("pieces", {}).items():
        for cells in variants:
            for rot in sorted(rotations([tuple(x) for x in cells])):
                if (kind, rot) not in seen:
                    seen.add((kind, rot))
                    shapes.append((kind, rot))
    return shapes



@dataclass
class Split:
    """How one group of same-colour cells splits into pieces.

    Attributes:
        pieces: list of (kind, cells, facing or None, facing posterior) with cells sorted
            (row, col) tuples; the facing is the rotation of the piece's print (screens).
        posterior: probability of this split against every other exact tiling, in [0, 1].
        exact: False when no tiling by catalogue shapes exists (cells then form unknown pieces).
        runner_up: the second-best tiling's pieces [(kind, cells)], or None.
        alt_posterior: the runner-up's posterior (0 without one).
        kinds: the piece kinds that some enumerated tiling used.
    """

    pieces: list
    posterior: float
    exact: bool = True
    runner_up: list | None = None
    kinds: frozenset = frozenset()
    alt_posterior: float = 0.0


_TABLES: dict = {}  #: placement tables by (group shape, catalogue): most groups are a few shapes


def _placement_table(order: list[Cell], shapes):
    """For each cell index i: the placements anchored at it, as (bitmask, kind, cells)."""
    r0 = min(r for r, _ in order)
    c0 = min(c for _, c in order)
    key = (tuple((r - r0, c - c0) for r, c in order), tuple(shapes))
    rel = _TABLES.get(key)
    if rel is None:
        rel = _placement_table_of(list(key[0]), shapes)
        if len(_TABLES) > 512:
            _TABLES.clear()
        _TABLES[key] = rel
    return [[(mask, kind, [(r + r0, c + c0) for r, c in placed]) for mask, kind, placed in row] for row in rel]


def _placement_table_of(order: list[Cell], shapes):
    index = {c: i for i, c in enumerate(order)}
    table = [[] for _ in order]
    for i, (r, c) in enumerate(order):
        for kind, shape in shapes:
            a = shape[0]
            placed = [(r + dr - a[0], c + dc - a[1]) for dr, dc in shape]
            if all(p in index for p in placed):
                mask = 0
                for p in placed:
                    mask |= 1 << index[p]
                table[i].append((mask, kind, sorted(placed)))
    return table


def split_group(cells: set[Cell], seams: dict[tuple[Cell, Cell], float], shapes,
                piece_score=None, joined_sd_bgr: float | None = None, jogs: dict | None = None,
                jog_sd_mm: float | None = None, cfg: SeamConfig = SEAM, prints: dict | None = None,
                print_kinds=frozenset()) -> Split:
    """Split one 4-connected group of a player's cells into catalogue pieces.

    Args:
        cells: the group's cells.
        seams: seam contrasts from :func:`~vision.plazing.seams.seam_contrasts` (edges keyed (first cell, cell right
            of / below it)), BGR levels.
        joined_sd_bgr: the dip's sd inside one piece (learned at calibration); default
            ``cfg.default_joined_sd_bgr``.
        jogs: optional outline jogs per edge (:func:`~vision.plazing.seams.edge_jogs`, mm), more
            evidence on each edge (:func:`~vision.plazing.seams.jog_log_likelihoods`) with
            ``jog_sd_mm`` (learned at calibration; default ``cfg.default_jog_sd_mm``).
        shapes: from :func:`catalogue_shapes`.
        piece_score: optional function (kind, cells) → (log-likelihood of the print, facing,
            facing posterior); without it the print is not used.
        prints: optional per edge log likelihood ratio of the print offset, one piece whose cells
            look alike against two pieces (:func:`~vision.plazing.seams.print_log_ratios`), added
            for every edge inside a placement of a kind in ``print_kinds`` (the kinds whose cells
            share one print, :attr:`~vision.plazing.patterns.PatternModel.pooled`); other tilings
            are scored as if the edge were cut (the offset says nothing of a screen's or blanket's
            cells).
    Returns:
        The most probable :class:`Split`. Score of a tiling = Σ over the group's inner edges of
        log p(dip | cut) where it cuts and log p(dip | joined) where it does not
        (:func:`~vision.plazing.seams.seam_log_likelihoods`), + Σ over its pieces of the print's
        log-likelihood; posterior = softmax over all tilings (at most ``cfg.max_tilings``).
    """
    order = sorted(cells)
    if len(order) > cfg.max_exact_cells:
        return Split(pieces=[("unknown", order, None, 1.0)], posterior=0.0, exact=False)
    table = _placement_table(order, shapes)
    if sum(len(row) for row in table) == 1:  # one way only (e.g. a lone cell): nothing to weigh
        (mask, kind, placed), = [x for row in table for x in row]
        face, pf = (piece_score(kind, placed)[1:] if piece_score is not None else (None, 1.0))
        return Split(pieces=[(kind, placed, face, pf)], posterior=1.0, kinds=frozenset([kind]))
    sd = (cfg.default_joined_sd_bgr if joined_sd_bgr is None else joined_sd_bgr) * cfg.joined_spread
    inner = [(e, seams[e]) for e in (((r, c), n) for r, c in order for n in ((r, c + 1), (r + 1, c)) if n in cells)
             if e in seams]
    lc, lj = seam_log_likelihoods(np.array([v for _, v in inner], np.float64), sd, cfg)
    if jogs:
        jsd = (cfg.default_jog_sd_mm if jog_sd_mm is None else jog_sd_mm) * cfg.jog_spread
        for i, (e, _) in enumerate(inner):
            if e in jogs:
                c2, j2 = jog_log_likelihoods(jogs[e], jsd, cfg)
                lc[i] += c2
                lj[i] += j2
    gain = {e: float(j - c) for (e, _), c, j in zip(inner, lc, lj)}  # log LR of "joined" per edge
    base = float(np.sum(lc))
    # score every placement once: seams joined inside it, and its print
    info = {}
    for row in table:
        for mask, kind, placed in row:
            inside = set(placed)
            sc = sum(gain.get(((r, c), n), 0.0) for r, c in placed for n in ((r, c + 1), (r + 1, c)) if n in inside)
            if prints and kind in print_kinds:
                sc += sum(prints.get(((r, c), n), 0.0) for r, c in placed for n in ((r, c + 1), (r + 1, c))
                          if n in inside)
            face, pf = None, 1.0
            if piece_score is not None:
                ll, face, pf = piece_score(kind, placed)
                sc += ll
            info[mask, kind] = (float(sc), face, pf)
    kept = _pruned(table, info, order, cfg)
    results = []
    full = (1 << len(order)) - 1

    def rec(free: int, chosen, score):
        if len(results) >= cfg.max_tilings:
            return
        if not free:
            results.append((score, list(chosen)))
            return
        i = (free & -free).bit_length() - 1
        for mask, kind, placed, sc in kept[i]:
            if mask & free == mask:
                chosen.append((mask, kind, placed))
                rec(free & ~mask, chosen, score + sc)
                chosen.pop()

    rec(full, [], 0.0)
    if not results:
        return Split(pieces=[("unknown", order, None, 1.0)], posterior=0.0, exact=False)
    scores = np.array([sc for sc, _ in results]) + base
    ranking = np.argsort(-scores)
    top = int(ranking[0])
    post = np.exp(scores - scores.max())
    pieces = [(kind, placed) + info[mask, kind][1:] for mask, kind, placed in results[top][1]]
    runner = [(k, p) for _, k, p in results[int(ranking[1])][1]] if len(results) > 1 else None
    kinds = frozenset(kind for _, tiling in results for _, kind, _ in tiling)
    alt = float(post[int(ranking[1])] / post.sum()) if len(results) > 1 else 0.0
    return Split(pieces=pieces, posterior=float(post[top] / post.sum()), runner_up=runner, kinds=kinds,
                 alt_posterior=alt)


def _pruned(table, info: dict, order: list, cfg: SeamConfig) -> list:
    """The placement table without the placements that explain their cells far worse (per cell)
    than another placement over one of them: they cannot be part of a tiling worth counting
    (posterior < e^-``cfg.prune_per_cell``). Rows of (mask, kind, cells, score)."""
    index = {c: i for i, c in enumerate(order)}
    best = [-np.inf] * len(order)
    for row in table:
        for mask, kind, placed in row:
            per = info[mask, kind][0] / len(placed)
            for c in placed:
                i = index[c]
                if per > best[i]:
                    best[i] = per
    return [[(mask, kind, placed, info[mask, kind][0]) for mask, kind, placed in row
             if all(info[mask, kind][0] / len(placed) >= best[index[c]] - cfg.prune_per_cell for c in placed)]
            for row in table]


def groups(owner: np.ndarray) -> list[tuple[int, set[Cell]]]:
    """4-connected groups of cells covered by one player: list of (player index, cells)."""
    out = []
    for p in sorted(int(x) for x in np.unique(owner) if x >= 0):
        n, lab = cv2.connectedComponents((owner == p).astype(np.uint8), connectivity=4)
        for k in range(1, n):
            out.append((p, {(int(r), int(c)) for r, c in np.argwhere(lab == k)}))
    return out
