"""Read a Strand unter board from a registered photo: sea front, sandpiper, shells, castles.

Steps (all on the rectified board at the calibration's px/mm, vectorised):
1. undo the lighting change with per-channel gains (table strip, then bare sand);
2. sea: Fisher score of every pixel; a groove is covered when most of its core is cloth;
3. foreground: ΔE against the rectified empty board; foreground pixels are assigned to the
   nearest learned class (Mahalanobis in Lab);
4. sandpiper: the foreground blob best matching the learned template (normalised
   cross-correlation), removed before counting shells;
5. castles: connected components of each player's colour; value by the learned tower area;
   groove by the component's *base* (its lowest point towards the players minus the learned
   base offset is not needed when the camera is above: the centroid of the lowest third is used);
6. shells: connected components per shell colour; count = area / learned shell area.
Every doubt (count near x.5, sea coverage near the threshold, value between two sizes) lowers
the confidence. Source: ``shared/rules/strand-unter.md`` §Components, ``contracts/strand-unter.md``.
"""

from __future__ import annotations

import cv2
import numpy as np

from beachscore.errors import UnreadableBoardError
from vision import quality
from vision import strand_unter_colour as colour
from vision.strand_unter_config import CONFIDENCE, READING, REGISTRATION
from vision.strand_unter_geometry import groove_map, groove_polygons, mm_to_work, warp_board
from vision.strand_unter_learn import (BIRD_PNG, EMPTY_PNG, castle_blobs, classify_pixels, foreground, piece_classes,
                                       surround_pixels)
from vision.types import Photo, Reading

_CACHE: dict = {}
_DEBUG = False


class _Assets:
    """Per-calibration things computed once per process (empty board Lab, groove maps, classes)."""

    def __init__(self, cal):
        m = cal.model
        self.ppm = float(m["ppm"])
        self.profile = cal.profile
        self.board = cal.profile["board_mm"]
        pics = m.get("pictures", {})
        empty = cal.image(pics.get("empty", EMPTY_PNG)) if cal.folder else None
        if empty is None:
            raise UnreadableBoardError("calibration-incomplete", "the calibration has no empty-board picture; recalibrate")
        self.empty_bgr = empty
        self.empty_lab = colour.lab(empty)
        self.grooves = groove_polygons(cal.profile)
        self.numbers = list(self.grooves)
        self.gmap = groove_map(cal.profile, self.ppm)
        self.gcore = groove_map(cal.profile, self.ppm, shrink_mm=READING.sea_band_margin_mm)
        self.sand_px = self.gmap > 0
        classes = piece_classes(m["classes"])
        self.pieces = colour.ClassSet(classes)
        self.names = self.pieces.names
        self.sand_lab = np.asarray(m["classes"]["sand"]["mean"], np.float32)
        self.bird = None
        if "sandpiper" in m:
            t = cal.image(pics.get("sandpiper", BIRD_PNG))
            if t is not None:
                self.bird = (t if t.ndim == 2 else cv2.cvtColor(t, cv2.COLOR_BGR2GRAY), m["sandpiper"])


def _assets(cal) -> _Assets:
    key = (cal.folder, id(cal))
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = _Assets(cal)
    return _CACHE[key]


def _work_image(photo: Photo, A: _Assets):
    """Rectified board BGR (reusing the registration's warp when the board did not move) and gains."""
    reg = photo.registration
    ext = getattr(reg, "extended", None)
    gains = getattr(reg, "gains", None)
    if ext is not None and REGISTRATION.ppm == A.ppm:
        m = int(round(REGISTRATION.margin_mm * A.ppm))
        h, w = A.empty_bgr.shape[:2]
        B = ext[m:m + h, m:m + w]
    else:
        B = warp_board(photo.image, reg.H_px_from_mm, A.board, A.ppm)
    if gains is None:
        ext = warp_board(photo.image, reg.H_px_from_mm, A.board, REGISTRATION.ppm, REGISTRATION.margin_mm)
        gains = colour.channel_gains(surround_pixels(ext, A.board), photo.calibration.model["surround_bgr"])
    return np.ascontiguousarray(B), np.asarray(gains, np.float64)


