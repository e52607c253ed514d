#!/usr/bin/env python3
"""Fit the Plażing reader's statistical constants on development set-ups (and only those).

    .venv/bin/python scripts/fit_plazing.py FOLDER [FOLDER ...] [--setups setup0,setup1]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders (the samples' layout, with truth). It
prints the maximum-likelihood values of

1. the token model's ``t_dof`` and ``scene_spread`` (:class:`vision.plazing.config.TokenConfig`):
   the log-likelihood of every free cell's true class (bare sand or a token) under the reader's
   posterior, on a grid;
2. the confidence map ``intercept`` and ``slope`` (:class:`vision.plazing.config.ConfidenceConfig`):
   Platt scaling of each read scene's log-odds (the product of the decisions' posteriors) against
   whether the scene was read exactly, with a weak Gaussian prior (intercept ~ N(0, 2²),
   slope ~ N(1, 1²)) so that a handful of wrong readings cannot make it extreme.

The values are copied into ``vision/plazing/config.py`` by hand, with the set-ups they came from.
Never pass held-out set-ups: what is fitted on them is no longer a measurement of transfer.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import importlib
import itertools
import json
import os
import sys
import tempfile
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from calibration import store  # noqa: E402
from vision.plazing.config import CONFIDENCE, TOKENS  # noqa: E402
from vision.plazing.tokens import EMPTY, token_distances, token_posteriors  # noqa: E402


def _key(p):
    return p["player"], p["kind"], tuple(sorted(map(tuple, p["cells"]))), p.get("facing")


def exact(truth: dict, state: dict) -> bool:
    """Whether a state is the truth's (pieces with kinds, cells and facings; meeples, resources,
    neutral markers), as ``evaluate.py`` counts a scene fully right."""
    st = truth["state"]
    return (Counter(map(_key, st["pieces"])) == Counter(map(_key, state["pieces"]))
            and Counter((m["player"], tuple(m["cell"])) for m in st["meeples"])
            == Counter((m["player"], tuple(m["cell"])) for m in state["meeples"])
            and Counter((m["kind"], tuple(m["cell"])) for m in st["resources"])
            == Counter((m["kind"], tuple(m["cell"])) for m in state["resources"])
            and sorted(map(tuple, st["neutral"])) == sorted(map(tuple, state["neutral"])))


def _truth_tokens(st: dict) -> dict:
    out = {tuple(m["cell"]): f"meeple/{m['player']}" for m in st["meeples"]}
    out.update({tuple(m["cell"]): f"resource/{m['kind']}" for m in st["resources"]})
    out.update({tuple(c): "neutral" for c in st["neutral"]})
    return out


def collect(folders, setups=None):
    """Per scene: (log p of the reading, read exactly?) and the free cells' token distances."""
    reader = importlib.import_module("vision.plazing.reader")
    seen = []
    real_classify = reader.classify_tokens

    def spy(feats, model, *a, **k):  # keep the distances the reader computes, with the model
        seen.append((token_distances(feats, model), model, feats.shape[1]))
        return real_classify(feats, model, *a, **k)

    reader.classify_tokens = spy
    scenes, cells = [], []
    for folder in folders:
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            if setups and os.path.basename(setup) not in setups:
                continue
            out = tempfile.mkdtemp(prefix="fit-cal-")
            cal = store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"), out).folder)
            for tpath in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
                truth = json.load(open(tpath))
                sp = tpath.replace(".truth.json", ".setup.json")
                setup_doc = json.load(open(sp)) if os.path.exists(sp) else None
                seen.clear()
                try:
                    res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
                except (UnreadableBoardError, BadInputError):
                    continue
                scenes.append((float(res.reading.details["log_p"]), exact(truth, res.state),
                               os.path.relpath(tpath, folder)))
                if seen:
                    (de, dk), model, F = seen[0]
                    want = _truth_tokens(truth["state"])
                    covered = {tuple(c) for p in truth["state"]["pieces"] for c in p["cells"]}
                    free = [tuple(x) for x in np.argwhere(res.reading.details["free"]).tolist()]
                    labels = [None if c in covered else want.get(c, EMPTY) for c in free]
                    cells.append((de, dk, model, F, labels))
    reader.classify_tokens = real_classify
    return scenes, cells


def token_log_loss(cells, cfg) -> float:
    """−Σ log posterior of each free cell's true class (cells under a piece left out)."""
    total = 0.0
    for de, dk, model, F, labels in cells:
        post = token_posteriors(de, dk, model, F, cfg)
        for i, lab in enumerate(labels):
            if lab is not None and lab in post.names_all:
                total -= float(np.log(max(post.post[i, post.names_all.index(lab)], 1e-12)))
    return total


def platt(scenes) -> tuple[float, float]:
    """Maximum a posteriori (intercept, slope) of P(right) = σ(a + b·logit p) (Newton's method)."""
    lp = np.array([s[0] for s in scenes])
    p = np.clip(np.exp(lp), 1e-12, 1 - 1e-12)
    x = np.log(p) - np.log1p(-p)
    y = np.array([float(s[1]) for s in scenes])
    theta = np.array([0.0, 1.0])
    prior_mean, prior_prec = np.array([0.0, 1.0]), np.diag([1 / 4.0, 1.0])
    X = np.stack([np.ones_like(x), x], axis=1)
    for _ in range(50):
        q = 1 / (1 + np.exp(-(X @ theta)))
        grad = X.T @ (y - q) - prior_prec @ (theta - prior_mean)
        hess = -(X.T * (q * (1 - q))) @ X - prior_prec
        step = np.linalg.solve(hess, grad)
        theta = theta - step
        if np.abs(step).max() < 1e-9:
            break
    return float(theta[0]), float(theta[1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--setups", help="only these set-up folders (comma-separated names)")
    a = ap.parse_args(argv)
    scenes, cells = collect(a.folders, set(a.setups.split(",")) if a.setups else None)
    print(f"{len(scenes)} scenes read, {sum(not s[1] for s in scenes)} of them wrong; "
          f"{sum(len(c[4]) for c in cells)} free cells")
    best = None
    for nu, spread in itertools.product([4, 6, 8, 11, 16], [2, 4, 6, 8, 11, 16]):
        ll = token_log_loss(cells, dataclasses.replace(TOKENS, t_dof=float(nu), scene_spread=float(spread)))
        if best is None or ll < best[0]:
            best = (ll, nu, spread)
    now = token_log_loss(cells, TOKENS)
    print(f"tokens: t_dof {best[1]}, scene_spread {best[2]} (log loss {best[0]:.2f}; with the config's "
          f"t_dof {TOKENS.t_dof:g}, scene_spread {TOKENS.scene_spread:g}: {now:.2f})")
    a0, b0 = platt(scenes)
    print(f"confidence: intercept {a0:.3f}, slope {b0:.3f} (config: {CONFIDENCE.intercept}, {CONFIDENCE.slope})")
    for lp, ok, name in sorted(scenes):
        if not ok:
            print(f"  wrong: {name} (product of posteriors {np.exp(lp):.3g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
