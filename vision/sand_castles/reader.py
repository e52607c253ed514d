"""Read the Sand Castles board: per lane the wave's space, the wall, the castle pieces, flooding.

The board is a board of named places that hold at most one thing each (lane spaces, castle
slots), read with :mod:`vision.places` plus two rules of the game that make the reading checkable:

* **Exactly one wave per lane.** Every space of a lane gets its Mahalanobis distance to the
  learned ``wave`` appearance (the LDA model of :mod:`vision.places`); the lane's wave is the
  closest space, and its confidence is the softmax of −d²/2 over the lane's spaces.
* **Walls stand on the wall space, and only there.** Whether something stands on a space is
  judged against the space's own ring (:mod:`vision.mats.ring_contrast`), because the wall space is
  sand and the others sea; something standing on a space 1…length−2 that is not the wave is a
  contradiction and lowers the confidence. Those plain spaces, nearly all empty, also give the
  empty look of each photo (its sharpness and noise) against the calibration's; the sand wall
  space, whose ring holds no tile edge, is judged by colour contrast alone.
* **Flooding** is the wave standing on the castle space (``length``): its pieces are washed
  away (shared/rules/sand-castles.md §Play), so ``castle_pieces`` is 0.
* Castle pieces: every slot is classified ``castle_piece`` / ``slot`` by the place reader.

Refusals (exit 3): part of the board outside the photo after registration
(``board-out-of-view``, :func:`vision.image.quality.check_board_in_view`, run by the pipeline), too dark or glared, too
blurred (fine detail against the calibration's), and occluded: a hand over the board changes
the colour of the spaces' own backgrounds (their rings) and makes castle slots look like nothing
learned (the message says what was measured: light very different from calibration does the
same). At calibration every labelled sample is checked against the others (leave-one-out); one
that clearly looks like another class is refused as ``bad-sample`` (exit 2).

Speed: photos are decoded at half size (:data:`DECODE_REDUCE`); only what is read is warped (the
board at ``space_px_per_mm`` for the spaces, the castle-slot rectangle at ``px_per_mm``, a sparse
grid for the lighting); Lab and gradients are computed once and every place's features at once
(:func:`vision.mats.ring_contrast.patch_features`, the features of :mod:`vision.places`). Lighting is
corrected by gains from the spaces' ring colours (a hand does not move their median).

Source: shared/contracts/sand-castles.md; shared/rules/sand-castles.md.
"""

from __future__ import annotations

import numpy as np

from vision.errors import BadInputError, SampleError, UnreadableBoardError, sample_slot
from vision.image.gradients import sobel_magnitude
from vision.mats.checks import (annotation_canvas, as_scanned, check_labels, check_photo, draw_box,
                               draw_caption, draw_label, draw_text_box, rectify_part, ring_change, text_scale)
from vision.mats.config import SAND_CASTLES as CFG
from vision.image.quality import check_blur, detail_ratio, median_last
from vision.places import PlaceModel, learn_places
from vision.board.geometry import project, rectify
from vision.mats.ring_contrast import (GaussianClasses, board_lab, patch_features,
                                  ring_contrast_features, ring_medians)
from vision.sand_castles.sample_check import check_samples, one_wave_a_lane
from vision.types import CalibrationShot, Photo, Reading
from vision.confidence import confidence_percent

SPACE_LABELS = ("wave", "wall", "space")
SLOT_LABELS = ("castle_piece", "slot")
LABELS = SPACE_LABELS + SLOT_LABELS
REQUIRED = ("wave", "space", "castle_piece", "slot")
#: Photos are decoded at 1/2 size (the pipeline scales the homography and registration reference).
DECODE_REDUCE = CFG.decode_reduce


