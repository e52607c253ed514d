"""Synthetic top-view photos of a Seashells mat and a Sand Castles board, for unit tests.

Each scene is drawn straight in board coordinates at ``PX_PER_MM`` px/mm, so the homography
board mm → photo px is a plain scale (:func:`scale_homography`). Colours and sizes here are the
*test's* pieces, chosen freely: the readers learn them from the calibration samples. Noise is
seeded.
"""

from __future__ import annotations

import cv2
import numpy as np

PX_PER_MM = 3.0


def scale_homography(px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """Homography board mm → photo px of a synthetic scene, float64 (3, 3)."""
    return np.array([[px_per_mm, 0, 0], [0, px_per_mm, 0], [0, 0, 1.0]])


def _pt(xy, s=PX_PER_MM):
    return int(round(xy[0] * s)), int(round(xy[1] * s))


def _finish(img: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    return np.clip(img.astype(np.float32) + rng.normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)


SEASHELLS_PROFILE = {
    "game": "seashells", "kind": "player-mat", "board_mm": [260, 310],
    "towel": {"origin_mm": [18, 18], "cell_mm": 32,
              "rows": ["scallop", "conch", "whelk", "cowrie", "oyster", "starfish", "shape7"],
              "cols": ["yellow", "blue", "green", "orange", "pink", "white", "violet"]},
    "basket_mm": [[18, 250], [242, 250], [242, 295], [18, 295]]}
#: BGR of the test's shells per colour column.
SHELL_BGR = [(40, 210, 240), (200, 120, 50), (60, 170, 60), (30, 140, 240), (180, 160, 245), (246, 248, 250),
             (170, 60, 150)]


def seashells_mat(shells, items, seed: int = 0, shell_radius_mm: float = 9.0) -> np.ndarray:
    """Draw a Seashells mat.

    Args:
        shells: list of (row, col, dx_mm, dy_mm): a shell in towel cell (row, col), off-centre by dx, dy.
        items: list of (kind, x_mm, y_mm, angle_deg) in the basket; kind one of ``fossil/head``,
            ``fossil/tail``, ``sand_dollar``, ``bottle``.
        seed: noise seed.
    Returns:
        BGR uint8 photo (310·3, 260·3, 3).
    """
    s = PX_PER_MM
    img = np.full((int(310 * s), int(260 * s), 3), (214, 236, 246), np.uint8)
    for c in range(7):  # faint column tint and grid lines
        x0 = 18 + 32 * c
        tint = tuple(int(0.93 * 240 + 0.07 * v) for v in SHELL_BGR[c])
        cv2.rectangle(img, _pt((x0, 18)), _pt((x0 + 32, 242)), tint, -1)
        cv2.rectangle(img, _pt((x0, 18)), _pt((x0 + 32, 242)), (150, 170, 180), 1)
    for r in range(8):
        cv2.line(img, _pt((18, 18 + 32 * r)), _pt((242, 18 + 32 * r)), (150, 170, 180), 1)
    for r, c, dx, dy in shells:
        centre = (18 + 32 * c + 16 + dx, 18 + 32 * r + 16 + dy)
        colour = SHELL_BGR[c]
        cv2.circle(img, _pt(centre), int(shell_radius_mm * s), tuple(int(v * 0.92) for v in colour), -1, cv2.LINE_AA)
        cv2.circle(img, _pt(centre), int(shell_radius_mm * s * 0.75), colour, -1, cv2.LINE_AA)
    cv2.rectangle(img, _pt((18, 250)), _pt((242, 295)), (90, 160, 225), -1)
    looks = {"fossil/head": ((150, 150, 155), (8, 8)), "fossil/tail": ((140, 140, 145), (11, 4)),
             "sand_dollar": ((200, 235, 240), (10, 10)), "bottle": ((120, 200, 140), (12, 5))}
    for kind, x, y, ang in items:
        colour, (a, b) = looks[kind]
        cv2.ellipse(img, _pt((x, y)), (int(a * s), int(b * s)), ang, 0, 360, colour, -1, cv2.LINE_AA)
    return _finish(img, seed)


SAND_CASTLES_PROFILE = {
    "game": "sand-castles", "board_mm": [440, 300],
    "lanes": [{"name": name, "length": 8, "castle_needs": needs,
               "spaces": [{"index": i + 1, "polygon_mm": [[20 + 50 * i, y0], [70 + 50 * i, y0], [70 + 50 * i, y0 + 80],
                                                          [20 + 50 * i, y0 + 80]]} for i in range(8)],
               "castle_slots_mm": slots}
              for name, needs, y0, slots in (
                  ("top", 5, 20, [[382.5, 40], [407.5, 40], [382.5, 60], [407.5, 60], [382.5, 80]]),
                  ("middle", 3, 100, [[395, 120], [395, 140], [395, 160]]),
                  ("bottom", 4, 180, [[382.5, 205], [407.5, 205], [382.5, 235], [407.5, 235]]))]}


def sand_castles_board(lanes: dict, seed: int = 0) -> np.ndarray:
    """Draw a Sand Castles board.

    Args:
        lanes: ``{name: {"wave": 1..8, "wall": bool, "castle_pieces": n}}`` for top, middle, bottom.
            A wave on space 8 covers the castle slots.
    Returns:
        BGR uint8 photo (300·3, 440·3, 3).
    """
    s = PX_PER_MM
    img = np.full((int(300 * s), int(440 * s), 3), (190, 225, 240), np.uint8)
    for lane in SAND_CASTLES_PROFILE["lanes"]:
        st = lanes[lane["name"]]
        for sp in lane["spaces"]:
            (x0, y0), (x1, y1) = sp["polygon_mm"][0], sp["polygon_mm"][2]
            colour = (215, 180, 120) if sp["index"] <= 6 else ((175, 205, 225) if sp["index"] == 7 else (215, 235, 245))
            cv2.rectangle(img, _pt((x0 + 1.5, y0 + 1.5)), _pt((x1 - 1.5, y1 - 1.5)), colour, -1)
        for k, xy in enumerate(lane["castle_slots_mm"]):
            cv2.circle(img, _pt(xy), int(8 * s), (170, 200, 220), -1, cv2.LINE_AA)
            if k < st["castle_pieces"] and st["wave"] != 8:
                cv2.circle(img, _pt(xy), int(9 * s), (170, 225, 240), -1, cv2.LINE_AA)
                cv2.circle(img, _pt(xy), int(3.5 * s), (80, 120, 200), -1, cv2.LINE_AA)
        y0 = lane["spaces"][0]["polygon_mm"][0][1]
        if st["wall"]:
            cv2.rectangle(img, _pt((326, y0 + 8)), _pt((364, y0 + 72)), (90, 130, 170), -1)
        x0 = 20 + 50 * (st["wave"] - 1)
        cv2.rectangle(img, _pt((x0 + 6, y0 + 8)), _pt((x0 + 44, y0 + 72)), (200, 130, 60), -1)
        for k in range(3):
            yy = y0 + 22 + 18 * k
            cv2.rectangle(img, _pt((x0 + 12, yy)), _pt((x0 + 38, yy + 2)), (245, 245, 245), -1)
    return _finish(img, seed)


#: BGR of the test's arm (a sun-tanned forearm) and of its lit top.
SKIN_BGR = (105, 145, 200)
SKIN_LIT_BGR = (130, 170, 225)


def draw_arm(photo: np.ndarray, start_mm, end_mm, width_mm: float = 60.0, seed: int = 0,
             px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """A skin-coloured forearm and hand reaching over a synthetic photo (a new image).

    Args:
        photo: synthetic photo, BGR uint8 (H, W, 3), drawn at ``px_per_mm``.
        start_mm: (x, y) where the arm enters (usually off the board's edge), board mm.
        end_mm: (x, y) of the hand's centre, board mm.
        width_mm: arm width; the hand is a disc 1.2× as wide.
        seed: noise seed.
    Returns:
        BGR uint8, same shape.
    """
    img = photo.copy()
    s = px_per_mm
    w = int(width_mm * s)
    cv2.line(img, _pt(start_mm, s), _pt(end_mm, s), SKIN_BGR, w, cv2.LINE_AA)
    cv2.circle(img, _pt(end_mm, s), int(0.6 * width_mm * s), SKIN_BGR, -1, cv2.LINE_AA)
    cv2.line(img, _pt(start_mm, s), _pt(end_mm, s), SKIN_LIT_BGR, w // 3, cv2.LINE_AA)   # rounded top in the light
    rng = np.random.default_rng(seed)
    return np.clip(img.astype(np.float32) + rng.normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)


def degrade(photo: np.ndarray, noise_sigma: float = 0.0, jpeg_quality: int | None = None,
            seed: int = 0) -> np.ndarray:
    """A synthetic photo as a poor camera would deliver it (a new image).

    Args:
        photo: BGR uint8 (H, W, 3).
        noise_sigma: Gaussian pixel noise added, grey levels (0–255), seeded.
        jpeg_quality: when given, the photo is JPEG-encoded at this quality (1–100) and decoded.
        seed: noise seed.
    Returns:
        BGR uint8, same shape.
    """
    img = photo
    if noise_sigma > 0:
        rng = np.random.default_rng(seed)
        img = np.clip(img.astype(np.float32) + rng.normal(0, noise_sigma, img.shape), 0, 255).astype(np.uint8)
    if jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def relight(photo: np.ndarray, ramp: tuple[float, float] = (1.0, 1.0), vignette: float = 0.0,
            white_balance: float = 1.0) -> np.ndarray:
    """A synthetic photo under other light (a new image).

    Args:
        photo: BGR uint8 (H, W, 3).
        ramp: brightness factors at the left and right edge, linear in between (a lamp to one side).
        vignette: darkening ``1 − vignette·r²`` with r the distance from the centre (1 at the edge
            midpoints), clipped at 0.3.
        white_balance: red × this, blue ÷ this (> 1 warm light, < 1 cool).
    Returns:
        BGR uint8, same shape.
    """
    h, w = photo.shape[:2]
    gain = np.broadcast_to(np.linspace(ramp[0], ramp[1], w, dtype=np.float32)[None, :], (h, w)).copy()
    if vignette:
        y, x = np.ogrid[:h, :w]
        r2 = ((x - w / 2) / (w / 2)) ** 2 + ((y - h / 2) / (h / 2)) ** 2
        gain *= np.clip(1 - vignette * r2, 0.3, 1).astype(np.float32)
    img = photo.astype(np.float32) * gain[..., None]
    img[..., 2] *= white_balance
    img[..., 0] /= white_balance
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_skin_patch(photo: np.ndarray, centre_mm, axes_mm, angle_deg: float = 0.0,
                    px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """A skin-coloured ellipse (a fingertip, a knuckle) over a synthetic photo (a new image).

    Args:
        photo: synthetic photo, BGR uint8, drawn at ``px_per_mm``.
        centre_mm: (x, y) of the ellipse's centre, board mm; axes_mm: its half-axes (a, b), mm.
        angle_deg: rotation of the ellipse.
    """
    img = photo.copy()
    a, b = axes_mm
    cv2.ellipse(img, _pt(centre_mm, px_per_mm), (int(a * px_per_mm), int(b * px_per_mm)), angle_deg, 0, 360,
                SKIN_BGR, -1, cv2.LINE_AA)
    return img
