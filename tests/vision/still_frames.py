"""Preview frame sequences for the still-board check, made from table photos (test code only).

A photo is shrunk to the preview's 640×360; a sequence repeats it with fresh sensor noise per
frame, pieces moved (a square patch of the board copied onto another place of the board, so no
colour is made up), and an arm with its hand pasted in from the nearest frame border.
"""

from __future__ import annotations

import json
import os

import cv2
import numpy as np

from vision.board.geometry import homography_from_corners
from vision.preview.region import BoardGeometry, preview_points

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
EXAMPLE = os.path.join(ROOT, "examples", "strand-unter")
SAMPLES = os.path.join(ROOT, "..", "shared", "samples")
PREVIEW = (640, 360)
FPS = 10.0
#: a skin tone, BGR (the arm is test scenery, not something the check looks for)
SKIN = (120, 150, 205)


class Table:
    """One photo of a table shrunk to the preview, with its board geometry.

    Args:
        folder: a set-up folder with ``calibration.json`` (corners_px, image) and the profile one up
            (or beside it).
        photo: the photo's file name in ``folder``.
    """

    def __init__(self, folder: str, photo: str, seed: int = 0):
        with open(os.path.join(folder, "calibration.json"), encoding="utf-8") as f:
            doc = json.load(f)
        profile_path = os.path.join(folder, "profile.json")
        if not os.path.exists(profile_path):
            profile_path = os.path.join(folder, "..", "profile.json")
        with open(profile_path, encoding="utf-8") as f:
            board_mm = tuple(json.load(f)["board_mm"])
        image = cv2.imread(os.path.join(folder, photo))
        h, w = image.shape[:2]
        self.geometry = BoardGeometry(homography_from_corners(doc["corners_px"], board_mm), (w, h), board_mm)
        self.frame = cv2.resize(image, PREVIEW, interpolation=cv2.INTER_AREA)
        self.board_mm = board_mm
        self.rng = np.random.default_rng(seed)
        self._noise: dict[float, list[np.ndarray]] = {}

    def px(self, x_mm: float, y_mm: float) -> np.ndarray:
        """Preview px of a board point."""
        return preview_points(self.geometry, [[x_mm, y_mm]], PREVIEW)[0]

    def noisy(self, frame: np.ndarray, sigma: float = 1.5) -> np.ndarray:
        """``frame`` with Gaussian noise of ``sigma`` grey levels, one of 16 fields drawn once per table."""
        bank = self._noise.get(sigma)
        if bank is None:
            bank = self._noise[sigma] = [self.rng.normal(0.0, sigma, frame.shape).astype(np.float32) for _ in range(16)]
        noise = bank[int(self.rng.integers(len(bank)))]
        return cv2.add(frame.astype(np.float32), noise).clip(0, 255).astype(np.uint8)

    def move_piece(self, frame: np.ndarray, size_mm: float = 20.0) -> np.ndarray:
        """A copy of ``frame`` with a ``size_mm`` square of the board copied onto another place of
        it: of 50 random pairs of places, the one whose two squares differ most (a piece onto sand)."""
        w_mm, h_mm = self.board_mm
        best, best_diff = None, -1.0
        for _ in range(50):
            src, dst = (self._square(self.rng.uniform([30, 30], [w_mm - 30 - size_mm, h_mm - 30 - size_mm]),
                                     size_mm) for _ in range(2))
            a, b = frame[src], frame[dst]
            if a.shape != b.shape or a.size == 0:
                continue
            diff = float(cv2.absdiff(a, b).mean())
            if diff > best_diff:
                best, best_diff = (src, dst), diff
        out = frame.copy()
        out[best[1]] = frame[best[0]]
        return out

    def _square(self, corner_mm: np.ndarray, size_mm: float) -> tuple[slice, slice]:
        """Preview rows and columns of the board square from ``corner_mm``, ``size_mm`` wide (its bounding box)."""
        pts = np.round(preview_points(self.geometry, [corner_mm, corner_mm + size_mm], PREVIEW)).astype(int)
        (x0, x1), (y0, y1) = sorted(pts[:, 0]), sorted(pts[:, 1])
        side = min(x1 - x0, y1 - y0)
        return slice(y0, y0 + side), slice(x0, x0 + side)

    def arm(self, frame: np.ndarray, hand_mm: tuple[float, float], shake_px: float = 0.0,
            hidden_outside: bool = False) -> np.ndarray:
        """``frame`` with an arm from the nearest frame border to a hand over board point ``hand_mm``;
        ``hidden_outside``: only its part over the board shows (an arm in the table's own colour)."""
        out = frame.copy()
        hand = self.px(*hand_mm) + self.rng.normal(0.0, shake_px, 2)
        h, w = out.shape[:2]
        border = min(((hand[0], (0.0, hand[1])), (w - hand[0], (w - 1.0, hand[1])),
                      (hand[1], (hand[0], 0.0)), (h - hand[1], (hand[0], h - 1.0))))[1]
        scale = np.linalg.norm(self.px(hand_mm[0] + 10, hand_mm[1]) - self.px(*hand_mm)) / 10  # px per mm
        cv2.line(out, tuple(np.round(border).astype(int)), tuple(np.round(hand).astype(int)), SKIN,
                 max(int(70 * scale), 3))
        angle = np.degrees(np.arctan2(hand[1] - border[1], hand[0] - border[0]))
        cv2.ellipse(out, tuple(np.round(hand).astype(int)), (int(55 * scale), int(45 * scale)), angle, 0, 360,
                    SKIN, -1)
        if hidden_outside:
            w_mm, h_mm = self.board_mm
            board = np.zeros(out.shape[:2], np.uint8)
            corners = preview_points(self.geometry, [[0, 0], [w_mm, 0], [w_mm, h_mm], [0, h_mm]], PREVIEW)
            cv2.fillConvexPoly(board, np.round(corners).astype(np.int32), 1)
            out[board == 0] = frame[board == 0]
        return out
