"""Calibrate Strand unter: learn every labelled class's appearance from the calibration shot.

Nothing about the pieces is hard-coded: colours (Lab Gaussians), shell size, castle size per
value and the sandpiper's look all come from the labelled samples; grooves come from the profile.
Source: ``shared/contracts/strand-unter.md`` §Calibration labels, ``shared/contracts/README.md``.
"""

from __future__ import annotations

import re

import cv2
import numpy as np

from beachscore.errors import BadInputError
from vision import strand_unter_colour as colour
from vision.image_io import read_image
from vision.strand_unter_config import APPEARANCE, READING, REGISTRATION
from vision.strand_unter_geometry import disc, groove_map, reduce_homography, warp_board
from vision.types import CalibrationShot

SHELL_COLOURS = ("white", "gray", "brown", "black")  # the state's keys (contract), not appearances
CASTLE_VALUES = (0, 1, 2, 3)
MODEL_VERSION = 1
_CASTLE = re.compile(r"^castle/([a-z][a-z0-9_-]*)/([0-9]+)$")

#: file names of the pictures kept in CAL_DIR
EMPTY_PNG, REF_PNG, BIRD_PNG = "strand_empty.png", "strand_registration.png", "strand_sandpiper.png"


def parse_label(label: str) -> tuple[str, str | None, int | None]:
    """Split a calibration label into (kind, name, value).

    >>> parse_label("castle/red/2")
    ('castle', 'red', 2)
    >>> parse_label("shell/gray")
    ('shell', 'gray', None)

    Raises:
        BadInputError: ``unknown-label`` naming the label.
    """
    if label in ("sandpiper", "sea", "sand"):
        return label, None, None
    if label.startswith("shell/") and label[6:] in SHELL_COLOURS:
        return "shell", label[6:], None
    m = _CASTLE.match(label)
    if m and int(m.group(2)) in CASTLE_VALUES:
        return "castle", m.group(1), int(m.group(2))
    raise BadInputError("unknown-label", f"unknown label {label!r}; Strand unter labels are shell/<"
                        f"{'|'.join(SHELL_COLOURS)}>, castle/<player>/<0-3>, sandpiper, sea, sand")


def foreground(now_lab: np.ndarray, empty_lab: np.ndarray, cfg=READING) -> np.ndarray:
    """Pixels where something lies on the board: bool (H, W) from two aligned Lab images (H, W, 3).

    A pixel is foreground when its ΔE to the empty board exceeds ``cfg.fg_delta_e`` or its (a, b)
    distance exceeds ``cfg.fg_delta_chroma``.
    """
    d = now_lab - empty_lab
    de = np.sqrt((d * d).sum(axis=2))
    dc = np.sqrt(d[..., 1] ** 2 + d[..., 2] ** 2)
    fg = (de > cfg.fg_delta_e) | (dc > cfg.fg_delta_chroma)
    if cfg.open_px:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * cfg.open_px + 1,) * 2)
        fg = cv2.morphologyEx(fg.astype(np.uint8), cv2.MORPH_OPEN, k) > 0
    return fg


