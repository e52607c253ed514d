"""Seeded synthetic Strand unter *set-ups*: a table, a board and a camera, for tests and unseen set-ups.

Unlike :mod:`tests.synthetic.strand_top` (a flat top view), this renders a small 3-D scene through a pinhole
camera of any height and tilt:

- the table plane (z = 0) with the board on it: grooved sand, blue rails along its sides, the sea
  cloth hanging from the sea side down to the sea front with its wooden stick, flat pieces
  (shells, castle bases) drawn in the board plane; the board can be bumped (turned and pushed on
  the table) between shots;
- raised parts projected point by point: castle platforms and towers (``value + 1`` of them, larger
  with the value), the sandpiper, a hand or an arm (held above the board, with its soft shadow);
- light: a colour temperature (blackbody, 3000–5600 K) against the camera's fixed white balance,
  exposure, a lamp (a point light over the table, warm), a vignette (cos⁴-like fall-off), pixel
  noise, JPEG compression.

:func:`write_setup` writes one set-up in the layout of ``shared/samples`` (``calibration.json``,
``calib.jpg``, ``empty.jpg``, ``scene_XX.jpg`` + ``scene_XX.truth.json`` with ``bumped`` and
``occluded``), so that ``shared/tools/evaluate.py`` and ``scripts/reliability.py`` measure the
reader on set-ups nobody tuned on. Colours and sizes here are the test's own pieces: the reader
learns them from the calibration shot. Frames: board mm (x right, y towards the players),
heights in mm above the table.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace

import cv2
import numpy as np

COLOURS = ("white", "gray", "brown", "black")
#: the test's materials in sRGB (B, G, R) under the camera's white balance
BGR = {"table": (62, 92, 128), "sand": (150, 190, 218), "rail": (190, 140, 90), "rail_side": (150, 105, 65),
       "sea": (165, 110, 45), "stick": (95, 140, 185),
       "white": (225, 232, 236), "gray": (140, 138, 134), "brown": (50, 85, 130), "black": (42, 40, 40),
       "red": (45, 50, 200), "yellow": (40, 200, 230), "green": (60, 150, 50), "blue": (190, 90, 40),
       "base": (140, 180, 210), "bird": (95, 100, 105), "bird_head": (225, 230, 232), "skin": (150, 170, 225)}
PLAYERS = ("red", "yellow", "green", "blue")
#: castle geometry per value (mm): base radius, platform radius / height, tower radius / top height
CASTLE = {v: {"base_r": 9.0 + 1.6 * v, "plat_r": 7.0 + 1.6 * v, "plat_z": 5.0, "tower_r": 2.6,
              "tower_z": 10.0 + 1.0 * v} for v in range(4)}
SHELL_R = 7.0
TEXTURE_PPM = 3.0          # px/mm of the plane texture before projection


def profile() -> dict:
    """The contract's default Strand unter profile (440 × 380 mm, 11 grooves of 30 mm)."""
    return {"game": "strand-unter", "board_mm": [440.0, 380.0], "sea_side": "top",
            "grooves": [{"number": n, "polygon_mm": [[30.0, 355.0 - 30 * n], [410.0, 355.0 - 30 * n],
                                                     [410.0, 385.0 - 30 * n], [30.0, 385.0 - 30 * n]]}
                        for n in range(1, 12)]}


def groove_of(y_mm: float) -> int | None:
    """The default profile's groove at board height ``y_mm`` (None outside the grooves)."""
    n = int(np.floor((355.0 - y_mm) / 30.0)) + 1
    return n if 1 <= n <= 11 and 25.0 <= y_mm < 355.0 else None


