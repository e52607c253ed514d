"""Plażing pieces: split same-colour cells into physical pieces and name each piece's kind.

Idea: two pieces that touch leave a thin seam between them (their cut edges, a line of sand or
shadow), while inside one piece the colour runs on across the cell edge. For every edge shared
by two cells of the same player, the share of positions along the edge where a band across it
contains a pixel that is not the player's colour is the seam evidence. Each 4-connected group
of one player's cells is then tiled exactly with shapes of the profile's catalogue (any
rotation); the tiling that best explains the seam evidence wins (edges inside a piece should
show no seam, edges between pieces should), and its posterior against the other tilings is the
confidence of the split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.plazing_cells import Grid
from vision.plazing_config import SEAM, SeamConfig

Cell = tuple[int, int]


def normalise(cells) -> tuple[Cell, ...]:
    """Cells shifted so the smallest row and column are 0, sorted."""
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def rotations(cells) -> set[tuple[Cell, ...]]:
    """The four rotations of a shape (contract: any rotation is allowed), each normalised."""
    out, cur = set(), list(cells)
    for _ in range(4):
        out.add(normalise(cur))
        cur = [(c, -r) for r, c in cur]
    return out


def catalogue_shapes(profile: dict) -> list[tuple[str, tuple[Cell, ...]]]:
    """Every (kind, oriented shape) of ``profile["pieces"]`` with all rotations, deduplicated.

    Returns:
        list of (kind, normalised cells); cells are (row, col) offsets.
    """
    shapes = []
    seen = set()
    for kind, variants in profile.get("pieces", {}).items():
        for cells in variants:
            for rot in rotations([tuple(x) for x in cells]):
                if (kind, rot) not in seen:
                    seen.add((kind, rot))
                    shapes.append((kind, rot))
    return shapes


def seam_shares(labels: np.ndarray, owner: np.ndarray, grid: Grid, px_per_mm: float,
                cfg: SeamConfig = SEAM) -> dict[tuple[Cell, Cell], float]:
    """Seam evidence on every edge shared by two cells of the same player.

    Args:
        labels: per-pixel colour labels (uint8 (H, W)); player i has label i.
        owner: int (rows, cols) covering player index or −1.
        grid: board grid.
        px_per_mm: resolution of ``labels``.
    Returns:
        dict ((r, c), (r2, c2)) → share in [0, 1] of the positions along the edge whose band
        across the edge holds a pixel not of the player's colour between two of the player's
        pixels (1 = a clear seam).
    """
    out = {}
    band = max(1, int(round(cfg.band_half_mm * px_per_mm)))
    half_along = 0.5 * cfg.along_share * grid.cell_mm * px_per_mm
    H, W = labels.shape
    for r in range(grid.rows):
        for c in range(grid.cols):
            p = owner[r, c]
            if p < 0:
                continue
            for dr, dc in ((0, 1), (1, 0)):
                r2, c2 = r + dr, c + dc
                if r2 >= grid.rows or c2 >= grid.cols or owner[r2, c2] != p:
                    continue
                if dc:  # vertical edge line at x = origin + (c+1)·cell
                    u = int(round((grid.origin_mm[0] + (c + 1) * grid.cell_mm) * px_per_mm))
                    vc = (grid.origin_mm[1] + (r + 0.5) * grid.cell_mm) * px_per_mm
                    strip = labels[max(int(vc - half_along), 0):min(int(vc + half_along), H),
                                   max(u - band, 0):min(u + band, W)]
                    gap = _bracketed_gap(strip == p, axis=1)
                else:  # horizontal edge line at y = origin + (r+1)·cell
                    v = int(round((grid.origin_mm[1] + (r + 1) * grid.cell_mm) * px_per_mm))
                    uc = (grid.origin_mm[0] + (c + 0.5) * grid.cell_mm) * px_per_mm
                    strip = labels[max(v - band, 0):min(v + band, H),
                                   max(int(uc - half_along), 0):min(int(uc + half_along), W)]
                    gap = _bracketed_gap((strip == p).T, axis=1)
                out[((r, c), (r2, c2))] = float(gap.mean()) if gap.size else 0.0
    return out


def _bracketed_gap(is_player: np.ndarray, axis: int = 1) -> np.ndarray:
    """Per row of a (positions, band) boolean array: is there a non-player pixel between two
    player pixels? (A seam has the piece on both sides; a decoration or a stripe reaching the
    band from one side does not.) Returns bool (positions,)."""
    m = is_player
    n = m.shape[1]
    any_p = m.any(axis=1)
    first = m.argmax(axis=1)
    last = n - 1 - m[:, ::-1].argmax(axis=1)
    inside = (last - first + 1) - m.sum(axis=1)
    return any_p & (inside > 0)


def seam_probability(share: float, cfg: SeamConfig = SEAM) -> float:
    """Probability that an edge is a seam between two pieces, logistic in its seam share."""
    return float(1.0 / (1.0 + np.exp(-cfg.posterior_slope * (share - cfg.seam_share))))


@dataclass
class Split:
    """How one group of same-colour cells splits into pieces.

    Attributes:
        pieces: list of (kind, cells) with cells sorted (row, col) tuples.
        posterior: probability of this split against every other exact tiling, in [0, 1].
        exact: False when no tiling by catalogue shapes exists (cells then form unknown pieces).
    """

    pieces: list[tuple[str, list[Cell]]]
    posterior: float
    exact: bool = True


def _tilings(cells: set[Cell], shapes, limit: int = 2000):
    """Every exact tiling of ``cells`` by ``shapes`` (DFS from the first free cell), at most ``limit``."""
    order = sorted(cells)
    results = []

    def rec(free: set[Cell], chosen):
        if len(results) >= limit:
            return
        if not free:
            results.append(list(chosen))
            return
        first = min(free)
        for kind, shape in shapes:
            a = shape[0]  # the smallest cell of a normalised shape is its anchor
            placed = [(first[0] + r - a[0], first[1] + c - a[1]) for r, c in shape]
            if all(x in free for x in placed):
                chosen.append((kind, sorted(placed)))
                rec(free - set(placed), chosen)
                chosen.pop()

    rec(set(order), [])
    return results


def split_group(cells: set[Cell], seams: dict[tuple[Cell, Cell], float], shapes,
                cfg: SeamConfig = SEAM) -> Split:
    """Split one 4-connected group of a player's cells into catalogue pieces.

    Args:
        cells: the group's cells.
        seams: seam shares from :func:`seam_shares` (edges keyed (smaller cell, larger cell)).
        shapes: from :func:`catalogue_shapes`.
    Returns:
        The most probable :class:`Split`. Score of a tiling = Σ over the group's inner edges of
        log P(seam) where it cuts and log P(no seam) where it does not; posterior = softmax.
    """
    edges = [(e, s) for e, s in seams.items() if e[0] in cells and e[1] in cells]
    logp_seam = {e: np.log(max(seam_probability(s, cfg), 1e-9)) for e, s in edges}
    logp_join = {e: np.log(max(1 - seam_probability(s, cfg), 1e-9)) for e, s in edges}
    if len(cells) <= cfg.max_exact_cells:
        tilings = _tilings(cells, shapes)
    else:
        tilings = []
    if not tilings:
        return Split(pieces=[("unknown", sorted(cells))], posterior=0.0, exact=False)
    scores = []
    for t in tilings:
        which = {cell: i for i, (_, cs) in enumerate(t) for cell in cs}
        scores.append(sum(logp_join[e] if which[e[0]] == which[e[1]] else logp_seam[e] for e, _ in edges))
    scores = np.array(scores)
    best = int(scores.argmax())
    post = np.exp(scores - scores.max())
    return Split(pieces=tilings[best], posterior=float(post[best] / post.sum()))


def groups(owner: np.ndarray) -> list[tuple[int, set[Cell]]]:
    """4-connected groups of cells covered by one player: list of (player index, cells)."""
    rows, cols = owner.shape
    seen = np.zeros_like(owner, bool)
    out = []
    for r in range(rows):
        for c in range(cols):
            if owner[r, c] < 0 or seen[r, c]:
                continue
            p = owner[r, c]
            stack, comp = [(r, c)], set()
            seen[r, c] = True
            while stack:
                a, b = stack.pop()
                comp.add((a, b))
                for x, y in ((a + 1, b), (a - 1, b), (a, b + 1), (a, b - 1)):
                    if 0 <= x < rows and 0 <= y < cols and not seen[x, y] and owner[x, y] == p:
                        seen[x, y] = True
                        stack.append((x, y))
            out.append((int(p), comp))
    return out
