"""Plażing printed patterns: each piece kind's print, learned, and how well a placement fits it.

Input: pattern windows of covered cells (:func:`cell_windows`). Output: the learned templates, and
for any placement of a catalogue shape the print's log-likelihood (and a screen's facing).

Idea: each kind of piece carries its own print (in the sample set: a dark stripe along a screen's
outer side, a dot on every gear cell, squares on two corners of a blanket); :class:`PatternModel`
learns each kind's cell maps from the calibration's pieces (labelled screens, pieces whose split
is certain) and scores any placement of a catalogue shape, in each of its rotations (a screen's
rotation is its facing). :func:`piece_scorer` hands those scores to
:func:`vision.plazing.pieces.split_group`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.plazing.cells import Grid
from vision.plazing.config import PATTERN, PatternConfig
from vision.plazing.pieces import FACINGS, rotate
from vision.plazing.tokens import small_matmul


def pattern_maps(masks: np.ndarray, gray: np.ndarray, grid: Grid, px_per_mm: float, cfg: PatternConfig = PATTERN):
    """Block maps of the grid for the pattern model.

    Args:
        masks: the players' colour masks, uint8 (H, W, P), 255 = that player's colour
            (:func:`vision.plazing.cells.player_masks`).
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
        m = shares[p] > PATTERN.whole_block_share
        if m.sum() >= PATTERN.min_whole_blocks:
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
    both = np.concatenate([flat * flat, flat], axis=1)  # x² and x of every window, squared once
    for dy in range(ns):
        for dx in range(ns):
            x = both[:, :, dy:dy + B, dx:dx + B].reshape(len(flat), -1)
            c[dy, dx] = np.maximum(small_matmul(x, W) + const, 0.0)
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


def piece_scorer(model: PatternModel, cells, windows):
    """A ``piece_score(kind, cells) -> (log-likelihood, facing, facing posterior)`` for
    :func:`~vision.plazing.pieces.split_group`, from the pattern costs of the covered cells."""
    index = {c: i for i, c in enumerate(cells)}
    costs = model.cell_costs(windows) if len(cells) else {}
    untaught = model.untaught_cost()
    layouts: dict = {}
    best_rows: dict = {}

    def score(kind, placed):
        if kind in model.pooled:  # every cell of the kind looks alike, whatever the shape
            c = sum(costs[kind][index[cell], 0] if kind in costs else untaught for cell in placed)
            return -0.5 * c, None, 1.0
        r0 = min(r for r, _ in placed)
        c0 = min(c for _, c in placed)
        key = (kind, tuple((r - r0, c - c0) for r, c in placed))
        if key not in layouts:
            layouts[key] = model.placements(kind, placed)
        opts = layouts[key]
        if not opts:
            return -0.5 * untaught * len(placed), None, 1.0
        ll = []
        rows = []
        for k, idx in opts:
            c = 0.0
            row = []
            for cell, i in zip(placed, idx):
                role = model.role(kind, i)
                v = costs[role][index[cell], k] if role in costs else untaught
                row.append(v)
                c += v
            ll.append(-0.5 * c)
            rows.append(row)
        ll = np.array(ll)
        best = int(ll.argmax())
        # the print cost of each cell in the best rotation, for per_cell (the same sums, the same first best)
        best_rows[kind, tuple(placed)] = rows[best]
        post = np.exp(ll - ll.max())
        m = float(ll.max() + np.log(post.mean()))  # log of the mean over rotations: the rotation is unknown
        face = FACINGS[opts[best][0]] if kind == "screen" else None
        return m, face, float(post[best] / post.sum())

    def per_cell(kind, placed) -> np.ndarray:
        """Print cost of each of ``placed`` (its best rotation for the whole piece), float64 (n,)."""
        if kind in model.pooled:
            return np.array([costs[kind][index[cell], 0] if kind in costs else untaught for cell in placed])
        known = best_rows.get((kind, tuple(placed)))
        if known is not None:
            return np.array(known, np.float64)
        opts = model.placements(kind, placed)
        if not opts:
            return np.full(len(placed), untaught)
        rows = [[costs[model.role(kind, i)][index[cell], k] if model.role(kind, i) in costs else untaught
                 for cell, i in zip(placed, idx)] for k, idx in opts]
        return np.array(min(rows, key=sum), np.float64)

    score.per_cell = per_cell
    return score
