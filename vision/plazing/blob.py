"""Plażing token features: a small bright blob inside a cell, against the cell's own ring of sand.

Input: block means of the board's B, G, R over the grid (:class:`~vision.plazing.cells.CellBlocks`).
Output: per cell, how much brighter its brightest small patch is than the ring of the cell around
the token.

Why: a pale shell lying on a printed resource spot has the spot's mean colour within a few levels;
the cell's mean and spread blur it away, so a bare spot is its nearest calibration look. The spot
is darker than the sand, a shell brighter: the brightest few millimetres of the cell, less the
ring of sand around them, tell them apart. A flat marker covers more of the cell than a shell:
how far the bright blob extends tells those apart. What a class shows on both is learned from
the calibration shot like every other token feature.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.plazing.cells import CellBlocks
from vision.plazing.config import TOKENS, TokenConfig


def blob_features(bgr_blocks: np.ndarray, cells: CellBlocks, cfg: TokenConfig = TOKENS) -> np.ndarray:
    """Bright-blob contrast of every cell.

    Args:
        bgr_blocks: float32 (rows·k, cols·k, 3) block means of the board's B, G, R
            (:meth:`CellBlocks.blocks`).
        cells: the block layout.
    Returns:
        float64 (rows, cols, 1): the mean brightness (mean of B, G, R) of the brightest
        ``cfg.blob_mm`` square patch inside the cell's core (``cfg.core_share``) less the median
        brightness of the cell's ring outside the core, in grey levels, saturating at
        ``cfg.token_contrast_bgr`` (s·tanh(contrast / s)): beyond a token's contrast a brighter blob
        is the light's (an amber's highlight), not another token.
    """
    g, k = cells.grid, cells.k
    block_mm = g.cell_mm / k
    n = cells.side(cfg.core_share)
    a = (k - n) // 2
    p = int(min(max(round(cfg.blob_mm / block_mm), 1), n))
    light = bgr_blocks.mean(axis=-1, dtype=np.float32)
    cube = light.reshape(g.rows, k, g.cols, k).transpose(0, 2, 1, 3)  # (rows, cols, k, k)
    ring_mask = np.ones((k, k), bool)
    ring_mask[a:a + n, a:a + n] = False
    ring = np.median(cube[:, :, ring_mask], axis=-1)
    patch = cv2.blur(light, (p, p), anchor=(0, 0), borderType=cv2.BORDER_REPLICATE)
    pc = patch.reshape(g.rows, k, g.cols, k).transpose(0, 2, 1, 3)[:, :, a:a + n - p + 1, a:a + n - p + 1]
    s = cfg.token_contrast_bgr
    return (s * np.tanh((pc.max(axis=(2, 3)) - ring) / s))[..., None].astype(np.float64)