def read(photo: Photo, cfg=READING, conf_cfg=CONFIDENCE) -> Reading:
    """Read the Strand unter state from a registered photo.

    Args:
        photo: BGR uint8 photo (decoded at the calibration's reduction), its registration
            (board mm → this image's px), the calibration with the learned model.
    Returns:
        :class:`~vision.types.Reading` with the contract's ``state`` (sea_front 1–12, sandpiper
        groove or None, every visible groove with shells per colour and castles), a confidence
        in [0, 1], warnings, and ``details`` (positions in work px) for the annotator.
    Raises:
        UnreadableBoardError: ``too-dark``, ``too-blurred``, ``glare``, ``occluded`` (see
            :mod:`vision.quality`).
    """
    cal = photo.calibration
    A = _assets(cal)
    model = cal.model
    B, gains = _work_image(photo, A)
    doubts: list[str] = []
    warnings: list[str] = []

    # 1. lighting: table-strip gains, then fine-tuned on the bare sand
    Bc = colour.apply_gains(B, gains)
    BL = colour.lab(Bc)
    sea = colour.cloth_region(colour.fisher_score(BL, model["sea_fisher"]) > 0, cfg.cloth_edge_window_px)
    bare = A.sand_px & ~sea & (np.abs(BL - A.empty_lab).sum(axis=2) < 3 * cfg.fg_delta_e)
    if bare.sum() > 200:
        fine = colour.channel_gains(Bc[bare], model["sand_bgr"])
        gains = gains * fine
        Bc = colour.apply_gains(B, gains)
        BL = colour.lab(Bc)
        sea = colour.cloth_region(colour.fisher_score(BL, model["sea_fisher"]) > 0, cfg.cloth_edge_window_px)

    quality.check(B, gains=gains, board_mask=~sea, reference=A.empty_bgr)

    # 2. sea front
    coverage = {}
    for n in A.numbers:
        core = A.gcore == n
        coverage[n] = float(sea[core].mean()) if core.any() else 0.0
    covered = [n for n in A.numbers if coverage[n] > cfg.sea_coverage]
    front = min(covered) if covered else max(A.numbers) + 1
    for n in A.numbers:
        if abs(coverage[n] - cfg.sea_coverage) < conf_cfg.sea_margin:
            doubts.append(f"groove {n} is {coverage[n]:.0%} under the cloth")
    holes = [n for n in A.numbers if n > front and coverage[n] <= cfg.sea_coverage]
    if holes:
        doubts.append(f"grooves {holes} look uncovered behind the sea front {front}")
    visible = [n for n in A.numbers if n < front]

    # 3. foreground and pixel classes, in the visible part below the cloth
    k = int(round(cfg.stick_mm * A.ppm)) * 2 + 1
    sea_grown = cv2.dilate(sea.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_RECT, (3, k))) > 0
    fg = foreground(BL, A.empty_lab, cfg) & ~sea_grown
    labels = classify_pixels(BL, fg, A.pieces, A.sand_lab, cfg)

    details = {"sea": sea, "coverage": coverage, "castles": [], "shells": [], "bird": None}
    state_grooves = {n: {"number": n, "shells": {c: 0 for c in model["shell_colours"]}, "castles": []}
                     for n in visible}
    groove_at = lambda x, y: int(A.gmap[min(max(int(y), 0), A.gmap.shape[0] - 1),  # noqa: E731
                                        min(max(int(x), 0), A.gmap.shape[1] - 1)])

    # 4. sandpiper
    bird_groove = None
    bird_mask = np.zeros(fg.shape, bool)
    if A.bird is not None:
        castle_px = np.isin(labels, [A.names.index(f"castle/{p}") for p in model["players"]])
        found = _find_bird(B, fg & ~castle_px, A, cfg)
        if found is not None:
            (bx, by), score, bird_mask = found
            g = groove_at(bx, by)
            if g in state_grooves:
                bird_groove = g
                details["bird"] = (bx, by, score)
                if score < cfg.bird_ncc_min + conf_cfg.bird_margin:
                    doubts.append(f"the sandpiper is uncertain (match {score:.2f})")
    labels[bird_mask] = -1

    # 5. castles: one per blob; values unique per player (4 castles: 0, 1, 2, 3)
    shell_area = float(model["shell_area_px"])
    for p in model["players"]:
        kk = A.names.index(f"castle/{p}")
        areas = {int(v): a for v, a in model["castle_area_px"][p].items()}
        smallest = min(areas.values())
        blobs = [b for b in castle_blobs(labels == kk, cfg) if b[0] >= cfg.min_castle_fraction * smallest]
        if not blobs:
            continue
        values, margins = _assign_values([b[0] for b in blobs], areas)
        for (area, cx, cy, comp), value, margin in zip(blobs, values, margins):
            labels[comp] = -1
            g = groove_at(cx, cy)
            details["castles"].append((p, value, cx, cy, area))
            if value is None:
                doubts.append(f"more {p} castles than values: one at {cx / A.ppm:.0f},{cy / A.ppm:.0f} mm dropped")
                continue
            if g not in state_grooves:
                if g == 0:
                    doubts.append(f"a {p} castle stands outside every groove")
                continue
            if margin < conf_cfg.value_margin:
                doubts.append(f"{p} castle in groove {g}: value {value} or a neighbour ({area:.0f} px)")
            state_grooves[g]["castles"].append({"player": p, "value": value})

    # 6. shells
    for c in model["shell_colours"]:
        kk = A.names.index(f"shell/{c}")
        m = (labels == kk).astype(np.uint8)
        n, lab_img, stats, cent = cv2.connectedComponentsWithStats(m, connectivity=8)
        for i in range(1, n):
            ratio = stats[i, cv2.CC_STAT_AREA] / shell_area
            if ratio < cfg.min_piece_fraction:
                continue
            count = max(1, int(round(ratio)))
            if abs(ratio - round(ratio)) > 0.5 - conf_cfg.shell_count_slack and ratio > 0.5:
                doubts.append(f"{c} shells: {ratio:.2f} shells' worth of area")
            cx, cy = cent[i]
            g = groove_at(cx, cy)
            details["shells"].append((c, count, float(cx), float(cy)))
            if g in state_grooves:
                state_grooves[g]["shells"][c] += count
            elif g == 0:
                doubts.append(f"a {c} shell lies outside every groove")

    state = {"game": "strand-unter", "sea_front": front, "sandpiper": bird_groove,
             "grooves": [state_grooves[n] for n in visible]}
    confidence = float(np.clip(photo.registration.score, 0, 1)) ** 0.5
    confidence *= conf_cfg.doubt_factor ** len(doubts)
    warnings += doubts
    details["labels"] = labels
    details["gains"] = gains.tolist()
    return Reading(state=state, confidence=round(confidence, 3), warnings=warnings, details=details)


