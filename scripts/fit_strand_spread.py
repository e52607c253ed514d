#!/usr/bin/env python3
"""Fit the prior of a Strand unter calibration's castle size spreads (``CastleConfig.value_spread_prior``).

    .venv/bin/python scripts/fit_strand_spread.py ROWS.jsonl --fit FOLDER_NAME [...] [--write vision/strand_unter/fitted.json]

``ROWS.jsonl``: the rows of ``scripts/strand_castle_value_misses.py --dump`` (every castle read with a
value whose player the truth has in its groove, with its cues, the model's radii per value and, per
cue, the calibration's Σ residual² and degrees of freedom behind its spread, ``spread_ss``).
``--fit`` names the folders (basenames) fitted on; every other folder in the file is held out.

Each set-up's spread of a cue (platform, footprint) is √((Σ res² + n σ₀²) / (dof + n)) (the
scaled-inverse-χ² prior of :func:`vision.strand_unter.castle_values.size_model`, n pseudo-castles of
σ₀). For a grid of (σ₀, n) per cue, every castle's value posterior is rebuilt alone (platform,
footprint with the lean of ``CastleConfig.lean_*``, and its tower term as read; no
one-castle-per-value assignment) and scored by Σ log P(the value read is right) over the fitted
folders; the platform's grid first with the footprint's prior as configured, then the footprint's
with the platform's best. Printed for the fitted and the held-out folders, with the number of wrong
values, of wrong values at posterior ≥ 0.7 and of right values below 0.9.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from strand_scenes import fit_and_held  # noqa: E402
from vision.strand_unter.castle_values import size_loglik, spread_with_prior  # noqa: E402
from vision.strand_unter.config import CASTLES  # noqa: E402

SIGMAS = (0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1)
COUNTS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)


def rel_tan(r: dict) -> float:
    """The row's view tangent less the calibration castles' mean (0 without a camera height)."""
    if not r.get("camera_mm") or r.get("cal_tan") is None or r.get("lever_mm") is None:
        return 0.0
    return r["lever_mm"] / r["camera_mm"] - r["cal_tan"]


def spread(r: dict, cue: str, prior: tuple) -> float:
    """The row's set-up spread of ``cue`` under ``prior`` = (σ₀, n)."""
    ss, dof = r["spread_ss"][cue]
    return spread_with_prior(ss, dof, prior[0], prior[1])


def alone_posterior(r: dict, priors: dict, cfg=CASTLES) -> np.ndarray:
    """One castle's value posterior (n_values,) from its platform, footprint and tower terms alone,
    each size cue's spread from ``priors`` ({cue: (σ₀, n)})."""
    t = rel_tan(r)
    lp = size_loglik(r["platform_px"], r["platform_se_px"],
                     np.array(r["platform_model"]) * np.exp(cfg.lean_platform * t), spread(r, "platform", priors["platform"]), cfg)
    lf = size_loglik(r["footprint_px"], r["footprint_se_px"],
                     np.array(r["footprint_model"]) * np.exp(cfg.lean_footprint * t),
                     spread(r, "footprint", priors["footprint"]), cfg)
    ll = lp + lf + np.array(r["ll_towers"])
    w = np.exp(ll - ll.max())
    return w / w.sum()


def score(rows: list, priors: dict) -> tuple[float, int, int, int]:
    """(Σ log P(the value read alone is right), wrong values, of them at posterior ≥ 0.7, right values
    below 0.9) of ``rows``."""
    total, wrong, sure_wrong, unsure_right = 0.0, 0, 0, 0
    for r in rows:
        w = alone_posterior(r, priors)
        v = int(np.argmax(w))
        ok = v == r["true"]
        total += float(np.log(max(w[v] if ok else 1.0 - w[v], 1e-6)))
        wrong += not ok
        sure_wrong += (not ok) and w[v] >= 0.7
        unsure_right += ok and w[v] < 0.9
    return round(total, 1), wrong, sure_wrong, unsure_right


def grid(fit: list, held: list, priors: dict, cue: str) -> tuple:
    """The best (σ₀, n) of ``cue`` on ``fit`` with the other cue's prior as in ``priors``; prints each."""
    best, best_score = priors[cue], None
    for s in SIGMAS:
        for n in COUNTS:
            p = {**priors, cue: (s, n)}
            a, b = score(fit, p), score(held, p)
            print(f"  {cue} σ₀ {s:.3f} n {n:4.1f}: fitted {a}, held out {b}")
            if best_score is None or a[0] > best_score:
                best, best_score = (s, n), a[0]
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rows")
    ap.add_argument("--fit", nargs="+", required=True, help="folder basenames to fit on")
    ap.add_argument("--write", help="put castle_spread into this fitted file, keeping the rest")
    args = ap.parse_args()
    fit, held = fit_and_held(args.rows, args.fit, "spread_ss")
    now = CASTLES.value_spread_prior or {}
    default = (CASTLES.size_prior_sigma, CASTLES.size_prior_n)
    priors = {"platform": tuple(now.get("platform", default)), "footprint": tuple(now.get("footprint", default))}
    print(f"as configured {priors}: fitted {score(fit, priors)}, held out {score(held, priors)}"
          " (log P(right), wrong, wrong ≥ 0.7, right < 0.9)")
    priors["platform"] = grid(fit, held, priors, "platform")
    priors["footprint"] = grid(fit, held, priors, "footprint")
    print(f"best {priors}: fitted ({len(fit)} castles) {score(fit, priors)}, held out ({len(held)}) {score(held, priors)}")
    if args.write:
        from strand_scenes import write_fitted_part
        write_fitted_part(args.write, "castle_spread", {"prior": {k: list(v) for k, v in priors.items()},
                                                        "castles": len(fit)},
                          sorted({r["folder"] for r in fit}), script="scripts/fit_strand_spread.py")
        print(f"wrote castle_spread {priors} to {args.write}")


if __name__ == "__main__":
    main()
