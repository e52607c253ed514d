"""Read one Seashells player mat: the towel's shells and the basket's loose items.

The towel is a board of named places (shape row × colour column) that hold at most one shell.
Each cell is judged against its *own* background, the ring just inside its grid lines
(:mod:`vision.mats.ring_contrast`), so a white shell on the white column or a small shell still
stands out, whatever colour the column is printed in. The contrast is measured noise-robustly
(:func:`vision.mats.ring_contrast.denoised_contrast_features`: means over 2.4 mm windows, and the
photo's own background noise, measured on the rings, taken off), so grain or JPEG blocks do
not make every cell look occupied. Occupied / empty appearance is learned from the
calibration's ``shell`` and ``empty`` samples (each checked against the others: a sample that
clearly looks like the other class is refused as ``bad-sample``); when the photo's background
noise exceeds the calibration's, the empty class is widened, so faint shells become unsure
rather than confidently wrong. Each cell is judged against the calibrated shells of its own
colour column (:mod:`vision.seashells.columns`; a pale column's cell by its outline too,
:mod:`vision.seashells.outline`), each cell as sure as the development cells of its kind and posterior
(:mod:`vision.seashells.confidence`). A found shell must be coloured like its column's calibrated shells
(a hand or a mirrored photo is not). Glare is judged cell by cell: a pale cell blown out is doubted.

The basket holds loose items; they are found as blobs against the basket's learned background
and classified by their learned look (:mod:`vision.mats.basket`). The reading never reports more
items of a kind than the game box holds (``scoring.seashells.BOX``): more blobs than that is a
misreading, capped and reported unsure.

Refusals (exit 3): part of the mat outside the photo (``board-out-of-view``,
:func:`vision.image.quality.check_board_in_view`, run by the pipeline), too dark
(:func:`vision.mats.checks.check_photo`), glared (most of the pale columns' cells wholly blown
out, :func:`vision.seashells.columns.glared_cells`), too blurred (the board's fine detail against the
calibration's, :func:`vision.image.quality.detail_ratio`), too noisy (the board's pixel noise against
the calibration's, :func:`vision.image.quality.board_noise_sigma`), ``registration-lost`` when most
found shells have colours unlike their columns' calibrated shells (mirrored photo, another mat),
``occluded`` (cells whose own towel colour changed since calibration, cells holding something
unlike a shell, or many cells unlike both classes; the message says which were measured).

Speed: photos are decoded at half size (:data:`DECODE_REDUCE`; the calibration shot is shrunk
alike for learning) and the mat is rectified at about the photo's own resolution
(``SeashellsConfig.px_per_mm``), so a scan costs a few times a JPEG decode.

Source: shared/contracts/seashells.md §Reading a player mat; shared/rules/seashells.md §Components.
"""

from __future__ import annotations

import numpy as np

from vision.errors import SampleError, UnreadableBoardError, sample_slot
from vision.mats.basket import find_items, learn_basket
from vision.mats.checks import (annotation_canvas, as_scanned, blown_out_share, check_labels, check_photo, draw_box,
                               draw_caption, draw_label, draw_text_box, text_scale)
from vision.mats.config import SEASHELLS as CFG
from vision.seashells.columns import (column_shell_features, covered_cells, glared_cells, glared_shot_cells,
                                      refuse_blown_samples)
from vision.seashells.confidence import place_confidence
from vision.seashells.phase import phase_pooled_towel
from vision.seashells.towel import cell_of, towel_contrast, towel_geometry, towel_shell_posterior
from vision.seashells.outline import learn_outline, outline_contrast
from vision.image.quality import board_noise_sigma, check_blur, check_excess_noise, detail_ratio, median_last
from vision.places import board_median_bgr
from vision.board.geometry import project, rectify
from vision.image.gradients import sobel_magnitude
from vision.mats.ring_contrast import (GaussianClasses, board_lab, normalised_lab, ring_medians)
from vision.types import CalibrationShot, Photo, Reading
from scoring.seashells import BOX
from vision.confidence import confidence_percent

