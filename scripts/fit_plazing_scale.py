#!/usr/bin/env python3
"""Fit how the Plażing confidence slopes change with the photo's scale, on development set-ups only,
and replay the readings' confidence with them.

    .venv/bin/python scripts/fit_plazing_scale.py FOLDER [FOLDER ...] --cache DIR \
        [--check FOLDER ...] [--anchor] [--kinds split,cover] [--write vision/plazing/fitted.json]

The decisions come from ``scripts/plazing_decisions.py`` (read once, kept in ``--cache``). Per kind
of decision the slope of its Platt scaling is a power law in the photo's scale ``s`` (px per board
mm as read, :func:`vision.plazing.rectify.photo_px_per_mm`)::

    b(s) = b_ref · (s / s_ref) ^ g          (s clamped to the fitted scenes' range)

``s_ref`` is the fitted scenes' geometric mean scale. ``b_ref`` and ``g`` are the maximum a
posteriori values (priors log b_ref ~ N(0, 1), as ``fit_plazing.py``'s, and g ~ N(0, 1)) over every
checked decision of the fitted folders, and for tokens each calibration's held-out token decisions
at its scenes' scale. With ``--anchor`` the config's slopes are kept at the top of the range (the
full-HD photos they were fitted on, ``fitted.json``) and only ``g`` is fitted, with ``s_ref`` the
range's top. ``--kinds`` limits the powers to those kinds (the others keep the config's slope).

It prints per kind the fit and the log-likelihood gained over g = 0 (what the data says about the
scale), then per folder (fitted and ``--check``) RIGHT / TRUSTED / silent wrong as
``../shared/tools/evaluate.py`` counts them (a photo refused counts as right and trusted: on these
folders only photos with a hand are refused) with the config's slopes and with the fitted ones,
the confidence replayed from the cached decisions (as the reader gives it: ``Ledger.log_p``; when
the rules rejected the reading, the alternative scored with its conditional probability,
:func:`vision.plazing.revisit.conditional_log_p`; the pipeline's caps kept as read). ``--write`` puts ``slopes``,
``scale_powers``, ``scale_ref_px_per_mm``, ``scale_range_px_per_mm`` and what they were fitted on
into ``fitted.json``'s ``confidence``.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fit_plazing import dump_fitted, fitted_on  # noqa: E402
from plazing_decisions import SURE, load  # noqa: E402
from vision.plazing.config import CONFIDENCE, FITTED_FILE  # noqa: E402
from vision.plazing.ledger import Decision, calibrated, calibrated_p  # noqa: E402
from vision.plazing.revisit import conditional_log_p  # noqa: E402

#: log-odds of a posterior at ``SURE`` (what the cached rows count rather than list).
SURE_LOGIT = float(np.log(SURE) - np.log1p(-SURE))


def kind_records(datasets) -> dict:
    """Per kind, float64 (n, 4) rows (log-odds, right 0/1, weight, scale px/mm) of the checked
    decisions; the held-out calibration tokens are added to ``token``."""
    out: dict = {}
    for data in datasets:
        for row in data["rows"]:
            s = row["px_per_mm"]
            for kind, p, ok in row["checked"]:
                q = min(max(p, 1e-9), SURE)
                out.setdefault(kind, []).append((np.log(q) - np.log1p(-q), float(ok), 1.0, s))
            for kind, n in row["sure_right"].items():
                out.setdefault(kind, []).append((SURE_LOGIT, 1.0, float(n), s))
        for logit, right, wrong, s in data["held"]:
            out.setdefault("token", []).extend([(logit, 1.0, float(right), s), (logit, 0.0, float(wrong), s)])
    return {k: np.array(v, np.float64) for k, v in out.items()}


def log_posterior(rec: np.ndarray, log_b: np.ndarray, g: np.ndarray, s_ref: float, lo: float, hi: float,
                  anchor: float | None = None) -> np.ndarray:
    """Log posterior of slope laws on a grid (``log_b`` × ``g``) over one kind's records. With
    ``anchor`` (log b_ref fixed) the prior is on ``g`` alone."""
    x, y, w, s = rec.T
    u = np.log(np.clip(s, lo, hi) / s_ref)
    z = np.exp(log_b[:, None, None] + g[None, :, None] * u) * x
    ll = (w * (y * -np.logaddexp(0, -z) + (1 - y) * -np.logaddexp(0, z))).sum(-1)
    prior = -0.5 * g[None, :] ** 2 + (0.0 if anchor is not None else -0.5 * log_b[:, None] ** 2)
    return ll + prior


def fit_kind(rec: np.ndarray, s_ref: float, lo: float, hi: float, anchor_b: float | None = None):
    """MAP (b_ref, g) of one kind (coarse-to-fine grids), and the log-likelihood gained over the
    best g = 0."""
    c0 = float(np.log(anchor_b)) if anchor_b else 0.0
    c1, h0, h1 = 0.0, 2.0, 3.0
    for _ in range(5):
        b_grid = np.array([c0]) if anchor_b else np.linspace(c0 - h0, c0 + h0, 25)
        g_grid = np.linspace(c1 - h1, c1 + h1, 25)
        lp = log_posterior(rec, b_grid, g_grid, s_ref, lo, hi, c0 if anchor_b else None)
        i, j = np.unravel_index(np.argmax(lp), lp.shape)
        c0, c1, best = float(b_grid[i]), float(g_grid[j]), float(lp[i, j])
        h0, h1 = h0 / 4, h1 / 4
    b_flat = np.array([float(np.log(anchor_b))]) if anchor_b else np.linspace(np.log(0.2), np.log(8.0), 400)
    flat = float(log_posterior(rec, b_flat, np.zeros(1), s_ref, lo, hi, 0.0 if anchor_b else None).max())
    return float(np.exp(c0)), c1, best - flat


def replayed(row: dict, cfg) -> float:
    """A cached scene's confidence under ``cfg`` (its scale's slopes), as the pipeline gives it."""
    cfg = cfg.at_scale(row["px_per_mm"])
    lp = sum(float(np.log(calibrated_p(k, ps, cfg)).sum()) for k, ps in row["p"].items())
    lp += sum(n * float(np.log(calibrated_p(k, 1.0, cfg))) for k, n in row["sure"].items())
    if row["alternatives"]:  # the rules rejected the reading: the alternative scored, given the others' rejection
        lps = [lp + sum(Decision(k, [], p, alt_p=alt, alt_log_ratio=r).log_ratio(cfg) for k, p, alt, r in changed)
               for changed in row["alternatives"]]
        lp = conditional_log_p(lps, lp)[-1]
    conf = calibrated(lp, cfg)
    if row["confidence"] < calibrated(row["read_log_p"], CONFIDENCE) - 1e-6:  # a pipeline cap
        conf = min(conf, row["confidence"])
    return conf


def counts(data: dict, cfg) -> tuple:
    """(right, trusted, silent wrong, scenes) of a folder as ``evaluate.py`` counts them, and the
    wrong readings at ≥ 0.3 with their confidence."""
    n = len(glob.glob(os.path.join(data["folder"], "setup*", "scene_*.truth.json")))
    refused = n - len(data["rows"])
    conf = [(replayed(r, cfg), r["right"], r["name"]) for r in data["rows"]]
    right = sum(ok for _, ok, _ in conf) + refused
    trusted = sum(ok and c >= 0.5 for c, ok, _ in conf) + refused
    silent = sum((not ok) and c >= 0.5 for c, ok, _ in conf)
    return right, trusted, silent, n, [f"{name} {c:.3f}" for c, ok, name in conf if not ok and c >= 0.3]


def scene_scores(datasets, cfg, split_px_per_mm: float) -> list:
    """Per scale band (photos coarser than ``split_px_per_mm``, then the finer ones): (scenes
    read, mean confidence, share read right, log loss per scene, AUC: the chance that a right
    reading is more confident than a wrong one)."""
    out = []
    for coarse in (True, False):
        rows = [r for d in datasets for r in d["rows"] if (r["px_per_mm"] < split_px_per_mm) == coarse]
        if not rows:
            continue
        c = np.clip([replayed(r, cfg) for r in rows], 1e-6, 1 - 1e-6)
        y = np.array([r["right"] for r in rows], bool)
        loss = -float(np.mean(np.where(y, np.log(c), np.log1p(-c))))
        auc = float(np.mean([(a > b) + 0.5 * (a == b) for a in c[y] for b in c[~y]])) if y.any() and (~y).any() \
            else float("nan")
        out.append((len(rows), float(c.mean()), float(y.mean()), loss, auc))
    return out


def label(folder: str) -> str:
    """A folder's last two path parts."""
    return "/".join(os.path.normpath(folder).split(os.sep)[-2:])