def _assign_values(sizes: list[float], areas: dict[int, float]) -> tuple[list, list[float]]:
    """Give each castle blob of one player a distinct value (a player owns one castle per value).

    Minimises the total |log(size / learned size)| over all one-to-one assignments (at most
    4! = 24 of them). Blobs beyond the number of values get ``None``.

    Args:
        sizes: blob sizes (hull area, work px²).
        areas: learned size per value.
    Returns:
        (value or None per blob, margin per blob): the margin is the log-distance gap between the
        chosen value and the next nearest value for that blob, relative to their sum.
    """
    import itertools

    vals = list(areas)
    cost = np.array([[abs(np.log(s / areas[v])) for v in vals] for s in sizes])
    n = len(sizes)
    order = sorted(range(n), key=lambda i: cost[i].min())[: len(vals)]
    best, best_cost = None, np.inf
    for perm in itertools.permutations(range(len(vals)), len(order)):
        c = sum(cost[i, j] for i, j in zip(order, perm))
        if c < best_cost:
            best, best_cost = perm, c
    values: list = [None] * n
    margins = [0.0] * n
    for i, j in zip(order, best):
        values[i] = vals[j]
        others = np.delete(cost[i], j)
        nxt = others.min() if len(others) else np.inf
        margins[i] = float((nxt - cost[i, j]) / max(nxt + cost[i, j], 1e-6)) if np.isfinite(nxt) else 1.0
    return values, margins


def _find_bird(B: np.ndarray, fg: np.ndarray, A: _Assets, cfg):
    """The sandpiper: the foreground blob of the learned size that best matches its template."""
    tmpl, info = A.bird
    area0 = info["area_px"]
    gray = cv2.cvtColor(B, cv2.COLOR_BGR2GRAY)
    n, lab_img, stats, cent = cv2.connectedComponentsWithStats(fg.astype(np.uint8), connectivity=8)
    lo, hi = cfg.bird_area_range
    th, tw = tmpl.shape
    best = None
    for i in range(1, n):
        if not (lo * area0 <= stats[i, cv2.CC_STAT_AREA] <= hi * area0 * 3):
            continue
        x, y, w, h = stats[i, :4]
        pad = max(th, tw) // 2 + 2
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(B.shape[1], x + w + pad), min(B.shape[0], y + h + pad)
        if x1 - x0 < tw or y1 - y0 < th:
            continue
        res = cv2.matchTemplate(gray[y0:y1, x0:x1], tmpl, cv2.TM_CCOEFF_NORMED)
        _, score, _, loc = cv2.minMaxLoc(res)
        if best is None or score > best[0]:
            best = (score, x0 + loc[0], y0 + loc[1])
    if _DEBUG:
        print("bird best", best)
    if best is None or best[0] < cfg.bird_ncc_min:
        return None
    score, x, y = best
    mask = np.zeros(fg.shape, bool)
    mask[y:y + th, x:x + tw] = True
    mask &= fg
    ax, ay = info["anchor_px"]
    return (x + ax, y + ay), float(score), mask
