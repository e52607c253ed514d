"""The sand's fine light gains when some of its channels sit at the sensor's top.

Pale sand under a bright light photographs at the top of the 8-bit range in its warm channels
(red, often green): there the scan's value and the empty board's are both the clip level,
whatever the light did, so their ratio (1) says nothing of the light. Refined on such a channel,
the gains keep that channel unchanged while the unclipped ones follow the light: every piece
(unclipped) is then corrected with a colour cast that was never there (a warm cast when the scan
is brighter), the surround's colour no longer matches the calibration's and yellow pieces shift
toward the sand. :func:`fine_gains` refines on the sand only the channels that are (almost) nowhere
clipped in the empty-board shot; a clipped channel takes the table strip's colour ratio and the other
channels' refinement (the light's strength), not the clipped sand's ratio; :func:`keep_top` then
maps the top of the range onto the top, so the clipped bare sand still matches the empty board.
:func:`refine` takes those gains only when the sand's own leave the piece-free surround (table
and rails, unclipped) off by more than the light decision's width and these leave it less off,
and only for a scan brighter than the calibration (a darker one shows the sand below the top).

Measured on the development tables in ``docs/tuning.md`` ("A pale sand clipped at calibration");
``scripts/strand_clipped_sand.py`` prints the figures per scan.
"""

from __future__ import annotations

import numpy as np

from vision.strand_unter import stats


def fine_gains(sand_now: np.ndarray, sand_ref: np.ndarray, clipped_level: float,
               max_top_fraction: float = 0.1, gains=None) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel factors (3,) float64 that bring the bare sand of a scan onto the empty board.

    Args:
        sand_now: bare-sand pixels of the scan after the table strip's gains, float32 (N, 3) BGR.
        sand_ref: the same pixels in the empty-board shot, float32 (N, 3) BGR.
        clipped_level: grey level at or above which a channel is clipped.
        max_top_fraction: a channel clipped on more than this fraction of the pixels in the
            empty-board shot is clipped on the sand: its ratios are not the light's.
        gains: the gains (3,) already applied to ``sand_now`` (the table strip's), or None. When
            given, the clipped channels are treated only if the scan is brighter than the
            calibration (the unclipped channels' total gains below 1 on average): a darker scan
            shows the sand below the top, and the sand's ratio then maps the bare sand onto the
            empty board's clip level, which no gain above 1 keeps (as without this module).
    Returns:
        (factors (3,) float64, top (3,) bool). factors: for an unclipped channel, the median of
        ``ref / now`` over all the pixels (as without this module); for a clipped one, the
        geometric mean of the unclipped channels' factors (the light's strength over the strip's
        gains; 1 when every channel is clipped). top: the clipped channels.
    """
    now = np.asarray(sand_now, np.float32)
    ref = np.asarray(sand_ref, np.float32)
    out = np.ones(3, np.float64)
    top = np.zeros(3, bool)
    if len(now) == 0:
        return out, top
    for c in range(3):
        top[c] = float((ref[:, c] >= clipped_level).mean()) > max_top_fraction
        if not top[c]:
            out[c] = float(stats.median(ref[:, c] / np.maximum(now[:, c], 1.0)))
    if top.any() and not top.all():
        k = float(np.exp(np.mean(np.log(np.maximum(out[~top], 1e-3)))))
        g = None if gains is None else np.asarray(gains, np.float64)
        if g is not None and float(np.mean(np.log(np.maximum(g[~top] * out[~top], 1e-3)))) >= 0.0:
            for c in np.nonzero(top)[0]:                  # a darker scan: the sand's ratio, as before
                out[c] = float(stats.median(ref[:, c] / np.maximum(now[:, c], 1.0)))
            return out, np.zeros(3, bool)
        out[top] = k
    return out, top


def refine(strip: np.ndarray, sand_now: np.ndarray, sand_ref: np.ndarray, residual_of, cfg) -> tuple[np.ndarray, np.ndarray]:
    """The final per-channel gains (3,) float64 and the sand's clipped channels (3,) bool to map onto the top.

    The sand's gains (the strip's × the median ratio of the bare sand per channel, as before) are kept
    unless they leave the piece-free surround (``residual_of(gains)``, Lab units, e.g.
    :func:`vision.strand_unter.lighting.surround_residual`) more than ``cfg.sand_top_min_residual_ab``
    off — the light decision's width: a light the sand's gains do not explain — and the gains of
    :func:`fine_gains` (the clipped channels following the light) leave it less off.

    Args:
        strip: the gains already applied to ``sand_now`` (3,).
        sand_now, sand_ref: bare sand of the scan (after ``strip``) and of the empty board, float32 (N, 3) BGR.
        residual_of: callable (3,) gains → float, the surround's colour error under those gains.
        cfg: :class:`~vision.strand_unter.config.ReadingConfig` (``clipped_level``, ``sand_top_*``).
    """
    strip = np.asarray(strip, np.float64)
    ratio = sand_ref / np.maximum(sand_now, 1)
    gains = strip * np.array([stats.median(ratio[:, c]) for c in range(3)], ratio.dtype)   # (as before, bit for bit)
    now = np.asarray(sand_now, np.float32)
    ref = np.asarray(sand_ref, np.float32)
    none = np.zeros(3, bool)
    if cfg.sand_top_max_fraction >= 1.0:
        return gains, none
    fine, top = fine_gains(now, ref, cfg.clipped_level, cfg.sand_top_max_fraction,
                           strip if cfg.sand_top_brighter_only else None)
    if not top.any():
        return gains, none
    before = residual_of(gains)
    if before > cfg.sand_top_min_residual_ab and residual_of(strip * fine) < before:
        return strip * fine, top
    return gains, none


def keep_top(raw: np.ndarray, corrected: np.ndarray, channels: np.ndarray, top_level: float) -> np.ndarray:
    """The corrected image with the top of the range of the clipped ``channels`` mapped onto the top.

    A channel clipped on the sand in both photos reads the clip level whatever the light: the light's
    gain must not move it (the bare sand would no longer match the empty board). Below
    ``top_level`` a pixel keeps its corrected value; above it, its value goes linearly from the
    corrected value at ``top_level`` (the pixel's gain × ``top_level``) to 255 at 255 — continuous
    and increasing for any gain.

    Args:
        raw: the scan as photographed, uint8 (H, W, 3) BGR.
        corrected: ``raw`` under the calibration's light (gains, a field), uint8 (H, W, 3).
        channels: bool (3,), the channels to treat.
        top_level: grey level (0 < top_level < 255).
    Returns:
        uint8 (H, W, 3): ``corrected`` with the treated channels' top remapped (a new array when any channel is treated).
    """
    if not np.any(channels):
        return corrected
    out = corrected.copy()
    t = float(top_level)
    for c in np.nonzero(channels)[0]:
        v = raw[..., c].astype(np.float32)
        hi = (v > t) & (corrected[..., c] < raw[..., c])        # (a gain above 1 saturates the top anyway)
        if not hi.any():
            continue
        at_t = corrected[..., c][hi].astype(np.float32) * (t / v[hi])          # the pixel's gain × top_level
        new = at_t + (v[hi] - t) * (255.0 - at_t) / (255.0 - t)
        ch = out[..., c]
        ch[hi] = np.clip(np.rint(new), 0, 255).astype(np.uint8)
    return out
