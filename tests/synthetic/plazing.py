"""Seeded synthetic Plażing scenes for unit tests and extra set-ups (no real photos needed).

:func:`scene` draws a board from a Plażing profile — a sea band, the dunes, a sand grid with
printed tile lines, resource spots, printed ± discs and crossed sticks off their cells' centres,
and closing terrain — then the pieces the test asks for (cardboard polyominoes in the players'
colours, each kind with its own print: a dark stripe along a screen's outer side, a pale dot on
every gear cell, pale squares on two opposite corners of a blanket), with optional cut gaps
between touching pieces and off-grid offsets, meeples (with a shadow), neutral markers, resources
(natural sizes), an optional skin-coloured arm or a hand casting a shadow; and photographs it
through a homography (camera height: ``board_px_per_mm``; tilt: ``keystone``; a 12 MP camera:
``size_px``) with a colour cast (``gain``: colour temperature), a lamp to one side or a hot spot,
a vignette, blur and noise. :func:`random_layout` deals a random game position for
``scripts/synthetic_plazing_setups.py``. Colours are BGR values handed in (learned-like), never
taken from the product code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

#: Colours (BGR) of the synthetic set; a test may pass its own.
DEFAULT_BGR = {
    "sand": (150, 205, 240), "sea": (150, 140, 70), "dunes": (90, 170, 190), "frame": (120, 175, 215),
    "line": (120, 160, 190), "spot": (120, 175, 235), "terrain": (70, 110, 200),
    "red": (60, 75, 225), "yellow": (50, 215, 245), "green": (70, 160, 80), "blue": (170, 100, 60),
    "stripe": (70, 75, 85), "print": (215, 225, 245),
    "neutral": (175, 195, 215), "amber": (30, 140, 240), "shell": (215, 215, 245), "pebble": (95, 100, 105),
    "skin": (120, 150, 205), "table": (100, 120, 140),
    "plus": (120, 205, 125), "minus": (110, 115, 235), "sticks": (60, 90, 120),
}
#: Colour temperatures as B, G, R gains (a warm lamp, daylight, a cool overcast sky).
WARM, NEUTRAL, COOL = (0.78, 0.93, 1.08), (1.0, 1.0, 1.0), (1.1, 1.0, 0.88)

#: What the pieces print on each cell, by kind: the default catalogue's look.
PRINTS = ("screen", "blanket", "gear")


def plazing_profile(rows: int = 6, cols: int = 10, cell_mm: float = 20.0) -> dict:
    """A Plażing profile (contract plazing.md) with a 30 mm frame and the default catalogue."""
    return {"game": "plazing", "board_mm": [60 + cols * cell_mm, 60 + rows * cell_mm], "sea_side": "top",
            "grid": {"origin_mm": [30.0, 30.0], "cell_mm": cell_mm, "rows": rows, "cols": cols, "tile_cells": 4},
            "pieces": {"screen": [[[0, 0], [0, 1], [0, 2]]], "blanket": [[[0, 0], [0, 1], [1, 0], [1, 1]]],
                       "gear": [[[0, 0]], [[0, 0], [0, 1]]]}}


@dataclass
class Piece:
    """A piece to draw.

    Attributes:
        player: colour name; kind: ``screen``, ``blanket`` or ``gear``; cells: [(row, col)];
        facing: screens only (``N``/``S``/``E``/``W``); offset_mm: (dx, dy) off the grid.
    """

    player: str
    kind: str
    cells: list
    facing: str | None = None
    offset_mm: tuple = (0.0, 0.0)


@dataclass
class Scene:
    """A synthetic photo and what it shows.

    Attributes:
        image: BGR uint8 (H, W, 3).
        corners_px: float (4, 2) board corners TL, TR, BR, BL in image px.
        state: the contract state the picture shows.
        top: the top view it was photographed from, BGR uint8, at ``px_per_mm``.
    """

    image: np.ndarray
    corners_px: np.ndarray
    state: dict
    top: np.ndarray = field(repr=False, default=None)


def _rect(img, x0, y0, x1, y1, s, colour):
    cv2.rectangle(img, (int(round(x0 * s)), int(round(y0 * s))), (int(round(x1 * s)) - 1, int(round(y1 * s)) - 1),
                  colour, -1)


def draw_top(profile: dict, pieces=(), tokens=(), terrain=None, spots=(), *, gap_mm: float = 0.6,
             px_per_mm: float = 6.0, colours: dict | None = None, arm: tuple | None = None,
             hand: tuple | None = None, marks=(), seed: int = 0) -> np.ndarray:
    """Top view of a Plażing board, BGR uint8 at ``px_per_mm``.

    Args:
        profile: Plażing profile (``board_mm``, ``grid``).
        pieces: :class:`Piece` list. Each piece is inset by ``gap_mm``/2 on every side, so two
            pieces that touch show a cut of ``gap_mm`` (0: no visible seam).
        tokens: ``[(name, row, col)]`` with name ``meeple/<player>``, ``neutral``,
            ``resource/<amber|shell|pebble>``; ``(name, row, col, dx_mm, dy_mm)`` puts it off the
            cell's centre (a meeple standing across a piece's edge).
        terrain: optional list of row strings; ``#`` cells are drawn as closing terrain, ``+`` / ``-`` /
            ``x`` cells as a printed disc or crossed sticks (at the offset ``marks`` gives, else centred).
        spots: ``[(row, col)]`` cells with a printed resource spot.
        arm: optional ``((x0, y0), (x1, y1), width_mm)``: a skin-coloured arm over the board.
        hand: optional ``((x_mm, y_mm), (length_mm, width_mm), angle_deg)``: a hand over the board, with
            its shadow on the board below it.
        marks: ``{(row, col): (dx_mm, dy_mm)}`` offsets of printed marks from their cells' centres.
        seed: sand texture.
    """
    col = {**DEFAULT_BGR, **(colours or {})}
    rng = np.random.default_rng(seed)
    s = px_per_mm
    w, h = profile["board_mm"]
    g = profile["grid"]
    ox, oy, cell = g["origin_mm"][0], g["origin_mm"][1], g["cell_mm"]
    rows, cols = g["rows"], g["cols"]
    img = np.zeros((int(round(h * s)), int(round(w * s)), 3), np.uint8)
    img[:] = col["frame"]
    _rect(img, 0, 0, w, oy * 0.8, s, col["sea"])
    _rect(img, 0, oy + rows * cell + 0.2 * oy, w, h, s, col["dunes"])
    _rect(img, ox, oy, ox + cols * cell, oy + rows * cell, s, col["sand"])
    # the printed frame: a score track down the left side, waves in the sea, a dune line
    for k in range(int((rows * cell) // 12)):
        y = oy + k * 12
        _rect(img, 3, y + 1, ox - 6, y + 10, s, (235, 240, 245) if k % 5 else (80, 100, 120))
    for k in range(int(w // 25)):
        cv2.line(img, (int((k * 25 + 4) * s), int(oy * 0.35 * s)), (int((k * 25 + 16) * s), int(oy * 0.45 * s)),
                 (200, 190, 120), max(1, int(0.8 * s)), cv2.LINE_AA)
    cv2.line(img, (0, int((oy + rows * cell + 0.55 * oy) * s)), (int(w * s), int((oy + rows * cell + 0.6 * oy) * s)),
             (70, 140, 160), max(1, int(1.0 * s)), cv2.LINE_AA)
    tex = rng.normal(0, 3.0, img.shape[:2]).astype(np.float32)
    img = np.clip(img + cv2.GaussianBlur(tex, (0, 0), 2.0)[..., None], 0, 255).astype(np.uint8)
    tile = g.get("tile_cells", 4)
    for r in range(0, rows + 1, tile):
        y = int((oy + r * cell) * s)
        cv2.line(img, (int(ox * s), y), (int((ox + cols * cell) * s), y), col["line"], 1)
    for c in range(0, cols + 1, tile):
        x = int((ox + c * cell) * s)
        cv2.line(img, (x, int(oy * s)), (x, int((oy + rows * cell) * s)), col["line"], 1)
    for r, c in spots:
        cv2.circle(img, (int((ox + (c + 0.5) * cell) * s), int((oy + (r + 0.5) * cell) * s)), int(0.33 * cell * s),
                   col["spot"], -1, cv2.LINE_AA)
    offsets = dict(marks or {})
    for r, row in enumerate(terrain or []):
        for c, ch in enumerate(row):
            if ch == "#":
                _rect(img, ox + c * cell, oy + r * cell, ox + (c + 1) * cell, oy + (r + 1) * cell, s, col["terrain"])
            elif ch in "+-x":
                dx, dy = offsets.get((r, c), (0.0, 0.0))
                cx, cy = (ox + (c + 0.5) * cell + dx) * s, (oy + (r + 0.5) * cell + dy) * s
                if ch == "x":
                    d = 0.25 * cell * s
                    for sx in (-1, 1):
                        cv2.line(img, (int(cx - d), int(cy - sx * d)), (int(cx + d), int(cy + sx * d)), col["sticks"],
                                 max(1, int(0.06 * cell * s)), cv2.LINE_AA)
                else:
                    cv2.circle(img, (int(cx), int(cy)), int(0.22 * cell * s), col["plus" if ch == "+" else "minus"],
                               -1, cv2.LINE_AA)
    half = gap_mm / 2
    for p in pieces:
        dx, dy = p.offset_mm
        r0 = min(r for r, _ in p.cells)
        r1 = max(r for r, _ in p.cells) + 1
        c0 = min(c for _, c in p.cells)
        c1 = max(c for _, c in p.cells) + 1
        for r, c in p.cells:  # cells of one piece join seamlessly
            x0 = ox + c * cell + dx + (half if c == c0 else 0)
            x1 = ox + (c + 1) * cell + dx - (half if c == c1 - 1 else 0)
            y0 = oy + r * cell + dy + (half if r == r0 else 0)
            y1 = oy + (r + 1) * cell + dy - (half if r == r1 - 1 else 0)
            _rect(img, x0, y0, x1, y1, s, col[p.player])
        X0, X1 = ox + c0 * cell + dx + half, ox + c1 * cell + dx - half
        Y0, Y1 = oy + r0 * cell + dy + half, oy + r1 * cell + dy - half
        if p.kind == "screen":
            band = 0.14 * cell
            edge = {"N": (X0, Y0, X1, Y0 + band), "S": (X0, Y1 - band, X1, Y1),
                    "W": (X0, Y0, X0 + band, Y1), "E": (X1 - band, Y0, X1, Y1)}[p.facing]
            _rect(img, *edge, s, col["stripe"])
        elif p.kind == "gear":
            for r, c in p.cells:
                cv2.circle(img, (int((ox + (c + 0.5) * cell + dx) * s), int((oy + (r + 0.5) * cell + dy) * s)),
                           int(0.17 * cell * s), col["print"], -1, cv2.LINE_AA)
        elif p.kind == "blanket":
            for r, c in (p.cells[0], p.cells[-1]):  # two opposite corners (cells sorted)
                cx, cy = ox + (c + 0.5) * cell + dx, oy + (r + 0.5) * cell + dy
                _rect(img, cx - 0.3 * cell, cy - 0.3 * cell, cx + 0.3 * cell, cy + 0.3 * cell, s, col["print"])
    for t in tokens:
        name, r, c = t[:3]
        dx, dy = t[3:5] if len(t) > 3 else (0.0, 0.0)  # a token off its cell's centre (mm)
        cx, cy = (ox + (c + 0.5) * cell + dx) * s, (oy + (r + 0.5) * cell + dy) * s
        kind = name.split("/")
        if kind[0] == "meeple":
            cv2.ellipse(img, (int(cx + 0.06 * cell * s), int(cy + 0.08 * cell * s)), (int(0.38 * cell * s),
                        int(0.16 * cell * s)), 0, 0, 360, (60, 80, 100), -1, cv2.LINE_AA)  # shadow
            cv2.ellipse(img, (int(cx), int(cy)), (int(0.38 * cell * s), int(0.13 * cell * s)), 0, 0, 360,
                        col[kind[1]], -1, cv2.LINE_AA)
            cv2.circle(img, (int(cx), int(cy)), int(0.2 * cell * s), col[kind[1]], -1, cv2.LINE_AA)
        elif name == "neutral":
            cv2.circle(img, (int(cx), int(cy)), int(0.34 * cell * s), col["neutral"], -1, cv2.LINE_AA)
        else:
            size = t[5] if len(t) > 5 else 1.0  # natural objects differ in size
            radius = {"amber": 0.13, "shell": 0.17, "pebble": 0.16}[kind[1]] * cell * s * size
            cv2.circle(img, (int(cx + 0.04 * cell * s), int(cy + 0.05 * cell * s)), int(radius), (95, 120, 140), -1,
                       cv2.LINE_AA)  # its shadow
            cv2.circle(img, (int(cx), int(cy)), int(radius), col[kind[1]], -1, cv2.LINE_AA)
    if arm is not None:
        (ax0, ay0), (ax1, ay1), width = arm
        cv2.line(img, (int(ax0 * s), int(ay0 * s)), (int(ax1 * s), int(ay1 * s)), col["skin"], int(width * s),
                 cv2.LINE_AA)
    if hand is not None:
        (hx, hy), (length, width), angle = hand
        axes = (int(length / 2 * s), int(width / 2 * s))
        shade = np.zeros(img.shape[:2], np.float32)
        cv2.ellipse(shade, (int((hx - 12) * s), int((hy + 14) * s)), axes, angle, 0, 360, 1.0, -1)
        shade = cv2.GaussianBlur(shade, (0, 0), 10 * s)
        img = np.clip(img * (1 - 0.55 * shade[..., None]), 0, 255).astype(np.uint8)
        skin = np.zeros(img.shape[:2], np.uint8)
        cv2.ellipse(skin, (int(hx * s), int(hy * s)), axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
        yy, xx = np.mgrid[:img.shape[0], :img.shape[1]]
        lit = 1.1 - 0.25 * np.clip(((xx - hx * s) ** 2 + (yy - hy * s) ** 2) / max(axes) ** 2, 0, 1)
        tone = np.clip(np.asarray(col["skin"], np.float32) * lit[..., None], 0, 255)
        a = (skin / 255.0)[..., None]
        img = (img * (1 - a) + tone * a).astype(np.uint8)
    return img


def photograph(top: np.ndarray, px_per_mm: float, board_mm, *, size_px=(1600, 1000), board_px_per_mm: float = 2.9,
               shift_mm=(0.0, 0.0), rotation_deg: float = 0.0, keystone: float = 0.03, gain=(1.0, 1.0, 1.0),
               blur_sigma: float = 0.6, noise_sigma: float = 1.5, seed: int = 0, colours: dict | None = None,
               light_ramp=(1.0, 1.0), vignette: float = 0.0, lamp: tuple | None = None):
    """Put a top view into a camera photo.

    Args:
        top: top view (BGR uint8) at ``px_per_mm``; board_mm: (w, h).
        size_px: photo (width, height); board_px_per_mm: scale of the board in the photo.
        shift_mm, rotation_deg: a bump of the board (about its centre); keystone: the far (sea)
            side this much narrower (a camera looking down at an angle).
        gain: lighting gains on B, G, R; blur_sigma (px), noise_sigma (grey levels).
        light_ramp: brightness at the photo's left and right edge, linear in between (a lamp to
            one side); vignette: darkening ``1 − vignette·r²`` (r = 1 at the edge midpoints).
        lamp: optional ``(x, y, gain, radius)`` in shares of the photo: a lamp's hot spot, brightness
            × (1 + gain·exp(−d²/radius²)).
    Returns:
        ``(photo BGR uint8 (H, W, 3), corners_px float (4, 2) TL, TR, BR, BL)``.
    """
    col = {**DEFAULT_BGR, **(colours or {})}
    rng = np.random.default_rng(seed)
    w, h = board_mm
    W, H = size_px
    k = board_px_per_mm
    c = np.array([w / 2, h / 2])
    th = np.radians(rotation_deg)
    R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    corners_mm = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    moved = (corners_mm - c) @ R.T + c + np.asarray(shift_mm, float)
    corners = moved * k + np.array([(W - w * k) / 2, (H - h * k) / 2])
    squeeze = keystone * w * k / 2
    corners[0, 0] += squeeze
    corners[1, 0] -= squeeze
    src = np.float32([[0, 0], [top.shape[1], 0], [top.shape[1], top.shape[0]], [0, top.shape[0]]])
    M = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    photo = np.full((H, W, 3), col["table"], np.uint8)
    photo = cv2.warpPerspective(top, M, (W, H), dst=photo, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    f = photo.astype(np.float32) * np.asarray(gain, np.float32)
    if tuple(light_ramp) != (1.0, 1.0) or vignette or lamp:
        light = np.broadcast_to(np.linspace(light_ramp[0], light_ramp[1], W, dtype=np.float32)[None], (H, W)).copy()
        yy, xx = np.ogrid[:H, :W]
        if vignette:
            light *= np.clip(1 - vignette * (((xx - W / 2) / (W / 2)) ** 2 + ((yy - H / 2) / (H / 2)) ** 2), 0.3, 1)
        if lamp:
            lx, ly, lg, lr = lamp
            d2 = ((xx / W - lx) ** 2 + (yy / H - ly) ** 2) / lr ** 2
            light *= (1 + lg * np.exp(-d2)).astype(np.float32)
        f *= light[..., None]
    if blur_sigma > 0:
        f = cv2.GaussianBlur(f, (0, 0), blur_sigma)
    f += rng.normal(0, noise_sigma, f.shape).astype(np.float32)
    return np.clip(f, 0, 255).astype(np.uint8), corners


def state_of(profile: dict, pieces=(), tokens=()) -> dict:
    """The contract state a drawn scene shows (plazing.md §state)."""
    g = profile["grid"]
    st = {"game": "plazing", "rows": g["rows"], "cols": g["cols"], "pieces": [], "meeples": [], "neutral": [],
          "resources": [], "trash": [], "surprises": []}
    for p in pieces:
        d = {"player": p.player, "kind": p.kind, "cells": [list(c) for c in sorted(p.cells)]}
        if p.kind == "screen":
            d["facing"] = p.facing
        st["pieces"].append(d)
    for name, r, c, *_ in tokens:
        kind = name.split("/")
        if kind[0] == "meeple":
            st["meeples"].append({"player": kind[1], "cell": [r, c]})
        elif kind[0] == "resource":
            st["resources"].append({"kind": kind[1], "cell": [r, c]})
        elif name == "neutral":
            st["neutral"].append([r, c])
    return st


def scene(profile: dict, pieces=(), tokens=(), *, terrain=None, spots=(), gap_mm: float = 0.6,
          arm: tuple | None = None, hand: tuple | None = None, marks=(), seed: int = 0,
          colours: dict | None = None, **photo_kw) -> Scene:
    """Draw and photograph a Plażing scene (see :func:`draw_top` and :func:`photograph`)."""
    s = 6.0
    top = draw_top(profile, pieces, tokens, terrain, spots, gap_mm=gap_mm, px_per_mm=s, colours=colours, arm=arm,
                   hand=hand, marks=marks, seed=seed)
    image, corners = photograph(top, s, profile["board_mm"], seed=seed, colours=colours, **photo_kw)
    return Scene(image=image, corners_px=corners, state=state_of(profile, pieces, tokens), top=top)


def calibration_samples(profile: dict, pieces=(), tokens=(), sand=()) -> list[dict]:
    """Calibration samples for a drawn scene (contract: one point per piece at its centre):
    ``screen/<player>/<dir>`` for screens, ``piece/<player>`` for other pieces, token labels for
    tokens, ``sand`` at the given cells."""
    g = profile["grid"]
    ox, oy, cell = g["origin_mm"][0], g["origin_mm"][1], g["cell_mm"]

    def centre(cells):
        r = np.mean([r for r, _ in cells])
        c = np.mean([c for _, c in cells])
        return [ox + (c + 0.5) * cell, oy + (r + 0.5) * cell]

    out = []
    for p in pieces:
        if p.kind == "screen":
            out.append({"label": f"screen/{p.player}/{p.facing}", "board_mm": centre(p.cells)})
        else:
            out.append({"label": f"piece/{p.player}", "board_mm": centre(p.cells)})
    for name, r, c, *_ in tokens:
        out.append({"label": name, "board_mm": centre([(r, c)])})
    for r, c in sand:
        out.append({"label": "sand", "board_mm": centre([(r, c)])})
    return out


#: Closing objects the random layouts lay on the board (rows × cols of ``#`` cells).
OBJECTS = ((2, 2), (1, 3), (3, 1), (2, 3), (3, 2), (1, 2))
#: Shapes of the default catalogue by kind, in one orientation (rotations are dealt at random).
SHAPES = {"screen": [[(0, 0), (0, 1), (0, 2)]], "blanket": [[(0, 0), (0, 1), (1, 0), (1, 1)]],
          "gear": [[(0, 0)], [(0, 0), (0, 1)]]}
#: Most pieces of each kind per player (the rules: 8 screens, 5 blankets, 6 gear).
MOST = {"screen": 8, "blanket": 5, "gear": 6}


def random_layout(profile: dict, rng: np.random.Generator, players, *, pieces=(16, 26), meeples=(2, 6),
                  resources=(8, 16), neutral=(0, 2), objects=4, marks=6, spots=18, required=()) -> dict:
    """A random game position on the profile's grid.

    Args:
        rng: the random generator (seeded by the caller).
        players: colour names.
        pieces, meeples, resources, neutral: (fewest, most) of each to deal.
        objects, marks, spots: closing objects, printed ± / x marks (off their cells' centres) and
            resource spots to print.
        required: [(player, kind, shape index)] pieces dealt first (a calibration shot shows
            every kind of every player).
    Returns:
        dict with ``pieces`` (:class:`Piece` list), ``tokens`` ([(name, row, col, dx_mm, dy_mm,
        size)]), ``terrain`` (row strings), ``marks`` ({(row, col): (dx_mm, dy_mm)}), ``spots``.
    """
    g = profile["grid"]
    rows, cols, cell = g["rows"], g["cols"], g["cell_mm"]
    terrain = np.full((rows, cols), ".", "<U1")
    for _ in range(objects):
        for _ in range(50):
            h, w = OBJECTS[rng.integers(len(OBJECTS))]
            r, c = int(rng.integers(0, rows - h + 1)), int(rng.integers(0, cols - w + 1))
            if (terrain[max(r - 1, 0):r + h + 1, max(c - 1, 0):c + w + 1] == ".").all():
                terrain[r:r + h, c:c + w] = "#"
                break
    free = [tuple(x) for x in np.argwhere(terrain == ".").tolist()]
    rng.shuffle(free)
    mark_at = {}
    for r, c in free[:marks]:
        terrain[r, c] = "+-x"[int(rng.choice(3, p=[0.45, 0.45, 0.1]))]
        mark_at[(r, c)] = tuple(rng.uniform(-0.2, 0.2, 2) * cell)
    spot_cells = [rc for rc in free[marks:marks + spots]]
    taken = np.zeros((rows, cols), bool)
    taken[terrain == "#"] = True
    count = {}
    out = []

    def place(player, kind, shape):
        cells = shape
        for _ in range(int(rng.integers(4))):
            cells = [(c, -r) for r, c in cells]
        r0 = min(r for r, _ in cells)
        c0 = min(c for _, c in cells)
        cells = [(r - r0, c - c0) for r, c in cells]
        h = max(r for r, _ in cells) + 1
        w = max(c for _, c in cells) + 1
        for _ in range(60):
            r, c = int(rng.integers(0, rows - h + 1)), int(rng.integers(0, cols - w + 1))
            placed = [(r + a, c + b) for a, b in cells]
            if not any(taken[p] for p in placed):
                for p in placed:
                    taken[p] = True
                facing = None
                if kind == "screen":
                    facing = ("N", "S")[int(rng.integers(2))] if h == 1 else ("E", "W")[int(rng.integers(2))]
                out.append(Piece(player, kind, sorted(placed), facing))
                count[(player, kind)] = count.get((player, kind), 0) + 1
                return True
        return False

    for player, kind, i in required:
        place(player, kind, SHAPES[kind][i])
    target = int(rng.integers(pieces[0], pieces[1] + 1))
    kinds = list(SHAPES)
    for _ in range(target * 4):
        if len(out) >= target:
            break
        player = players[int(rng.integers(len(players)))]
        kind = kinds[int(rng.choice(len(kinds), p=[0.45, 0.2, 0.35]))]
        if count.get((player, kind), 0) >= MOST[kind]:
            continue
        place(player, kind, SHAPES[kind][int(rng.integers(len(SHAPES[kind])))])
    # pieces lie a little off their cells; pieces pressed together move together (cardboard does
    # not slide into its neighbour)
    root = list(range(len(out)))

    def find(i):
        while root[i] != i:
            i = root[i]
        return i

    where = {c: i for i, p in enumerate(out) for c in p.cells}
    for i, p in enumerate(out):
        for r, c in p.cells:
            for nb in ((r + 1, c), (r, c + 1)):
                j = where.get(nb)
                if j is not None and j != i:
                    root[find(i)] = find(j)
    shift = {k: tuple(rng.uniform(-0.8, 0.8, 2)) for k in {find(i) for i in range(len(out))}}
    out = [Piece(p.player, p.kind, p.cells, p.facing, shift[find(i)]) for i, p in enumerate(out)]
    tokens = []
    open_cells = [rc for rc in free if not taken[rc]]
    rng.shuffle(open_cells)
    on_spots = [rc for rc in spot_cells if not taken[rc]]
    used = set()

    def take(pool):
        for rc in pool:
            if rc not in used and not taken[rc]:
                used.add(rc)
                return rc
        return None

    for _ in range(int(rng.integers(resources[0], resources[1] + 1))):
        rc = take(on_spots if rng.random() < 0.8 else open_cells)
        if rc is not None:
            kind = ("amber", "shell", "pebble")[int(rng.integers(3))]
            size = float(rng.uniform(0.85, 1.15))
            tokens.append((f"resource/{kind}", rc[0], rc[1], *rng.uniform(-1.5, 1.5, 2), size))
    for _ in range(int(rng.integers(meeples[0], meeples[1] + 1))):
        rc = take(open_cells)
        if rc is not None:
            tokens.append((f"meeple/{players[int(rng.integers(len(players)))]}", rc[0], rc[1],
                           *rng.uniform(-1.5, 1.5, 2), 1.0))
    for _ in range(int(rng.integers(neutral[0], neutral[1] + 1))):
        rc = take(open_cells)
        if rc is not None:
            tokens.append(("neutral", rc[0], rc[1], *rng.uniform(-1.0, 1.0, 2), 1.0))
    return {"pieces": out, "tokens": tokens, "terrain": ["".join(row) for row in terrain], "marks": mark_at,
            "spots": spot_cells}


def calibration_layout(profile: dict, rng: np.random.Generator, players) -> dict:
    """A calibration shot's position: every kind of piece of every player (a screen, a blanket,
    a single and a domino gear, then more at random), each player's meeple, a neutral marker and
    two of each resource (on resource spots first), printed marks some of them free, and a bare
    cell to label ``sand``.

    Returns:
        :func:`random_layout`'s dict with ``tokens`` as (name, row, col) and ``sand`` ([(row, col)]).
    """
    required = [(p, kind, i) for p in players for kind, i in (("screen", 0), ("blanket", 0), ("gear", 0), ("gear", 1))]
    lay = random_layout(profile, rng, players, pieces=(len(required) + 2, len(required) + 6), meeples=(0, 0),
                        resources=(0, 0), neutral=(0, 0), required=required)
    rows, cols = profile["grid"]["rows"], profile["grid"]["cols"]
    free = [(r, c) for r in range(rows) for c in range(cols)
            if lay["terrain"][r][c] == "." and not any((r, c) in p.cells for p in lay["pieces"])]
    rng.shuffle(free)
    names = [f"meeple/{p}" for p in players] + ["neutral"] + [f"resource/{x}" for x in ("amber", "shell", "pebble")] * 2
    spots = set(lay["spots"])
    cells = sorted(free[:len(names)], key=lambda rc: rc not in spots)
    lay["tokens"] = [(n, r, c) for n, (r, c) in zip(names, cells)]
    lay["sand"] = [free[len(names)]]
    return lay
