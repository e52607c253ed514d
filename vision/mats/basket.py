"""Loose items in a tray (the Seashells basket): blobs against the tray's learned background.

Items in a basket have no places, so they are found rather than looked up:

1. the basket's background colour is learned at calibration (median Lab of the basket, which the
   few calibration items barely move) together with its typical colour noise;
2. at scan time the background is re-estimated from basket pixels near the learned colour
   (the light may have changed), every pixel far from it is foreground, and the mask is
   cleaned by a morphological opening and closing;
3. each 8-connected component is one item (Suzuki-style two-pass labelling,
   ``cv2.connectedComponentsWithStats``) and is classified by its learned appearance:
   mean Lab, lightness spread, log area (mm²) and elongation (log axis ratio from second moments,
   so the item's rotation does not matter).

Touching items make one larger blob; its count is estimated from its area and the reading is
flagged as uncertain.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import SampleError, sample_slot
from vision.mats.config import SEASHELLS, SeashellsConfig
from vision.image.quality import median_last
from vision.mats.ring_contrast import GaussianClasses

ITEM_FEATURES = ("L", "a", "b", "sd_L", "log_area_mm2", "log_elongation")


@dataclass
class Item:
    """One blob found in the basket.

    Attributes:
        label: learned class it resembles most (``fossil/head`` …).
        count: how many items the blob holds (more than 1 when touching items merged).
        centre_mm: (x, y) blob centroid in board mm.
        area_mm2: blob area.
        confidence: posterior of ``label`` in [0, 1], lowered for merged or unfamiliar blobs.
        rms_z: RMS standardised distance to the label's learned appearance.
    """

    label: str
    count: int
    centre_mm: tuple[float, float]
    area_mm2: float
    confidence: float
    rms_z: float


def polygon_mask(shape, polygon_mm, px_per_mm: float, inset_mm: float) -> np.ndarray:
    """uint8 (H, W) mask (255 inside) of a board polygon shrunk by ``inset_mm``."""
    mask = np.zeros(shape[:2], np.uint8)
    pts = np.round(np.asarray(polygon_mm, np.float64) * px_per_mm - 0.5).astype(np.int32)
    cv2.fillPoly(mask, [pts], 255)
    r = int(round(inset_mm * px_per_mm))
    if r > 0:
        mask = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    return mask


def _crop(lab: np.ndarray, polygon_mm, px_per_mm: float, margin_mm: float = 2.0):
    """The part of ``lab`` around a polygon: (crop, polygon in crop mm, (dx_mm, dy_mm) crop origin)."""
    poly = np.asarray(polygon_mm, np.float64)
    u0, v0 = np.maximum(np.floor((poly.min(axis=0) - margin_mm) * px_per_mm).astype(int), 0)
    u1, v1 = np.ceil((poly.max(axis=0) + margin_mm) * px_per_mm).astype(int)
    offset = np.array([u0, v0]) / px_per_mm
    return lab[v0:v1, u0:u1], poly - offset, offset


def _disc(radius_px: int) -> np.ndarray:
    r = max(int(radius_px), 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


def _background(lab_blur: np.ndarray, inside: np.ndarray, bg_lab, thr: float) -> np.ndarray:
    """The basket's background colour re-estimated from the photo: the median of the basket pixels
    near the learned one (``bg_lab`` itself when too few are), float32 (3,)."""
    px = lab_blur[inside]
    d = px - np.asarray(bg_lab, np.float32)
    near = np.einsum("nc,nc->n", d, d) < (2 * thr) ** 2
    if near.sum() > 0.1 * len(px):
        return median_last(px[near].T).astype(np.float32)
    return np.asarray(bg_lab, np.float32)


def _foreground(lab_blur: np.ndarray, mask: np.ndarray, bg_lab, bg_scale: float, px_per_mm: float,
                cfg: SeashellsConfig) -> tuple[np.ndarray, np.ndarray]:
    """Foreground mask (uint8 0/1) and the background colour used, re-estimated from the photo."""
    inside = mask > 0
    thr = max(cfg.basket_k * bg_scale, cfg.basket_floor_de)
    bg = _background(lab_blur, inside, bg_lab, thr)
    d = lab_blur - bg
    fg = ((np.einsum("hwc,hwc->hw", d, d) > thr * thr) & inside).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, _disc(round(cfg.basket_open_mm * px_per_mm)))
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, _disc(round(cfg.basket_close_mm * px_per_mm)))
    return fg & (mask > 0), bg


def _local_background(lab_blur: np.ndarray, mask: np.ndarray, bg, thr: float, px_per_mm: float,
                      cfg: SeashellsConfig) -> np.ndarray:
    """The basket's background colour at every pixel, float32 (H, W, 3), under uneven light.

    A lamp to one side or a vignette darkens one end of the basket: one background colour then
    makes its dark end "foreground" (phantom items) and shifts the items' colours. The background
    is averaged over ``basket_bg_sigma_mm`` around each pixel from the pixels near it (normalised
    convolution, items left out), twice: the second pass judges "near" against the first's map.
    """
    f = 4  # the light varies slowly: work at a quarter of the resolution (speed)
    h, w = lab_blur.shape[:2]
    sw, sh = max(w // f, 1), max(h // f, 1)
    small = cv2.resize(lab_blur, (sw, sh), interpolation=cv2.INTER_AREA)
    inside = cv2.resize(mask, (sw, sh), interpolation=cv2.INTER_AREA) > 200
    sigma = max(cfg.basket_bg_sigma_mm * px_per_mm / f, 1.0)
    local = np.broadcast_to(np.asarray(bg, np.float32), small.shape).copy()
    for _ in range(2):
        d = small - local
        near = ((np.einsum("hwc,hwc->hw", d, d) < (2 * thr) ** 2) & inside).astype(np.float32)
        if near.sum() < 0.1 * max(inside.sum(), 1):
            break
        den = cv2.GaussianBlur(near, (0, 0), sigma)
        num = cv2.GaussianBlur(small * near[..., None], (0, 0), sigma)
        ok = den > 0.05
        local = np.where(ok[..., None], num / np.maximum(den, 1e-6)[..., None], local).astype(np.float32)
    return cv2.resize(local, (w, h), interpolation=cv2.INTER_LINEAR)


def _foreground_local(lab_blur: np.ndarray, mask: np.ndarray, bg_lab, bg_scale: float, px_per_mm: float,
                      cfg: SeashellsConfig) -> tuple[np.ndarray, np.ndarray]:
    """Foreground mask (uint8 0/1) against the local background (:func:`_local_background`) and that map."""
    inside = mask > 0
    thr = max(cfg.basket_k * bg_scale, cfg.basket_floor_de)
    bg = _background(lab_blur, inside, bg_lab, thr)     # (what _foreground re-estimates; its mask is not needed)
    local = _local_background(lab_blur, mask, bg, thr, px_per_mm, cfg)
    d = lab_blur - local
    fg = ((np.einsum("hwc,hwc->hw", d, d) > thr * thr) & inside).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, _disc(round(cfg.basket_open_mm * px_per_mm)))
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, _disc(round(cfg.basket_close_mm * px_per_mm)))
    return fg & (mask > 0), local


def _blobs(lab: np.ndarray, fg: np.ndarray, px_per_mm: float, min_area_px: int):
    """Components of ``fg`` with their feature rows, float64 (M, 6), centroids in mm (M, 2), the
    label image, the kept components' labels and their bounding boxes (x, y, w, h)."""
    n, lbl, stats, cent = cv2.connectedComponentsWithStats(fg, connectivity=8)
    rows, centres, masks, boxes = [], [], [], []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if area < min_area_px:
            continue
        m = lbl[y:y + h, x:x + w] == i
        pix = lab[y:y + h, x:x + w][m]
        mom = cv2.moments(m.astype(np.uint8), binaryImage=True)
        cov = np.array([[mom["mu20"], mom["mu11"]], [mom["mu11"], mom["mu02"]]]) / max(mom["m00"], 1.0)
        ev = np.sort(np.linalg.eigvalsh(cov))
        elong = 0.5 * np.log(max(ev[1], 1e-6) / max(ev[0], 1e-6))
        rows.append([*pix.mean(axis=0), pix[:, 0].std(), np.log(area / px_per_mm ** 2), elong])
        centres.append(((cent[i][0] + 0.5) / px_per_mm, (cent[i][1] + 0.5) / px_per_mm))
        masks.append(i)
        boxes.append((x, y, w, h))
    return (np.array(rows, np.float64).reshape(-1, len(ITEM_FEATURES)), np.array(centres).reshape(-1, 2), lbl, masks,
            boxes)