def lane_geometry(profile: dict) -> list[dict]:
    """Lanes of a Sand Castles profile with their space boxes.

    Args:
        profile: the board profile (``lanes`` with ``name``, ``length``, ``castle_needs``,
            ``spaces`` [{index, polygon_mm}], ``castle_slots_mm``).
    Returns:
        list of dicts ``{"name", "length", "needs", "boxes_mm": float64 (length, 4) x0, y0, x1, y1
        by space index 1…length, "slots_mm": float64 (S, 2)}``.
    Raises:
        BadInputError: ``invalid-profile``.
    """
    lanes = []
    try:
        for lane in profile["lanes"]:
            spaces = sorted(lane["spaces"], key=lambda s: int(s["index"]))
            length = int(lane["length"])
            if [int(s["index"]) for s in spaces] != list(range(1, length + 1)):
                raise ValueError
            boxes = np.array([[*np.min(s["polygon_mm"], axis=0), *np.max(s["polygon_mm"], axis=0)]
                              for s in spaces], np.float64)
            slots = np.asarray(lane["castle_slots_mm"], np.float64).reshape(-1, 2)
            lanes.append({"name": str(lane["name"]), "length": length, "needs": int(lane["castle_needs"]),
                          "boxes_mm": boxes, "slots_mm": slots})
    except (KeyError, TypeError, ValueError):
        raise BadInputError("invalid-profile", "sand-castles profile: every lane needs name, length, castle_needs, "
                            "spaces 1..length with polygon_mm, and castle_slots_mm") from None
    if not lanes or any(L["length"] < 3 for L in lanes):
        raise BadInputError("invalid-profile", "sand-castles profile: at least one lane of length ≥ 3 is needed")
    return lanes


