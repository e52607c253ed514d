"""Seeded synthetic Strand unter scenes for unit tests (no real photos needed).

:func:`scene` draws a board from the profile: grooved sand, the sea cloth down to a chosen
front, shells, castles (a base disc and 1–4 towers, larger with higher value, the towers seen
with the parallax of a camera at a given height), the sandpiper; then applies lighting
colour/strength, noise, blur and a small board shift/rotation, and projects everything into a
camera image. Colours are Lab values handed in (learned-like),
never taken from the product code.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

#: learned-like Lab colours (8-bit OpenCV units) for tests; a test may pass its own
DEFAULT_LAB = {"sand": (167, 132, 148), "sea": (89, 127, 100), "white": (172, 130, 135), "gray": (113, 131, 129),
               "brown": (89, 140, 149), "black": (45, 129, 130), "red": (96, 159, 149), "blue": (86, 138, 100),
               "bird": (60, 128, 128), "base": (185, 133, 142)}


def _bgr(lab) -> tuple[int, int, int]:
    px = cv2.cvtColor(np.uint8([[lab]]), cv2.COLOR_Lab2BGR)[0, 0]
    return tuple(int(v) for v in px)


@dataclass
class Scene:
    """A synthetic photo and what it shows.

    Attributes:
        image: BGR uint8 (H, W, 3).
        corners_px: (4, 2) board corners TL, TR, BR, BL in image px.
        state: the contract state the picture shows.
        samples: calibration samples ``[{"label", "board_mm"}]`` (one per piece drawn).
    """

    image: np.ndarray
    corners_px: np.ndarray
    state: dict
    samples: list = field(default_factory=list)


def scene(profile: dict, *, seed: int = 0, sea_front: int = 12, shells=(), castles=(), bird=None,
          light_bgr=(1.0, 1.0, 1.0), noise_sigma: float = 2.0, blur_sigma: float = 0.0,
          shift_mm=(0.0, 0.0), rotation_deg: float = 0.0, colours: dict | None = None,
          size_px=(960, 540), ppm: float = 1.2, camera_mm: float | None = None,
          castle_top_mm=(20.0, 23.0, 26.0, 29.0), objects=(), illumination: dict | None = None) -> Scene:
    """Draw a Strand unter scene.

    Args:
        profile: strand-unter profile (``board_mm``, ``grooves``).
        seed: randomness (noise, sand texture).
        sea_front: first covered groove (12: none).
        shells: ``[(colour, x_mm, y_mm)]``; castles: ``[(player, value, x_mm, y_mm)]``;
            bird: ``(x_mm, y_mm)`` or None.
        light_bgr: per-channel lighting gains; noise_sigma: Gaussian noise (grey levels);
        blur_sigma: Gaussian blur of the photo (px); shift_mm, rotation_deg: board bump.
        colours: Lab colours per name (see :data:`DEFAULT_LAB`).
        size_px: (width, height) of the photo; ppm: photo px per mm at the board.
        camera_mm: height of a camera looking straight down on the photo's centre, or None (no
            parallax). With it, a castle's towers (at ``castle_top_mm[value]`` over the board) are
            drawn where that camera sees them: pushed away from its nadir by z / (Z − z) of the
            distance, while the base stays put.
        objects: things that are no game piece, drawn last (over pieces and cloth): ``[(Lab colour,
            x_mm, y_mm, half-length_mm, half-width_mm)]`` filled ellipses (a hand, a card); the
            state does not change.
        illumination: uneven light over the whole photo (:func:`illumination_field`), or None.
    Returns:
        :class:`Scene`.
    """
    rng = np.random.default_rng(seed)
    lab = {**DEFAULT_LAB, **(colours or {})}
    w, h = profile["board_mm"]
    s = 2  # draw the board at 2 px/mm, then project
    board = np.zeros((int(h * s), int(w * s), 3), np.uint8)
    board[:] = _bgr(lab["sand"])
    yy = np.arange(board.shape[0]) / s
    shade = (1 + 0.06 * np.sin(2 * np.pi * yy / 30.0)).astype(np.float32)   # groove ridges
    board = np.clip(board * shade[:, None, None], 0, 255).astype(np.uint8)
    grooves = {g["number"]: np.asarray(g["polygon_mm"], float) for g in profile["grooves"]}
    if sea_front <= max(grooves):
        edge = grooves[sea_front][:, 1].max()
        board[: int(edge * s)] = _bgr(lab["sea"])
    for colour, x, y in shells:
        cv2.ellipse(board, (int(x * s), int(y * s)), (int(7 * s), int(6 * s)), 0, 0, 360, _bgr(lab[colour]), -1)
    W, Hh = size_px
    c = np.array([w / 2, h / 2])
    th = np.radians(rotation_deg)
    R = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    origin = np.array([(W - w * ppm) / 2, (Hh - h * ppm) / 2])
    # the camera's nadir on the (bumped) board: the board point under the photo's centre
    nadir = R.T @ ((np.array([W / 2, Hh / 2]) - origin) / ppm - c - np.asarray(shift_mm)) + c
    for player, value, x, y in castles:
        r = 7 + 1.5 * value
        cv2.circle(board, (int(x * s), int(y * s)), int((r + 3) * s), _bgr(lab["base"]), -1)
        if camera_mm:
            z = castle_top_mm[value]
            tx, ty = np.array([x, y]) + z / (camera_mm - z) * (np.array([x, y]) - nadir)
        else:
            tx, ty = x, y
        for k in range(value + 1):
            a = 2 * np.pi * k / (value + 1)
            off = 0 if value == 0 else r * 0.45
            cv2.circle(board, (int((tx + off * np.cos(a)) * s), int((ty + off * np.sin(a)) * s)), int(4 * s),
                       _bgr(lab[player]), -1)
    if bird is not None:
        x, y = bird
        cv2.ellipse(board, (int(x * s), int(y * s)), (int(12 * s), int(7 * s)), 0, 0, 360, _bgr(lab["bird"]), -1)
        cv2.circle(board, (int((x + 9) * s), int(y * s)), int(4 * s), _bgr(lab["white"]), -1)
    for lab_obj, x, y, a, b in objects:
        cv2.ellipse(board, (int(x * s), int(y * s)), (int(a * s), int(b * s)), 0, 0, 360, _bgr(lab_obj), -1)
    # place the board in the photo (bump = rotation about its centre + shift)
    corners_mm = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    moved = (corners_mm - c) @ R.T + c + np.asarray(shift_mm)
    corners_px = moved * ppm + origin
    src = np.float32([[0, 0], [board.shape[1], 0], [board.shape[1], board.shape[0]], [0, board.shape[0]]])
    M = cv2.getPerspectiveTransform(src, corners_px.astype(np.float32))
    table = np.full((Hh, W, 3), _bgr((110, 140, 150)), np.uint8)
    photo = cv2.warpPerspective(board, M, (W, Hh), dst=table, borderMode=cv2.BORDER_TRANSPARENT)
    photo = photo.astype(np.float32) * np.asarray(light_bgr, np.float32)
    if illumination:
        photo *= illumination_field((Hh, W), **illumination)[..., None]
    if blur_sigma > 0:
        photo = cv2.GaussianBlur(photo, (0, 0), blur_sigma)
    photo += rng.normal(0, noise_sigma, photo.shape).astype(np.float32)
    photo = np.clip(photo, 0, 255).astype(np.uint8)
    visible = [n for n in sorted(grooves) if n < sea_front]

    def groove_of(y):
        return next((n for n, p in grooves.items() if p[:, 1].min() <= y < p[:, 1].max()), None)

    st = {"game": "strand-unter", "sea_front": sea_front, "sandpiper": groove_of(bird[1]) if bird else None,
          "grooves": [{"number": n, "shells": {k: 0 for k in ("white", "gray", "brown", "black")}, "castles": []}
                      for n in visible]}
    by = {g["number"]: g for g in st["grooves"]}
    samples = []
    for colour, x, y in shells:
        if groove_of(y) in by:
            by[groove_of(y)]["shells"][colour] += 1
        samples.append({"label": f"shell/{colour}", "board_mm": [x, y]})
    for player, value, x, y in castles:
        if groove_of(y) in by:
            by[groove_of(y)]["castles"].append({"player": player, "value": value})
        samples.append({"label": f"castle/{player}/{value}", "board_mm": [x, y]})
    if bird:
        samples.append({"label": "sandpiper", "board_mm": list(bird)})
    return Scene(image=photo, corners_px=corners_px, state=st, samples=samples)


def illumination_field(shape, *, vignette: float = 0.0, ramp=None, shadow=None) -> np.ndarray:
    """A multiplicative light field float32 ``shape`` (h, w) over a photo: uneven light.

    Args:
        shape: (h, w) of the photo.
        vignette: k of ``1 − k·r²`` (r = 1 at the middle of each side, √2 at the corners), floored at 0.3.
        ramp: ``(axis, start, end)``: a linear ramp along ``"x"`` (left → right) or ``"y"`` (top → bottom).
        shadow: ``(x_fraction, factor, sigma_px)``: the photo left of ``x_fraction`` of its width is
            multiplied by ``factor``, its edge softened by a Gaussian of ``sigma_px``.
    """
    h, w = shape
    f = np.ones((h, w), np.float32)
    if vignette:
        y, x = np.ogrid[:h, :w]
        r2 = ((x - w / 2) / (w / 2)) ** 2 + ((y - h / 2) / (h / 2)) ** 2
        f *= np.clip(1 - vignette * r2, 0.3, 1).astype(np.float32)
    if ramp is not None:
        axis, a, b = ramp
        if axis == "x":
            f *= np.linspace(a, b, w, dtype=np.float32)[None, :]
        else:
            f *= np.linspace(a, b, h, dtype=np.float32)[:, None]
    if shadow is not None:
        xf, factor, sigma = shadow
        m = np.ones((h, w), np.float32)
        m[:, :int(xf * w)] = factor
        f *= cv2.GaussianBlur(m, (0, 0), sigma) if sigma > 0 else m
    return f