def learn(shot: CalibrationShot, cfg=APPEARANCE, reg=REGISTRATION) -> dict:
    """Learn the Strand unter appearance model from a calibration shot.

    Args:
        shot: calibration photo (BGR uint8), optional empty-board photo, homography board mm →
            photo px, labelled samples (board mm).
    Returns:
        JSON-serialisable model: ``classes`` (Lab Gaussians per label class), ``shell_area_px``,
        ``castle_area_px`` per player and value, ``sea_fisher``, ``surround_bgr``, ``sandpiper``;
        pictures for CAL_DIR are added to ``shot.pictures`` (rectified empty board, registration
        reference, sandpiper template).
    Raises:
        BadInputError: ``unknown-label``; ``missing-label`` when sea, a shell colour or every
        castle is missing; ``bad-sample`` when a sample shows nothing distinct from the sand.
    """
    req = shot.request
    parsed = [(parse_label(label), xy) for label, xy in req.samples]
    kinds = {(k, n) for (k, n, _), _ in parsed}
    missing = [f"shell/{c}" for c in SHELL_COLOURS if ("shell", c) not in kinds]
    if not any(k == "sea" for k, _ in kinds):
        missing.append("sea")
    if not any(k == "castle" for k, _ in kinds):
        missing.append("castle/<player>/<value>")
    if missing:
        raise BadInputError("missing-label", f"calibration needs at least one sample of: {', '.join(missing)}")

    profile, board = req.profile, req.profile["board_mm"]
    groove_map(profile, 1.0)  # validates the grooves
    r = reg.decode_reduce
    image = read_image(req.image_path, reduce=r)
    empty = read_image(req.empty_image_path, reduce=r) if req.empty_image_path else None
    H = reduce_homography(shot.H_px_from_mm, r)
    ppm = cfg.ppm
    C = warp_board(image, H, board, ppm)
    CL = colour.lab(C)
    if empty is not None:
        E = warp_board(empty, H, board, ppm)
        ext_src = empty
    else:  # paint the samples out of the calibration shot
        mask = np.zeros(C.shape[:2], np.uint8)
        for _, (x, y) in req.samples:
            cv2.circle(mask, (int(x * ppm), int(y * ppm)), int(cfg.inpaint_radius_mm * ppm), 255, -1)
        E = cv2.inpaint(C, mask, 5, cv2.INPAINT_TELEA)
        ext_src = image
    EL = colour.lab(E)
    fg = foreground(CL, EL)
    px = lambda xy: (xy[0] * ppm - 0.5, xy[1] * ppm - 0.5)  # noqa: E731

    classes: dict[str, dict] = {}
    # sea and sand
    sea_px = np.concatenate([CL[disc(CL.shape, px(xy), cfg.sea_radius_mm * ppm)]
                             for (k, _, _), xy in parsed if k == "sea"])
    classes["sea"] = colour.gaussian(sea_px, cfg.min_cov)
    sand_samples = [xy for (k, _, _), xy in parsed if k == "sand"]
    if sand_samples:
        sand_px = np.concatenate([CL[disc(CL.shape, px(xy), cfg.sand_radius_mm * ppm)] for xy in sand_samples])
    else:
        gm = groove_map(profile, ppm) > 0
        cand = EL[gm & ~fg]
        d_sea = colour.ClassSet({"sea": classes["sea"]}).distances(cand)[:, 0]
        sand_px = cand[d_sea > 6.0]
    classes["sand"] = colour.gaussian(sand_px, cfg.min_cov)
    sand_mean = np.asarray(classes["sand"]["mean"])

    # shells: the core of each sample
    for c in SHELL_COLOURS:
        pix = [CL[disc(CL.shape, px(xy), cfg.shell_core_mm * ppm) & fg] for (k, n, _), xy in parsed
               if k == "shell" and n == c]
        pix = np.concatenate(pix)
        if len(pix) < 5:
            raise BadInputError("bad-sample", f"shell/{c}: the samples show nothing distinct from the sand; "
                                "check their board_mm positions")
        classes[f"shell/{c}"] = colour.gaussian(pix, cfg.min_cov)

    # players: chromatic foreground pixels around each castle sample
    players = sorted({n for (k, n, _), _ in parsed if k == "castle"})
    for p in players:
        pix = []
        for (k, n, _), xy in parsed:
            if k == "castle" and n == p:
                region = CL[disc(CL.shape, px(xy), cfg.castle_search_mm * ppm) & fg]
                chroma = np.hypot(region[:, 1] - sand_mean[1], region[:, 2] - sand_mean[2])
                pix.append(region[chroma > cfg.castle_chroma_min])
        pix = np.concatenate(pix)
        if len(pix) < 10:
            raise BadInputError("bad-sample", f"castle/{p}: the samples show no colour distinct from the sand; "
                                "check their board_mm positions")
        ab = pix[:, 1:]
        med = np.median(ab, axis=0)
        keep = np.hypot(*(ab - med).T) < 3 * max(2.0, float(np.median(np.hypot(*(ab - med).T))))
        classes[f"castle/{p}"] = colour.gaussian(pix[keep], cfg.min_cov)

    pieces = colour.ClassSet(piece_classes(classes))
    labels = classify_pixels(CL, fg, pieces, sand_mean)

    def area_of(name: str, xy, radius_mm: float) -> int:
        k = pieces.names.index(name)
        return int(((labels == k) & disc(CL.shape, px(xy), radius_mm * ppm)).sum())

    shell_areas = [area_of(f"shell/{n}", xy, 2.6 * cfg.shell_core_mm) for (k, n, _), xy in parsed if k == "shell"]
    castle_area: dict[str, dict[str, list]] = {p: {} for p in players}
    for p in players:
        blobs = castle_blobs(labels == pieces.names.index(f"castle/{p}"))
        for (k, n, v), xy in parsed:
            if k == "castle" and n == p:
                near = [b for b in blobs if np.hypot(b[1] - px(xy)[0], b[2] - px(xy)[1]) < cfg.castle_search_mm * ppm]
                if not near:
                    raise BadInputError("bad-sample", f"castle/{p}/{v}: no {p} castle found at {xy[0]:g},{xy[1]:g} mm")
                castle_area[p].setdefault(str(v), []).append(max(near)[0])
    castle_area = {p: {v: float(np.median(a)) for v, a in sorted(d.items())} for p, d in castle_area.items()}

    model = {"version": MODEL_VERSION, "ppm": ppm, "decode_reduce": r, "classes": classes,
             "shell_colours": list(SHELL_COLOURS), "players": players,
             "shell_area_px": float(np.median(shell_areas)), "castle_area_px": castle_area,
             "sea_fisher": colour.fisher_direction(sand_px, sea_px)}

    # sandpiper: the foreground blob at its sample, kept as a grey template
    bird = [xy for (k, _, _), xy in parsed if k == "sandpiper"]
    if bird:
        model["sandpiper"] = _learn_bird(C, fg, px(bird[0]), cfg, shot)

    # lighting reference: the table strip under the board, and the sand
    ext = warp_board(ext_src, H, board, reg.ppm, reg.margin_mm)
    model["surround_bgr"] = np.median(surround_pixels(ext, board, reg), axis=0).tolist()
    from vision.strand_unter_register import _cloth_edge

    model["reference_cloth_mm"] = list(_cloth_edge(ext, np.ones(3), model["sea_fisher"], board, reg))
    model["sand_bgr"] = np.median(E[groove_map(profile, ppm) > 0][::7], axis=0).tolist()
    shot.pictures[EMPTY_PNG] = E
    shot.pictures[REF_PNG] = cv2.cvtColor(ext, cv2.COLOR_BGR2GRAY)
    model["pictures"] = {"empty": EMPTY_PNG, "registration": REF_PNG}
    if bird:
        model["pictures"]["sandpiper"] = BIRD_PNG
    return model


