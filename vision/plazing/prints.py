"""Stage 3 — printed marks removed: each free ``+`` / ``-`` / ``x`` cell brought back to bare sand.

Input: the illumination-normalised grid crop (BGR uint8), the terrain, the free cells.
Output: the same crop with every printed mark of a free cell painted over in that cell's own sand
colour (in place), and the cells whose mark could not be seen (a token lies on it, or it is not there).

Why: the printed ± discs and crossed sticks have a player-like colour and a token-like size, and
their shade varies from tile to tile and shot to shot (a disc can be paler in the calibration shot
than in the scene), so comparing a mark cell with the calibration's mark cells mistakes a red
``-`` disc for a red meeple. What is bare *in this photo* is known: the other cells bearing the same
mark. Their printed colour (the median over them, so a token on one of them does not move it) is
the mark's colour now. A pixel of a mark cell is explained by the print when it lies on the segment
between the cell's sand and that colour (the disc, and its blurred rim mixing the two) within the
noise; those pixels are replaced by the cell's sand, and the token reader then sees every free
cell as a ``.`` cell. A token standing on a mark keeps its own colours and stays.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.plazing.config import PRINTS, PrintConfig

MARKS = "+-x"  #: terrain characters of printed marks on placeable sand


def cell_sand(patch: np.ndarray, cfg: PrintConfig = PRINTS) -> np.ndarray:
    """Sand colour of one cell: the median of a ring just inside its edge (tokens stand in the middle;
    the inset keeps the neighbours' edges and the grid line out).

    Args:
        patch: the cell cut out of the normalised crop, BGR uint8 (h, w, 3).
    Returns:
        float32 (3,) BGR.
    """
    h, w = patch.shape[:2]
    a = max(1, int(round(cfg.ring_inset_share * h)))
    b = max(a + 1, int(round((cfg.ring_inset_share + cfg.ring_width_share) * h)))
    inner = patch[a:h - a, a:w - a]
    ring = np.concatenate([inner[:b - a].reshape(-1, 3), inner[-(b - a):].reshape(-1, 3),
                           inner[:, :b - a].reshape(-1, 3), inner[:, -(b - a):].reshape(-1, 3)])
    return np.median(ring, axis=0).astype(np.float32)


def cell_sands_of(patches: list, cfg: PrintConfig = PRINTS) -> list:
    """:func:`cell_sand` of each patch; patches of one size in one median (the same ring, the
    same median per cell)."""
    out = [None] * len(patches)
    by_shape: dict = {}
    for i, patch in enumerate(patches):
        by_shape.setdefault(patch.shape, []).append(i)
    for (h, w, _), idx in by_shape.items():
        if len(idx) == 1:
            out[idx[0]] = cell_sand(patches[idx[0]], cfg)
            continue
        a = max(1, int(round(cfg.ring_inset_share * h)))
        b = max(a + 1, int(round((cfg.ring_inset_share + cfg.ring_width_share) * h)))
        inner = np.stack([patches[i] for i in idx])[:, a:h - a, a:w - a]
        n = len(idx)
        ring = np.concatenate([inner[:, :b - a].reshape(n, -1, 3), inner[:, -(b - a):].reshape(n, -1, 3),
                               inner[:, :, :b - a].reshape(n, -1, 3), inner[:, :, -(b - a):].reshape(n, -1, 3)], axis=1)
        for i, sand in zip(idx, np.median(ring, axis=1).astype(np.float32)):
            out[i] = sand
    return out


def _deviating(patch: np.ndarray, sand: np.ndarray, cfg: PrintConfig) -> np.ndarray:
    """Pixels (N, 3) of a cell's inner part farther than ``cfg.deviation_bgr`` from its sand."""
    h, w = patch.shape[:2]
    a = max(1, int(round(cfg.ring_inset_share * h)))
    p = patch[a:h - a, a:w - a].reshape(-1, 3).astype(np.float32)
    v = p - sand
    return p[np.einsum("ij,ij->i", v, v) > cfg.deviation_bgr ** 2]


def _on_segment(pixels: np.ndarray, sand: np.ndarray, ink: np.ndarray, most: float):
    """Each pixel's mixing share α ∈ [0, ``most``] of ink against sand, and its squared distance
    (BGR levels²) from the line sand–ink within that range: float32 (N,), float32 (N,)."""
    d = (ink - sand).astype(np.float32)
    v = pixels - sand
    vv = np.einsum("ij,ij->i", v, v)
    n2 = float(d @ d)
    if n2 < 1e-6:
        return np.zeros(len(pixels), np.float32), vv
    t = v @ d
    alpha = np.clip(t / n2, 0.0, most)
    off2 = vv - 2.0 * alpha * t + alpha * alpha * n2  # |v − α d|²
    return alpha.astype(np.float32), off2.astype(np.float32)


def flat_share(patch: np.ndarray, cfg: PrintConfig = PRINTS, sand: np.ndarray | None = None,
               dev: np.ndarray | None = None, ink: np.ndarray | None = None) -> float | None:
    """How much of what stands out in a cell is one flat ink: the share of the pixels that deviate
    from the cell's sand lying on the line from sand through their median colour.

    A printed mark scores near 1, a meeple (a figure: shading, highlights, its shadow) lower
    (``PrintConfig.flat_print_share``; measured values in ``docs/tuning.md``).

    Args:
        patch: the cell cut out of the normalised crop, BGR uint8 (h, w, 3).
        sand, dev: the cell's :func:`cell_sand` and deviating pixels when the caller has them;
            ink: their median when the caller has it.
    Returns:
        the share in [0, 1], or None when too little deviates (bare sand).
    """
    if sand is None:
        sand = cell_sand(patch, cfg)
    if dev is None:
        dev = _deviating(patch, sand, cfg)
    if len(dev) < cfg.min_ink_px:
        return None
    if ink is None:
        ink = np.median(dev, axis=0)
    _, off2 = _on_segment(dev, sand, ink.astype(np.float32), cfg.max_alpha)
    return float((off2 < cfg.noise_bgr ** 2).mean())


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return (v / n).astype(np.float32) if n > 0 else np.zeros(3, np.float32)


def ink_directions(board: np.ndarray, boxes: np.ndarray, terrain: np.ndarray, free: np.ndarray,
                   cfg: PrintConfig = PRINTS) -> dict:
    """Per printed mark shown free in a shot, the direction of its ink from the sand (a unit BGR
    vector, the median over its cells): what the calibration shot teaches about each mark's hue."""
    out = {}
    for mark in MARKS:
        dirs = []
        for r, c in np.argwhere(free & (terrain == mark)).tolist():
            u0, v0, u1, v1 = boxes[r, c]
            patch = board[v0:v1, u0:u1]
            sand = cell_sand(patch, cfg)
            dev = _deviating(patch, sand, cfg)
            if len(dev) >= cfg.min_ink_px:
                dirs.append(_unit(np.median(dev, axis=0) - sand))
        if dirs:
            out[mark] = _unit(np.median(np.array(dirs), axis=0)).round(4).tolist()
    return out


def _same_ink(a: np.ndarray, b: np.ndarray, cfg: PrintConfig) -> bool:
    """Whether two colour offsets from sand point the same way (the same ink, paler or deeper)."""
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return na > 0 and nb > 0 and float(a @ b) / (na * nb) > cfg.same_ink_cos


def remove_marks(board: np.ndarray, boxes: np.ndarray, terrain: np.ndarray, free: np.ndarray,
                 known: dict | None = None, cfg: PrintConfig = PRINTS,
                 witness: np.ndarray | None = None, shares: dict | None = None,
                 areas: dict | None = None) -> tuple[list, list]:
    """Paint the printed marks of free mark cells over with each cell's sand (in place).

    Args:
        board: normalised grid crop, BGR uint8 (H, W, 3); modified in place.
        boxes: int (rows, cols, 4) whole-cell boxes u0, v0, u1, v1 in ``board`` px.
        terrain: str (rows, cols) terrain characters.
        free: bool (rows, cols), cells no piece covers (and not ``#``).
        known: mark → the direction of its ink from sand at calibration (unit BGR vector,
            :func:`ink_directions`): one more vote on which of this photo's mark cells show the
            bare print, when only one or two cells bear the mark.
        witness: bool (rows, cols), the free cells whose print may vote on the mark's hue and colour
            (default: every free cell). A cell outside it (a token known to lie there) is painted
            with the witnesses' ink only; a mark no witness shows is painted nowhere.
        shares: when given, receives ``{(row, col): flat share}`` (:func:`flat_share`, a share in
            [0, 1], before painting) of every free mark cell where enough deviates from its sand.
        areas: when given, receives ``{(row, col): area ratio}`` of those cells of a mark that
            some cell shows bare: how many of the cell's pixels deviate from its sand over the
            median count of the mark's agreeing cells (voting, one flat ink of its hue), a ratio
            (≈ 1 on a bare print, more under a token); a mark no cell agrees on gets none.
    Returns:
        ``(cleaned, unseen)``: cells whose mark was painted over; mark cells where the print was not
        found (the mark's colour deviates nowhere in them: a token hides it, or the terrain is wrong).
    """
    cleaned, unseen = [], []
    for mark in MARKS:
        cells = [tuple(rc) for rc in np.argwhere(free & (terrain == mark)).tolist()]
        if not cells:
            continue
        patches = [board[v0:v1, u0:u1] for u0, v0, u1, v1 in (boxes[r, c] for r, c in cells)]
        sands = cell_sands_of(patches, cfg)
        votes = [True if witness is None else bool(witness[r, c]) for r, c in cells]
        inks, devs, flats = [], [], []
        for patch, sand in zip(patches, sands):
            dev = _deviating(patch, sand, cfg)
            devs.append(dev)
            inks.append(np.median(dev, axis=0) if len(dev) >= cfg.min_ink_px else None)
            share = flat_share(patch, cfg, sand, dev, inks[-1]) if inks[-1] is not None else None
            if shares is not None and share is not None:
                shares[cells[len(flats)]] = share
            flats.append(share is not None and share >= cfg.flat_print_share)
        seen = [k for k, vote in zip(inks, votes) if k is not None and vote]
        if not seen:
            unseen += cells
            continue
        # the mark's hue (its ink's direction from sand), voted by this photo's mark cells and the
        # calibration's; the mark's colour now is the median of the cells that agree with it and
        # show one flat ink (a token on one of them, or a lone cell bearing a flat token of a
        # similar hue, is no witness of the print's colour); a paler or deeper print of the same
        # ink lies on the same line from sand, so one colour serves all
        dirs = [_unit(k - sd) for k, sd, vote in zip(inks, sands, votes) if k is not None and vote]
        if known and mark in known:
            dirs.append(np.asarray(known[mark], np.float32))
        hue = _unit(np.median(np.array(dirs), axis=0))
        agreeing = [i for i, (k, sd, flat, vote) in enumerate(zip(inks, sands, flats, votes))
                    if k is not None and vote and flat and _same_ink(k - sd, hue, cfg)]
        agree = [inks[i] for i in agreeing]
        if not agree:
            unseen += cells
            continue
        if areas is not None:
            bare_area = float(np.median([len(devs[i]) for i in agreeing]))
            areas.update({c: len(d) / bare_area for c, d, k in zip(cells, devs, inks) if k is not None})
        ink = np.median(np.array(agree), axis=0)
        tol2 = cfg.noise_bgr ** 2
        for (r, c), patch, sand, own, flat, vote in zip(cells, patches, sands, inks, flats, votes):
            if own is None:
                unseen.append((r, c))
                continue
            px = patch.reshape(-1, 3).astype(np.float32)
            hit = np.zeros(len(px), bool)
            # this cell's own print too, when it is the same ink (its hue: the direction from sand)
            # and all there is (one flat ink: a token on the print would add its own colours)
            mine = vote and flat and _same_ink(own - sand, hue, cfg)
            for k in (ink, own) if mine else (ink,):
                alpha, off2 = _on_segment(px, sand, k.astype(np.float32), cfg.max_alpha)
                hit |= (off2 < tol2) & (alpha > cfg.min_alpha)
            hit = hit.reshape(patch.shape[:2]).astype(np.uint8)
            # the print's own texture leaves specks off the line: closed over (a token is larger)
            hit = cv2.morphologyEx(hit, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)).ravel() > 0
            if hit.any():
                px[hit] = sand
                patch[...] = np.clip(px, 0, 255).reshape(patch.shape).astype(np.uint8)
                cleaned.append((r, c))
    return cleaned, unseen