def _patch_sizes(lanes: list[dict]) -> tuple[float, float]:
    """Patch sides (mm) for spaces and slots, from the profile's geometry and the config shares."""
    boxes = np.concatenate([L["boxes_mm"] for L in lanes])
    short = float(np.min(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    gaps = [np.linalg.norm(L["slots_mm"][i] - L["slots_mm"][j]) for L in lanes
            for i in range(len(L["slots_mm"])) for j in range(i)]
    spacing = float(min(gaps)) if gaps else short / 2
    return CFG.space_patch_share * short, CFG.slot_patch_share * spacing


def read_area(profile: dict) -> tuple[float, float, float, float]:
    """The board rectangle ``(x0, y0, x1, y1)`` mm holding every lane space and castle slot patch:
    what a photo must show whole (:meth:`vision.types.Reader.read_area`)."""
    lanes = lane_geometry(profile)
    _, slot_mm = _patch_sizes(lanes)
    boxes = np.concatenate([L["boxes_mm"] for L in lanes])
    slots = np.concatenate([L["slots_mm"] for L in lanes])
    lo = np.minimum(boxes[:, :2].min(axis=0), slots.min(axis=0) - slot_mm / 2)
    hi = np.maximum(boxes[:, 2:].max(axis=0), slots.max(axis=0) + slot_mm / 2)
    w, h = profile["board_mm"]
    return (max(float(lo[0]), 0.0), max(float(lo[1]), 0.0), min(float(hi[0]), float(w)), min(float(hi[1]), float(h)))


def _locate(lanes, label: str, x: float, y: float):
    """(lane index, space index 0-based) or (lane index, slot index) of a sample point."""
    if label in SPACE_LABELS:
        for li, L in enumerate(lanes):
            b = L["boxes_mm"]
            hit = np.flatnonzero((b[:, 0] <= x) & (x < b[:, 2]) & (b[:, 1] <= y) & (y < b[:, 3]))
            if len(hit):
                return li, int(hit[0])
        raise SampleError("sample-off-place", [(label, (x, y))], f"{sample_slot(0)} is not on a lane space")
    best = min(((float(np.hypot(*(L["slots_mm"][k] - (x, y)))), li, k) for li, L in enumerate(lanes)
                for k in range(len(L["slots_mm"]))), default=None)
    _, slot_mm = _patch_sizes(lanes)
    if best is None or best[0] > slot_mm:
        raise SampleError("sample-off-place", [(label, (x, y))], f"{sample_slot(0)} is not at a castle slot")
    return best[1], best[2]


def learn(shot: CalibrationShot) -> dict:
    """Learn the look of waves, walls, empty spaces, castle pieces and empty slots.

    Args:
        shot: the calibration shot; samples labelled ``wave``, ``wall``, ``space`` (on lane
            spaces) and ``castle_piece``, ``slot`` (at castle slots).
    Returns:
        JSON-serialisable model: ``median_bgr``, ``spaces`` and ``slots`` (LDA place models),
        ``occupancy`` (ring-contrast Gaussian classes ``empty`` / ``occupied``), patch sizes.
    Raises:
        BadInputError: ``unknown-label``, ``missing-label``, ``sample-off-place``, ``invalid-profile``.
    """
    profile = shot.request.profile
    samples = shot.request.samples
    check_labels(samples, LABELS, REQUIRED, "sand-castles")
    lanes = lane_geometry(profile)
    space_mm, slot_mm = _patch_sizes(lanes)
    image, H = as_scanned(shot.image, shot.H_px_from_mm, DECODE_REDUCE)
    all_slots = np.concatenate([L["slots_mm"] for L in lanes])
    sparse, coarse, crop, shifted = _views(image, H, profile["board_mm"], all_slots, slot_mm)
    space_samples, slot_samples, occ_boxes, occ_labels, lane_seas, waves = [], [], [], [], [], []
    for label, (x, y) in samples:
        li, k = _locate(lanes, label, x, y)
        if label == "wave":
            waves.append((lanes[li]["name"], (x, y)))
        if label in SPACE_LABELS:
            box = lanes[li]["boxes_mm"][k]
            space_samples.append((label, ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)))
            seas = lanes[li]["boxes_mm"][: lanes[li]["length"] - 2]
            lane_seas.append(np.delete((seas[:, :2] + seas[:, 2:]) / 2, k, axis=0) if k < len(seas) else seas[:0, :2])
            occ_boxes.append(box)
            occ_labels.append("empty" if label == "space" else "occupied")
        else:
            slot_samples.append((label, tuple(lanes[li]["slots_mm"][k])))
    one_wave_a_lane(waves)
    offset = all_slots[0] - shifted[0]
    crop_samples = [(lab_, tuple(np.asarray(xy) - offset)) for lab_, xy in slot_samples]
    doubted = (check_samples(coarse, space_samples, space_samples, CFG.space_px_per_mm, space_mm, lane_seas)
               + check_samples(crop, crop_samples, slot_samples, CFG.px_per_mm, slot_mm))
    spaces = learn_places(coarse, space_samples, CFG.space_px_per_mm, space_mm)
    slots = learn_places(crop, crop_samples, CFG.px_per_mm, slot_mm)
    lab = board_lab(coarse)
    feats = ring_contrast_features(lab, occ_boxes, CFG.space_px_per_mm, CFG.core_inset_mm, CFG.ring_mm,
                                   step_px=CFG.space_step_px)
    all_boxes = np.concatenate([L["boxes_mm"] for L in lanes])
    all_feats, ring_lab = ring_contrast_features(lab, all_boxes, CFG.space_px_per_mm, CFG.core_inset_mm, CFG.ring_mm,
                                                 with_background=True, step_px=CFG.space_step_px)
    ring_bgr = ring_medians(coarse, all_boxes, CFG.space_px_per_mm, CFG.ring_mm)
    occupancy = GaussianClasses.fit(feats, occ_labels, CFG.space_var_floor).broadened("occupied", toward="empty")
    return {"median_bgr": np.asarray(np.median(sparse.reshape(-1, 3), axis=0), float).round(2).tolist(),
            "spaces": spaces.to_json(), "slots": slots.to_json(), "occupancy": occupancy.to_json(),
            "detail_ratio": round(detail_ratio(lab[..., 0], CFG.detail_sigma_px), 4),
            "ring_lab": ring_lab.round(2).tolist(), "ring_bgr": ring_bgr.round(2).tolist(),
            "empty_baseline": empty_baseline(all_feats, lanes).round(4).tolist(),
            **({"doubted_samples": doubted} if doubted else {})}


def empty_baseline(feats: np.ndarray, lanes: list[dict]) -> np.ndarray:
    """The look of an empty plain space in one photo: the median ring-contrast features of the plain spaces.

    By the rules each lane has one wave, so of its spaces 1…length−2 (sea, never a wall) all but
    at most one are empty, and their median is an empty space seen through this photo's own
    sharpness, noise and light.

    Args:
        feats: float64 (N, 3) :func:`vision.mats.ring_contrast.ring_contrast_features` of every lane
            space, lanes in profile order, spaces by index.
    Returns:
        float64 (3,).
    """
    plain = np.concatenate([np.arange(L["length"]) < L["length"] - 2 for L in lanes])
    return np.median(np.asarray(feats, np.float64)[plain], axis=0)


def _views(image: np.ndarray, H_px_from_mm: np.ndarray, board_mm, slots_mm: np.ndarray, patch_mm: float):
    """The rectified views the reader needs, each warped straight from the photo (speed).

    Args:
        image: photo, BGR uint8 (H, W, 3); ``H_px_from_mm`` maps board mm to its px.
        board_mm: (width, height) of the board.
        slots_mm: (S, 2) every castle slot; ``patch_mm`` the slot patch side.
    Returns:
        ``(sparse, coarse, crop, crop_slots)``: the board sampled every ``4 / CFG.px_per_mm`` mm
        (the points :func:`vision.places.board_median_bgr` reads of a board rectified at
        ``CFG.px_per_mm``: the lighting reference), BGR uint8; the whole board at
        ``CFG.space_px_per_mm``, BGR uint8; the rectangle around the castle slots at
        ``CFG.px_per_mm``, BGR uint8; the slots in crop mm, (S, 2).
    """
    ppm = CFG.px_per_mm
    step_mm = 4 / ppm
    first = 0.5 / ppm - 0.5 * step_mm          # so that sample k sits at (4k + 0.5) / ppm mm
    sparse = rectify_part(image, H_px_from_mm, (first, first), board_mm, 1 / step_mm)
    coarse = rectify(image, H_px_from_mm, board_mm, CFG.space_px_per_mm)
    lo = np.maximum(np.floor((slots_mm.min(axis=0) - patch_mm) * ppm).astype(int), 0)
    hi = np.ceil((slots_mm.max(axis=0) + patch_mm) * ppm).astype(int)
    crop = rectify_part(image, H_px_from_mm, lo / ppm, (hi - lo) / ppm, ppm)
    return sparse, coarse, crop, slots_mm - lo / ppm


def _gains(coarse_raw: np.ndarray, sparse_raw: np.ndarray, boxes_mm: np.ndarray, model: dict) -> np.ndarray:
    """Channel gains, float32 (3,), that bring this photo's lighting to the calibration's.

    Per lane space, the ratio of its ring colour (its own background, B, G, R) at calibration to
    now; the median over spaces. A hand over a few spaces moves few ratios and not the median,
    where the board's median colour (the board is half sea, half sand) jumps between the two.
    Calibrations without ring colours fall back to the board median.
    """
    if "ring_bgr" not in model:
        now = np.median(sparse_raw.reshape(-1, 3), axis=0)
        return np.clip(np.asarray(model["median_bgr"], np.float32) / np.maximum(now, 1.0), 0.25, 4.0)
    now = ring_medians(coarse_raw, boxes_mm, CFG.space_px_per_mm, CFG.ring_mm)
    ratio = np.asarray(model["ring_bgr"], np.float64) / np.maximum(now, 1.0)
    return np.clip(median_last(ratio.T), 0.25, 4.0).astype(np.float32)          # np.median(ratio, axis=0)


def _lab_grad(board_bgr: np.ndarray, gains=None):
    """CIE Lab float32 (H, W, 3) and its lightness gradient magnitude float32 (H, W) (of the board
    with ``gains`` applied first, as :func:`vision.places.apply_gains` does, when given)."""
    lab = board_lab(board_bgr, gains)
    return lab, sobel_magnitude(np.ascontiguousarray(lab[..., 0]))


def _d2(model: PlaceModel, feats: np.ndarray, cls: str) -> np.ndarray:
    """Squared Mahalanobis distance (pooled LDA metric) of feature rows to one class, (N,)."""
    diff = feats - model.means[model.classes.index(cls)]
    return np.einsum("nf,fg,ng->n", diff, model.precision, diff)


def _wave_and_wall(name: str, n: int, d2_wave: np.ndarray, d2_wall: np.ndarray, p_occ: np.ndarray,
                   ring_de: np.ndarray, has_wall: bool, warnings: list[str]) -> tuple[int, float, bool, float]:
    """Where one lane's wave stands and whether its wall is built; appends the lane's doubts to ``warnings``.

    Args:
        name: the lane's name; n: its number of spaces.
        d2_wave, d2_wall: (n,) squared distances of its spaces to the wave and wall appearance.
        p_occ: (n,) probability that each space holds something; ring_de: (n,) colour change (ΔE)
            of each space's own background since calibration.
        has_wall: whether the calibration learned the wall's looks.
    Returns:
        ``(wave, p_wave, wall, confidence)``: the wave's space (1-based), its probability, the wall,
        and the lane's confidence so far.
    """
    # the wave stands on its space: below the castle space, an empty-looking space is unlikely
    dw = d2_wave.copy()
    dw[:n - 1] -= 2.0 * np.log(np.maximum(p_occ[:n - 1], 1e-6))
    order = np.argsort(dw)
    wave = int(order[0]) + 1
    logits = -0.5 * (dw - dw.min())
    p_wave = float(1.0 / np.exp(logits).sum())
    lane_conf = p_wave
    if dw[order[1]] - dw[order[0]] < CFG.wave_margin_d2:
        warnings.append(f"{name} lane: the wave could be on space {wave} or {int(order[1]) + 1}")
        lane_conf = min(lane_conf, 0.4)
    if np.sqrt(d2_wave[order[0]]) > CFG.wave_max_d:
        warnings.append(f"{name} lane: the wave on space {wave} looks unlike the calibrated waves")
        lane_conf = min(lane_conf, 0.4)
    covered_here = [k + 1 for k in np.flatnonzero(ring_de > CFG.ring_change_de)]
    if covered_here:
        warnings.append(f"{name} lane: space(s) {', '.join(map(str, covered_here))} covered by something")
        lane_conf = min(lane_conf, CFG.covered_conf)
    wall_space = n - 1
    # something on a plain space that is not the wave breaks "one wave per lane"
    extra = [k + 1 for k in range(n - 2) if k + 1 != wave and p_occ[k] > 0.5]
    if extra:
        warnings.append(f"{name} lane: something besides the wave stands on space(s) "
                        f"{', '.join(map(str, extra))}")
        lane_conf = min(lane_conf, 0.3)
    if wave == wall_space:
        wall = False
    else:
        p = float(p_occ[wall_space - 1])
        wall = p > 0.5
        lane_conf *= max(p, 1.0 - p)
        if wall and d2_wall[wall_space - 1] > dw[wall_space - 1]:
            warnings.append(f"{name} lane: the piece on the wall space looks more like a wave than a wall")
            lane_conf = min(lane_conf, 0.3)
        elif wall and has_wall and d2_wall[wall_space - 1] > CFG.wall_max_d ** 2:
            warnings.append(f"{name} lane: the wall space differs from an empty space but looks unlike "
                            "the calibrated walls (light or compression unlike calibration?)")
            lane_conf = min(lane_conf, 0.3)
    return wave, p_wave, wall, lane_conf


def _occupancy(occupancy: GaussianClasses, feats: np.ndarray, lanes: list[dict], baseline) -> np.ndarray:
    """Probability, float64 (N,), that something stands on each lane space.

    Contrast against the ring depends on the photo's sharpness and noise, so the features are first
    shifted by this photo's :func:`empty_baseline` less the calibration's (``baseline``, (3,); None
    for calibrations without it). Wall spaces are judged by :func:`_colour_occupancy`.

    Args:
        feats: float64 (N, 3) ring-contrast features of every lane space, in :func:`empty_baseline`'s order.
    """
    if baseline is not None:
        feats = feats - (empty_baseline(feats, lanes) - np.asarray(baseline, np.float64))
    feats = occupancy.clip_below(feats, "empty")
    p_occ = occupancy.posterior(feats)[:, occupancy.classes.index("occupied")]
    wall_spaces = np.cumsum([L["length"] for L in lanes]) - 2
    p_occ[wall_spaces] = _colour_occupancy(occupancy, feats[wall_spaces])
    return p_occ


def _colour_occupancy(occupancy: GaussianClasses, feats: np.ndarray) -> np.ndarray:
    """Probability, float64 (N,), that something stands on a sand space, from its colour contrast alone.

    The texture ratio compares a space's core with its ring, and a sea space's ring holds the
    edge of its tile against the sand lines between tiles; a sand space's ring has no such edge,
    so an empty wall space has the texture of something standing there. Its mean and 90th
    percentile ΔE from the ring (:data:`vision.mats.ring_contrast.FEATURE_NAMES` 0 and 1) do not
    depend on the tile's edge.

    Args:
        feats: float64 (N, 3) ring-contrast features (clipped below the empty mean).
    """
    cols = [0, 1]
    colour = GaussianClasses(list(occupancy.classes), occupancy.means[:, cols], occupancy.variances[:, cols])
    return colour.posterior(np.asarray(feats, np.float64)[:, cols])[:, colour.classes.index("occupied")]


def _check_covered(ring_de: np.ndarray, n_boxes: int, n_strange_slots: int, n_slots_seen: int) -> None:
    """Refuse a board a hand covers: lane spaces whose own background changed colour, or castle
    slots unlike anything learned, together at least ``CFG.covered_share`` of what was looked at.

    Raises:
        UnreadableBoardError: ``occluded``.
    """
    # a hand over the board covers spaces (their own background changes colour) or slots (they look
    # like nothing learned); slots under a flood wave are not looked at
    n_spaces = int(np.sum(ring_de > CFG.ring_change_de))
    n_covered = n_spaces + n_strange_slots
    if n_covered / max(n_boxes + n_slots_seen, 1) >= CFG.covered_share:
        seen = []
        if n_spaces:
            seen.append(f"{n_spaces} of {n_boxes} lane spaces changed colour since calibration "
                        f"(by up to {float(ring_de.max()):.0f} ΔE beyond the board-wide change)")
        if n_strange_slots:
            seen.append(f"{n_strange_slots} of {n_slots_seen} castle slots look like neither a castle piece nor "
                        "an empty slot")
        raise UnreadableBoardError("occluded", "; ".join(seen) + " — a hand or something else over the board, or "
                                   "light very different from calibration? Take the photo again with the view "
                                   "clear and the calibration's light")


def read(photo: Photo) -> Reading:
    """Read waves, walls, castle pieces and flooding of every lane.

    Args:
        photo: registered photo of the board.
    Returns:
        Reading with the contract's Sand Castles state (``walls_left`` from the setup, else
        null); ``details`` holds per-lane positions and scores for the annotator.
    Raises:
        UnreadableBoardError: ``too-dark``, ``glare``, ``too-blurred`` (fine detail far below the
            calibration's) or ``occluded`` (a hand over the board: several lane spaces whose own
            background changed colour since calibration, or castle slots unlike anything learned).
    """
    cal = photo.calibration
    profile, model = cal.profile, cal.model
    lanes = lane_geometry(profile)
    spaces = PlaceModel.from_json(model["spaces"])
    slots = PlaceModel.from_json(model["slots"])
    all_slots = np.concatenate([L["slots_mm"] for L in lanes])
    sparse, raw, raw_crop, crop_slots = _views(photo.image, photo.registration.H_px_from_mm, profile["board_mm"],
                                               all_slots, slots.patch_mm)
    check_photo(raw, model["median_bgr"], min_L=CFG.min_board_L)
    all_boxes = np.concatenate([L["boxes_mm"] for L in lanes])
    gains = _gains(raw, sparse, all_boxes, model)
    occupancy = GaussianClasses.from_json(model["occupancy"])
    has_wall = "wall" in spaces.classes

    centres = np.stack([(all_boxes[:, 0] + all_boxes[:, 2]) / 2, (all_boxes[:, 1] + all_boxes[:, 3]) / 2], axis=1)
    lab, grad = _lab_grad(raw, gains)            # the gains folded into the Lab lookup table (apply_gains)
    check_blur(detail_ratio(lab[..., 0], CFG.detail_sigma_px, grad), model.get("detail_ratio"), CFG.min_detail_share)
    feats = patch_features(lab, grad, centres, spaces.px_per_mm, spaces.patch_mm).astype(np.float64)
    d2_wave = _d2(spaces, feats, "wave")
    d2_wall = _d2(spaces, feats, "wall") if has_wall else np.full(len(feats), np.inf)
    occ_feats, ring_lab = ring_contrast_features(lab, all_boxes, CFG.space_px_per_mm, CFG.core_inset_mm,
                                                 CFG.ring_mm, grad, with_background=True, step_px=CFG.space_step_px)
    ring_de = ring_change(ring_lab, model.get("ring_lab"))
    p_occ = _occupancy(occupancy, occ_feats, lanes, model.get("empty_baseline"))
    # every slot at once: a slot is strange when far from both classes, absolutely or against the
    # photo's typical slot (a global shift — blur, a colour cast — moves every slot alike)
    crop_lab_grad = _lab_grad(raw_crop, gains)   # the slots, and the misfit search around them, read the same crop
    slot_labels_all, slot_post_all, slot_d_all = _classify_slots(crop_lab_grad, crop_slots, slots)
    slot_shift = _slot_misfit(crop_lab_grad, crop_slots, slots, slot_d_all, lanes)
    typical_d = float(median_last(slot_d_all)) if len(slot_d_all) else 0.0
    slot_strange_all = (slot_d_all > CFG.slot_max_d) | (slot_d_all - typical_d > CFG.slot_rel_d)
    slot_start = 0

    n_slots_seen = n_strange_slots = 0
    state_lanes, details, warnings = {}, {"lanes": [], "ring_de": ring_de.round(2).tolist(),
                                          "slot_d": np.round(slot_d_all, 2).tolist()}, []
    confidence = 1.0
    start = 0
    for L in lanes:
        n = L["length"]
        sl = slice(start, start + n)
        start += n
        wave, p_wave, wall, lane_conf = _wave_and_wall(L["name"], n, d2_wave[sl], d2_wall[sl], p_occ[sl], ring_de[sl],
                                                       has_wall, warnings)
        flooded = wave == n
        pieces, slot_labels, slot_conf = 0, [], []
        ss = slice(slot_start, slot_start + len(L["slots_mm"]))
        slot_start += len(L["slots_mm"])
        if not flooded and len(L["slots_mm"]):
            slot_labels, pc = slot_labels_all[ss], slot_post_all[ss]
            pieces = sum(lab_ == "castle_piece" for lab_ in slot_labels)
            slot_conf = pc.tolist()
            lane_conf *= float(np.prod(pc))
            n_slots_seen += len(L["slots_mm"])
            n_strange_slots += int(np.sum(slot_strange_all[ss]))
            if slot_shift[len(state_lanes)] is not None:
                dx, dy = slot_shift[len(state_lanes)]
                warnings.append(f"{L['name']} lane: the castle slots look more like pieces or slots {dx:+.0f}, "
                                f"{dy:+.0f} mm off their places (the camera tilted or the board bent since "
                                "calibration?)")
                lane_conf = min(lane_conf, 0.3)
            if np.any(slot_strange_all[ss]):
                warnings.append(f"{L['name']} lane: a castle slot looks like neither a piece nor an empty slot")
                lane_conf = min(lane_conf, 0.3)
        confidence *= lane_conf
        state_lanes[L["name"]] = {"length": n, "wave": wave, "wall": bool(wall), "castle_pieces": int(pieces),
                                  "flooded": bool(flooded)}
        details["lanes"].append({"name": L["name"], "boxes_mm": L["boxes_mm"].tolist(), "wave": wave,
                                 "wall": bool(wall), "slots_mm": L["slots_mm"].tolist(), "slot_labels": slot_labels,
                                 "slot_conf": slot_conf, "p_wave": p_wave, "confidence": float(lane_conf),
                                 "pieces": int(pieces), "needs": L["needs"], "flooded": bool(flooded)})
    _check_covered(ring_de, len(all_boxes), n_strange_slots, n_slots_seen)
    walls_left = (photo.setup or {}).get("walls_left")
    state = {"game": "sand-castles", "lanes": state_lanes,
             "walls_left": walls_left if isinstance(walls_left, int) and not isinstance(walls_left, bool) else None}
    details["confidence"] = float(confidence)
    return Reading(state=state, confidence=float(confidence), warnings=warnings, details=details)


def _slot_misfit(lab_grad, slots_mm: np.ndarray, model: PlaceModel, slot_d: np.ndarray,
                 lanes: list[dict]) -> list[tuple[float, float] | None]:
    """Per lane, the shift (mm) at which its castle slots fit the learned looks much better, or None.

    When the registration leaves the slots a few mm off (a tilted camera, a bent board), pieces
    read as empty slots at full confidence. Slots that fit both classes poorly (median distance
    above ``slot_misfit_d``) are looked at ``slot_search_mm`` off in x and y: a fit better by
    ``slot_misfit_gain`` says the slots are misplaced, not the light different.

    Args:
        lab_grad: :func:`_lab_grad` of the illumination-normalised slot crop (every shifted look
            reads it: the crop's Lab is computed once).
    """
    out: list[tuple[float, float] | None] = [None] * len(lanes)
    starts = np.cumsum([0] + [len(L["slots_mm"]) for L in lanes])
    weak = [i for i in range(len(lanes)) if starts[i + 1] > starts[i]
            and median_last(slot_d[starts[i]:starts[i + 1]]) > CFG.slot_misfit_d]
    if not weak:
        return out
    s = CFG.slot_search_mm
    offsets = [(dx, dy) for dx in (-s, 0.0, s) for dy in (-s, 0.0, s) if dx or dy]
    # only the weak lanes' slots, every shifted look at once (one gather of the patches), split
    # back per offset; each slot's distance is its own patch's, whatever else is looked at
    mine = np.concatenate([np.arange(starts[i], starts[i + 1]) for i in weak])
    every = np.concatenate([slots_mm[mine] + np.array(o) for o in offsets])
    shifted = np.split(_classify_slots(lab_grad, every, model)[2], len(offsets))
    at = 0
    for i in weak:
        sl, own = slice(starts[i], starts[i + 1]), slice(at, at + starts[i + 1] - starts[i])
        at = own.stop
        here = float(median_last(slot_d[sl]))
        best = min(range(len(offsets)), key=lambda j: float(median_last(shifted[j][own])))
        if float(median_last(shifted[best][own])) < CFG.slot_misfit_gain * here:
            out[i] = offsets[best]
    return out


def _classify_slots(lab_grad, slots_mm: np.ndarray, model: PlaceModel):
    """Labels, posteriors and distances of castle slots on an illumination-normalised board, given
    as its :func:`_lab_grad`."""
    feats = patch_features(*lab_grad, slots_mm, model.px_per_mm, model.patch_mm).astype(np.float64)
    keep = [model.classes.index(c) for c in SLOT_LABELS]
    d2 = np.stack([_d2(model, feats, model.classes[k]) for k in keep], axis=1)
    post = np.exp(-0.5 * (d2 - d2.min(axis=1, keepdims=True)))
    post /= post.sum(axis=1, keepdims=True)
    best = post.argmax(axis=1)
    n = np.arange(len(best))
    return [SLOT_LABELS[b] for b in best], post[n, best], np.sqrt(d2[n, best])


def annotate(photo: Photo, reading: Reading) -> np.ndarray:
    """The photo with each lane's reading drawn on it, at the photo's full size.

    The wave (blue box), the wall (brown box) and the castle pieces (green circles; orange with
    "?" when unsure) are marked, and every lane gets a label — dark text on a light box — with
    its wave space, wall, castle pieces (found / needed), flooding and confidence; a title gives
    the whole reading's confidence.

    Returns:
        BGR uint8 image, the full-size photo's size (a photo decoded reduced is enlarged back).
    """
    img, H = annotation_canvas(photo)
    lanes = reading.details.get("lanes", [])
    for lane in lanes:
        boxes = np.asarray(lane["boxes_mm"])
        draw_box(img, H, boxes[lane["wave"] - 1] + [3, 3, -3, -3], (255, 120, 0), 3)
        if lane["wall"]:
            draw_box(img, H, boxes[-2] + [3, 3, -3, -3], (30, 60, 140), 3)
        for xy, lab_, pc in zip(lane["slots_mm"], lane["slot_labels"], lane["slot_conf"]):
            if lab_ == "castle_piece" or pc < 0.9:
                draw_label(img, H, xy, "" if pc >= 0.9 else "?", (0, 200, 0) if pc >= 0.9 else (0, 140, 255),
                           radius_px=10)
    # labels last, so that no mark is drawn over them; sized to a lane space's width
    for lane in lanes:
        boxes = np.asarray(lane["boxes_mm"])
        first = boxes[0]
        width_px = float(np.linalg.norm(np.diff(project(H, [[first[0], first[1]], [first[2], first[1]]]), axis=0)))
        scale = min(text_scale(img), max(0.35, width_px / 190.0))
        lines = [f"{lane['name']}: wave {lane['wave']}" + (" FLOODED" if lane.get("flooded") else ""),
                 "wall" if lane["wall"] else "no wall",
                 f"pieces {lane.get('pieces', sum(x == 'castle_piece' for x in lane['slot_labels']))}"
                 f"/{lane.get('needs', len(lane['slot_labels']))}",
                 f"conf {lane.get('confidence', lane.get('p_wave', 0.0)):.2f}"]
        draw_caption(img, H, ((first[0] + first[2]) / 2, (first[1] + first[3]) / 2), lines, scale)
    conf = reading.details.get("confidence", reading.confidence)
    draw_text_box(img, (8, 8), f"Sand Castles - confidence {confidence_percent(conf)}%"
                  + (" - unsure, check the warnings" if conf < 0.5 else ""))
    return img