TOWEL_LABELS = ("shell", "empty")
BASKET_LABELS = ("fossil/head", "fossil/tail", "sand_dollar", "bottle")
LABELS = TOWEL_LABELS + BASKET_LABELS
#: Photos are decoded at 1/2 size (the pipeline scales the homography and registration reference).
DECODE_REDUCE = CFG.decode_reduce
#: state field of each basket label
COUNT_FIELDS = {"fossil/head": "fossil_heads", "fossil/tail": "fossil_tails", "sand_dollar": "sand_dollars",
                "bottle": "bottles"}
#: The learned model's format (2: noise-corrected towel features, calibration noise, shell colours).
MODEL_VERSION = 2
#: Confidence ceiling of a reading whose basket shows more items than the box holds.
IMPOSSIBLE_BASKET_CONFIDENCE = 0.2


def _inside_polygon(poly_mm, x: float, y: float) -> bool:
    import cv2
    return cv2.pointPolygonTest(np.asarray(poly_mm, np.float32).reshape(-1, 1, 2), (float(x), float(y)), False) >= 0


def _cell_name(k: int, rows: list[str], cols: list[str]) -> str:
    return f"{rows[k // len(cols)]}/{cols[k % len(cols)]}"


def _shell_colours(contrast, cells) -> np.ndarray:
    """Mean smoothed Lab of the shell pixels (ΔE from the ring > ``shell_pixel_de``) of some cells.

    Returns:
        float64 (len(cells), 3); NaN rows for cells without such pixels.
    """
    out = np.full((len(cells), 3), np.nan)
    for i, k in enumerate(cells):
        sel = contrast.core_de[k] > CFG.shell_pixel_de
        if sel.sum() >= 3:
            out[i] = contrast.core_lab[k][sel].mean(axis=0)
    return out


