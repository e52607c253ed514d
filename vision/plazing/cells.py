"""Plażing cells: grid geometry, learned colour palette, and which player covers each cell.

Input: the calibration's labelled piece samples (learning), a normalised grid crop (reading).
Output: the colour lookup table, per-pixel labels, each cell's covering player and its posterior.

Idea: a cardboard piece is a flat patch of its player's colour. Each player's colour (and the
sand's) is learned from the calibration samples as a Gaussian in CIE Lab (the dominant mode of
the pixels around the sample, so printed dots and squares on a piece do not count). Every pixel
of the rectified, illumination-normalised board is labelled through a lookup table over
quantised B, G, R built at calibration (one table lookup per pixel, no Python loop and no Lab
conversion at scan time); the share of one player's pixels in a ring around each cell's centre,
summed from block means (:class:`CellBlocks`), says whether that player covers it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.places import bgr_to_lab
from vision.plazing.config import COVER, PALETTE, CoverConfig, PaletteConfig

NONE = 255  #: pixel label of "no learned colour"


@dataclass(frozen=True)
class Grid:
    """Board grid geometry from the profile (all in mm).

    Attributes:
        origin_mm: (x, y) of the top-left corner of cell [0, 0].
        cell_mm: cell side.
        rows, cols: grid size.
    """

    origin_mm: tuple[float, float]
    cell_mm: float
    rows: int
    cols: int

    @classmethod
    def from_profile(cls, profile: dict) -> "Grid":
        """Read ``profile["grid"]`` (``origin_mm``, ``cell_mm`` or ``pitch_mm``, ``rows``, ``cols``)."""
        g = profile["grid"]
        cell = g.get("cell_mm", None)
        if cell is None:
            pitch = g["pitch_mm"]
            cell = float(pitch[0] if isinstance(pitch, (list, tuple)) else pitch)
        return cls(origin_mm=(float(g["origin_mm"][0]), float(g["origin_mm"][1])), cell_mm=float(cell),
                   rows=int(g["rows"]), cols=int(g["cols"]))

    def cell_of(self, x_mm: float, y_mm: float) -> tuple[int, int] | None:
        """The [row, col] holding board point (x, y) mm, or None when off the grid."""
        c = int(np.floor((x_mm - self.origin_mm[0]) / self.cell_mm))
        r = int(np.floor((y_mm - self.origin_mm[1]) / self.cell_mm))
        return (r, c) if 0 <= r < self.rows and 0 <= c < self.cols else None

    def centre_mm(self, r: float, c: float) -> tuple[float, float]:
        """Centre (x, y) mm of cell [r, c] (fractional indexes allowed)."""
        return (self.origin_mm[0] + (c + 0.5) * self.cell_mm, self.origin_mm[1] + (r + 0.5) * self.cell_mm)

    def boxes_px(self, px_per_mm: float, share: float) -> np.ndarray:
        """Central squares of every cell in rectified pixels.

        Args:
            px_per_mm: resolution of the rectified board.
            share: side of the square as a share of the cell side (1.0 = whole cell).
        Returns:
            int32 (rows, cols, 4): u0, v0, u1, v1 (half-open) of each cell's square.
        """
        rr, cc = np.mgrid[0:self.rows, 0:self.cols].astype(np.float64)
        cx = (self.origin_mm[0] + (cc + 0.5) * self.cell_mm) * px_per_mm
        cy = (self.origin_mm[1] + (rr + 0.5) * self.cell_mm) * px_per_mm
        half = 0.5 * share * self.cell_mm * px_per_mm
        return np.stack([np.round(cx - half), np.round(cy - half), np.round(cx + half), np.round(cy + half)],
                        axis=-1).astype(np.int32)


@dataclass
class ColourModel:
    """A learned colour: a Gaussian in CIE Lab.

    Attributes:
        name: e.g. ``"red"`` (a player) or ``"sand"``.
        mean: float64 (3,) Lab mean.
        cov: float64 (3, 3) Lab covariance (with the configured floor).
    """

    name: str
    mean: np.ndarray
    cov: np.ndarray

    def to_json(self) -> dict:
        """JSON-serialisable form."""
        return {"name": self.name, "mean": np.round(self.mean, 3).tolist(), "cov": np.round(self.cov, 4).tolist()}

    @classmethod
    def from_json(cls, d: dict) -> "ColourModel":
        """Inverse of :meth:`to_json`."""
        return cls(d["name"], np.array(d["mean"], np.float64), np.array(d["cov"], np.float64))


def learn_colour(board_bgr: np.ndarray, points_mm, px_per_mm: float, cell_mm: float, name: str,
                 cfg: PaletteConfig = PALETTE) -> ColourModel:
    """Learn one colour from the squares around labelled points.

    The dominant mode is found by starting from the median Lab and keeping the pixels within
    ``cfg.mode_radius_lab`` of it (twice), so decorations printed on a piece are ignored.

    Args:
        board_bgr: rectified, illumination-normalised board, BGR uint8 (H, W, 3).
        points_mm: list of (x, y) mm sample points of this colour.
        px_per_mm: resolution of ``board_bgr``.
        cell_mm: cell side (mm); the square is ``cfg.sample_share`` of it.
        name: colour name.
    Returns:
        :class:`ColourModel`.
    Raises:
        ValueError: no pixels (points off the board).
    """
    pix = [keep for keep in (_dominant_pixels(board_bgr, xy, px_per_mm, cell_mm, cfg) for xy in points_mm)
           if keep is not None]
    if not pix:
        raise ValueError(f"no pixels for colour {name!r}")
    allpix = np.concatenate(pix)
    cov = np.cov(allpix.T) if len(allpix) > 3 else np.zeros((3, 3))
    cov = cov + np.eye(3) * cfg.sd_floor_lab ** 2
    return ColourModel(name, allpix.mean(axis=0), cov)


def sample_colour(board_bgr: np.ndarray, point_mm, px_per_mm: float, cell_mm: float,
                  cfg: PaletteConfig = PALETTE) -> np.ndarray | None:
    """Dominant Lab colour of the square around one labelled point (as :func:`learn_colour` finds
    it), float64 (3,), or None when the point is off the image."""
    keep = _dominant_pixels(board_bgr, point_mm, px_per_mm, cell_mm, cfg)
    return None if keep is None else keep.mean(axis=0)


def _dominant_pixels(board_bgr, point_mm, px_per_mm, cell_mm, cfg) -> np.ndarray | None:
    """Lab pixels (N, 3) of the dominant colour mode in the square around a point, None off the image."""
    half = max(1, int(round(0.5 * cfg.sample_share * cell_mm * px_per_mm)))
    h, w = board_bgr.shape[:2]
    u, v = int(point_mm[0] * px_per_mm), int(point_mm[1] * px_per_mm)
    patch = board_bgr[max(v - half, 0):min(v + half, h), max(u - half, 0):min(u + half, w)]
    if not patch.size:
        return None
    lab = bgr_to_lab(patch).reshape(-1, 3).astype(np.float64)
    keep, centre = lab, np.median(lab, axis=0)
    for _ in range(2):
        keep = lab[np.linalg.norm(lab - centre, axis=1) < cfg.mode_radius_lab]
        if len(keep) < 4:
            keep = lab
        centre = keep.mean(axis=0)
    return keep


def mislabelled(colours: list, labels: list, min_delta_e: float, other_ratio: float) -> list:
    """Labelled colour samples that clearly belong to another class (leave-one-out).

    Each sample is compared with the median colour of the *other* samples of its class and with
    the median of every other class (medians: a few wrong labels do not move them).

    Args:
        colours: Lab colour (3,) per sample (None: skipped).
        labels: class per sample.
        min_delta_e: a sample closer than this (Lab ΔE) to its own class is never flagged.
        other_ratio: … and it is flagged only when another class is this many times closer.
    Returns:
        [(index, own distance, other class, its distance)].
    """
    out = []
    classes = sorted(set(labels))
    for i, (c, lab) in enumerate(zip(colours, labels)):
        if c is None:
            continue
        own = [colours[j] for j in range(len(colours)) if j != i and labels[j] == lab and colours[j] is not None]
        if not own:
            continue  # a class of one sample: nothing to compare it with
        d_own = float(np.linalg.norm(c - np.median(own, axis=0)))
        best, d_best = None, np.inf
        for other in classes:
            if other == lab:
                continue
            them = [colours[j] for j in range(len(colours)) if labels[j] == other and colours[j] is not None]
            if them:
                d = float(np.linalg.norm(c - np.median(them, axis=0)))
                if d < d_best:
                    best, d_best = other, d
        if d_own > min_delta_e and best is not None and d_best * other_ratio < d_own:
            out.append((i, d_own, best, d_best))
    return out


def palette_lut(models: list[ColourModel], cfg: PaletteConfig = PALETTE) -> np.ndarray:
    """Lookup table quantised BGR → index of the nearest colour model, or :data:`NONE`.

    Returns:
        uint8 (2**(3·bits),), indexed by :func:`lut_index`.
    """
    n = 1 << cfg.lut_bits
    step = 256 // n
    levels = (np.arange(n) * step + step // 2).astype(np.uint8)
    b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
    bgr = np.stack([b, g, r], axis=-1).reshape(-1, 3)
    lab = bgr_to_lab(bgr).astype(np.float64)
    d2 = np.stack([np.einsum("nf,fg,ng->n", lab - m.mean, np.linalg.inv(m.cov), lab - m.mean) for m in models], 1)
    best = d2.argmin(axis=1)
    lut = best.astype(np.uint8)
    lut[d2[np.arange(len(best)), best] > cfg.max_sigma ** 2] = NONE
    return lut


def colour_table(models: list[ColourModel], cfg: PaletteConfig = PALETTE) -> np.ndarray:
    """Lookup table quantised BGR → palette label, built at calibration and stored with it.

    OpenCV's Lab conversion builds its own tables on first use (~0.1 s, once per process), too
    slow for a one-shot scan; this table needs it only at calibration.

    Returns:
        uint8 (2**(3·bits),): label of :func:`palette_lut` (index by :func:`lut_index`).
    """
    return palette_lut(models, cfg)


def lut_index(board_bgr: np.ndarray, cfg: PaletteConfig = PALETTE, scratch=None) -> np.ndarray:
    """Index of every pixel into :func:`palette_lut`: uint16 (H, W) from BGR uint8 (H, W, 3).

    Args:
        scratch: optional ``scratch(name, shape, dtype) -> array`` giving reusable work arrays
            (the result is then one of them).
    """
    b = cfg.lut_bits
    weights = np.array([[1 << (2 * b), 1 << b, 1]], np.float32)
    if scratch is None:
        q = (board_bgr >> (8 - b)).astype(np.uint16)
        return cv2.transform(q, weights)
    hw = board_bgr.shape[:2]
    q8 = np.right_shift(board_bgr, 8 - b, out=scratch("q8", hw + (3,), np.uint8))
    q = scratch("q16", hw + (3,), np.uint16)
    np.copyto(q, q8)
    return cv2.transform(q, weights, dst=scratch("idx", hw, np.uint16))


def label_pixels(board_bgr: np.ndarray, lut: np.ndarray, cfg: PaletteConfig = PALETTE, scratch=None) -> np.ndarray:
    """Per-pixel colour label: uint8 (H, W), index into the palette or :data:`NONE`.

    Args:
        board_bgr: rectified, illumination-normalised board, BGR uint8 (H, W, 3).
        lut: uint8 table from :func:`colour_table`.
        scratch: optional ``scratch(name, shape, dtype) -> array`` giving reusable work arrays
            (the result is then one of them).
    """
    idx = lut_index(board_bgr, cfg, scratch)
    if scratch is None:
        return np.take(lut, idx)
    return np.take(lut, idx, out=scratch("labels", board_bgr.shape[:2], np.uint8))


def player_masks(labels: np.ndarray, n_players: int) -> np.ndarray:
    """One mask per player, uint8 (H, W, n_players): 255 where the pixel is that player's colour.

    Args:
        labels: per-pixel labels from :func:`label_pixels`, uint8 (H, W); players are 0 … n−1.
    """
    if n_players == 0:
        return np.zeros(labels.shape + (0,), np.uint8)
    masks = [cv2.compare(labels, p, cv2.CMP_EQ) for p in range(n_players)]
    return cv2.merge(masks) if n_players > 1 else masks[0][..., None]


class CellBlocks:
    """Block means over the grid: every cell cut into ``k`` × ``k`` blocks (one ``cv2.resize`` with
    area interpolation of the grid's rectangle), so the mean over any centred square of a cell
    whose side has the parity of ``k`` is a mean of a few block means — the same for every
    cell, with no per-cell Python and no integral image.

    Args:
        grid: the grid in the image's own millimetres.
        px_per_mm: resolution of the images to be summarised.
        k: blocks per cell side (``COVER.blocks_per_cell``).
    """

    def __init__(self, grid: Grid, px_per_mm: float, k: int | None = None):
        self.grid = grid
        self.k = int(k or COVER.blocks_per_cell)
        self.rect = tuple(int(round(v * px_per_mm)) for v in (
            grid.origin_mm[0], grid.origin_mm[1], grid.origin_mm[0] + grid.cols * grid.cell_mm,
            grid.origin_mm[1] + grid.rows * grid.cell_mm))
        self.size = (grid.cols * self.k, grid.rows * self.k)

    def blocks(self, image: np.ndarray) -> np.ndarray:
        """Block means of ``image`` (H, W[, C]) over the grid: (rows·k, cols·k[, C]), same dtype
        (use float32 or 0/255 masks where rounding to integers would matter)."""
        u0, v0, u1, v1 = self.rect
        return cv2.resize(image[v0:v1, u0:u1], self.size, interpolation=cv2.INTER_AREA)

    def side(self, share: float) -> int:
        """Blocks on the side of the centred square of ``share`` of a cell (the nearest count that
        can be centred: same parity as k; at least 1)."""
        n = self.k - 2 * int(round((self.k - share * self.k) / 2))
        return int(min(max(n, 2 - self.k % 2), self.k))

    def box_mean(self, blocks: np.ndarray, share: float) -> np.ndarray:
        """Mean over each cell's centred square of side ``share`` (of a cell), from
        :meth:`blocks`: float64 (rows, cols[, C])."""
        return self.box_means(blocks, (share,))[0]

    def box_means(self, blocks: np.ndarray, shares) -> list:
        """:meth:`box_mean` for each of ``shares``, from one integral image."""
        g = self.grid
        integ = cv2.integral(blocks, sdepth=cv2.CV_64F)
        if integ.ndim == 2:
            integ = integ[..., None]
        out = []
        k = self.k
        for share in shares:
            n = self.side(share)
            a = (k - n) // 2
            # corners of every cell's square: rows a, a + k, … (and + n) — strided views, no gather
            r0, c0 = slice(a, a + g.rows * k, k), slice(a, a + g.cols * k, k)
            r1, c1 = slice(a + n, a + n + g.rows * k, k), slice(a + n, a + n + g.cols * k, k)
            tot = (integ[r1, c1] - integ[r0, c1] - integ[r1, c0] + integ[r0, c0]) / float(n * n)
            out.append(tot if blocks.ndim == 3 else tot[..., 0])
        return out


def cover_shares(player_blocks: np.ndarray, cells: CellBlocks, cfg: CoverConfig = COVER) -> np.ndarray:
    """Share of each cell's ring (central square minus its core) in each player's colour.

    The core is left out: dots and squares printed on pieces, and tokens standing on sand,
    sit in the middle of a cell.

    Args:
        player_blocks: block means of :func:`player_masks` (:meth:`CellBlocks.blocks`), uint8
            (rows·k, cols·k, n_players), 255 = all of the block in that colour.
        cells: the block layout.
    Returns:
        float64 (rows, cols, n_players) in [0, 1].
    """
    n_out, n_in = cells.side(cfg.inner_share), cells.side(cfg.hole_share)
    outer, hole = cells.box_means(player_blocks, (cfg.inner_share, cfg.hole_share))
    outer, hole = outer * n_out ** 2, hole * n_in ** 2
    out = (outer - hole) / max(n_out ** 2 - n_in ** 2, 1) / 255.0
    return out.reshape(cells.grid.rows, cells.grid.cols, -1)


def cover_posteriors(shares: np.ndarray, cfg: CoverConfig = COVER):
    """Decide cover per cell.

    Args:
        shares: float64 (rows, cols, P) from :func:`cover_shares`.
    Returns:
        ``(owner, prob)``: int (rows, cols) player index or −1 (uncovered); float64 (rows, cols)
        probability of that decision (logistic in the share's distance from ``cfg.covered_share``).
    """
    best = shares.argmax(axis=-1)
    top = np.take_along_axis(shares, best[..., None], -1)[..., 0]
    p_cov = 1.0 / (1.0 + np.exp(-cfg.posterior_slope * (top - cfg.covered_share)))
    owner = np.where(top >= cfg.covered_share, best, -1)
    prob = np.where(owner >= 0, p_cov, 1.0 - p_cov)
    return owner, prob
