"""Read one Seashells player mat: the towel's shells and the basket's loose items.

The towel is a board of named places (shape row × colour column) that hold at most one shell.
Each cell is judged against its *own* background, the ring just inside its grid lines
(:mod:`vision.ring_contrast`), so a white shell on the white column or a small shell still
stands out, whatever colour the column is printed in. Occupied / empty appearance is learned
from the calibration's ``shell`` and ``empty`` samples.

The basket holds loose items; they are found as blobs against the basket's learned background
and classified by their learned look (:mod:`vision.basket`).

Refusals (exit 3): too dark or glared (:func:`vision.mat_checks.check_photo`), too blurred (the
board's fine detail against the calibration's, :func:`vision.quality.detail_ratio`), occluded
(cells whose own towel colour changed since calibration: a hand; or many cells unlike both classes).

Speed: photos are decoded at half size (:data:`DECODE_REDUCE`; the calibration shot is shrunk
alike for learning) and the mat is rectified at about the photo's own resolution
(``SeashellsConfig.px_per_mm``), so a scan costs a few times a JPEG decode.

Source: shared/contracts/seashells.md §Reading a player mat; shared/rules/seashells.md §Components.
"""

from __future__ import annotations

import numpy as np

from beachscore.errors import BadInputError, UnreadableBoardError
from vision.basket import find_items, learn_basket
from vision.mat_checks import (annotation_canvas, as_scanned, check_labels, check_photo,
                               draw_box, draw_label, ring_change)
from vision.mats_config import SEASHELLS as CFG
from vision.quality import check_blur, detail_ratio
from vision.places import board_median_bgr
from vision.registration import rectify
from vision.ring_contrast import (GaussianClasses, board_lab, gradient_magnitude, normalised_lab,
                                  ring_contrast_features)
from vision.types import CalibrationShot, Photo, Reading

TOWEL_LABELS = ("shell", "empty")
BASKET_LABELS = ("fossil/head", "fossil/tail", "sand_dollar", "bottle")
LABELS = TOWEL_LABELS + BASKET_LABELS
#: state field of each basket label
#: Photos are decoded at 1/2 size (the pipeline scales the homography and registration reference).
DECODE_REDUCE = CFG.decode_reduce
COUNT_FIELDS = {"fossil/head": "fossil_heads", "fossil/tail": "fossil_tails", "sand_dollar": "sand_dollars",
                "bottle": "bottles"}


def towel_geometry(profile: dict) -> tuple[np.ndarray, list[str], list[str]]:
    """Towel cells of a Seashells mat profile.

    Args:
        profile: the mat profile (``towel`` with ``origin_mm``, ``cell_mm``, ``rows``, ``cols``).
    Returns:
        ``(boxes_mm, rows, cols)``: float64 (R·C, 4) cell boxes x0, y0, x1, y1 in mm, row-major
        (row = shape, column = colour); the shape names; the colour names.
    Raises:
        BadInputError: ``invalid-profile`` when the towel or basket is missing or malformed.
    """
    towel = profile.get("towel")
    try:
        ox, oy = (float(v) for v in towel["origin_mm"])
        cell = float(towel["cell_mm"])
        rows, cols = [str(r) for r in towel["rows"]], [str(c) for c in towel["cols"]]
        basket = np.asarray(profile["basket_mm"], np.float64)
    except (TypeError, KeyError, ValueError):
        raise BadInputError("invalid-profile", "seashells profile needs towel {origin_mm, cell_mm, rows, cols} "
                            "and basket_mm") from None
    if cell <= 0 or not rows or not cols or basket.ndim != 2 or basket.shape[1] != 2 or len(basket) < 3:
        raise BadInputError("invalid-profile", "seashells profile: cell_mm must be > 0, rows and cols non-empty, "
                            "basket_mm a polygon of ≥ 3 [x, y] points")
    r, c = np.mgrid[0:len(rows), 0:len(cols)]
    x0, y0 = ox + c.ravel() * cell, oy + r.ravel() * cell
    return np.stack([x0, y0, x0 + cell, y0 + cell], axis=1), rows, cols


def _cell_of(boxes: np.ndarray, x: float, y: float) -> int | None:
    inside = (boxes[:, 0] <= x) & (x < boxes[:, 2]) & (boxes[:, 1] <= y) & (y < boxes[:, 3])
    idx = np.flatnonzero(inside)
    return int(idx[0]) if len(idx) else None


def _inside_polygon(poly_mm, x: float, y: float) -> bool:
    import cv2
    return cv2.pointPolygonTest(np.asarray(poly_mm, np.float32).reshape(-1, 1, 2), (float(x), float(y)), False) >= 0