@dataclass
class Camera:
    """A pinhole camera over the table.

    Attributes:
        height_mm: the camera centre's height above the table.
        tilt_deg: how far the optical axis leans from straight down, towards the players (+) or
            the sea side (−); the camera stands back so that it still looks at ``target_mm``.
        target_mm: board point (x, y) the optical axis goes through.
        size_px: (width, height) of the photo.
        board_fill: the board's width as a share of the photo's height sets the focal length.
    """

    height_mm: float = 640.0
    tilt_deg: float = 0.0
    pan_deg: float = 0.0
    target_mm: tuple = (220.0, 190.0)
    size_px: tuple = (1920, 1080)
    board_fill: float = 0.88

    def matrices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(K (3, 3), R (3, 3) world → camera, C (3,) camera centre in world mm; world z into the table)."""
        W, H = self.size_px
        f = self.board_fill * H * self.height_mm / 380.0
        K = np.array([[f, 0, (W - 1) / 2], [0, f, (H - 1) / 2], [0, 0, 1.0]])
        t, p = np.radians(self.tilt_deg), np.radians(self.pan_deg)
        tx, ty = self.target_mm
        d = self.height_mm / np.cos(t) / np.cos(p)
        C = np.array([tx - d * np.sin(p), ty - d * np.sin(t) * np.cos(p), -self.height_mm])
        fwd = np.array([tx, ty, 0.0]) - C
        fwd /= np.linalg.norm(fwd)
        right = np.array([1.0, 0, 0]) - fwd[0] * fwd
        right /= np.linalg.norm(right)
        down = np.cross(fwd, right)
        return K, np.stack([right, down, fwd]), C

    def project(self, pts_world: np.ndarray) -> np.ndarray:
        """Image px (N, 2) of world points (N, 3) (x, y on the table, z = −height)."""
        K, R, C = self.matrices()
        cam = (np.asarray(pts_world, np.float64).reshape(-1, 3) - C) @ R.T
        uv = cam @ K.T
        return uv[:, :2] / uv[:, 2:3]

    def plane_homography(self) -> np.ndarray:
        """Homography table mm (z = 0) → image px, (3, 3)."""
        K, R, C = self.matrices()
        t = -R @ C
        return K @ np.column_stack([R[:, 0], R[:, 1], t])


@dataclass
class Light:
    """The light of one shot.

    Attributes:
        kelvin: colour temperature of the room light (the camera's white balance stays at
            ``Setup.white_balance_k``).
        exposure: overall brightness factor.
        lamp: ``(x_mm, y_mm, height_mm, strength)`` of a warm point light over the table, or None.
        vignette: darkening at the photo's corners (0 none, 0.5 strong).
        noise: pixel noise σ in grey levels; jpeg: JPEG quality.
    """

    kelvin: float = 4500.0
    exposure: float = 1.0
    lamp: tuple | None = None
    vignette: float = 0.15
    noise: float = 2.0
    jpeg: int = 92


@dataclass
class Piece:
    """One piece: ``kind`` shell/<colour>, castle/<player>/<value> or sandpiper, at board mm (x, y)."""

    kind: str
    x: float
    y: float


@dataclass
class Shot:
    """What one photo shows: the board's state (pieces, sea front), its bump, a hand, the light."""

    pieces: list
    sea_front: int = 12
    shift_mm: tuple = (0.0, 0.0)
    turn_deg: float = 0.0
    hand: tuple | None = None     # (x_mm, y_mm, length_mm, width_mm, angle_deg, height_mm): a hand/arm
    light: Light = field(default_factory=Light)
    markers: list = field(default_factory=list)   # [(id, x_mm, y_mm, size_mm)]: ArUco DICT_4X4_50 on the board


