"""How well each colour column's shells stand out from its bare towel on the calibration shot.

The reader judges every towel cell against the shells of its own colour column and the empty
class learned from the calibration's ``empty`` samples (:mod:`vision.seashells.columns`). Under
some lights a column's bare towel itself looks unlike the learned empty cells (its weave or tint
shows as contrast and texture; on the development tables the pink and orange columns under a warm,
dim lamp): then every empty cell of that column looks half like a shell and the scans read it
wrong or call it hard to read. The calibration shot shows it before the first game: it is judged
here cell by cell as a scan would judge it (:func:`shot_shell_posterior`), and each column's *bare
towel doubt* (:func:`bare_towel_doubt`) is the median shell posterior of its cells that are not
labelled shells, 0 when its bare towel is plainly empty, 0.5 when the reader cannot tell it from a
shell. A column whose doubt exceeds the threshold fitted by ``scripts/fit_confusable.py
--seashells-columns`` (``calibration/confusable.json``, ``column_doubt``) is named by
the calibration's light check (:mod:`calibration.light_check`; docs/light-check.md).

Input: the calibration shot (undistorted BGR uint8) with its homography board mm → px, the
profile, the labelled samples and the model the reader learned from them.
"""

from __future__ import annotations

import numpy as np

from vision.board.geometry import rectify
from vision.mats.checks import as_scanned
from vision.mats.config import SEASHELLS as CFG
from vision.mats.ring_contrast import GaussianClasses, board_lab
from vision.seashells.reader import DECODE_REDUCE
from vision.seashells.towel import cell_of, towel_contrast, towel_geometry, towel_shell_posterior


def shot_lab(profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray) -> np.ndarray:
    """The mat of the calibration shot as the reader learned from it: shrunk as scans are decoded
    (:data:`~vision.seashells.reader.DECODE_REDUCE`), rectified at ``px_per_mm``, Lab float32 (H, W, 3).

    Args:
        profile: the mat profile; image: calibration shot BGR uint8 (H, W, 3); H_px_from_mm: (3, 3) board mm → px.
    """
    small, H = as_scanned(image, H_px_from_mm, DECODE_REDUCE)
    return board_lab(rectify(small, H, profile["board_mm"], CFG.px_per_mm))


def labelled_cells(profile: dict, samples) -> list[tuple[int, str]]:
    """``(cell index, label)`` of every towel sample (``shell``/``empty``) on a towel cell, cells row-major.

    Args:
        profile: the mat profile; samples: ``(label, (x_mm, y_mm))``.
    """
    boxes, _, _ = towel_geometry(profile)
    cells = [(cell_of(boxes, x, y), label) for label, (x, y) in samples if label in ("shell", "empty")]
    return [(k, label) for k, label in cells if k is not None]


def shot_shell_posterior(profile: dict, lab: np.ndarray, model: dict) -> np.ndarray:
    """p(shell) of every towel cell of the calibration shot, judged as a scan judges its cells: the
    contrast clipped at the empty mean, each column levelled, each cell against its own column's
    shells, a pale column's cell with its outline (:func:`vision.seashells.reader.read`; the shot's
    own noise is the calibration's, so the empty class is not widened).

    Args:
        profile: the mat profile; lab: :func:`shot_lab`; model: the reader's learned model.
    Returns:
        float64 (R·C,), row-major (row = shape, column = colour).
    """
    boxes, _, cols = towel_geometry(profile)
    judge = GaussianClasses.from_json(model["towel"])
    feats = judge.clip_below(towel_contrast(lab, boxes).features, "empty")
    return towel_shell_posterior(judge, feats, lab, boxes, model, len(cols))


def bare_towel_doubt(p_shell: np.ndarray, shell_cells, n_cols: int) -> np.ndarray:
    """Each colour column's bare towel doubt: the median p(shell) of its cells not labelled ``shell``.

    A median, so that a shell standing unlabelled in a column (a cell or two of its R) does not
    count as doubt.

    Args:
        p_shell: float64 (R·C,) the shot's cells' shell posterior (:func:`shot_shell_posterior`);
        shell_cells: indices of the cells labelled ``shell``; n_cols: C.
    Returns:
        float64 (C,) in [0, 1]; NaN for a column with every cell labelled a shell.

    >>> bare_towel_doubt(np.array([0.0, 0.3, 1.0, 0.4, 0.0, 0.2]), [2], 2).round(2).tolist()
    [0.0, 0.3]
    """
    p = np.asarray(p_shell, np.float64)
    bare = np.ones(len(p), bool)
    bare[list(shell_cells)] = False
    column = np.arange(len(p)) % n_cols
    return np.array([np.median(p[bare & (column == c)]) if (bare & (column == c)).any() else np.nan
                     for c in range(n_cols)])


def column_doubts(profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray, samples, model: dict) -> list[dict]:
    """Every colour column's bare towel doubt on the calibration shot (:func:`bare_towel_doubt`).

    Args:
        profile: the mat profile; image: calibration shot, BGR uint8 (H, W, 3) (undistorted);
        H_px_from_mm: (3, 3) board mm → its px; samples: ``(label, (x_mm, y_mm))``; model: the reader's model.
    Returns:
        ``[{"column": name, "doubt": float, "empty_samples": int, "bare_cell_mm": [x, y]}]`` in the
        profile's column order (``empty_samples``: the column's cells labelled ``empty``;
        ``bare_cell_mm``: the centre of its unlabelled cell that looks most plainly bare, where an
        ``empty`` sample can go; a column without a bare cell left out).
    """
    boxes, _, cols = towel_geometry(profile)
    p_shell = shot_shell_posterior(profile, shot_lab(profile, image, H_px_from_mm), model)
    labelled = labelled_cells(profile, samples)
    doubt = bare_towel_doubt(p_shell, [k for k, label in labelled if label == "shell"], len(cols))
    empties = np.bincount([k % len(cols) for k, label in labelled if label == "empty"], minlength=len(cols))
    free = np.ones(len(p_shell), bool)
    free[[k for k, _ in labelled]] = False
    out = []
    for c, (name, d, n) in enumerate(zip(cols, doubt, empties)):
        if not np.isfinite(d):
            continue
        mine = np.flatnonzero(free & (np.arange(len(p_shell)) % len(cols) == c))
        entry = {"column": name, "doubt": round(float(d), 4), "empty_samples": int(n)}
        if len(mine):
            k = int(mine[np.argmin(p_shell[mine])])
            entry["bare_cell_mm"] = [round(float(boxes[k, 0] + boxes[k, 2]) / 2, 1), round(float(boxes[k, 1] + boxes[k, 3]) / 2, 1)]
        out.append(entry)
    return out


def towel_samples(profile: dict, image: np.ndarray, H_px_from_mm: np.ndarray, samples, model: dict) -> dict:
    """The calibration shot's towel as measured, for development scripts: every cell's contrast
    features (R·C, F), its shell posterior (R·C,), and the labelled cells."""
    boxes, _, _ = towel_geometry(profile)
    lab = shot_lab(profile, image, H_px_from_mm)
    return {"features": np.asarray(towel_contrast(lab, boxes).features, np.float64).round(4).tolist(),
            "p_shell": shot_shell_posterior(profile, lab, model).round(4).tolist(),
            "labelled": labelled_cells(profile, samples)}