def learn_basket(lab: np.ndarray, polygon_mm, px_per_mm: float, samples, cfg: SeashellsConfig = SEASHELLS) -> dict:
    """Learn the basket background and the appearance of each item kind.

    Args:
        lab: rectified, illumination-normalised calibration board in Lab, float32 (H, W, 3)
            (:func:`vision.mats.ring_contrast.board_lab`).
        polygon_mm: the basket outline, (P, 2) board mm.
        px_per_mm: resolution of ``lab``.
        samples: list of ``(label, (x_mm, y_mm))``, one per item lying in the basket.
    Returns:
        JSON-serialisable dict: background Lab and noise scale, per-class feature model, the
        learned item areas (mm²), the smallest blob to keep (mm²) and ``sample_features`` (each
        sample's feature row, :data:`ITEM_FEATURES`, in sample order: for checking the labels;
        a caller may drop it before saving).
    Raises:
        BadInputError: ``sample-not-found`` when no blob lies under a sample point.
    """
    lab, polygon_mm, offset = _crop(lab, polygon_mm, px_per_mm)
    mask = polygon_mask(lab.shape, polygon_mm, px_per_mm, cfg.basket_inset_mm)
    blur = cv2.GaussianBlur(lab, (0, 0), max(cfg.basket_blur_mm * px_per_mm, 0.5))
    inside = blur[mask > 0]
    bg = np.median(inside, axis=0)
    scale = float(np.median(np.sqrt(((inside - bg) ** 2).sum(axis=1))))
    fg, bg = _foreground(blur, mask, bg, scale, px_per_mm, cfg)
    feats, centres, lbl, ids, _ = _blobs(lab, fg, px_per_mm, min_area_px=4)
    rows, labels = [], []
    for label, (x, y) in samples:
        x, y = x - offset[0], y - offset[1]
        u, v = int(x * px_per_mm), int(y * px_per_mm)
        k = lbl[min(max(v, 0), lbl.shape[0] - 1), min(max(u, 0), lbl.shape[1] - 1)]
        if k == 0 or k not in ids:
            raise SampleError("sample-not-found", [(label, (x + offset[0], y + offset[1]))], f"{sample_slot(0)}: no "
                              "item stands out from the basket there; put the item on that point or fix the point")
        rows.append(feats[ids.index(k)])
        labels.append(label)
    model = GaussianClasses.fit(rows, labels, np.square(cfg.item_sd))
    areas = {c: float(np.exp(model.means[i, 4])) for i, c in enumerate(model.classes)}
    return {"background_lab": np.asarray(bg, float).round(3).tolist(), "background_scale": round(scale, 4),
            "items": model.to_json(), "area_mm2": areas,
            "min_area_mm2": cfg.min_item_share * min(areas.values()),
            "sample_features": np.asarray(rows, float).tolist()}


