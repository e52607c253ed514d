"""Each labelled class's colour on the calibration shot, and which classes a reader tells apart by it.

Input: the game, its profile, the calibration shot (undistorted, BGR uint8) with its homography
board mm → px, the labelled samples, and the model the game's reader learned from them.
Output: ``{class: ColourClass}`` (Lab Gaussians, :class:`calibration.separability.ColourClass`)
and the pairs of classes that the game's reader must tell apart from their colour on one spot.

Where a reader keeps its classes as Lab Gaussians learned from the samples (Strand unter: the
shells', castles', sand's and sea's pixels of each sample's blob), those are the classes. For
the others each sample's pixels are a disc at the sample's spot on the board, its radius a share
(:data:`DISC_SHARE`) of the place a piece stands on as the profile draws it (a Plażing cell, a
Seashells towel cell, a Sand Castles space or the spacing of its castle slots), so it holds the
piece and little of what lies around it; samples of one class are pooled.
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from calibration.separability import ColourClass

#: Radius of a sample's disc, as a share of the side of the place a piece stands on: a token
#: stands in the middle half of its place.
DISC_SHARE = 0.15
#: Work scale of the board the discs are cut from (px per mm).
WORK_PX_PER_MM = 3.0
#: Smallest standard deviation of a disc's Lab colour: one step of the 8-bit Lab it is measured in.
NOISE_FLOOR_LAB = 1.0
#: A covariance whose smallest eigenvalue is below this share of its largest is numerically singular.
SINGULAR = 1e-9


def plazing_class(label: str) -> str:
    """The colour class of a Plażing label: a player's pieces and screens share their colour.

    >>> plazing_class("screen/red/N"), plazing_class("resource/shell")
    ('piece/red', 'resource/shell')
    """
    parts = label.split("/")
    return f"piece/{parts[1]}" if parts[0] in ("piece", "screen") and len(parts) >= 2 else label


def _pairs(names, *groups) -> list[tuple[str, str]]:
    """Pairs of present classes within each group (a group: a predicate on the class name)."""
    out = []
    for keep in groups:
        inside = [n for n in names if keep(n)]
        out += [p for p in itertools.combinations(inside, 2) if p not in out]
    return out


def colour_pairs(game: str, names: list[str]) -> list[tuple[str, str]]:
    """The pairs of classes that the game's reader tells apart by colour at one place.

    Plażing: every token (meeple, resource, marker) against bare sand, where its colour is what
    shows it is there (tokens are told from one another by their shape and print as well);
    players' pieces and bare sand among themselves (a meeple has its player's colour by design).
    Strand unter: shells, castles, sand and sea (its reader classifies every pixel by colour).
    Seashells: a towel cell's shell and the empty cell. Sand Castles: waves, walls and empty
    spaces; castle pieces and empty slots.
    """
    if game == "plazing":
        tokens = [(n, "sand") for n in names if n != "sand" and not n.startswith("piece/")]
        return _pairs(names, lambda n: n.startswith("piece/") or n == "sand") + (tokens if "sand" in names else [])
    if game == "strand-unter":
        return _pairs(names, lambda n: n != "stick")
    if game == "seashells":
        return _pairs(names, lambda n: n in ("shell", "empty"))
    if game == "sand-castles":
        return _pairs(names, lambda n: n in ("wave", "wall", "space"), lambda n: n in ("castle_piece", "slot"))
    return []


def _place_side_mm(game: str, profile: dict, label: str) -> float | None:
    """Side (mm) of the place a piece of ``label`` stands on, from the profile (None: not known)."""
    if game == "plazing":
        return float(profile["grid"]["cell_mm"])
    if game == "seashells":
        return float(profile["towel"]["cell_mm"]) if label in ("shell", "empty") else None
    if game == "sand-castles":
        if label in ("castle_piece", "slot"):
            slots = [np.asarray(L["castle_slots_mm"], np.float64).reshape(-1, 2) for L in profile["lanes"]]
            gaps = [float(np.linalg.norm(s[i] - s[j])) for s in slots for i in range(len(s)) for j in range(i)]
            return min(gaps) if gaps else None
        sides = [float(np.min(np.ptp(np.asarray(sp["polygon_mm"], np.float64), axis=0)))
                 for L in profile["lanes"] for sp in L["spaces"]]
        return min(sides) if sides else None
    return None


def _space_centre(profile: dict, x: float, y: float) -> tuple[float, float]:
    """Centre of the Sand Castles space holding (x, y) mm (the point itself when none does)."""
    for lane in profile.get("lanes", []):
        for sp in lane["spaces"]:
            poly = np.asarray(sp["polygon_mm"], np.float64)
            lo, hi = poly.min(axis=0), poly.max(axis=0)
            if lo[0] <= x < hi[0] and lo[1] <= y < hi[1]:
                return float((lo[0] + hi[0]) / 2), float((lo[1] + hi[1]) / 2)
    return x, y


def _gaussian(label: str, pixels: np.ndarray) -> ColourClass:
    """Lab Gaussian of pixels (N, 3), each axis's spread floored at :data:`NOISE_FLOOR_LAB`; a
    covariance that is singular all the same (a noiseless disc over two flat colours spreads
    along one line only) gets the floor in every direction."""
    x = np.asarray(pixels, np.float64).reshape(-1, 3)
    cov = np.cov(x, rowvar=False) if len(x) > 3 else np.zeros((3, 3))
    cov = cov + np.diag(np.maximum(NOISE_FLOOR_LAB ** 2 - np.diag(cov), 0.0))
    eig = np.linalg.eigvalsh(cov)
    if eig[0] <= SINGULAR * eig[-1]:
        cov = cov + np.eye(3) * NOISE_FLOOR_LAB ** 2
    return ColourClass(label, x.mean(axis=0), cov)


def disc_colours(game: str, profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray,
                 samples: list[tuple[str, tuple[float, float]]]) -> dict[str, ColourClass]:
    """Each class's Lab Gaussian from discs at its samples on the board.

    Args:
        game, profile: the game and its board profile.
        image: calibration shot, BGR uint8 (H, W, 3), the pixels ``H_px_from_mm`` maps to.
        H_px_from_mm: (3, 3) homography board mm → image px.
        samples: ``(label, (x_mm, y_mm))``.
    Returns:
        ``{class: ColourClass}`` for every class with a place size (8-bit OpenCV Lab units).
    """
    w_mm, h_mm = profile["board_mm"]
    k = WORK_PX_PER_MM
    size = (int(round(w_mm * k)), int(round(h_mm * k)))
    to_work = np.array([[k, 0, -0.5], [0, k, -0.5], [0, 0, 1]], np.float64)
    board = cv2.warpPerspective(image, to_work @ np.linalg.inv(H_px_from_mm), size, flags=cv2.INTER_AREA)
    lab = cv2.cvtColor(board, cv2.COLOR_BGR2Lab)
    yy, xx = np.mgrid[0:size[1], 0:size[0]]
    pixels: dict[str, list] = {}
    for label, (x, y) in samples:
        side = _place_side_mm(game, profile, label)
        if side is None:
            continue
        if game == "sand-castles" and label not in ("castle_piece", "slot"):
            x, y = _space_centre(profile, x, y)
        r = DISC_SHARE * side * k
        cx, cy = x * k - 0.5, y * k - 0.5
        x0, x1 = max(int(cx - r), 0), min(int(cx + r) + 2, size[0])
        y0, y1 = max(int(cy - r), 0), min(int(cy + r) + 2, size[1])
        inside = (xx[y0:y1, x0:x1] - cx) ** 2 + (yy[y0:y1, x0:x1] - cy) ** 2 <= r * r
        if inside.sum() < 4:
            continue
        name = plazing_class(label) if game == "plazing" else label
        pixels.setdefault(name, []).append(lab[y0:y1, x0:x1][inside])
    return {name: _gaussian(name, np.concatenate(p)) for name, p in pixels.items()}


def model_colours(model: dict) -> dict[str, ColourClass]:
    """The Lab Gaussians a reader learned from the samples (``model["classes"]`` entries with a
    ``mean`` and ``cov``: Strand unter's), as :class:`ColourClass`."""
    out = {}
    for name, g in (model.get("classes") or {}).items():
        if isinstance(g, dict) and "mean" in g and "cov" in g:
            out[name] = ColourClass(name, np.asarray(g["mean"], np.float64), np.asarray(g["cov"], np.float64))
    return out


def class_colours(game: str, profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray,
                  samples: list[tuple[str, tuple[float, float]]], model: dict) -> dict[str, ColourClass]:
    """Every labelled class's colour on the calibration shot (see the module's doc)."""
    learned = model_colours(model)
    if learned:
        return learned
    return disc_colours(game, profile, image, H_px_from_mm, samples)