def fit(datasets, anchor: bool, kinds=None) -> dict:
    """The scale laws (see the module docstring): ``slopes``, ``scale_powers``,
    ``scale_ref_px_per_mm``, ``scale_range_px_per_mm``; prints each kind's fit."""
    scales = np.array([r["px_per_mm"] for d in datasets for r in d["rows"]])
    lo, hi = float(np.floor(scales.min() * 100) / 100), float(np.ceil(scales.max() * 100) / 100)
    s_ref = hi if anchor else round(float(np.exp(np.log(scales).mean())), 2)
    slopes, powers = dict(CONFIDENCE.slopes), {}
    for kind, rec in sorted(kind_records(datasets).items()):
        if kinds and kind not in kinds:
            continue
        b, g, gain = fit_kind(rec, s_ref, lo, hi, CONFIDENCE.slopes.get(kind, 1.0) if anchor else None)
        slopes[kind], powers[kind] = round(b, 2), round(g, 2)
        ends = ", ".join(f"{b * (s / s_ref) ** g:.2f} at {s:.2f}" for s in (lo, hi))
        print(f"  {kind}: {len(rec)} records ({int(rec[:, 2][rec[:, 1] == 0].sum())} wrong): slope {b:.2f} at "
              f"{s_ref:.2f} px/mm, power {g:.2f} ({ends}); log-likelihood gained over no power {gain:.1f}")
    return {"slopes": slopes, "scale_powers": powers, "scale_ref_px_per_mm": s_ref,
            "scale_range_px_per_mm": [lo, hi]}


