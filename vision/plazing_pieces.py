"""Plażing pieces: split same-colour cells into physical pieces and name each piece's kind.

Two kinds of evidence, both learned or measured, none tuned to a photo:

- **Seams.** Two pieces that touch leave a thin cut between them (their cut edges, a line of
  sand or shadow), while inside one piece the colour runs on across the cell edge. For every
  edge shared by two cells of the same player, :func:`seam_contrasts` measures the colour dip
  across the edge on exact colour values (a ridge/valley detector that ignores steps, so a
  printed square or stripe ending at the edge is no seam).
- **Printed patterns.** Each kind of piece carries its own print (in the sample set: a dark
  stripe along a screen's outer side, a dot on every gear cell, squares on two corners of a
  blanket); :class:`PatternModel` learns each kind's cell maps from the calibration's pieces
  (labelled screens, pieces whose split is certain) and scores any placement of a catalogue
  shape, in each of its rotations (a screen's rotation is its facing).

Each 4-connected group of one player's cells is then tiled exactly with shapes of the profile's
catalogue (any rotation); every tiling is scored by the log-likelihood of the seams (cut where it
cuts, joined where it joins) plus that of the patterns of its pieces, and the posterior of the
best tiling against all others is the confidence of the split: when two tilings explain the
photo equally well, it is ≤ 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.plazing_cells import Grid
from vision.plazing_config import PATTERN, SEAM, PatternConfig, SeamConfig
from vision.plazing_tokens import small_matmul

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


# --------------------------------------------------------------------------------------------
# seams


def _edge_list(owner: np.ndarray):
    """Edges between 4-neighbour cells of the same player: (vertical list, horizontal list) of
    ((r, c), (r2, c2)) with the second cell right of / below the first."""
    same_h = (owner[:, :-1] >= 0) & (owner[:, :-1] == owner[:, 1:])
    same_v = (owner[:-1, :] >= 0) & (owner[:-1, :] == owner[1:, :])
    vert = [((int(r), int(c)), (int(r), int(c) + 1)) for r, c in np.argwhere(same_h)]
    horiz = [((int(r), int(c)), (int(r) + 1, int(c))) for r, c in np.argwhere(same_v)]
    return vert, horiz


def _valley(profiles: np.ndarray, centre: int, search: int, lags) -> np.ndarray:
    """Ridge/valley response of colour profiles.

    Args:
        profiles: float32 (E, n, 3) colour across each edge, ``centre`` at the grid line.
        search: positions ±search around the centre examined.
        lags: detector half-widths in px.
    Returns:
        float64 (E,): max over positions and lags of min(|d1|, |d2|)·max(0, cos(d1, d2)), with
        d1, d2 the colour differences to the positions one lag before and after.
    """
    best = np.zeros(len(profiles))
    pos = np.arange(centre - search, centre + search + 1)
    for lag in lags:
        p = profiles[:, pos]
        d1 = p - profiles[:, pos - lag]
        d2 = p - profiles[:, pos + lag]
        n1 = np.linalg.norm(d1, axis=-1)
        n2 = np.linalg.norm(d2, axis=-1)
        cos = (d1 * d2).sum(-1) / np.maximum(n1 * n2, 1e-6)
        r = np.minimum(n1, n2) * np.maximum(cos, 0.0)
        best = np.maximum(best, r.max(axis=1))
    return best


def seam_contrasts(board_bgr: np.ndarray, owner: np.ndarray, grid: Grid, px_per_mm: float,
                   cfg: SeamConfig = SEAM) -> dict[tuple[Cell, Cell], float]:
    """Seam evidence on every edge shared by two cells of the same player.

    Args:
        board_bgr: rectified, illumination-normalised board, BGR uint8 (H, W, 3) at
            ``px_per_mm``; pixel (u, v) is at ((u + 0.5)/ppm, (v + 0.5)/ppm) mm.
        owner: int (rows, cols) covering player index or −1.
        grid: board grid.
        px_per_mm: resolution of ``board_bgr``.
    Returns:
        dict ((r, c), (r2, c2)) → colour dip across the edge in BGR levels (0: the colour runs
        on; ≳ 10: a cut). The second cell is right of or below the first.
    """
    lags = sorted({max(1, int(round(l * px_per_mm))) for l in cfg.lags_mm})
    search = max(1, int(round(cfg.search_mm * px_per_mm)))
    half = search + max(lags)
    along = max(1, int(round(0.5 * cfg.along_share * grid.cell_mm * px_per_mm)))
    vert, horiz = _edge_list(owner)
    out = {}
    img = board_bgr
    H, W = img.shape[:2]
    for edges, transpose in ((vert, False), (horiz, True)):
        if not edges:
            continue
        a = np.array([e[0] for e in edges], np.float64)
        if not transpose:  # vertical line between (r, c) and (r, c+1): profile runs along u
            line = (grid.origin_mm[0] + (a[:, 1] + 1) * grid.cell_mm) * px_per_mm - 0.5
            mid = (grid.origin_mm[1] + (a[:, 0] + 0.5) * grid.cell_mm) * px_per_mm - 0.5
        else:
            line = (grid.origin_mm[1] + (a[:, 0] + 1) * grid.cell_mm) * px_per_mm - 0.5
            mid = (grid.origin_mm[0] + (a[:, 1] + 0.5) * grid.cell_mm) * px_per_mm - 0.5
        across = np.round(line)[:, None].astype(np.int64) + np.arange(-half, half + 1)[None]
        lengthwise = np.round(mid)[:, None].astype(np.int64) + np.arange(-along, along + 1)[None]
        if not transpose:
            u = np.clip(across, 0, W - 1)[:, None, :]
            v = np.clip(lengthwise, 0, H - 1)[:, :, None]
        else:
            v = np.clip(across, 0, H - 1)[:, None, :]
            u = np.clip(lengthwise, 0, W - 1)[:, :, None]
        strips = img[v, u].astype(np.float32)  # (E, along, across, 3)
        profiles = strips.mean(axis=1)
        dips = _valley(profiles, half, search, lags)
        for e, d in zip(edges, dips):
            out[e] = float(d)
    return out


def seam_probability(contrast_bgr, cfg: SeamConfig = SEAM):
    """Probability that an edge is a cut between two pieces, logistic in its colour dip (BGR levels)."""
    return 1.0 / (1.0 + np.exp(-(np.asarray(contrast_bgr, np.float64) - cfg.contrast_bgr) / cfg.scale_bgr))


# --------------------------------------------------------------------------------------------
# printed patterns


def pattern_maps(masks: np.ndarray, gray: np.ndarray, grid: Grid, px_per_mm: float, cfg: PatternConfig = PATTERN):
    """Block maps of the grid for the pattern model.

    Args:
        masks: the players' colour masks, uint8 (H, W, P), 255 = that player's colour
            (:func:`vision.plazing_cells.player_masks`).
        gray: illumination-normalised grey board, uint8 (H, W).
        grid: the grid in the image's millimetres; px_per_mm: resolution of ``masks`` and ``gray``.
    Returns:
        ``(shares, light)``: float32 (P, rows·B + 2m, cols·B + 2m) share of each block in each
        player's colour, and float32 (rows·B + 2m, cols·B + 2m) mean grey of each block, with
        B = ``cfg.blocks`` blocks per cell side and m = ``cfg.max_shift_blocks`` extra blocks
        around the grid.
    """
    B = cfg.blocks
    pad = cfg.max_shift_blocks * grid.cell_mm / B
    x0 = (grid.origin_mm[0] - pad) * px_per_mm
    y0 = (grid.origin_mm[1] - pad) * px_per_mm
    x1 = (grid.origin_mm[0] + grid.cols * grid.cell_mm + pad) * px_per_mm
    y1 = (grid.origin_mm[1] + grid.rows * grid.cell_mm + pad) * px_per_mm
    H, W = gray.shape
    u0, v0, u1, v1 = max(int(round(x0)), 0), max(int(round(y0)), 0), min(int(round(x1)), W), min(int(round(y1)), H)
    size = (grid.cols * B + 2 * cfg.max_shift_blocks, grid.rows * B + 2 * cfg.max_shift_blocks)
    P = masks.shape[2]
    if P:
        sm = cv2.resize(masks[v0:v1, u0:u1], size, interpolation=cv2.INTER_AREA).reshape(size[1], size[0], P)
        shares = np.moveaxis(sm, -1, 0).astype(np.float32) / 255.0
    else:
        shares = np.zeros((0, size[1], size[0]), np.float32)
    light = cv2.resize(gray[v0:v1, u0:u1], size, interpolation=cv2.INTER_AREA).astype(np.float32)
    return shares, light


def player_lightness(shares: np.ndarray, light: np.ndarray, fallback) -> np.ndarray:
    """Mean grey of each player's colour in this photo (blocks wholly in the colour), float64 (P,);
    ``fallback[p]`` (the calibration's) when the photo shows no such block."""
    out = np.array(fallback, np.float64).copy()
    for p in range(len(shares)):
        m = shares[p] > 0.98
        if m.sum() >= 4:
            out[p] = float(np.median(light[m]))
    return out


def cell_windows(cells, owner_of, shares: np.ndarray, light: np.ndarray, ref_light, base_light: float,
                 cfg: PatternConfig = PATTERN):
    """Pattern windows of cells, in the four rotations.

    Args:
        cells: list of (row, col).
        owner_of: player index of each cell (list).
        shares, light: from :func:`pattern_maps`; ref_light: (P,) from :func:`player_lightness`.
        base_light: grey level taken as "neither light nor dark" (the board's median grey).
    Returns:
        float32 (N, 4, 2, B+2m, B+2m) with m = ``cfg.max_shift_blocks``: channel 0 = share u of
        the block *not* in the cell's player colour, channel 1 = how light or dark that part is,
        u·(its grey − ``base_light``) / ``cfg.lightness_scale``, so the same print reads the same
        on every player's colour (a block's grey is (1 − u)·player grey + u·grey of the rest);
        rotation k is the window turned k quarter turns counter-clockwise
        (a piece turned k quarter turns clockwise looks canonical again).
    """
    B = cfg.blocks
    n = B + 2 * cfg.max_shift_blocks
    if not len(cells):
        return np.zeros((0, 4, 2, n, n), np.float32)
    rc = np.asarray(cells, np.int64).reshape(-1, 2)
    rows = rc[:, :1] * B + np.arange(n)[None]  # (N, n)
    cols = rc[:, 1:] * B + np.arange(n)[None]
    p = np.asarray(owner_of, np.int64)
    share = shares[p[:, None, None], rows[:, :, None], cols[:, None, :]]
    lit = light[rows[:, :, None], cols[:, None, :]]
    ref = np.asarray(ref_light, np.float32)[p][:, None, None]
    w0 = 1.0 - share
    w1 = (lit - share * ref - w0 * np.float32(base_light)) / np.float32(cfg.lightness_scale)
    w = np.stack([w0, w1], axis=1).astype(np.float32)  # (N, 2, n, n)
    return np.stack([np.rot90(w, k, axes=(2, 3)) for k in range(4)], axis=1)


def _shift_costs(windows: np.ndarray, means: np.ndarray, sds: np.ndarray, cfg: PatternConfig) -> np.ndarray:
    """Tempered χ² of windows against templates, min over shifts of ±``max_shift_blocks``.

    Args:
        windows: (..., 2, B+2m, B+2m) float32.
        means, sds: (R, 2, B, B) templates (or (2, B, B) for one).
    Returns:
        float64 (..., R) (or (...,) for one template): min over shifts of Σ((x − mean)/sd)² /
        ``cfg.dependence`` + ``cfg.shift_cost``·(shift in blocks)².
    """
    one = means.ndim == 3
    if one:
        means, sds = means[None], sds[None]
    B = means.shape[-1]
    n = windows.shape[-1]
    lead = windows.shape[:-3]
    R = len(means)
    inv = (1.0 / sds.astype(np.float32) ** 2).reshape(R, -1)
    mw = means.reshape(R, -1).astype(np.float32) * inv
    const = (means.reshape(R, -1).astype(np.float32) ** 2 * inv).sum(axis=1)
    ns = n - B + 1
    flat = windows.reshape((-1,) + windows.shape[-3:]).astype(np.float32, copy=False)
    # Σ((x − m)/s)² = x²·s⁻² − 2 x·m s⁻² + m²·s⁻²: small matrix products per shift
    W = np.ascontiguousarray(np.concatenate([inv, -2.0 * mw], axis=1).T)  # (2F, R)
    c = np.empty((ns, ns, len(flat), R), np.float64)
    for dy in range(ns):
        for dx in range(ns):
            x = flat[:, :, dy:dy + B, dx:dx + B].reshape(len(flat), -1)
            c[dy, dx] = np.maximum(small_matmul(np.concatenate([x * x, x], axis=1), W) + const, 0.0)
    c /= cfg.dependence
    d = np.arange(ns) - (ns - 1) // 2
    c += cfg.shift_cost * (d[:, None] ** 2 + d[None, :] ** 2)[:, :, None, None]
    best = c.min(axis=(0, 1)).reshape(lead + (R,))
    return best[..., 0] if one else best


@dataclass
class PatternModel:
    """Learned print of each piece kind.

    Attributes:
        canon: kind → canonical cells (the profile's first shape of the kind).
        pooled: kinds with several shapes (their cells share one look, e.g. gear).
        roles: role name → (mean (2, B, B), sd (2, B, B), count); role names are
            ``"<kind>/<i>"`` (cell i of the canonical shape) or ``"<kind>"`` for pooled kinds.
    """

    canon: dict
    pooled: set
    roles: dict = field(default_factory=dict)

    @classmethod
    def for_profile(cls, profile: dict) -> "PatternModel":
        """An untaught model for the profile's catalogue (``profile["pieces"]``): canonical shapes
        (the first of each kind; a screen laid along a row) and the pooled kinds."""
        pieces = profile.get("pieces", {})
        canon = {k: [tuple(c) for c in v[0]] for k, v in pieces.items() if v}
        if "screen" in canon:  # a canonical screen lies along a row and faces N (its k = 0)
            cells = canon["screen"]
            if max(r for r, _ in cells) > max(c for _, c in cells):
                canon["screen"] = [(c, r) for r, c in cells]
        return cls(canon=canon, pooled={k for k, v in pieces.items() if len(v) > 1})

    def role(self, kind: str, i: int) -> str:
        """Template name of cell ``i`` (canonical index) of a piece of ``kind``."""
        return kind if kind in self.pooled else f"{kind}/{i}"

    def to_json(self) -> dict:
        """JSON-serialisable form (templates rounded to 4 decimals)."""
        return {"canon": {k: [list(c) for c in v] for k, v in self.canon.items()}, "pooled": sorted(self.pooled),
                "roles": {k: {"mean": np.round(m, 4).tolist(), "sd": np.round(s, 4).tolist(), "count": n}
                          for k, (m, s, n) in self.roles.items()}}

    @classmethod
    def from_json(cls, d: dict) -> "PatternModel":
        """Inverse of :meth:`to_json`; templates as float32 (2, B, B)."""
        return cls(canon={k: [tuple(c) for c in v] for k, v in d["canon"].items()}, pooled=set(d["pooled"]),
                   roles={k: (np.array(v["mean"], np.float32), np.array(v["sd"], np.float32), int(v["count"]))
                          for k, v in d["roles"].items()})

    def placements(self, kind: str, cells) -> list[tuple[int, list[int]]]:
        """Rotations k that lay the kind's canonical shape on ``cells``, with the canonical index
        of each of ``cells`` (in the given order)."""
        canon = self.canon.get(kind)
        if canon is None:
            return []
        r0 = min(r for r, _ in cells)
        c0 = min(c for _, c in cells)
        rel = [(r - r0, c - c0) for r, c in cells]
        out = []
        for k in range(4):
            rot = rotate(canon, k)
            a = min(r for r, _ in rot)
            b = min(c for _, c in rot)
            idx = {(r - a, c - b): i for i, (r, c) in enumerate(rot)}
            if set(idx) == set(rel) and len(rot) == len(rel):
                out.append((k, [idx[x] for x in rel]))
        return out

    def learn(self, instances, cfg: PatternConfig = PATTERN) -> None:
        """Learn role templates.

        Args:
            instances: list of (kind, windows (n, 4, 2, B+2, B+2) of the piece's cells, k or None,
                canonical index per cell or None). ``k`` None: the rotation is chosen to fit the
                template learned so far (blankets, gear); pooled kinds ignore k and indexes.
        """
        B = cfg.blocks
        for sweep in range(2):
            collected: dict[str, list] = {}
            for kind, win, k, idx in instances:
                if kind in self.pooled:
                    for w in win:
                        role = kind
                        if role in self.roles and sweep:
                            m, s, _ = self.roles[role]
                            kk = int(np.argmin(_shift_costs(w, m, s, cfg)))
                        else:
                            kk = 0
                        collected.setdefault(role, []).append(self._centred(w[kk], role, sweep, cfg))
                    continue
                options = [(k, idx)] if k is not None else idx
                if k is None:  # idx holds the candidate (k, indexes) list
                    best, best_cost = options[0], None
                    if sweep:
                        for kk, ii in options:
                            cost = sum(float(_shift_costs(win[j, kk], *self.roles[self.role(kind, ii[j])][:2], cfg))
                                       for j in range(len(ii)) if self.role(kind, ii[j]) in self.roles)
                            if best_cost is None or cost < best_cost:
                                best, best_cost = (kk, ii), cost
                    k_use, idx_use = best
                else:
                    k_use, idx_use = k, idx
                for j, i in enumerate(idx_use):
                    role = self.role(kind, i)
                    collected.setdefault(role, []).append(self._centred(win[j, k_use], role, sweep, cfg))
            roles = {}
            for role, ws in collected.items():
                a = np.array(ws, np.float32)
                mean = a.mean(axis=0)
                sd = (np.sqrt(a.var(axis=0) + cfg.sd_floor ** 2) if len(a) > 1
                      else np.full_like(mean, cfg.sd_floor * 1.5))  # one sample: no spread seen, a wider floor
                roles[role] = (mean, sd.astype(np.float32), len(a))
            self.roles = roles
        assert all(m.shape == (2, B, B) for m, _, _ in self.roles.values())

    def _centred(self, w: np.ndarray, role: str, sweep: int, cfg: PatternConfig) -> np.ndarray:
        """The B×B part of a (2, B+2, B+2) window: centred, or best-shifted to the current template."""
        B = cfg.blocks
        if not sweep or role not in self.roles:
            m = (w.shape[-1] - B) // 2
            return w[:, m:m + B, m:m + B]
        m, s, _ = self.roles[role]
        best, cost = None, None
        for dy in range(w.shape[-1] - B + 1):
            for dx in range(w.shape[-1] - B + 1):
                sub = w[:, dy:dy + B, dx:dx + B]
                c = float((((sub - m) / s) ** 2).sum())
                if cost is None or c < cost:
                    best, cost = sub, c
        return best

    def cell_costs(self, windows: np.ndarray, cfg: PatternConfig = PATTERN) -> dict[str, np.ndarray]:
        """Cost of every cell under every learned role.

        Args:
            windows: (N, 4, 2, B+2m, B+2m) from :func:`cell_windows`.
        Returns:
            role → float64 (N, 4), cost in rotation k (pooled roles: the min over rotations,
            repeated).
        """
        names = list(self.roles)
        if not names or not len(windows):
            return {r: np.zeros((len(windows), 4)) for r in names}
        means = np.stack([self.roles[r][0] for r in names])
        sds = np.stack([self.roles[r][1] for r in names])
        c = _shift_costs(windows, means, sds, cfg)  # (N, 4, R)
        out = {}
        for j, role in enumerate(names):
            cj = c[..., j]
            if "/" not in role:
                cj = np.repeat(cj.min(axis=1, keepdims=True), 4, axis=1)
            out[role] = cj
        return out

    def untaught(self) -> set:
        """Kinds of the catalogue whose print the calibration never showed."""
        return {k for k in self.canon if not any(r == k or r.startswith(k + "/") for r in self.roles)}

    def untaught_cost(self, cfg: PatternConfig = PATTERN) -> float:
        """Cost charged per cell for a kind the calibration never showed: twice what a cell that
        matches its template costs on average (2 · 2B² / dependence)."""
        return 2.0 * 2 * cfg.blocks ** 2 / cfg.dependence


# --------------------------------------------------------------------------------------------
# splitting


@dataclass
class Split:
    """How one group of same-colour cells splits into pieces.

    Attributes:
        pieces: list of (kind, cells, facing or None, facing posterior) with cells sorted
            (row, col) tuples; the facing is the rotation of the piece's print (screens).
        posterior: probability of this split against every other exact tiling, in [0, 1].
        exact: False when no tiling by catalogue shapes exists (cells then form unknown pieces).
        runner_up: the second-best tiling's pieces (for warnings), or None.
        kinds: the piece kinds that some enumerated tiling used.
    """

    pieces: list
    posterior: float
    exact: bool = True
    runner_up: list | None = None
    kinds: frozenset = frozenset()


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
                piece_score=None, cfg: SeamConfig = SEAM) -> Split:
    """Split one 4-connected group of a player's cells into catalogue pieces.

    Args:
        cells: the group's cells.
        seams: seam contrasts from :func:`seam_contrasts` (edges keyed (first cell, cell right
            of / below it)), BGR levels.
        shapes: from :func:`catalogue_shapes`.
        piece_score: optional function (kind, cells) → (log-likelihood of the print, facing,
            facing posterior); without it the print is not used.
    Returns:
        The most probable :class:`Split`. Score of a tiling = Σ over the group's inner edges of
        log P(seam) where it cuts and log P(no seam) where it does not, + Σ over its pieces of the
        print's log-likelihood; posterior = softmax over all tilings (at most ``cfg.max_tilings``).
    """
    order = sorted(cells)
    if len(order) > cfg.max_exact_cells:
        return Split(pieces=[("unknown", order, None, 1.0)], posterior=0.0, exact=False)
    p_seam = {e: float(np.clip(seam_probability(v, cfg), 1e-6, 1 - 1e-6))
              for e, v in seams.items() if e[0] in cells and e[1] in cells}
    base = sum(np.log(p) for p in p_seam.values())
    table = _placement_table(order, shapes)
    if sum(len(row) for row in table) == 1:  # one way only (e.g. a lone cell): nothing to weigh
        (mask, kind, placed), = [x for row in table for x in row]
        face, pf = (piece_score(kind, placed)[1:] if piece_score is not None else (None, 1.0))
        return Split(pieces=[(kind, placed, face, pf)], posterior=1.0, kinds=frozenset([kind]))
    # score every placement once: seams joined inside it, and its print
    info = {}
    for row in table:
        for mask, kind, placed in row:
            inside = set(placed)
            sc = sum(np.log(1 - p) - np.log(p) for e, p in p_seam.items() if e[0] in inside and e[1] in inside)
            face, pf = None, 1.0
            if piece_score is not None:
                ll, face, pf = piece_score(kind, placed)
                sc += ll
            info[mask, kind] = (float(sc), face, pf)
    # a placement that explains its cells far worse (per cell) than another placement over one of
    # them cannot be part of a tiling worth counting (posterior < e^-prune): left out
    best = np.full(len(order), -np.inf)
    for row in table:
        for mask, kind, placed in row:
            per = info[mask, kind][0] / len(placed)
            for i in range(len(order)):
                if mask >> i & 1:
                    best[i] = max(best[i], per)
    kept = [[(mask, kind, placed, info[mask, kind][0]) for mask, kind, placed in row
             if all(info[mask, kind][0] / len(placed) >= best[i] - cfg.prune_per_cell
                    for i in range(len(order)) if mask >> i & 1)] for row in table]
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
    return Split(pieces=pieces, posterior=float(post[top] / post.sum()), runner_up=runner, kinds=kinds)


def groups(owner: np.ndarray) -> list[tuple[int, set[Cell]]]:
    """4-connected groups of cells covered by one player: list of (player index, cells)."""
    out = []
    for p in sorted(int(x) for x in np.unique(owner) if x >= 0):
        n, lab = cv2.connectedComponents((owner == p).astype(np.uint8), connectivity=4)
        for k in range(1, n):
            out.append((p, {(int(r), int(c)) for r, c in np.argwhere(lab == k)}))
    return out