@dataclass
class Setup:
    """A camera over a table with the board; its calibration and empty shots' light."""

    camera: Camera = field(default_factory=Camera)
    white_balance_k: float = 4500.0
    seed: int = 0


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Linear RGB (3,) of a blackbody at ``kelvin`` (Tanner Helland's fit to the CIE 1964 data), green = 1."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * np.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307)
    rgb = (np.clip([r, g, b], 1, 255) / 255.0) ** 2.2
    return rgb / rgb[1]


def _bump(shot: Shot, board_mm) -> np.ndarray:
    """(3, 3) board mm → table mm: the board turned about its centre and pushed."""
    w, h = board_mm
    t = np.radians(shot.turn_deg)
    c, s = np.cos(t), np.sin(t)
    cx, cy = w / 2, h / 2
    dx, dy = shot.shift_mm
    return np.array([[c, -s, cx - c * cx + s * cy + dx], [s, c, cy - s * cx - c * cy + dy], [0, 0, 1.0]])


def _board_texture(shot: Shot, prof: dict, rng, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """The board plane (sand, rails, cloth, stick, flat pieces) at TEXTURE_PPM, with margin_mm around.

    Returns: (BGR float32 (H, W, 3), alpha float32 (H, W): 1 where the board covers the table).
    """
    s = TEXTURE_PPM
    w, h = prof["board_mm"]
    W, H = int((w + 2 * margin) * s), int((h + 2 * margin) * s)
    img = np.zeros((H, W, 3), np.float32)
    alpha = np.zeros((H, W), np.float32)

    def P(x, y):
        return int(round((x + margin) * s * 16)), int(round((y + margin) * s * 16))

    def rect(x0, y0, x1, y1, colour, a=1.0):
        cv2.rectangle(img, P(x0, y0), P(x1, y1), colour, -1, cv2.LINE_AA, 4)
        cv2.rectangle(alpha, P(x0, y0), P(x1, y1), a, -1, cv2.LINE_AA, 4)

    rect(0, 0, w, h, BGR["sand"])
    # groove ridges: a smooth shading with the grooves' pitch, plus a fine sand grain
    yy = (np.arange(H) / s - margin)
    ridge = 1.0 + 0.07 * np.cos(2 * np.pi * (yy - 25.0) / 30.0)
    inside = (yy >= 0) & (yy <= h)
    img[inside] *= ridge[inside, None, None]
    grain = cv2.GaussianBlur(6 * rng.standard_normal((H, W), dtype=np.float32), (0, 0), 1.0)
    img += (grain * (alpha > 0))[..., None]
    rail = 28.0
    for x0 in (-rail, w):
        rect(x0, -10, x0 + rail, h + 8, BGR["rail"])
    # the rails' inner faces in shade
    rect(-4, -10, 0, h + 8, BGR["rail_side"])
    rect(w, -10, w + 4, h + 8, BGR["rail_side"])
    grooves = {g["number"]: np.asarray(g["polygon_mm"], float) for g in prof["grooves"]}
    # the cloth: beyond the board on the sea side always, down to the sea front's groove edge
    edge = grooves[shot.sea_front][:, 1].max() if shot.sea_front <= max(grooves) else 0.0
    pts = np.array([[20, -margin + 5], [w - 20, -margin + 5], [w, 0], [w, edge], [0, edge], [0, 0]], float)
    wav = 1.5 * np.sin(np.linspace(0, 6 * np.pi, 40))
    xs = np.linspace(w, 0, 40)
    poly = np.vstack([pts[:3], np.column_stack([xs, edge + wav]), pts[5:]])
    cv2.fillPoly(img, [np.round((poly + margin) * s * 16).astype(np.int32)], BGR["sea"], cv2.LINE_AA, 4)
    cv2.fillPoly(alpha, [np.round((poly + margin) * s * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    cloth = np.zeros((H, W), np.uint8)
    cv2.fillPoly(cloth, [np.round((poly + margin) * s).astype(np.int32)], 1)
    img += (cv2.GaussianBlur(5 * rng.standard_normal((H, W), dtype=np.float32), (0, 0), 1.5) * cloth)[..., None]
    rect(-2, edge - 2 if edge > 0 else -8, w + 2, edge + 5 if edge > 0 else -1, BGR["stick"])
    # ArUco markers printed on the board (a white quiet zone of a quarter of their size around)
    for mid, mx, my, size in shot.markers:
        q = size / 4
        rect(mx - q, my - q, mx + size + q, my + size + q, (245, 245, 245))
        n = int(round(size * s))
        mk = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), int(mid), n)
        x0, y0 = int(round((mx + margin) * s)), int(round((my + margin) * s))
        img[y0:y0 + n, x0:x0 + n] = np.where(mk[..., None] > 127, 245.0, 25.0)
    # flat pieces
    for p in shot.pieces:
        kind = p.kind.split("/")
        c = (p.x + margin) * s, (p.y + margin) * s
        if kind[0] == "shell":
            n = 14
            ang = np.linspace(0, 2 * np.pi, 4 * n, endpoint=False) + rng.uniform(0, 1)
            rr = SHELL_R * (1 + 0.06 * np.cos(n * ang)) * s
            sq = 1.0 + rng.uniform(-0.08, 0.08)
            poly = np.column_stack([c[0] + rr * np.cos(ang) * sq, c[1] + rr * np.sin(ang) / sq])
            tint = np.asarray(BGR[kind[1]], np.float32) * rng.uniform(0.93, 1.07)
            cv2.fillPoly(img, [np.round(poly * 16).astype(np.int32)], tint.tolist(), cv2.LINE_AA, 4)
        elif kind[0] == "castle":
            v = int(kind[2])
            r = CASTLE[v]["base_r"] * s
            ang = np.linspace(0, 2 * np.pi, 8, endpoint=False) + np.pi / 8
            poly = np.column_stack([c[0] + r * np.cos(ang), c[1] + r * np.sin(ang)])
            cv2.fillPoly(img, [np.round(poly * 16).astype(np.int32)], (np.asarray(BGR["base"]) * 0.8).tolist(),
                         cv2.LINE_AA, 4)
            poly = np.column_stack([c[0] + 0.85 * r * np.cos(ang), c[1] + 0.85 * r * np.sin(ang)])
            cv2.fillPoly(img, [np.round(poly * 16).astype(np.int32)], BGR["base"], cv2.LINE_AA, 4)
    return img, alpha


def _shade(img, centre, axes, angle, colour, light_dir=(0.4, -0.6)):
    """A filled ellipse (image px, sub-pixel) shaded like a rounded top lit from ``light_dir``."""
    c = (int(round(centre[0] * 16)), int(round(centre[1] * 16)))
    a = (max(1, int(round(axes[0] * 16))), max(1, int(round(axes[1] * 16))))
    cv2.ellipse(img, c, a, angle, 0, 360, [0.75 * v for v in colour], -1, cv2.LINE_AA, 4)
    c2 = (int(round((centre[0] + light_dir[0] * 0.2 * axes[0]) * 16)),
          int(round((centre[1] + light_dir[1] * 0.2 * axes[1]) * 16)))
    a2 = (max(1, int(round(axes[0] * 0.75 * 16))), max(1, int(round(axes[1] * 0.75 * 16))))
    cv2.ellipse(img, c2, a2, angle, 0, 360, list(colour), -1, cv2.LINE_AA, 4)


def render(setup: Setup, shot: Shot, prof: dict | None = None, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Render one photo.

    Args:
        setup: camera and white balance; shot: pieces, sea front, bump, hand, light.
        prof: the profile (default :func:`profile`).
        seed: randomness of textures, shell outlines and noise.
    Returns:
        (BGR uint8 photo (h, w, 3) after JPEG compression, board corners float64 (4, 2) TL, TR, BR,
        BL in photo px).
    """
    prof = prof or profile()
    rng = np.random.default_rng(seed)
    cam = setup.camera
    W, H = cam.size_px
    w, h = prof["board_mm"]
    margin = 60.0
    tex, alpha = _board_texture(shot, prof, rng, margin)
    B = _bump(shot, prof["board_mm"])
    Hplane = cam.plane_homography()
    s = TEXTURE_PPM
    tex_from_mm = np.array([[s, 0, margin * s], [0, s, margin * s], [0, 0, 1.0]])
    M = Hplane @ B @ np.linalg.inv(tex_from_mm)           # texture px → image px
    table = np.empty((H, W, 3), np.float32)
    table[:] = BGR["table"]
    table += cv2.GaussianBlur(4 * rng.standard_normal((H, W), dtype=np.float32), (0, 0), 2.0)[..., None]
    board = cv2.warpPerspective(tex, M, (W, H), flags=cv2.INTER_AREA if False else cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, M, (W, H), flags=cv2.INTER_LINEAR)[..., None]
    img = board * a + table * (1 - a)
    # soft shadow of the board's front edge and the rails on the table
    def world(x, y, z=0.0):
        p = B @ np.array([x, y, 1.0])
        return np.array([p[0], p[1], -z])

    raised = []                               # (depth, draw function) painted far to near
    for p in shot.pieces:
        kind = p.kind.split("/")
        if kind[0] == "castle":
            v, colour = int(kind[2]), BGR[kind[1]]
            g = CASTLE[v]
            raised.append((g["plat_z"], p, colour, v))
        elif kind[0] == "sandpiper":
            raised.append((8.0, p, BGR["bird"], None))

    def px_radius(x, y, z, r):
        c = cam.project(world(x, y, z)[None])[0]
        e = cam.project(world(x + r, y, z)[None])[0]
        return c, float(np.hypot(*(e - c)))

    shadow = np.zeros((H, W), np.float32)
    for z, p, colour, v in raised:
        c, r = px_radius(p.x + 0.15 * z, p.y - 0.2 * z, 0.0, (CASTLE[v]["base_r"] if v is not None else 9.0))
        cv2.circle(shadow, (int(c[0] * 16), int(c[1] * 16)), int(r * 16), 0.25, -1, cv2.LINE_AA, 4)
    for z, p, colour, v in raised:
        if v is None:    # the sandpiper: a grey body, a white head, a dark beak
            c, r = px_radius(p.x, p.y, 8.0, 1.0)
            _shade(img, c, (11 * r, 6.5 * r), 0, colour)
            c2, _ = px_radius(p.x + 9, p.y, 10.0, 1.0)
            _shade(img, c2, (4.2 * r, 3.8 * r), 0, BGR["bird_head"])
            c3, _ = px_radius(p.x + 15, p.y, 10.0, 1.0)
            cv2.line(img, (int(c2[0]), int(c2[1])), (int(c3[0]), int(c3[1])), (30, 30, 30), max(1, int(r)))
            continue
        g = CASTLE[v]
        c, r = px_radius(p.x, p.y, g["plat_z"], g["plat_r"])
        _shade(img, c, (r, r), 0, colour)
        n = v + 1
        for k in range(n):
            t = 2 * np.pi * k / n + 0.3
            off = 0.0 if n == 1 else g["plat_r"] - g["tower_r"] - 1.0
            x, y = p.x + off * np.cos(t), p.y + off * np.sin(t)
            # the tower's shadow on the platform, then the tower's top
            cs, rs = px_radius(x + 1.0, y - 1.5, g["plat_z"] + 0.5, g["tower_r"])
            cv2.circle(img, (int(cs[0] * 16), int(cs[1] * 16)), int(rs * 16),
                       [0.7 * q for q in colour], -1, cv2.LINE_AA, 4)
            ct, rt = px_radius(x, y, g["tower_z"], g["tower_r"])
            _shade(img, ct, (rt, rt), 0, [min(255.0, 1.15 * q + 12) for q in colour])
    if shot.hand is not None:
        hx, hy, length, width, ang, hz = shot.hand
        c, r = px_radius(hx + 0.15 * hz, hy - 0.2 * hz, 0.0, 1.0)
        cv2.ellipse(shadow, (int(c[0] * 16), int(c[1] * 16)), (int(length / 2 * r * 16), int(width / 2 * r * 16)),
                    ang, 0, 360, 0.25, -1, cv2.LINE_AA, 4)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 4.0)
    img *= (1.0 - shadow)[..., None]
    if shot.hand is not None:
        hx, hy, length, width, ang, hz = shot.hand
        c, r = px_radius(hx, hy, hz, 1.0)
        _shade(img, c, (length / 2 * r, width / 2 * r), ang, BGR["skin"])
    # light: linear space, colour temperature against the white balance, lamp, exposure, vignette
    lin = cv2.pow(np.clip(img, 0, 255) * np.float32(1 / 255.0), 2.2)
    L = shot.light
    gain = kelvin_rgb(L.kelvin) / kelvin_rgb(setup.white_balance_k)           # R, G, B
    field = np.full((H, W), L.exposure, np.float32)
    if L.lamp is not None:
        lx, ly, lz, strength = L.lamp
        Hinv = np.linalg.inv(Hplane)
        u, v = np.meshgrid(np.arange(0, W, 8, dtype=np.float64), np.arange(0, H, 8, dtype=np.float64))
        q = np.stack([u, v, np.ones_like(u)], -1) @ Hinv.T
        X, Y = q[..., 0] / q[..., 2], q[..., 1] / q[..., 2]
        d2 = (X - lx) ** 2 + (Y - ly) ** 2 + lz ** 2
        lamp = strength * (lz ** 3) / d2 ** 1.5
        lamp = cv2.resize(lamp.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    else:
        lamp = None
    if L.vignette:
        yy, xx = np.ogrid[0:H, 0:W]
        r2 = (((xx - W / 2) ** 2).astype(np.float32) + ((yy - H / 2) ** 2).astype(np.float32)) / \
            np.float32((W / 2) ** 2 + (H / 2) ** 2)
        vig = (1.0 - np.float32(L.vignette) * r2).astype(np.float32)
    else:
        vig = 1.0
    out = lin * (field[..., None] * gain[::-1][None, None, :].astype(np.float32))
    if lamp is not None:
        warm = kelvin_rgb(2700.0) / kelvin_rgb(setup.white_balance_k)
        out = out + lin * (lamp[..., None] * warm[::-1][None, None, :].astype(np.float32))
    out = out * (vig[..., None] if np.ndim(vig) else vig)
    img = 255.0 * cv2.pow(np.clip(out, 0, 1).astype(np.float32), 1 / 2.2)
    img += np.float32(L.noise) * rng.standard_normal(img.shape, dtype=np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(L.jpeg)])
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    cw = (np.column_stack([corners, np.ones(4)]) @ B.T)[:, :2]
    return img, cam.project(np.column_stack([cw, np.zeros(4)]))


def marker_profile(markers, prof: dict | None = None) -> dict:
    """The profile with ``markers`` ([(id, x_mm, y_mm, size_mm)], as :class:`Shot` draws them) declared."""
    prof = dict(prof or profile())
    prof["markers"] = [{"dictionary": "DICT_4X4_50", "id": int(mid),
                        "corners_mm": [[x, y], [x + s, y], [x + s, y + s], [x, y + s]]}
                       for mid, x, y, s in markers]
    return prof


def state_of(shot: Shot, prof: dict | None = None) -> dict:
    """The contract state a shot shows (pieces under the cloth are not in it)."""
    prof = prof or profile()
    numbers = sorted(g["number"] for g in prof["grooves"])
    visible = [n for n in numbers if n < shot.sea_front]
    grooves = {n: {"number": n, "shells": {c: 0 for c in COLOURS}, "castles": []} for n in visible}
    bird = None
    for p in shot.pieces:
        g = groove_of(p.y)
        if g not in grooves:
            continue
        kind = p.kind.split("/")
        if kind[0] == "shell":
            grooves[g]["shells"][kind[1]] += 1
        elif kind[0] == "castle":
            grooves[g]["castles"].append({"player": kind[1], "value": int(kind[2])})
        elif kind[0] == "sandpiper":
            bird = g
    return {"game": "strand-unter", "sea_front": shot.sea_front, "sandpiper": bird,
            "grooves": [grooves[n] for n in visible]}


def calibration_pieces(players=PLAYERS) -> list:
    """Every kind of piece once or twice (castles in grooves 3, 5, 7, 9; shells in 1–2), for the calibration shot."""
    out = []
    for i, pl in enumerate(players):
        for v in range(4):
            out.append(Piece(f"castle/{pl}/{v}", 70 + 95 * v + 12 * (i % 2), 280.0 - 60 * i))
    for j, c in enumerate(COLOURS):
        out.append(Piece(f"shell/{c}", 80 + 40 * j, 310))
        out.append(Piece(f"shell/{c}", 80 + 40 * j, 340))
    out.append(Piece("sandpiper", 330, 340))
    return out


def random_shot(rng, players=PLAYERS, light: Light | None = None) -> Shot:
    """A random game position: sea front 2–12, each player's castles (one per value) and shells in
    the visible grooves, the sandpiper in one of them or off the board; pieces never overlap."""
    front = int(rng.integers(2, 13))
    visible = list(range(1, front))
    pieces, taken = [], []

    def place(r):
        for _ in range(200):
            g = int(rng.choice(visible))
            x = float(rng.uniform(45, 395))
            y = 340.0 - 30 * (g - 1) + float(rng.uniform(-4.5, 4.5))
            if all(np.hypot(x - a, y - b) > r + q + 1.5 for a, b, q in taken):
                taken.append((x, y, r))
                return x, y
        return None

    n_castles = int(rng.integers(1, min(10, 4 * len(players)) + 1))
    owned = [(pl, v) for pl in players for v in range(4)]
    rng.shuffle(owned)
    for pl, v in owned[:n_castles]:
        xy = place(CASTLE[v]["base_r"])
        if xy:
            pieces.append(Piece(f"castle/{pl}/{v}", *xy))
    for _ in range(int(rng.integers(0, 12))):
        xy = place(SHELL_R)
        if xy:
            pieces.append(Piece(f"shell/{rng.choice(COLOURS)}", *xy))
    if rng.random() < 0.7:
        xy = place(14.0)
        if xy:
            pieces.append(Piece("sandpiper", *xy))
    return Shot(pieces=pieces, sea_front=front, light=light or Light())


def random_setup(seed: int, size_px=(1920, 1080)) -> tuple[Setup, Light]:
    """A set-up nobody tuned on: camera 520–900 mm high, tilted up to 14°, white balance 3800–5200 K;
    and the light of its calibration shot."""
    rng = np.random.default_rng(seed)
    cam = Camera(height_mm=float(rng.uniform(520, 900)), tilt_deg=float(rng.uniform(-14, 14)),
                 pan_deg=float(rng.uniform(-6, 6)), target_mm=(220 + float(rng.uniform(-15, 15)),
                                                              190 + float(rng.uniform(-15, 15))),
                 size_px=size_px, board_fill=float(rng.uniform(0.8, 0.92)))
    setup = Setup(camera=cam, white_balance_k=float(rng.uniform(3800, 5200)), seed=seed)
    return setup, Light(kelvin=float(rng.uniform(3000, 5600)), exposure=float(rng.uniform(0.9, 1.1)),
                        vignette=float(rng.uniform(0.0, 0.35)))


def random_light(rng, base: Light) -> Light:
    """The light of a later shot: another colour temperature (3000–5600 K), exposure, sometimes a lamp."""
    lamp = None
    if rng.random() < 0.35:
        lamp = (float(rng.uniform(-100, 540)), float(rng.uniform(-50, 430)), float(rng.uniform(350, 800)),
                float(rng.uniform(0.3, 0.9)))
    return replace(base, kelvin=float(rng.uniform(3000, 5600)), exposure=float(rng.uniform(0.75, 1.2)),
                   lamp=lamp, noise=float(rng.uniform(1.5, 3.5)))


def write_calibration(folder: str, setup: Setup, light: Light, seed: int = 0, prof: dict | None = None,
                      markers=()) -> str:
    """Write a set-up's calibration (``calib.jpg``, ``empty.jpg``, ``calibration.json``, ``../profile.json``).

    The calibration shot shows :func:`calibration_pieces` with the sea front at 11, the empty
    shot nothing; both under ``light``. With ``markers`` the profile declares them (and both shots
    show them). Returns the path of ``calibration.json``.
    """
    prof = marker_profile(markers, prof) if markers else (prof or profile())
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "..", "profile.json"), "w") as f:
        json.dump(prof, f, indent=1)
    calib = Shot(pieces=calibration_pieces(), sea_front=11, light=light, markers=list(markers))
    img, corners = render(setup, calib, prof, seed=seed)
    cv2.imwrite(os.path.join(folder, "calib.jpg"), img)
    empty, _ = render(setup, Shot(pieces=[], sea_front=12, light=light, markers=list(markers)), prof, seed=seed + 1)
    cv2.imwrite(os.path.join(folder, "empty.jpg"), empty)
    samples = [{"label": p.kind, "board_mm": [round(p.x, 1), round(p.y, 1)]} for p in calib.pieces]
    samples.append({"label": "sea", "board_mm": [220.0, 12.0]})
    path = os.path.join(folder, "calibration.json")
    with open(path, "w") as f:
        json.dump({"game": "strand-unter", "profile": "../profile.json", "image": "calib.jpg",
                   "empty_image": "empty.jpg", "corners_px": np.round(corners, 2).tolist(), "samples": samples},
                  f, indent=1)
    return path


def write_setup(folder: str, seed: int, n_scenes: int = 6, size_px=(1920, 1080), hands: int = 1,
                bumps: int = 1) -> None:
    """Write one random set-up in the samples' layout (see the module docstring).

    Args:
        folder: the set-up's folder (``…/setupN``); ``../profile.json`` is written beside it.
        seed: everything random follows from it.
        n_scenes: scenes written; the first ``hands`` of them get a hand over the grooves, the next
            ``bumps`` a bumped board (pushed up to 8 mm, turned up to 1.5°).
    """
    rng = np.random.default_rng(seed + 1000)
    setup, calib_light = random_setup(seed, size_px)
    prof = profile()
    write_calibration(folder, setup, calib_light, seed, prof)
    for k in range(n_scenes):
        shot = random_shot(rng, light=random_light(rng, calib_light))
        occluded = k < hands
        bumped = hands <= k < hands + bumps
        if occluded:
            vis = max(1, shot.sea_front - 1)
            g = int(rng.integers(1, vis + 1))
            shot.hand = (float(rng.uniform(80, 360)), 340.0 - 30 * (g - 1), float(rng.uniform(80, 120)),
                         float(rng.uniform(45, 60)), float(rng.uniform(-60, 60)), float(rng.uniform(40, 90)))
        if bumped:
            shot.shift_mm = (float(rng.uniform(-8, 8)), float(rng.uniform(-8, 8)))
            shot.turn_deg = float(rng.uniform(-1.5, 1.5))
        img, corners = render(setup, shot, prof, seed=seed + 10 + k)
        name = f"scene_{k:02d}"
        cv2.imwrite(os.path.join(folder, name + ".jpg"), img)
        players = sorted({p.kind.split("/")[1] for p in shot.pieces if p.kind.startswith("castle/")})
        with open(os.path.join(folder, name + ".truth.json"), "w") as f:
            json.dump({"state": state_of(shot, prof), "corners_px": np.round(corners, 2).tolist(),
                       "bumped": bumped, "occluded": occluded, "players": players,
                       "synthetic": {"light": asdict(shot.light), "hand": shot.hand, "shift_mm": shot.shift_mm,
                                     "turn_deg": shot.turn_deg, "camera": asdict(setup.camera),
                                     "white_balance_k": setup.white_balance_k, "calibration_light": asdict(calib_light)}},
                      f, indent=1)