def write(path: str, law: dict, folders) -> None:
    """Put the scale law into ``fitted.json``'s ``confidence`` (the rest of the file kept)."""
    doc = json.loads(open(path, encoding="utf-8").read())
    conf = doc["confidence"]
    conf["slopes"] = {k: float(v) for k, v in law["slopes"].items()}
    for key in ("scale_powers", "scale_ref_px_per_mm", "scale_range_px_per_mm"):
        conf[key] = law[key]
    conf.pop("fitted_on", None)
    conf["fitted_on"] = {"script": "scripts/fit_plazing_scale.py", **fitted_on(folders, None, [])}  # kept last
    dump_fitted(path, doc)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", help="development folders to fit on")
    ap.add_argument("--cache", required=True, help="folder of the cached decisions (plazing_decisions.py)")
    ap.add_argument("--check", nargs="*", default=[], help="folders only replayed (held out)")
    ap.add_argument("--anchor", action="store_true", help="keep the config's slopes at the top of the range")
    ap.add_argument("--kinds", help="only these kinds get a power (comma-separated)")
    ap.add_argument("--write", help=f"write the law into this fitted.json (the reader's: {FITTED_FILE})")
    a = ap.parse_args(argv)
    fitted, checked = load(a.folders, a.cache), load(a.check, a.cache)
    print(f"{sum(len(d['rows']) for d in fitted)} scenes read in {len(fitted)} folders")
    law = fit(fitted, a.anchor, set(a.kinds.split(",")) if a.kinds else None)
    cfg = dataclasses.replace(CONFIDENCE, **{k: (tuple(v) if k.endswith("range_px_per_mm") else v)
                                             for k, v in law.items()})
    print("folder: RIGHT / TRUSTED / silent wrong of scenes, config's slopes -> fitted (wrong readings at >= 0.3)")
    for data, held in [(d, False) for d in fitted] + [(d, True) for d in checked]:
        before, after = counts(data, CONFIDENCE), counts(data, cfg)
        print(f"  {label(data['folder'])}{' (held out)' if held else ''}: "
              f"{'{} / {} / {} of {}'.format(*before[:4])} -> {'{} / {} / {}'.format(*after[:3])}   {'; '.join(after[4])}")
    split = float(np.sqrt(np.prod(law["scale_range_px_per_mm"])))
    print(f"scenes read, coarser than {split:.2f} px/mm then finer: n, mean confidence, share right, log loss, AUC")
    for name, group in (("fitted", fitted), ("held out", checked)):
        for cfg_name, c in (("config", CONFIDENCE), ("fitted", cfg)):
            print(f"  {name}, {cfg_name}'s slopes: " + "; ".join(
                "{} {:.3f} {:.3f} {:.3f} {:.3f}".format(*band) for band in scene_scores(group, c, split)))
    if a.write:
        write(a.write, law, a.folders)
        print(f"wrote {a.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
