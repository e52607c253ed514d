"""Plażing view: one rectified board prepared for reading — normalised colours, pixel labels, cover.

Input: the rectified crop in the calibration's light. Output: :class:`View`: labels, colour masks,
cover per cell, and on demand token features, cell looks and pattern windows.

Idea: the lighting gains bring the grid crop to the calibration's light, every pixel is labelled
through the learned colour table (:mod:`vision.plazing.cells`), and each placeable cell's cover
is decided from block means; token features, whole-cell looks and pattern windows are computed
from the same board on demand.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.plazing.cells import CellBlocks, Grid, cover_posteriors, cover_shares, label_pixels, player_masks
from vision.plazing.config import RECTIFY
from vision.plazing.patterns import cell_windows, pattern_maps, player_lightness
from vision.plazing.rectify import Rectified, Scratch
from vision.plazing.terrain import terrain_features
from vision.plazing.tokens import cell_features


class View:
    """One rectified board prepared for reading: normalised colours, labels, cover.

    Attributes:
        board: illumination-normalised grid crop, BGR uint8 (H, W, 3) at RECTIFY px/mm.
        gray: the same in grey, uint8 (H, W).
        masks: per-player colour masks, uint8 (H, W, P) (255 = the player's colour).
        cells: block layout of the grid (:class:`~vision.plazing.cells.CellBlocks`);
        player_blocks: block means of ``masks``.
        owner: int (rows, cols) covering player or −1; cover_p: float64 (rows, cols) posterior.
    """

    def __init__(self, rect: Rectified, gains, table: np.ndarray, n_players: int, terrain: np.ndarray,
                 board: np.ndarray | None = None, scratch: Scratch | None = None):
        grid = rect.local
        self.gains = np.asarray(gains, np.float32)
        hw = rect.crop.shape[:2]
        buf = scratch or (lambda name, shape, dtype: None)
        self.board = board if board is not None else cv2.transform(
            rect.crop, np.diag(self.gains).astype(np.float32), dst=buf("board", hw + (3,), np.uint8))
        self.table = table
        self.scratch = scratch
        self.n_players = n_players
        self.cells = CellBlocks(grid, RECTIFY.px_per_mm)
        self.refresh()
        self.owner, self.cover_p = cover_posteriors(cover_shares(self.player_blocks, self.cells))
        self.owner[terrain == "#"] = -1
        self.grid = grid
        self.rect = rect

    def refresh(self) -> None:
        """Grey, pixel labels, player masks and their block means, from :attr:`board` (again, after
        it was painted on: :func:`~vision.plazing.prints.remove_marks`). The cover decision is kept."""
        hw = self.board.shape[:2]
        buf = self.scratch or (lambda name, shape, dtype: None)
        self.gray = cv2.cvtColor(self.board, cv2.COLOR_BGR2GRAY, dst=buf("gray", hw, np.uint8))
        self.labels = label_pixels(self.board, self.table, scratch=self.scratch)
        self.masks = player_masks(self.labels, self.n_players)
        self.player_blocks = self.cells.blocks(self.masks).reshape(self.cells.size[1], self.cells.size[0],
                                                                   self.n_players)
        self._blocks = {}
        self._features = None

    def features(self) -> np.ndarray:
        """Token features of every cell (:func:`~vision.plazing.tokens.cell_features`); the block
        means behind them are kept for :meth:`looks`."""
        if getattr(self, "_features", None) is None:
            self._blocks = {}
            self._features = cell_features(self.board, self.gray, self.player_blocks, self.cells,
                                           scratch=self.scratch, keep=self._blocks)
        return self._features

    def features_of(self, cells) -> np.ndarray:
        """Token features (as :meth:`features`) of a few cells only, from the board as it is now
        (after :func:`~vision.plazing.prints.remove_marks` painted on them): the cells are laid
        side by side on a strip one cell high and read as a grid of their own. float64 (n, F)."""
        g = self.grid
        ppm = RECTIFY.px_per_mm
        side = int(round(g.cell_mm * ppm))
        boxes = g.boxes_px(ppm, 1.0)
        strip = np.empty((side, side * len(cells), 3), np.uint8)
        for i, (r, c) in enumerate(cells):
            u0, v0, u1, v1 = boxes[r, c]
            patch = self.board[v0:v1, u0:u1]
            strip[:, i * side:(i + 1) * side] = patch if patch.shape[:2] == (side, side) else \
                cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA)
        grid = Grid((0.0, 0.0), g.cell_mm, 1, len(cells))
        blocks = CellBlocks(grid, ppm)
        masks = player_masks(label_pixels(strip, self.table), self.n_players)
        pb = blocks.blocks(masks).reshape(blocks.size[1], blocks.size[0], self.n_players)
        gray = cv2.cvtColor(strip, cv2.COLOR_BGR2GRAY)
        return cell_features(strip, gray, pb, blocks)[0]

    def looks(self) -> np.ndarray:
        """Whole-cell looks (:func:`~vision.plazing.terrain.terrain_features`), after :meth:`features`."""
        self.features()
        return terrain_features(self._blocks["bgr"], self._blocks["sq"], self.cells)

    def windows(self, cells, ref_light_fallback, median_bgr):
        """Pattern windows (:func:`~vision.plazing.patterns.cell_windows`) of covered ``cells``, and
        the players' grey in this photo."""
        shares, light = pattern_maps(self.masks, self.gray, self.grid, RECTIFY.px_per_mm)
        ref = player_lightness(shares, light, ref_light_fallback)
        base = float(np.dot(np.asarray(median_bgr, np.float64), [0.114, 0.587, 0.299]))
        return cell_windows(cells, [int(self.owner[c]) for c in cells], shares, light, ref, base), ref
