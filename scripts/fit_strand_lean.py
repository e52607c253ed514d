#!/usr/bin/env python3
"""Fit how much larger a Strand unter castle's radii look far from the camera's nadir (the lean).

    .venv/bin/python scripts/fit_strand_lean.py ROWS.jsonl --fit FOLDER_NAME [...] [--write vision/strand_unter/fitted.json]

``ROWS.jsonl``: the rows of ``scripts/strand_castle_value_misses.py --dump`` (every castle read with
a value whose player the truth has in its groove, with its cues, the model's radii per value, its
distance from the nadir, the camera's height and the calibration castles' mean view tangent).
``--fit`` names the folders (basenames) fitted on; every other folder in the file is held out.

For each castle, with t = its distance from the nadir / the camera's height − the calibration
castles' mean of that (:func:`vision.strand_unter.castle_values.view_tan`), the residual
log(measured radius / the model's radius for its TRUE value) is regressed on t (with an intercept,
reported: near 0 when the calibration's mean tangent is the right reference), for the platform and
for the footprint. The fit is iteratively reweighted least squares with Huber weights at 1.5 robust
σ (a castle a neighbour or a hand upset does not pull the slope). The slopes are
:class:`vision.strand_unter.config.CastleConfig` ``lean_platform`` and ``lean_footprint``.

It also prints, for the fitted and the held-out folders, Σ log P(value as read is right) and the
number of wrong values when each castle's value posterior is rebuilt alone (no one-castle-per-value
assignment: a check of direction, not the reader's numbers) without and with the slopes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from strand_scenes import fit_and_held  # noqa: E402
from vision.strand_unter.castle_values import size_loglik  # noqa: E402


def rel_tan(r: dict) -> float:
    """The row's view tangent less the calibration castles' mean (0 without a camera height)."""
    if not r.get("camera_mm") or r.get("cal_tan") is None or r.get("lever_mm") is None:
        return 0.0
    return r["lever_mm"] / r["camera_mm"] - r["cal_tan"]


def robust_slope(t: np.ndarray, y: np.ndarray, k: float = 1.5, iters: int = 10) -> tuple[float, float, float]:
    """(slope, intercept, robust σ of the residuals) of y on t: Huber IRLS at ``k`` × 1.4826·MAD.

    >>> t = np.linspace(-0.1, 0.2, 50); s, i, _ = robust_slope(t, 0.2 * t + 0.01); round(s, 3), round(i, 3)
    (0.2, 0.01)
    """
    A = np.c_[t, np.ones_like(t)]
    b = np.linalg.lstsq(A, y, rcond=None)[0]
    s = 0.0
    for _ in range(iters):
        res = y - A @ b
        s = max(1.4826 * float(np.median(np.abs(res - np.median(res)))), 1e-9)
        w = np.sqrt(np.minimum(1.0, k * s / np.maximum(np.abs(res), 1e-12)))
        b = np.linalg.lstsq(A * w[:, None], y * w, rcond=None)[0]
    return float(b[0]), float(b[1]), s


def alone_posterior(r: dict, lean_p: float, lean_f: float) -> np.ndarray:
    """One castle's value posterior (n_values,) from its platform, footprint and tower terms alone."""
    t = rel_tan(r)
    lp = size_loglik(r["platform_px"], r["platform_se_px"], np.array(r["platform_model"]) * np.exp(lean_p * t),
                     r["sigma_log"]["platform"])
    lf = size_loglik(r["footprint_px"], r["footprint_se_px"], np.array(r["footprint_model"]) * np.exp(lean_f * t),
                     r["sigma_log"]["footprint"])
    ll = lp + lf + np.array(r["ll_towers"])
    w = np.exp(ll - ll.max())
    return w / w.sum()


def score(rows: list, lean_p: float, lean_f: float) -> tuple[float, int]:
    """(Σ log P(the value read alone is right), wrong values) of ``rows``."""
    total, wrong = 0.0, 0
    for r in rows:
        w = alone_posterior(r, lean_p, lean_f)
        v = int(np.argmax(w))
        ok = v == r["true"]
        total += float(np.log(max(w[v] if ok else 1.0 - w[v], 1e-6)))
        wrong += not ok
    return round(total, 1), wrong


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rows")
    ap.add_argument("--fit", nargs="+", required=True, help="folder basenames to fit on")
    ap.add_argument("--write", help="put castle_lean into this fitted file, keeping the rest")
    args = ap.parse_args()
    fit, held = fit_and_held(args.rows, args.fit, "camera_mm")
    out = {}
    for cue, model in (("platform", "platform_model"), ("footprint", "footprint_model")):
        for name, sel in (("fitted", fit), ("held out", held)):
            t = np.array([rel_tan(r) for r in sel])
            y = np.array([np.log(r[f"{cue}_px"] / r[model][r["true"]]) for r in sel])
            s, i, sd = robust_slope(t, y)
            print(f"{cue} ({name}, {len(sel)} castles): slope {s:.4f}, intercept {i:+.4f}, robust σ {sd:.4f}")
            if name == "fitted":
                out[cue] = round(s, 4)
    for name, sel in (("fitted", fit), ("held out", held)):
        print(f"{name}: alone, no lean {score(sel, 0.0, 0.0)}; with the lean {score(sel, out['platform'], out['footprint'])}"
              " (log P(right), wrong)")
    if args.write:
        with open(args.write) as f:
            fitted = json.load(f)
        fitted["castle_lean"] = {**out, "castles": len(fit), "script": "scripts/fit_strand_lean.py",
                                 "fitted_on": sorted({r["folder"] for r in fit})}
        with open(args.write, "w") as f:
            json.dump(fitted, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"wrote castle_lean {out} to {args.write}")


if __name__ == "__main__":
    main()
