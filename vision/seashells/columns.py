"""Towel shells judged column by column: each colour column's shells look as they do in that column.

A shell's contrast with the towel depends on its colour column: a white shell on the white
column differs from its towel by a few ΔE where a violet one on the violet column differs by
tens. One shell class learned over every column is then so broad (and its density so thin) that
a faint shell of a faint column looks more like an empty cell than like a shell: on the rendered
tables of docs/tuning.md (Seashells) every missed towel shell was a white shell on the white
column. Here the calibration's shells are kept per column (:func:`column_shell_features`) and
each cell is judged against its own column's shells (:func:`column_posterior`). The same
calibrated shells say where glare can hide a shell (:func:`glared_cells`).
"""

from __future__ import annotations

import numpy as np

from vision.errors import UnreadableBoardError
from vision.mats.checks import ring_shift
from vision.mats.config import SEASHELLS as CFG
from vision.mats.ring_contrast import GaussianClasses


def column_shell_features(feats, labels, columns) -> list[list[float]]:
    """Mean contrast features of the calibrated shells of every colour column that has one.

    Args:
        feats: (N, F) the towel samples' contrast features; labels: N labels (``shell``/``empty``);
            columns: N colour-column indices of the samples' cells.
    Returns:
        ``[[column, f0, f1, …], …]`` sorted by column (JSON-serialisable), one row per column with a shell sample.
    """
    feats, labels, columns = np.asarray(feats, np.float64), np.asarray(labels), np.asarray(columns)
    shell = labels == "shell"
    return [[int(c), *feats[shell & (columns == c)].mean(axis=0).round(4).tolist()]
            for c in np.unique(columns[shell])]


def column_posterior(judge: GaussianClasses, feats: np.ndarray, column_shells, n_cols: int) -> np.ndarray:
    """Posterior that each towel cell holds a shell, judged against the shells of its own colour column.

    In every column with a calibrated shell, the shell class is centred
    on that column's calibrated shells (mean features) and spreads, per feature, as far as the
    empty class's mean (:meth:`GaussianClasses.broadened`), floored at ``towel_var_floor``; the
    empty class is the one learned over all columns. Columns without a calibrated shell keep the
    all-column shell class.

    Args:
        judge: the towel classes (``shell``, ``empty``), the empty class possibly widened for noise.
        feats: float64 (R·C, F) every cell's contrast features, row-major, clipped below at the empty mean.
        column_shells: ``[[column, f0, f1, …], …]`` the calibrated shells' mean features per column, or None.
        n_cols: number of colour columns C.
    Returns:
        float64 (R·C,) p(shell) per cell.
    """
    shell_k = judge.classes.index("shell")
    p_shell = judge.posterior(feats)[:, shell_k]
    column = np.arange(len(feats)) % n_cols
    for c, *mean in column_shells or []:
        means, variances = judge.means.copy(), judge.variances.copy()
        means[shell_k] = mean
        variances[shell_k] = CFG.towel_var_floor
        own = GaussianClasses(list(judge.classes), means, variances).broadened("shell", toward="empty")
        sel = column == int(c)
        p_shell[sel] = own.posterior(feats[sel])[:, shell_k]
    return p_shell


def level_columns(judge: GaussianClasses, feats: np.ndarray, column_shells, n_cols: int) -> np.ndarray:
    """Every colour column's cells with this photo's look of an empty cell of that column taken off.

    Under some light a coloured column's empty cells differ from their ring by a few ΔE (the
    towel's tint and grid lines under a warmer or dimmer lamp than at calibration), and look like
    faint shells. A column is mostly empty, so its faint cells show how its empty cells look in
    this photo: the contrast features 0 and 1 at ``column_empty_quantile`` of the column's cells,
    above the empty class's mean, are taken off the column's cells, at most ``column_shift_cap``
    of the way to the column's calibrated shells. A pale column (:func:`pale_columns`: its
    shells barely differ from its towel, or it has no calibrated shell) is left as it is: a
    column full of its faint shells would look like raised empty cells.

    Args:
        judge: the towel classes (``shell``, ``empty``); feats: float64 (R·C, F) every cell's
            contrast features, row-major, clipped below at the empty mean; column_shells: as
            :func:`column_posterior`; n_cols: C.
    Returns:
        float64 (R·C, F): the levelled features, clipped below at the empty mean again.
    """
    feats = np.array(feats, np.float64)
    empty = judge.means[judge.classes.index("empty")]
    own = {int(c): np.asarray(mean, np.float64) for c, *mean in column_shells or []}
    column = np.arange(len(feats)) % n_cols
    for c in np.flatnonzero(~pale_columns(column_shells, n_cols)):
        sel = column == c
        base = np.quantile(feats[sel, :2], CFG.column_empty_quantile, axis=0)
        cap = CFG.column_shift_cap * np.maximum(own[c][:2] - empty[:2], 0.0)
        feats[sel, :2] -= np.clip(base - empty[:2], 0.0, cap)
    return judge.clip_below(feats, "empty")