def learn(shot: CalibrationShot) -> dict:
    """Learn the towel's occupied/empty contrast and the basket's items from the calibration shot.

    Args:
        shot: calibration shot; its samples use the labels ``shell``, ``empty`` (at towel
            cells) and ``fossil/head``, ``fossil/tail``, ``sand_dollar``, ``bottle`` (in the basket).
    Returns:
        JSON-serialisable model: ``median_bgr``, ``towel`` (Gaussian classes), ``basket``,
        ``detail_ratio`` (the board's sharpness, for the blur check), ``ring_lab`` (every cell's
        towel colour, Lab (R·C, 3), for the occlusion check). Learned from the shot shrunk
        by :data:`DECODE_REDUCE`, as scans see the board.
    Raises:
        BadInputError: ``unknown-label``, ``missing-label`` (no ``shell`` or no ``empty``),
            ``sample-off-place`` (a towel label off the towel, a basket label off the basket),
            ``sample-not-found`` (no item under a basket sample), ``invalid-profile``.
    """
    profile = shot.request.profile
    samples = shot.request.samples
    check_labels(samples, LABELS, TOWEL_LABELS, "seashells")
    boxes, rows, cols = towel_geometry(profile)
    image, H = as_scanned(shot.image, shot.H_px_from_mm, DECODE_REDUCE)
    board = rectify(image, H, profile["board_mm"], CFG.px_per_mm)
    median = board_median_bgr(board)
    lab = board_lab(board)
    towel_idx, towel_labels, basket_samples = [], [], []
    for label, (x, y) in samples:
        if label in TOWEL_LABELS:
            k = _cell_of(boxes, x, y)
            if k is None:
                raise BadInputError("sample-off-place", f"calibration sample {label!r} at {x:g},{y:g} mm is not "
                                    "on a towel cell")
            towel_idx.append(k)
            towel_labels.append(label)
        else:
            if not _inside_polygon(profile["basket_mm"], x, y):
                raise BadInputError("sample-off-place", f"calibration sample {label!r} at {x:g},{y:g} mm is not "
                                    "in the basket")
            basket_samples.append((label, (x, y)))
    all_feats, ring_lab = ring_contrast_features(lab, boxes, CFG.px_per_mm, CFG.core_inset_mm, CFG.ring_mm,
                                                 with_background=True)
    feats = all_feats[towel_idx]
    # each cell's towel colour, robust to shells spilling into a ring: its colour column's median
    ring_lab = ring_lab.reshape(len(rows), len(cols), 3)
    ring_lab = np.broadcast_to(np.median(ring_lab, axis=0), ring_lab.shape).reshape(-1, 3)
    towel = GaussianClasses.fit(feats, towel_labels, CFG.towel_var_floor).broadened("shell", toward="empty")
    basket = learn_basket(lab, profile["basket_mm"], CFG.px_per_mm, basket_samples, CFG) if basket_samples else None
    return {"median_bgr": np.asarray(median, float).round(2).tolist(), "towel": towel.to_json(), "basket": basket,
            "detail_ratio": round(detail_ratio(np.ascontiguousarray(lab[..., 0]), CFG.detail_sigma_px), 4),
            "ring_lab": ring_lab.round(2).tolist()}


