"""A rigid motion of the board in its plane (shift x, y, rotation) from the strips' measured shifts,
robust to the strips a cloth, a hand or a piece against the rail disturbs: trimmed least squares,
then iteratively re-weighted least squares with Tukey's biweight.
"""

from __future__ import annotations

import numpy as np

from vision.strand_unter import stats
from vision.strand_unter.config import REGISTRATION


def tukey(z: np.ndarray, c: float = 4.685) -> np.ndarray:
    """Tukey's biweight loss ρ(z) (Beaton & Tukey 1974), scaled so that ρ ≈ z² near 0 and c²/3 beyond c."""
    z = np.asarray(z, np.float64)
    inside = np.abs(z) < c
    out = np.full(z.shape, c * c / 3.0)
    u = (z[inside] / c) ** 2
    out[inside] = c * c / 3.0 * (1.0 - (1.0 - u) ** 3)
    return out


def robust_motion(rows: np.ndarray, rhs: np.ndarray, cfg=REGISTRATION) -> tuple[np.ndarray, np.ndarray, float]:
    """The board's motion (tx, ty, θ) from the strips' shifts, robustly.

    Least squares with the worst strips trimmed twice as a start, then iteratively re-weighted least
    squares with Tukey's biweight (Holland & Welsch 1977) at the strips' robust noise σ (1.4826 ×
    the median absolute residual, at least ``cfg.shift_noise_floor_mm``): a strip the cloth, a hand
    or a piece against the rail disturbs gets no weight.

    Args:
        rows: float (n, 3) the strips' equations (δx = tx − θ (y − cy), δy = ty + θ (x − cx));
        rhs: float (n,) their measured shifts (mm).
    Returns:
        (solution (3,), inliers bool (n,) (|residual| < 2.5 σ), σ in mm).
    """
    keep = np.ones(len(rows), bool)
    for _ in range(2):
        sol, *_ = np.linalg.lstsq(rows[keep], rhs[keep], rcond=None)
        res = np.abs(rows @ sol - rhs)
        keep = res < max(cfg.max_residual_mm, 2.5 * stats.median(res))
        if keep.sum() < 4:
            return sol, keep, cfg.shift_noise_floor_mm
    sigma = cfg.shift_noise_floor_mm
    for _ in range(5):
        r = rows @ sol - rhs
        sigma = max(1.4826 * stats.median(np.abs(r[keep])), cfg.shift_noise_floor_mm)
        z = r / (4.685 * sigma)
        w = np.where(np.abs(z) < 1, (1 - z * z) ** 2, 0.0)
        if (w > 0).sum() < 4:
            break
        sw = np.sqrt(w)
        sol, *_ = np.linalg.lstsq(rows * sw[:, None], rhs * sw, rcond=None)
    r = rows @ sol - rhs
    return sol, np.abs(r) < 2.5 * sigma, sigma