def pale_columns(column_shells, n_cols: int) -> np.ndarray:
    """Colour columns whose shells barely differ from their towel, bool (C,).

    A column is pale when its calibrated shells' mean ΔE from their towel over the cell's core
    (``expm1`` of contrast feature 0) is below ``shell_pixel_de``, the ΔE that marks a pixel as a
    shell's; a column without a calibrated shell is unknown, so counted pale.
    """
    pale = np.ones(n_cols, bool)
    for c, f0, *_ in column_shells or []:
        pale[int(c)] = float(np.expm1(f0)) < CFG.shell_pixel_de
    return pale


def pale_cells(column_shells, n_cols: int, n_cells: int) -> np.ndarray:
    """bool (n_cells,): the row-major towel cells of :func:`pale_columns`."""
    return pale_columns(column_shells, n_cols)[np.arange(n_cells) % n_cols]


def glared_cells(blown: np.ndarray, occupied: np.ndarray, column_shells, n_cols: int) -> np.ndarray:
    """Towel cells read empty that may hide a shell lost in glare, bool (R·C,).

    A lamp's hot spot blows out the pale towel (every channel saturated) while a coloured shell on
    it keeps its colour: only a pale column's shell (:func:`pale_columns`) vanishes with the
    towel. So a cell read empty whose core is blown out beyond ``glare_cell_share`` in a pale
    column is doubted; the photo is refused when more than ``glare_refuse_share`` of the pale
    columns' cells are blown out beyond ``glare_lost_share``.

    Args:
        blown: float64 (R·C,) share of each cell's core blown out; occupied: bool (R·C,) cells read
            as holding a shell; column_shells: as :func:`column_posterior`; n_cols: C.
    Raises:
        UnreadableBoardError: ``glare``.
    """
    blown = np.asarray(blown, np.float64)
    pale = pale_cells(column_shells, n_cols, len(blown))
    refuse_lost_towel(blown, pale)
    return pale & (blown > CFG.glare_cell_share) & ~occupied


def refuse_lost_towel(blown: np.ndarray, pale: np.ndarray, what: str = "") -> None:
    """Refuse a photo (or, with ``what`` = ``"the calibration shot: "``, a calibration shot) in which
    more than ``glare_refuse_share`` of the pale columns' cells are blown out beyond ``glare_lost_share``.

    Args:
        blown: float64 (R·C,) share of each cell's core blown out; pale: bool (R·C,) cells of pale
            columns; what: the message's prefix.
    Raises:
        UnreadableBoardError: ``glare``.
    """
    lost = pale & (np.asarray(blown, np.float64) > CFG.glare_lost_share)
    if lost.sum() > CFG.glare_refuse_share * pale.sum():
        raise UnreadableBoardError("glare", f"{what}{int(lost.sum())} towel cells of pale shells are blown out by "
                                   "glare; move the lamp or shade the board, or lower the camera's exposure"
                                   + ("; take it again" if what else ""))


def refuse_blown_samples(blown: np.ndarray, labels: list[str], where_mm: list) -> None:
    """Refuse a calibration shot whose labelled towel sample is blown out beyond ``glare_lost_share``
    (its colour is lost, so nothing can be learned from it).

    Args:
        blown: float64 (S,) share of each sample's cell core blown out; labels: (S,) the samples'
            labels; where_mm: (S,) their ``(x, y)`` board mm.
    Raises:
        UnreadableBoardError: ``glare``.
    """
    for share, label, (x, y) in zip(np.asarray(blown, np.float64), labels, where_mm):
        if share > CFG.glare_lost_share:
            raise UnreadableBoardError("glare", f"the calibration shot: the {label!r} sample at {x:g},{y:g} mm is blown "
                                       "out by glare; move the lamp or shade the board, or lower the camera's "
                                       "exposure; take it again")


def glared_shot_cells(blown: np.ndarray, column_shells, n_cols: int) -> np.ndarray:
    """Indices of the calibration shot's towel cells of pale columns (:func:`pale_columns`) whose core
    is blown out beyond ``glare_cell_share``: a lamp's reflection on the pale towel, where a pale shell
    may be lost in every photo of this table (said at calibration, docs/light-check.md).

    Raises:
        UnreadableBoardError: ``glare``, when the shot has lost the pale towel as a scan's
            :func:`refuse_lost_towel` would refuse it.
    """
    pale = pale_cells(column_shells, n_cols, len(blown))
    refuse_lost_towel(blown, pale, "the calibration shot: ")
    return np.flatnonzero(pale & (np.asarray(blown, np.float64) > CFG.glare_cell_share))


