"""How sure a towel cell's reading is: its posterior calibrated per kind of cell on development tables.

A towel cell's shell posterior (:mod:`vision.seashells.columns`, :mod:`vision.seashells.outline`) is
not equally honest for every kind of cell: on the development tables a vivid column's cell read
empty at p(shell) 0.1–0.3 was never wrong (its colour contrast shows a vivid shell plainly; a
doubtful empty one is uneven light), while a pale column's cell read as a shell at 0.9 sometimes
was (a faint false white shell). Each cell's *place confidence* is therefore the right share
(``(right + 1) / (cells + 2)``) of the development cells of its kind, pale or vivid column × read
empty or shell, in its band of posterior margin max(p, 1 − p), made non-decreasing in the margin
(:data:`FITTED`, written by ``scripts/fit_seashells_place_confidence.py``; docs/tuning.md,
Seashells). A cell whose place confidence stays below ``unsure_cell_conf`` is still "hard to read"
and caps the reading (:mod:`vision.seashells.reader`).

A band doubted by the raw rule (margin under ``unsure_cell_conf``) is lifted only where its development
cells show it right that often at 95 % one-sided confidence; otherwise it keeps that lower bound.

Glare: a pale column's empty-read cell blown out by a lamp's hot spot (``glared``) is doubted as
before, unless it is read clearly empty (margin ≥ ``unsure_cell_conf``) and blown out no more than
the most blown-out development cell in which a pale shell was still found (``seen_share``), and the
development cells show such cells right (``right``, None while too few show it): there the photo was
seen to show a shell. A cell blown out beyond it could hide a shell unseen, and stays doubted.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.mats.config import SEASHELLS as CFG
from vision.seashells.columns import pale_cells

#: The fitted place confidences (``fitted.json`` beside this module; empty: the raw margin is used).
FITTED_FILE = Path(__file__).with_name("fitted.json")
FITTED = json.loads(FITTED_FILE.read_text(encoding="utf-8")) if FITTED_FILE.exists() else {}
#: The kinds of towel cell, indexed by ``2 · vivid + read as a shell``.
KINDS = ("pale empty", "pale shell", "vivid empty", "vivid shell")


def cell_kinds(occupied: np.ndarray, pale: np.ndarray) -> np.ndarray:
    """Each cell's index into :data:`KINDS`, int (N,); ``occupied``, ``pale``: bool (N,)."""
    return 2 * (~np.asarray(pale, bool)).astype(int) + np.asarray(occupied, bool).astype(int)


def banded(margin: np.ndarray, kinds: np.ndarray, fitted: dict) -> np.ndarray:
    """The fitted right share of each cell's kind and margin band, float64 (N,).

    Args:
        margin: float (N,) max(p, 1 − p) in [0.5, 1]; kinds: int (N,) indices into :data:`KINDS`.
        fitted: ``{"edges": [0.5, …, 1.0], kind name: [share per band], …}``; a kind not fitted keeps its margin.
    """
    edges = np.asarray(fitted["edges"], np.float64)
    band = np.clip(np.searchsorted(edges, margin, side="right") - 1, 0, len(edges) - 2)
    out = np.asarray(margin, np.float64).copy()
    for i, name in enumerate(KINDS):
        if name in fitted:
            sel = kinds == i
            out[sel] = np.asarray(fitted[name], np.float64)[band[sel]]
    return out


def place_confidence(p_shell: np.ndarray, occupied: np.ndarray, glared: np.ndarray, blown: np.ndarray,
                     column_shells, n_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Every towel cell's place confidence and the glared cells still doubted (:func:`calibrated`), the
    pale columns told by the model's calibrated column shells (``column_shells``, C = ``n_cols``;
    :func:`vision.seashells.columns.pale_columns`)."""
    return calibrated(p_shell, occupied, pale_cells(column_shells, n_cols, len(p_shell)), glared, blown)


def calibrated(p_shell: np.ndarray, occupied: np.ndarray, pale: np.ndarray, glared: np.ndarray, blown: np.ndarray,
               fitted: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every towel cell's place confidence and the glared cells still doubted.

    Args:
        p_shell: float (N,) shell posteriors; occupied: bool (N,) cells read as a shell; pale: bool (N,)
            cells of a pale column; glared: bool (N,) glared cells (:func:`vision.seashells.columns.glared_cells`);
            blown: float (N,) share of each cell's core blown out (0–1).
        fitted: the fitted constants (default :data:`FITTED`); without ``place_confidence`` the raw margin
            is each cell's confidence and every glared cell stays doubted, as before the fit.
    Returns:
        ``(conf, doubted)``: float64 (N,) place confidences (0–1; glared cells not yet capped) and bool (N,)
        the glared cells to cap at ``covered_conf``.
    """
    fitted = FITTED if fitted is None else fitted
    p = np.asarray(p_shell, np.float64)
    margin = np.maximum(p, 1.0 - p)
    glared = np.asarray(glared, bool)
    bands, glare = fitted.get("place_confidence"), fitted.get("glare")
    if not bands:
        return margin, glared
    conf = banded(margin, cell_kinds(occupied, pale), bands)
    if not glare or glare.get("right") is None:
        return conf, glared
    seen = glared & (margin >= CFG.unsure_cell_conf) & (np.asarray(blown, np.float64) <= glare["seen_share"])
    conf[seen] = np.minimum(conf[seen], glare["right"])
    return conf, glared & ~seen
