"""Plażing token features: a small bright blob inside a cell, against the cell's own ring of sand.

Input: block means of the board's B, G, R over the grid (:class:`~vision.plazing.cells.CellBlocks`).
Output: per cell, how much brighter its brightest small patch is than the ring of the cell around
the token.

Why: a pale shell lying on a printed resource spot has the spot's mean colour within a few levels;
the cell's mean and spread blur it away, so a bare spot is its nearest calibration look. The spot
is darker than the sand, a shell brighter: the brightest few millimetres of the cell, less the
ring of sand around them, tell them apart. A flat marker covers more of the cell than a shell:
how far the bright blob extends tells those apart.

How it is used: as evidence against bare sand only. A bare cell's blob is that of the bare
calibration cell its colour is nearest, within the noise measured leave-one-out on the calibration
shot (tight: a bare cell's brightest patch is its print's or its sand's); a token's is not
modelled (a shell's or a pebble's highlight comes and goes with the light), so a blob neither
tells one token class from another nor counts against a token without one, and a cell whose blob
is no brighter than its bare neighbour's is read from its colour alone. The blob stays out of the
base metric (:func:`split_blob`).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.plazing.cells import CellBlocks
from vision.plazing.config import TOKENS, TokenConfig


def split_blob(feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Token features (:func:`~vision.plazing.tokens.cell_features`, float64 (..., F + 1)) as the
    base metric's (..., F) and the bright blob's contrast (...): the last one."""
    return feats[..., :-1], feats[..., -1]


def bare_blob_logl(blob, empty_blob, d_empties: np.ndarray, scale: float, cfg: TokenConfig = TOKENS):
    """What a cell's bright blob adds to its bare-sand log-likelihood.

    Args:
        blob: float64 (N,) the cells' blob contrasts, grey levels, or None.
        empty_blob: float64 (E,) the bare calibration cells' (or None: a model without them).
        d_empties: float64 (N, E) squared base distances of the cells to the bare calibration cells.
        scale: a bare cell's squared blob spread around its nearest bare cell's, grey levels².
    Returns:
        float64 (N,) ≤ 0, or 0.0 without blobs: a one-dimensional Student t (``cfg.t_dof``, spread
        ``cfg.scene_spread`` × ``scale`` as every token feature's) of how much brighter the blob is
        than that of the bare cell nearest in colour; none when it is not brighter. No token class
        has a blob term (its highlight varies with the light), so this lowers bare sand against all
        of them alike.
    """
    if blob is None or empty_blob is None or not d_empties.shape[1] or len(empty_blob) != d_empties.shape[1]:
        return 0.0
    excess = np.maximum(blob - empty_blob[d_empties.argmin(axis=1)], 0.0)
    nu = cfg.t_dof
    return -0.5 * (nu + 1.0) * np.log1p(excess ** 2 / (nu * cfg.scene_spread * scale))


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