def covered_cells(ring_lab, model: dict, occupied: np.ndarray, n_cols: int) -> tuple[np.ndarray, np.ndarray]:
    """``(ring_de, covered)``, float64 and bool (R·C,): each towel cell's ring change since
    calibration (ΔE beyond the board-wide change, :func:`vision.mats.checks.ring_shift`; ``ring_lab``
    (R·C, 3) the rings' Lab now) and the cells covered: changed beyond ``ring_change_de``. A hand
    over a cell looks uniform, like an empty cell, but not like *this* cell's towel; a ring its
    column's own shells spill into is not covered (:func:`shell_spill`)."""
    moved = ring_shift(ring_lab, model.get("ring_lab"))
    ring_de = np.linalg.norm(moved, axis=1)
    spilled = shell_spill(moved, model.get("ring_lab"), model.get("shell_colours"), occupied, n_cols)
    return ring_de, (ring_de > CFG.ring_change_de) & ~spilled


def shell_spill(moved: np.ndarray, reference_lab, shell_colours, occupied: np.ndarray, n_cols: int) -> np.ndarray:
    """Towel cells whose ring changed since calibration (beyond ``ring_change_de``) only by their
    column's shells spilling into it, bool (R·C,).

    A shell larger than its cell's core covers part of its own ring and of the rings of the cells
    above and below it in its colour column; such a ring moves from its calibrated towel colour
    straight toward the colour of that column's shells. A hand or another object moves it
    elsewhere. A cell is spilled into when its ring lies within ``spill_residual_de`` of the
    segment from its calibrated ring colour to one of its column's calibrated shell colours
    (:func:`spill_residual`), and either a cell above or below it holds a shell whose own ring kept
    its colour, or it holds a shell itself and none of its four neighbours' rings changed (a hand
    changes every ring it covers).

    Args:
        moved: float64 (R·C, 3) each cell's ring change beyond the board-wide one
            (:func:`vision.mats.checks.ring_shift`); reference_lab: the rings' Lab at calibration
            (or None); shell_colours: ``[[column, L, a, b], …]`` the calibrated shells' colours (or
            None); occupied: bool (R·C,) cells read as holding a shell; n_cols: C.
    """
    spilled = np.zeros(len(moved), bool)
    if reference_lab is None or not shell_colours:
        return spilled
    ref = np.asarray(reference_lab, np.float64).reshape(np.shape(moved))
    changed = np.linalg.norm(moved, axis=1) > CFG.ring_change_de
    # a spilling shell's own ring keeps its colour: a hand changes the rings around it too
    source = np.asarray(occupied, bool) & ~changed
    near_shell = np.zeros(len(moved), bool)
    near_shell[n_cols:] |= source[:-n_cols]
    near_shell[:-n_cols] |= source[n_cols:]
    # a shell larger than its core spills into its own ring too: then no neighbour's ring changed
    # (a hand is wider than a cell and changes the rings around it)
    own = np.asarray(occupied, bool) & changed & ~_beside(changed, n_cols)
    for k in np.flatnonzero((near_shell | own) & changed):
        spilled[k] = spill_residual(moved[k], ref[k], shell_colours, k % n_cols) < CFG.spill_residual_de
    return spilled


def _beside(cells: np.ndarray, n_cols: int) -> np.ndarray:
    """Bool (R·C,): the cells with one of ``cells`` (bool (R·C,), row-major) above, below, left or right."""
    grid = np.asarray(cells, bool).reshape(-1, n_cols)
    out = np.zeros_like(grid)
    out[1:] |= grid[:-1]
    out[:-1] |= grid[1:]
    out[:, 1:] |= grid[:, :-1]
    out[:, :-1] |= grid[:, 1:]
    return out.ravel()


def spill_residual(moved: np.ndarray, reference: np.ndarray, shell_colours, column: int) -> float:
    """ΔE from a ring's change (``moved``, Lab (3,)) to the nearest segment from its calibrated
    colour (``reference``, Lab (3,)) toward a calibrated shell colour of its ``column``
    (``shell_colours``: ``[[column, L, a, b], …]``); infinite when the column has none."""
    colours = np.asarray(shell_colours or [], np.float64).reshape(-1, 4)
    best = np.inf
    for shell in colours[colours[:, 0] == column, 1:]:
        toward = shell - reference
        t = np.clip(np.dot(moved, toward) / max(float(np.dot(toward, toward)), 1e-9), 0.0, 1.0)
        best = min(best, float(np.linalg.norm(moved - t * toward)))
    return best
