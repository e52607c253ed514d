"""Synthetic grid boards for tests: a flat board with coloured tokens, photographed through a
homography, with optional lighting gain and ArUco markers. Seeded, no files needed."""

from __future__ import annotations

import cv2
import numpy as np

COLOURS_BGR = {"empty": None, "black": (30, 30, 30), "white": (235, 235, 235), "red": (40, 40, 210)}


def grid_profile(rows: int = 5, cols: int = 6, pitch_mm: float = 20.0, markers: bool = False) -> dict:
    """A ``"game": "grid"`` profile (grid.md) with a 15 mm margin; optional 4 corner markers (DICT_4X4_50)."""
    w, h = 30 + cols * pitch_mm, 30 + rows * pitch_mm
    prof = {"game": "grid", "board_mm": [w, h],
            "grid": {"origin_mm": [15, 15], "pitch_mm": [pitch_mm, pitch_mm], "rows": rows, "cols": cols}}
    if markers:
        s = 10.0
        prof["markers"] = [{"dictionary": "DICT_4X4_50", "id": i, "corners_mm": [[x, y], [x + s, y], [x + s, y + s], [x, y + s]]}
                           for i, (x, y) in enumerate([(2, 2), (w - 12, 2), (w - 12, h - 12), (2, h - 12)])]
    return prof


def draw_board(profile: dict, cells: list[list[str]], px_per_mm: float = 4.0, jitter_mm: float = 0.0,
               seed: int = 0) -> np.ndarray:
    """Top view of the board, BGR uint8, at ``px_per_mm``: sand background, thin grid lines,
    a disc per non-empty place (offset by up to ``jitter_mm``), markers if the profile has them."""
    rng = np.random.default_rng(seed)
    w, h = profile["board_mm"]
    img = np.full((int(h * px_per_mm), int(w * px_per_mm), 3), (150, 200, 225), np.uint8)
    g = profile["grid"]
    px, py = g["pitch_mm"]
    for r in range(g["rows"] + 1):
        y = int((g["origin_mm"][1] + r * py) * px_per_mm)
        cv2.line(img, (int(g["origin_mm"][0] * px_per_mm), y), (int((g["origin_mm"][0] + g["cols"] * px) * px_per_mm), y),
                 (110, 150, 170), 1)
    for c in range(g["cols"] + 1):
        x = int((g["origin_mm"][0] + c * px) * px_per_mm)
        cv2.line(img, (x, int(g["origin_mm"][1] * px_per_mm)), (x, int((g["origin_mm"][1] + g["rows"] * py) * px_per_mm)),
                 (110, 150, 170), 1)
    for r, row in enumerate(cells):
        for c, name in enumerate(row):
            col = COLOURS_BGR[name]
            if col is None:
                continue
            dx, dy = rng.uniform(-jitter_mm, jitter_mm, 2)
            cx = (g["origin_mm"][0] + (c + 0.5) * px + dx) * px_per_mm
            cy = (g["origin_mm"][1] + (r + 0.5) * py + dy) * px_per_mm
            cv2.circle(img, (int(cx), int(cy)), int(0.35 * px * px_per_mm), col, -1, cv2.LINE_AA)
    for m in profile.get("markers", []):
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, m["dictionary"]))
        (x0, y0), (x1, _), _, (_, y1) = m["corners_mm"]
        side = int((x1 - x0) * px_per_mm)
        mk = cv2.aruco.generateImageMarker(d, m["id"], side)
        # a white quiet zone is part of the printed sticker
        cv2.rectangle(img, (int((x0 - 1.5) * px_per_mm), int((y0 - 1.5) * px_per_mm)),
                      (int((x1 + 1.5) * px_per_mm), int((y1 + 1.5) * px_per_mm)), (255, 255, 255), -1)
        img[int(y0 * px_per_mm):int(y0 * px_per_mm) + side, int(x0 * px_per_mm):int(x0 * px_per_mm) + side] = mk[..., None]
    return img


def photograph(top: np.ndarray, px_per_mm: float, corners_px, size=(960, 720), gain=(1.0, 1.0, 1.0),
               background=(60, 90, 120)) -> np.ndarray:
    """Warp a top view into a photo whose board corners (TL, TR, BR, BL) land at ``corners_px``;
    multiply B, G, R by ``gain`` (lighting). Returns BGR uint8 (size[1], size[0], 3)."""
    h, w = top.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    M = cv2.getPerspectiveTransform(src, np.float32(corners_px))
    photo = cv2.warpPerspective(top, M, size, flags=cv2.INTER_AREA, borderValue=background)
    return cv2.convertScaleAbs(photo.astype(np.float32) * np.float32(gain))