def read(photo: Photo) -> Reading:
    """Read the shells on the towel and count the basket's items of one player's mat.

    Args:
        photo: registered photo of one mat.
    Returns:
        Reading whose state is the contract's Seashells state with one player (named from
        ``setup["player"]``, else ``"mat"``); ``details`` holds per-cell posteriors and the blobs.
    Raises:
        UnreadableBoardError: ``too-dark``, ``glare``, ``too-blurred`` (fine detail far below the
            calibration's), or ``occluded`` when several cells are covered (their towel colour
            changed since calibration) or many look like neither a learned shell nor a learned empty
            cell (a hand or a cloth over the mat). A single covered cell only lowers the confidence.
    """
    cal = photo.calibration
    profile, model = cal.profile, cal.model
    boxes, rows, cols = towel_geometry(profile)
    board = rectify(photo.image, photo.registration.H_px_from_mm, profile["board_mm"], CFG.px_per_mm)
    check_photo(board, model["median_bgr"], min_L=CFG.min_board_L)
    lab = normalised_lab(board, model["median_bgr"])
    L = np.ascontiguousarray(lab[..., 0])
    grad = gradient_magnitude(L)
    check_blur(detail_ratio(L, CFG.detail_sigma_px, grad), model.get("detail_ratio"), CFG.min_detail_share)
    towel = GaussianClasses.from_json(model["towel"])
    feats, ring_lab = ring_contrast_features(lab, boxes, CFG.px_per_mm, CFG.core_inset_mm, CFG.ring_mm, grad,
                                             with_background=True)
    feats = towel.clip_below(feats, "empty")
    post = towel.posterior(feats)
    shell_k = towel.classes.index("shell")
    p_shell = post[:, shell_k]
    occupied = p_shell > 0.5
    place_conf = np.where(occupied, p_shell, 1.0 - p_shell)
    warnings: list[str] = []
    # a cell far from both classes (more than 4 sd on average from the nearest) looks like nothing learned
    rms_z = np.sqrt(towel.distances2(feats).min(axis=1) / feats.shape[1])
    # a cell whose own background (its ring) changed colour since calibration is covered: a hand
    # over a cell looks uniform, like an empty cell, but not like *this* cell's towel
    ring_de = ring_change(ring_lab, model.get("ring_lab"))
    covered = ring_de > CFG.ring_change_de
    strange = (rms_z > CFG.strange_rms_z) | covered
    if strange.mean() > CFG.occluded_share or covered.mean() >= CFG.covered_share:
        raise UnreadableBoardError("occluded", f"{int(strange.sum())} of {len(boxes)} towel cells are covered or look "
                                   "like neither a shell nor an empty cell; is a hand or something else over the "
                                   "mat? Take the photo again with the view clear")
    if covered.any():
        place_conf = np.where(covered, np.minimum(place_conf, CFG.covered_conf), place_conf)
        warnings.append("towel cells covered by something: " + ", ".join(
            f"{rows[k // len(cols)]}/{cols[k % len(cols)]}" for k in np.flatnonzero(covered)))
    shells = [[rows[k // len(cols)], cols[k % len(cols)]] for k in np.flatnonzero(occupied)]
    unsure = [f"{rows[k // len(cols)]}/{cols[k % len(cols)]}" for k in np.flatnonzero(place_conf < 0.9)]
    if unsure:
        warnings.append("towel cells hard to read: " + ", ".join(unsure))
    counts = {f: 0 for f in COUNT_FIELDS.values()}
    items = []
    item_conf = 1.0
    if model.get("basket"):
        items = find_items(lab, model["basket"], profile["basket_mm"], CFG.px_per_mm, CFG)
        for it in items:
            counts[COUNT_FIELDS[it.label]] += it.count
            item_conf *= it.confidence
            if it.count > 1:
                warnings.append(f"touching items in the basket near x={it.centre_mm[0]:.0f} mm counted as "
                                f"{it.count} {it.label} from their area")
            elif it.confidence < 0.5:
                warnings.append(f"basket item near x={it.centre_mm[0]:.0f} mm looks unlike any calibrated item")
    setup = photo.setup or {}
    player = setup.get("player") if isinstance(setup.get("player"), str) and setup.get("player") else "mat"
    state = {"game": "seashells", "shapes": rows, "colours": cols,
             "players": [{"player": player, "shells": shells, **counts}]}
    for key in ("scoring", "sun"):
        if key in setup:
            state[key] = setup[key]
    confidence = float(np.prod(place_conf) * item_conf)
    details = {"boxes_mm": boxes.tolist(), "p_shell": p_shell.round(4).tolist(), "occupied": occupied.tolist(),
               "ring_de": ring_de.round(2).tolist(), "strange": strange.tolist(),
               "items": [it.__dict__ for it in items]}
    return Reading(state=state, confidence=confidence, warnings=warnings, details=details)


def annotate(photo: Photo, reading: Reading) -> np.ndarray:
    """The photo with occupied towel cells boxed (green; orange when unsure) and basket items labelled.

    Returns:
        BGR uint8 image, the full-size photo's size (a photo decoded reduced is enlarged back).
    """
    img, H = annotation_canvas(photo)
    d = reading.details
    for box, occ, p in zip(d.get("boxes_mm", []), d.get("occupied", []), d.get("p_shell", [])):
        sure = max(p, 1 - p) >= 0.9
        if occ or not sure:
            draw_box(img, H, np.asarray(box) + [3, 3, -3, -3], (0, 200, 0) if sure else (0, 140, 255))
    short = {"fossil/head": "head", "fossil/tail": "tail", "sand_dollar": "dollar", "bottle": "bottle"}
    for it in d.get("items", []):
        text = short.get(it["label"], it["label"]) + (f" x{it['count']}" if it["count"] > 1 else "")
        colour = (255, 255, 0) if it["confidence"] >= 0.5 else (0, 140, 255)
        draw_label(img, H, it["centre_mm"], text, colour, radius_px=12)
    return img