def find_items(lab: np.ndarray, model: dict, polygon_mm, px_per_mm: float,
               cfg: SeashellsConfig = SEASHELLS) -> list[Item]:
    """Find and classify the loose items in the basket of a scanned mat.

    Args:
        lab: rectified, illumination-normalised board in Lab, float32 (H, W, 3).
        model: the dict of :func:`learn_basket`.
        polygon_mm: the basket outline (P, 2) mm.
        px_per_mm: resolution of ``lab``.
    Returns:
        One :class:`Item` per blob, in reading order (left to right).
    """
    lab, polygon_mm, offset = _crop(lab, polygon_mm, px_per_mm)
    mask = polygon_mask(lab.shape, polygon_mm, px_per_mm, cfg.basket_inset_mm)
    blur = cv2.GaussianBlur(lab, (0, 0), max(cfg.basket_blur_mm * px_per_mm, 0.5))
    fg, local = _foreground_local(blur, mask, model["background_lab"], model["background_scale"], px_per_mm, cfg)
    feats, centres, lbl, ids, boxes = _blobs(lab, fg, px_per_mm,
                                             min_area_px=int(model["min_area_mm2"] * px_per_mm ** 2))
    if len(feats) == 0:
        return []
    # an item's colour under the light where it lies: shift it by how far the background there is
    # from the calibration's (uneven light darkens items and background alike)
    learned_bg = np.asarray(model["background_lab"], np.float64)
    for j, (i, (x, y, w, h)) in enumerate(zip(ids, boxes)):   # a blob's pixels lie in its bounding box
        feats[j, :3] -= local[y:y + h, x:x + w][lbl[y:y + h, x:x + w] == i].mean(axis=0) - learned_bg
    centres = centres + offset
    gc = GaussianClasses.from_json(model["items"])
    post = gc.posterior(feats)
    d2 = gc.distances2(feats)
    items = []
    for j in np.argsort(centres[:, 0]):
        k = int(post[j].argmax())
        label = gc.classes[k]
        area = float(np.exp(feats[j, 4]))
        ratio = area / model["area_mm2"][label]
        count, conf = 1, float(post[j, k])
        if ratio > cfg.merged_ratio:  # touching items: judge the kind by colour, the count by area
            colour_d2 = ((feats[j, None, :3] - gc.means[:, :3]) ** 2 / gc.variances[:, :3]).sum(axis=1)
            k = int(colour_d2.argmin())
            label = gc.classes[k]
            count = max(int(round(area / model["area_mm2"][label])), 1)
            conf = min(conf, 0.45)
        rms_z = float(np.sqrt(d2[j, k] / d2.shape[1]))
        if rms_z > cfg.item_max_rms_z and count == 1:
            conf = min(conf, 0.3)
        items.append(Item(label, count, (float(centres[j, 0]), float(centres[j, 1])), area, conf, rms_z))
    return items