def _light_field(lab: np.ndarray, boxes: np.ndarray, cal_ring_lab) -> np.ndarray | None:
    """A smooth brightness gain field, float32 (H, W), that evens out uneven light; None when even.

    Every towel cell's ring (its own towel, around a shell) has a calibrated lightness: the ratio
    of calibrated to present luminance per cell, fitted robustly (a hand over a cell is left out)
    by a quadratic surface in log gain, is the light's low-frequency shape. Outside the towel the
    field is that at the towel's nearest edge.
    """
    if cal_ring_lab is None:
        return None
    cal_L = np.asarray(cal_ring_lab, np.float64)[:, 0]
    if len(cal_L) != len(boxes) or len(boxes) < 12:
        return None
    now_L = ring_medians(lab[..., :1], boxes, CFG.px_per_mm, CFG.ring_mm)[:, 0]
    lum = lambda L: ((np.maximum(L, 8.0) + 16.0) / 116.0) ** 3  # noqa: E731
    log_gain = np.log(lum(cal_L) / lum(now_L))
    x0, y0, x1, y1 = boxes[:, 0].min(), boxes[:, 1].min(), boxes[:, 2].max(), boxes[:, 3].max()
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hx, hy = (x1 - x0) / 2, (y1 - y0) / 2

    def design(x, y):
        u, v = (np.clip(x, x0, x1) - cx) / hx, (np.clip(y, y0, y1) - cy) / hy
        return np.stack([np.ones_like(u), u, v, u * u, v * v, u * v], axis=-1)

    A = design((boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2)
    keep = np.ones(len(boxes), bool)
    for _ in range(3):
        coef = np.linalg.lstsq(A[keep], log_gain[keep], rcond=None)[0]
        res = log_gain - A @ coef
        centre = float(median_last(res[keep]))
        mad = float(median_last(np.abs(res[keep] - centre)))
        keep = np.abs(res - centre) < max(4.0 * 1.4826 * mad, CFG.light_field_tol)
        if keep.sum() < 12:
            return None
    fitted = A @ coef
    if float(np.ptp(fitted)) < CFG.light_field_min_range:
        return None
    h, w = lab.shape[:2]
    ys, xs = (np.arange(h) + 0.5) / CFG.px_per_mm, (np.arange(w) + 0.5) / CFG.px_per_mm
    X, Y = np.meshgrid(xs, ys)
    g = np.exp((design(X, Y) @ coef) - float(median_last(fitted)))
    return np.clip(g, 0.4, 2.5).astype(np.float32)


def _straddling(contrast, occupied: np.ndarray, boxes: np.ndarray, n_cols: int) -> list[tuple[int, int]]:
    """Pairs of adjacent occupied cells that show one shell lying across their shared grid line.

    Each cell's shell pixels (ΔE from its ring > ``shell_pixel_de``) have a centroid in core
    coordinates (−1 … 1 from the core's centre to its edge). A shell centred in its cell sits near
    0; one lying across a line shows in both cells, in each near the shared edge.

    Returns:
        ``(keep, drop)`` cell pairs: ``keep`` holds more of the shell's pixels.
    """
    ppm = CFG.px_per_mm
    w = int(round(boxes[0, 2] * ppm)) - int(round(boxes[0, 0] * ppm))
    h = int(round(boxes[0, 3] * ppm)) - int(round(boxes[0, 1] * ppm))
    yy, xx = np.mgrid[0:h, 0:w] + 0.5
    inset = np.minimum(np.minimum(xx, w - xx), np.minimum(yy, h - yy)) / ppm
    ry, rx = np.nonzero(inset >= CFG.core_inset_mm)   # the core pixels' order in contrast.core_de
    half_x, half_y = max((rx.max() - rx.min()) / 2, 1), max((ry.max() - ry.min()) / 2, 1)
    rx = (rx - (rx.max() + rx.min()) / 2) / half_x
    ry = (ry - (ry.max() + ry.min()) / 2) / half_y
    n = len(occupied)
    mass, cx, cy = np.zeros(n), np.zeros(n), np.zeros(n)
    for k in np.flatnonzero(occupied):
        sel = contrast.core_de[k] > CFG.shell_pixel_de
        if sel.sum() >= 3:
            mass[k], cx[k], cy[k] = sel.sum(), rx[sel].mean(), ry[sel].mean()
    t = CFG.straddle_offset
    pairs, used = [], set()
    for a in np.flatnonzero(mass > 0):
        for b, pa, pb in ((a + 1, cx[a], cx[(a + 1) % n]), (a + n_cols, cy[a], cy[(a + n_cols) % n])):
            if b >= n or (b == a + 1 and b % n_cols == 0) or mass[b] == 0 or a in used or b in used:
                continue
            if pa > t and pb < -t:
                pairs.append((int(a), int(b)) if mass[a] >= mass[b] else (int(b), int(a)))
                used.update((int(a), int(b)))
    return pairs


def _check_samples(feats, labels, where, what: str) -> list[dict]:
    """Refuse a calibration sample that clearly belongs to another class (``bad-sample``, exit 2).

    An ``empty`` towel sample close to the broadened shell class but within
    ``CFG.bad_sample_clear_rms_z`` of the other empty cells may be a right label (an empty cell
    whose ring is a little uneven): it is kept, learned from and returned so that calibration names
    it; one farther from the empty cells is refused (a faint shell labelled empty).

    Args:
        feats: (N, F) the samples' features; labels: their labels; where: their (x, y) mm.
        what: ``"towel"`` or ``"basket"`` (which features and floor to use).
    Returns:
        the kept suspects, ``[{"label": str, "board_mm": [x, y], "looks_like": str}]``.
    """
    if what == "towel":
        def suspects(broad_own_rms_z: float) -> list[tuple[int, str]]:
            return GaussianClasses.mislabelled(feats, labels, CFG.towel_var_floor, CFG.bad_sample_llr,
                                               CFG.bad_sample_rms_z, broaden=("shell", "empty"),
                                               close_rms_z=CFG.bad_sample_close_rms_z,
                                               broad_own_rms_z=broad_own_rms_z)
        bad, maybe = suspects(CFG.bad_sample_clear_rms_z), suspects(0.0)
    else:
        bad = GaussianClasses.mislabelled(feats, labels, np.square(CFG.item_sd), CFG.bad_sample_llr,
                                          CFG.bad_sample_rms_z)
        maybe = bad
    if bad:
        i, other = bad[0]
        x, y = where[i]
        raise SampleError("bad-sample", [(labels[i], (x, y))], f"{sample_slot(0)} looks like {other!r}, not like "
                          f"the other {labels[i]!r} samples; check its label and point")
    return [{"label": labels[i], "board_mm": [round(float(where[i][0]), 2), round(float(where[i][1]), 2)],
             "looks_like": other} for i, other in maybe]


def learn(shot: CalibrationShot) -> dict:
    """Learn the towel's occupied/empty contrast and the basket's items from the calibration shot.

    Args:
        shot: calibration shot; its samples use the labels ``shell``, ``empty`` (at towel
            cells) and ``fossil/head``, ``fossil/tail``, ``sand_dollar``, ``bottle`` (in the basket).
    Returns:
        JSON-serialisable model: ``median_bgr``, ``towel`` (Gaussian classes of the
        noise-corrected contrast), ``basket``, ``detail_ratio`` (the board's sharpness, for the
        blur check), ``noise_sigma`` (its pixel noise, for the noise check), ``ring_power``
        (the towel's background noise), ``ring_lab`` (every cell's towel colour, Lab (R·C, 3),
        for the occlusion check), ``shell_colours`` (``[column, L, a, b]`` of every calibrated
        shell), ``outline`` (the pale columns' outline classes, :mod:`vision.seashells.outline`, or
        None), ``glared_cells`` (names of the pale columns' cells the shot shows blown out by a
        lamp's reflection, :func:`vision.seashells.columns.glared_shot_cells`; only when there are
        any). Learned from the shot shrunk by :data:`DECODE_REDUCE`, as scans see the board.
    Raises:
        BadInputError: ``unknown-label``, ``missing-label`` (no ``shell`` or no ``empty``),
            ``sample-off-place`` (a towel label off the towel, a basket label off the basket),
            ``sample-not-found`` (no item under a basket sample), ``bad-sample`` (a sample that
            clearly looks like another class: a wrong label), ``invalid-profile``.
    """
    profile = shot.request.profile
    samples = shot.request.samples
    check_labels(samples, LABELS, TOWEL_LABELS, "seashells")
    boxes, rows, cols = towel_geometry(profile)
    image, H = as_scanned(shot.image, shot.H_px_from_mm, DECODE_REDUCE)
    board = rectify(image, H, profile["board_mm"], CFG.px_per_mm)
    median = board_median_bgr(board)
    lab = board_lab(board)
    towel_idx, towel_labels, towel_where, basket_samples = [], [], [], []
    for label, (x, y) in samples:
        if label in TOWEL_LABELS:
            k = cell_of(boxes, x, y)
            if k is None:
                raise SampleError("sample-off-place", [(label, (x, y))], f"{sample_slot(0)} is not on a towel cell")
            towel_idx.append(k)
            towel_labels.append(label)
            towel_where.append((x, y))
        else:
            if not _inside_polygon(profile["basket_mm"], x, y):
                raise SampleError("sample-off-place", [(label, (x, y))], f"{sample_slot(0)} is not in the basket")
            basket_samples.append((label, (x, y)))
    contrast = towel_contrast(lab, boxes)
    feats, blown = contrast.features[towel_idx], blown_out_share(board, boxes, CFG.px_per_mm, CFG.core_inset_mm)
    refuse_blown_samples(blown[towel_idx], towel_labels, towel_where)
    doubted = _check_samples(feats, towel_labels, towel_where, "towel")
    # each cell's towel colour, robust to shells spilling into a ring: its colour column's median
    ring_lab = contrast.ring_lab.reshape(len(rows), len(cols), 3)
    ring_lab = np.broadcast_to(np.median(ring_lab, axis=0), ring_lab.shape).reshape(-1, 3)
    towel = phase_pooled_towel(image, H, profile["board_mm"], boxes, towel_idx, towel_labels, feats)
    shell_cells = [k for k, lab_ in zip(towel_idx, towel_labels) if lab_ == "shell"]
    colours = _shell_colours(contrast, shell_cells)
    shell_colours = [[int(k % len(cols)), *c.round(2).tolist()] for k, c in zip(shell_cells, colours)
                     if np.isfinite(c).all()]
    basket = None
    if basket_samples:
        basket = learn_basket(lab, profile["basket_mm"], CFG.px_per_mm, basket_samples, CFG)
        _check_samples(np.asarray(basket.pop("sample_features")), [lab_ for lab_, _ in basket_samples],
                       [xy for _, xy in basket_samples], "basket")
    L = np.ascontiguousarray(lab[..., 0])
    column_shells = column_shell_features(feats, towel_labels, np.asarray(towel_idx) % len(cols))
    glared = glared_shot_cells(blown, column_shells, len(cols))
    return {"median_bgr": np.asarray(median, float).round(2).tolist(), "towel": towel.to_json(), "basket": basket,
            "detail_ratio": round(detail_ratio(L, CFG.detail_sigma_px), 4),
            "noise_sigma": round(board_noise_sigma(L), 4), "ring_power": round(contrast.ring_power, 4),
            "ring_lab": ring_lab.round(2).tolist(), "shell_colours": shell_colours, "column_shells": column_shells,
            "outline": learn_outline(outline_contrast(lab, boxes)[towel_idx], towel_labels, towel_idx, column_shells,
                                     len(cols)),
            **({"doubted_samples": doubted} if doubted else {}),
            **({"glared_cells": [_cell_name(k, rows, cols) for k in glared]} if len(glared) else {})}


def _unlike_shells(contrast, occupied: np.ndarray, shell_colours, n_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Found shells whose colour is unlike every calibrated shell of their column.

    A shell lies on the towel column of its colour, so it must look like the calibrated shells of
    that column (columns without a calibrated shell are not judged: calibrate one shell of every
    colour). A hand, a stray object or a mirrored photo gives cells that differ from the towel
    but not in a shell's colour.

    Returns:
        ``(unlike, distance)``: bool (N,) and float64 (N,) ΔE to the nearest fitting calibrated
        shell colour (0 for cells not occupied, or without a colour model).
    """
    dist = np.zeros(len(occupied))
    if not shell_colours:
        return np.zeros(len(occupied), bool), dist
    ref = np.asarray(shell_colours, np.float64)
    cells = np.flatnonzero(occupied)
    colours = _shell_colours(contrast, cells)
    judged, offsets = [], []
    for k, c in zip(cells, colours):
        mine = ref[ref[:, 0] == k % n_cols, 1:]
        if not np.isfinite(c).all() or not len(mine):   # a column without a calibrated shell: unknown
            continue
        nearest = mine[int(np.argmin(((mine - c) ** 2).sum(axis=1)))]
        judged.append(k)
        offsets.append(c - nearest)
    if not judged:
        return np.zeros(len(occupied), bool), dist
    offsets = np.asarray(offsets)
    # light of another colour than at calibration moves every shell's colour alike (what the
    # grey-world correction left over): with enough shells, their median shift is taken off
    # (a hand over one or two cells does not move it; a mirrored photo's mismatches differ per shell)
    if len(judged) >= CFG.colour_shift_min_shells:
        offsets = offsets - median_last(offsets.T)            # np.median(offsets, axis=0)
    dist[judged] = np.sqrt((offsets ** 2).sum(axis=1))
    return dist > CFG.shell_colour_de, dist


def _board_lab(photo: Photo, boxes: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """The mat rectified at ``CFG.px_per_mm``, its light evened out, as normalised Lab, its noise
    sigma and every towel cell's blown-out share; refuses a photo too dark, blurred or noisy to
    read (glare is judged cell by cell: :func:`vision.seashells.columns.glared_cells`).

    Returns:
        ``(lab, sigma, blown)``: float32 (H, W, 3) Lab of the rectified mat, its grey noise sigma,
        float64 (R·C,) share of each cell's core blown out (:func:`vision.mats.checks.blown_out_share`).
    Raises:
        UnreadableBoardError: as :func:`read`.
    """
    model = photo.calibration.model
    H = photo.registration.H_px_from_mm
    board = rectify(photo.image, H, photo.calibration.profile["board_mm"], CFG.px_per_mm)
    check_photo(board, model["median_bgr"], min_L=CFG.min_board_L, glare=False)
    blown = blown_out_share(board, boxes, CFG.px_per_mm, CFG.core_inset_mm)
    lab = normalised_lab(board, model["median_bgr"])
    field = _light_field(lab, boxes, model.get("ring_lab"))
    if field is not None:
        # uneven light (a lamp to one side, a vignette): even it out before anything is judged
        board = np.clip(board.astype(np.float32) * field[..., None], 0, 255).astype(np.uint8)
        lab = normalised_lab(board, model["median_bgr"])
    L = np.ascontiguousarray(lab[..., 0])
    grad = sobel_magnitude(L)
    check_blur(detail_ratio(L, CFG.detail_sigma_px, grad), model.get("detail_ratio"), CFG.min_detail_share)
    sigma = board_noise_sigma(L)
    check_excess_noise(sigma, model.get("noise_sigma"), CFG.max_excess_noise)
    return lab, sigma, blown


def _read_basket(lab: np.ndarray, model: dict, profile: dict, warnings: list[str]) -> tuple[dict, list, float]:
    """Count the basket's items (capped at what the box holds); appends its warnings to ``warnings``.

    Returns:
        ``(counts, items, confidence)``: state field → count, the items found, their joint confidence.
    """
    counts = {f: 0 for f in COUNT_FIELDS.values()}
    items, item_conf = [], 1.0
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
    too_many = {f: n for f, n in counts.items() if n > BOX.get(f, n)}
    if too_many:
        # the box holds only so many: more blobs than that is a misreading (the basket's own colour
        # changed, e.g. under coloured light), never a count to report
        warnings.append("the basket seems to hold more than the box has (" + ", ".join(
            f"{n} {f.replace('_', ' ')} of {BOX[f]}" for f, n in too_many.items()) + "): its background looks "
            "unlike calibration (light very different from calibration?); counts capped, check them")
        for f in too_many:
            counts[f] = BOX[f]
        item_conf = min(item_conf, IMPOSSIBLE_BASKET_CONFIDENCE)
    return counts, items, item_conf


def _mat_state(setup: dict, rows: list[str], cols: list[str], shells: list, counts: dict) -> dict:
    """The contract's Seashells state of one mat: its player (``setup["player"]``, else ``"mat"``),
    shells and basket counts, with the setup's ``scoring`` and ``sun``."""
    player = setup.get("player") if isinstance(setup.get("player"), str) and setup.get("player") else "mat"
    state = {"game": "seashells", "shapes": rows, "colours": cols,
             "players": [{"player": player, "shells": shells, **counts}]}
    for key in ("scoring", "sun"):
        if key in setup:
            state[key] = setup[key]
    return state


def read(photo: Photo) -> Reading:
    """Read the shells on the towel and count the basket's items of one player's mat.

    Args:
        photo: registered photo of one mat.
    Returns:
        Reading whose state is the contract's Seashells state with one player (named from
        ``setup["player"]``, else ``"mat"``); ``details`` holds per-cell posteriors and the blobs.
    Raises:
        UnreadableBoardError: ``board-out-of-view`` (part of the mat outside the photo),
            ``too-dark``, ``glare``, ``too-blurred`` (fine detail far below the calibration's),
            ``too-noisy`` (pixel noise far above the calibration's), ``registration-lost`` (the
            found shells' colours do not match their columns: a mirrored photo or another mat),
            or ``occluded`` when several cells are covered (their towel colour changed since
            calibration), hold something unlike a calibrated shell, or look like neither a shell
            nor an empty cell. A single such cell only lowers the confidence.
    """
    cal = photo.calibration
    profile, model = cal.profile, cal.model
    boxes, rows, cols = towel_geometry(profile)
    lab, sigma, blown = _board_lab(photo, boxes)
    towel = GaussianClasses.from_json(model["towel"])
    contrast = towel_contrast(lab, boxes)
    feats = towel.clip_below(contrast.features, "empty")
    # noise or compression artefacts beyond the calibration's make an empty cell's corrected
    # contrast less certain: widen the empty class by the excess background noise (log ΔE units)
    excess = float(np.sqrt(max(contrast.ring_power - CFG.ring_power_tolerance * model.get("ring_power", np.inf),
                               0.0)))
    judge = towel
    if excess > 0:
        e = towel.classes.index("empty")
        variances = towel.variances.copy()
        variances[e, :2] += np.log1p(excess) ** 2
        judge = GaussianClasses(list(towel.classes), towel.means.copy(), variances)
    p_shell = towel_shell_posterior(judge, feats, lab, boxes, model, len(cols))
    occupied = p_shell > 0.5
    warnings: list[str] = []
    if excess >= 1.0:
        warnings.append(f"the photo is noisier than at calibration (towel background noise {contrast.ring_power:.1f} "
                        f"against {model['ring_power']:.1f} ΔE²: grain or strong JPEG compression); faint shells "
                        "are hard to tell from it")
    # a cell far from both classes (more than 4 sd on average from the nearest) looks like nothing learned
    rms_z = np.sqrt(judge.distances2(feats).min(axis=1) / feats.shape[1])
    ring_de, covered = covered_cells(contrast.ring_lab, model, occupied, len(cols))
    unlike, shell_de = _unlike_shells(contrast, occupied & ~covered, model.get("shell_colours"), len(cols))
    n_unlike, n_found = int(unlike.sum()), int(occupied.sum())
    if n_unlike >= CFG.layout_min_unlike and 2 * n_unlike >= n_found and not covered.any():
        raise UnreadableBoardError("registration-lost", f"{n_unlike} of the {n_found} shells found have colours "
                                   "unlike the calibrated shells of their colour columns; is the photo mirrored, "
                                   "is this another mat than the calibrated one, or is the light's colour very "
                                   "different from calibration?")
    far = rms_z > CFG.strange_rms_z
    strange = far | covered | unlike
    if strange.mean() > CFG.occluded_share or (covered | unlike).mean() >= CFG.covered_share:
        raise UnreadableBoardError("occluded", _occlusion_message(int(covered.sum()), int(unlike.sum()),
                                                                  int((far & ~covered & ~unlike).sum()), len(boxes)))
    glared = glared_cells(blown, occupied, model.get("column_shells"), len(cols))
    place_conf, doubted = place_confidence(p_shell, occupied, glared, blown, model.get("column_shells"), len(cols))
    for cells, what in ((covered, "whose towel colour changed since calibration (covered by something?)"),
                        (unlike, "holding something unlike the calibrated shells of their column (a hand, another "
                                 "object?)"),
                        (doubted, "blown out by glare (a pale shell there cannot be seen)")):
        if cells.any():
            place_conf = np.where(cells, np.minimum(place_conf, CFG.covered_conf), place_conf)
            warnings.append(f"towel cells {what}: " + ", ".join(
                _cell_name(k, rows, cols) + (f" (colour ΔE {shell_de[k]:.0f})" if cells is unlike else "")
                for k in np.flatnonzero(cells)))
    # one shell lying across a grid line shows in both cells: report it once, unsure of its place
    straddle = _straddling(contrast, occupied & ~covered, boxes, len(cols))
    for keep, drop in straddle:
        occupied[drop] = False
        place_conf[drop] = 1.0
        place_conf[keep] = min(place_conf[keep], CFG.straddle_conf)
    if straddle:
        warnings.append("shells lying across a grid line, counted once in the cell holding most of them: "
                        + ", ".join(f"{_cell_name(k, rows, cols)} (also in {_cell_name(d, rows, cols)})"
                                    for k, d in straddle))
    shells = [[rows[k // len(cols)], cols[k % len(cols)]] for k in np.flatnonzero(occupied)]
    unsure_cells = np.flatnonzero(place_conf < CFG.unsure_cell_conf)
    unsure = [_cell_name(k, rows, cols) for k in unsure_cells]
    if unsure:
        warnings.append("towel cells hard to read: " + ", ".join(unsure))
        # a cell the reader itself calls hard to read may be wrong: the reading is not sure
        place_conf[unsure_cells] = np.minimum(place_conf[unsure_cells], CFG.straddle_conf)
    counts, items, item_conf = _read_basket(lab, model, profile, warnings)
    state = _mat_state(photo.setup or {}, rows, cols, shells, counts)
    confidence = float(np.prod(place_conf) * item_conf)
    details = {"boxes_mm": boxes.tolist(), "p_shell": p_shell.round(4).tolist(), "occupied": occupied.tolist(),
               "ring_de": ring_de.round(2).tolist(), "strange": strange.tolist(), "unlike": unlike.tolist(),
               "straddling": [list(p) for p in straddle], "place_conf": place_conf.round(4).tolist(),
               "shapes": rows, "colours": cols, "counts": counts, "confidence": confidence,
               "blown": blown.round(3).tolist(), "glared": glared.tolist(), "covered": covered.tolist(),
               "noise": {"sigma": round(sigma, 3), "ring_power": round(contrast.ring_power, 3)},
               "items": [it.__dict__ for it in items]}
    return Reading(state=state, confidence=confidence, warnings=warnings, details=details)


def _occlusion_message(n_covered: int, n_unlike: int, n_far: int, n_cells: int) -> str:
    """Say what was measured when too many towel cells cannot be trusted, and the likely causes."""
    def cells(n: int) -> str:
        return f"{n} cell{'' if n == 1 else 's'}"

    parts = []
    if n_covered:
        parts.append(f"{cells(n_covered)}' towel colour changed since calibration")
    if n_unlike:
        parts.append(f"{cells(n_unlike)} {'holds' if n_unlike == 1 else 'hold'} something unlike the calibrated "
                     "shells of their column")
    if n_far:
        parts.append(f"{cells(n_far)} {'looks' if n_far == 1 else 'look'} unlike both a calibrated shell and an "
                     "empty cell")
    return (f"{'; '.join(parts)} (of {n_cells} towel cells) — a hand or something else over the mat, or light "
            "very different from calibration? Take the photo again with the view clear and the calibration's light")


def annotate(photo: Photo, reading: Reading) -> np.ndarray:
    """The photo with the reading drawn on it, at the photo's full size.

    Occupied towel cells are boxed (green; orange when unsure) and labelled with the shell's
    shape and colour (dark text on a light box, at the bottom of the cell); basket items are
    ringed and named; a title gives the basket counts and the reading's confidence.

    Returns:
        BGR uint8 image, the full-size photo's size (a photo decoded reduced is enlarged back).
    """
    img, H = annotation_canvas(photo)
    d = reading.details
    rows, cols = d.get("shapes", []), d.get("colours", [])
    labels = []
    for k, (box, occ, p) in enumerate(zip(d.get("boxes_mm", []), d.get("occupied", []), d.get("p_shell", []))):
        sure = (d["place_conf"][k] if "place_conf" in d else max(p, 1 - p)) >= CFG.unsure_cell_conf
        if occ or not sure:
            draw_box(img, H, np.asarray(box) + [3, 3, -3, -3], (0, 200, 0) if sure else (0, 140, 255))
        if occ and rows and cols:
            labels.append((box, [rows[k // len(cols)], cols[k % len(cols)] + ("" if sure else " ?")]))
    short = {"fossil/head": "head", "fossil/tail": "tail", "sand_dollar": "dollar", "bottle": "bottle"}
    for it in d.get("items", []):
        colour = (255, 255, 0) if it["confidence"] >= 0.5 else (0, 140, 255)
        draw_label(img, H, it["centre_mm"], "", colour, radius_px=12)
    # text last, so that no mark covers it; cell labels sized to fit a cell
    if labels:
        x0, y0, x1, _ = labels[0][0]
        cell_px = float(np.linalg.norm(np.diff(project(H, [[x0, y0], [x1, y0]]), axis=0)))
        scale = min(text_scale(img), max(0.3, cell_px / 190.0))
        for (bx0, by0, bx1, by1), text in labels:
            draw_caption(img, H, ((bx0 + bx1) / 2, by1 - 0.3 * (by1 - by0)), text, scale)
    for it in d.get("items", []):
        text = short.get(it["label"], it["label"]) + (f" x{it['count']}" if it["count"] > 1 else "") + \
            ("?" if it["confidence"] < 0.5 else "")
        cx, cy = it["centre_mm"]
        draw_caption(img, H, (cx, cy + 14), text, 0.7 * text_scale(img))
    counts = d.get("counts", {})
    conf = d.get("confidence", reading.confidence)
    draw_text_box(img, (8, 8), [
        f"Seashells - {sum(d.get('occupied', []))} shells - confidence {confidence_percent(conf)}%"
        + (" - unsure, check the warnings" if conf < 0.5 else ""),
        "basket: " + ", ".join(f"{n} {f.replace('_', ' ')}" for f, n in counts.items())])
    return img
