"""The towel's empty class learned over a pixel of the calibration's registration either way.

At 720p the towel is about 1.7 photo px per mm, 0.85 once decoded at
:data:`~vision.mats.config.SeashellsConfig.decode_reduce`, and rectified at 1.25 px per mm. Where
a cell's printed frame and weave land against its core and ring then hangs on the calibration's
corners to a pixel, and every scan registered to the calibration inherits it. A bare cell's
contrast features (above all its texture ratio) move with it, so an empty class learned from the
``empty`` samples at the shot's registration alone can miss how another column's bare cells look
(docs/tuning.md, "Hard pale columns hang on a pixel of the corners"). Here the ``empty`` samples
are also measured under the homography shifted by :data:`SHIFTS_PX` (decoded photo px) and
pooled, so the empty class spans what corners placed a pixel either way would show.
"""

from __future__ import annotations

import numpy as np

from vision.board.geometry import rectify
from vision.mats.config import SEASHELLS as CFG
from vision.mats.ring_contrast import GaussianClasses, board_lab
from vision.seashells.towel import towel_contrast

#: How far the calibration's registration may stand off, in decoded photo px: one px either way
#: (a corner clicked or found a pixel off; at 720p one decoded px is about 1.2 mm of towel).
SHIFT_PX = 1.0
#: The shifts (dx, dy) of the decoded photo, px, the empty samples are measured under: the
#: 3 × 3 grid of 0 and ±:data:`SHIFT_PX`, the shot's own registration left out (measured as shot).
SHIFTS_PX = tuple((i * SHIFT_PX, j * SHIFT_PX) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))


def shifted_features(image: np.ndarray, H_px_from_mm: np.ndarray, board_mm, boxes: np.ndarray,
                     cells) -> np.ndarray:
    """The towel contrast features of ``cells`` with the homography shifted by each of :data:`SHIFTS_PX`.

    Args:
        image: the decoded calibration shot, BGR uint8 (H, W, 3); H_px_from_mm: (3, 3) board mm →
        its px; board_mm: the board's (width, height) mm; boxes: (N, 4) towel cells x0, y0, x1, y1
        mm; cells: indices into ``boxes``.
    Returns:
        float64 (len(SHIFTS_PX)·len(cells), F), shift-major.
    """
    out = []
    for dx, dy in SHIFTS_PX:
        T = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
        lab = board_lab(rectify(image, T @ np.asarray(H_px_from_mm, np.float64), board_mm, CFG.px_per_mm))
        out.append(np.asarray(towel_contrast(lab, boxes).features, np.float64)[list(cells)])
    return np.concatenate(out) if out else np.zeros((0, 3))


def phase_pooled_towel(image: np.ndarray, H_px_from_mm: np.ndarray, board_mm, boxes: np.ndarray, towel_idx,
                       towel_labels, feats: np.ndarray) -> GaussianClasses:
    """The towel's classes learned from the samples as shot (:meth:`GaussianClasses.fit`, floored at
    ``towel_var_floor``), the ``empty`` class's variance then widened, per feature, to the mean
    squared distance from its mean of its samples measured under every shift of :data:`SHIFTS_PX`
    (its mean stays the shot's: scans registered to the calibration share its registration), and
    ``shell`` broadened toward ``empty`` (:meth:`~GaussianClasses.broadened`).

    Args:
        image, H_px_from_mm, board_mm, boxes: as :func:`shifted_features`; towel_idx: the labelled
        cells; towel_labels: their labels (``shell``/``empty``); feats: (len(towel_idx), F) their
        features as shot.
    """
    towel = GaussianClasses.fit(feats, towel_labels, CFG.towel_var_floor)
    empties = [k for k, label in zip(towel_idx, towel_labels) if label == "empty"]
    if empties:
        e = towel.classes.index("empty")
        shifted = shifted_features(image, H_px_from_mm, board_mm, boxes, empties)
        variances = towel.variances.copy()
        variances[e] = np.maximum(variances[e], np.mean((shifted - towel.means[e]) ** 2, axis=0))
        towel = GaussianClasses(list(towel.classes), towel.means.copy(), variances)
    return towel.broadened("shell", toward="empty")