def classify_pixels(image_lab: np.ndarray, fg: np.ndarray, pieces: colour.ClassSet, sand_lab, cfg=READING,
                    chroma_min: float = APPEARANCE.castle_chroma_min) -> np.ndarray:
    """Class index per foreground pixel: int16 (H, W), −1 for background, sand-like or unknown pixels.

    Castle (player) classes are only allowed where the pixel's (a, b) differs from the sand's by
    more than ``chroma_min``: castle bases and shadows are sand-coloured, not player-coloured.

    Args:
        image_lab: Lab float32 (H, W, 3) after lighting correction.
        fg: bool (H, W) foreground.
        pieces: classes from :func:`piece_classes` (names ``shell/*``, ``castle/*``, ``sand``).
        sand_lab: sand mean Lab (3,).
    """
    labels = np.full(fg.shape, -1, np.int16)
    x = image_lab[fg]
    d = pieces.distances(x)
    chroma = np.hypot(x[:, 1] - sand_lab[1], x[:, 2] - sand_lab[2])
    is_castle = np.array([n.startswith("castle/") for n in pieces.names])
    d[np.ix_(chroma <= chroma_min, is_castle)] = np.inf
    idx = np.argmin(d, axis=1)
    best = d[np.arange(len(d)), idx]
    idx[(best > cfg.max_class_dist) | (idx == pieces.names.index("sand"))] = -1
    labels[fg] = idx
    return labels


def castle_blobs(mask: np.ndarray, cfg=READING) -> list[tuple[float, float, float, np.ndarray]]:
    """Castles of one colour: ``[(hull_area_px, cx, cy, component bool mask)]`` from a bool (H, W) mask.

    The towers of one castle are joined by a closing; the size is the area of the convex hull,
    which highlights and shadows inside a castle do not shrink.
    """
    m = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * cfg.castle_close_px + 1,) * 2))
    n, lab_img, stats, cent = cv2.connectedComponentsWithStats(m, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, w, h, a = stats[i]
        if a < 4:
            continue
        comp = lab_img[y:y + h, x:x + w] == i
        pts = cv2.findNonZero(comp.astype(np.uint8))
        hull = float(cv2.contourArea(cv2.convexHull(pts))) + 0.5 * float(a) ** 0.5 * 2
        out.append((hull, float(cent[i][0]), float(cent[i][1]), (lab_img == i)))
    return out


def piece_classes(classes: dict) -> dict:
    """The classes a foreground pixel can belong to: shells, players, and sand (shading, castle bases)."""
    return {n: m for n, m in classes.items() if n.startswith(("shell/", "castle/")) or n == "sand"}


def surround_pixels(ext_bgr: np.ndarray, board_mm, reg=REGISTRATION) -> np.ndarray:
    """Pixels (N, 3) of the table strip below the board in an extended rectified image."""
    w, h = board_mm
    m, ppm = reg.margin_mm, reg.ppm
    y0, y1 = int((m + h + 0.25 * m) * ppm), int((m + h + 0.85 * m) * ppm)
    x0, x1 = int(m * ppm), int((m + w) * ppm)
    return ext_bgr[y0:y1, x0:x1].reshape(-1, 3)


def _learn_bird(C: np.ndarray, fg: np.ndarray, centre, cfg, shot) -> dict:
    n, lab_img, stats, cent = cv2.connectedComponentsWithStats(fg.astype(np.uint8), connectivity=8)
    near = disc(fg.shape, centre, cfg.bird_search_mm * cfg.ppm)
    best, best_d = None, np.inf
    for i in range(1, n):
        if (near & (lab_img == i)).any():
            d = np.hypot(*(cent[i] - centre))
            if d < best_d:
                best, best_d = i, d
    if best is None:
        raise BadInputError("bad-sample", "sandpiper: the sample shows nothing distinct from the sand")
    x, y, w, h, area = stats[best]
    pad = 2
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(fg.shape[1], x + w + pad), min(fg.shape[0], y + h + pad)
    gray = cv2.cvtColor(C, cv2.COLOR_BGR2GRAY)[y0:y1, x0:x1]
    shot.pictures[BIRD_PNG] = gray
    return {"area_px": int(area), "size_px": [int(x1 - x0), int(y1 - y0)],
            "anchor_px": [float(cent[best][0] - x0), float(cent[best][1] - y0)]}
