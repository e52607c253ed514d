#!/usr/bin/env python3
"""Fit the scene's colour drift (``TokenConfig.drift_sure``, ``drift_min_cells``, ``drift_share``:
:func:`vision.plazing.drift.scene_drift`; its guard ``drift_hold``: :func:`vision.plazing.drift.hold_unsure_odds`)
on development set-ups, and write it into ``fitted.json``.

    .venv/bin/python scripts/fit_plazing_drift.py FOLDER [FOLDER ...] --cache DIR \\
        [--write vision/plazing/fitted.json | --at vision/plazing/fitted.json]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders (the samples' layout, with truth). Every
set-up is calibrated and its scenes read; per scene the free cells' features, their first-pass
token posteriors (weighed by flatness), distances to every prototype and centre spreads are kept with the set-up's token model
(``DIR/<folder's last two path parts>.pkl``; a folder already there is not read again).

Each combination of the grid is scored by the log-likelihood of every free cell's true class
(bare sand or a token) under the second pass (the cells read again with the drifted prototypes
and weighed by flatness again), and how many cells are read right; the best log-likelihood is
chosen, share 0 (no second pass) first in the table. ``--at`` scores the constants of a file
instead of fitting (held-out folders).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import os
import pickle
import sys
from dataclasses import replace

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from fit_plazing import _truth_tokens, calibrated_setups, cache_name, dump_fitted, fitted_on, truth_scenes  # noqa: E402
from vision.plazing.config import FLATNESS, TOKENS  # noqa: E402
from vision.plazing.flatness import centre_spread, weigh_flatness  # noqa: E402
from vision.plazing.drift import drifted, hold_unsure_odds, scene_drift  # noqa: E402
from vision.plazing.tokens import EMPTY, TokenPosteriors, classify_tokens  # noqa: E402

read_tokens = importlib.import_module("vision.plazing.read_tokens")

#: The grid: posterior of a sure cell, least sure cells of a class (1000: every class borrows the
#: common shift), least sure cells in all, share of the shift applied, rounds, and whether the
#: guard keeps the odds against classes without sure cells (:func:`hold_unsure_odds`).
SURE = (0.9, 0.99, 0.999, 0.9999)
MIN_CELLS = (1, 3, 5, 1000)
MIN_TOTAL = (1, 3, 6)
SHARE = (0.25, 0.5, 0.75, 1.0)
ROUNDS = (1, 3)
HOLD = (False, True)


def read_folder(folder: str) -> list:
    """Calibrate every set-up of ``folder`` and read its scenes; per scene read to the tokens,
    ``(scene name, [truth class per free cell], feats (N, F), first-pass post (N, K + 2),
    distances to the prototypes (N, M), setup index)``, and the token models per set-up."""
    scenes, models, scene = [], [], {}
    real, real_weigh = read_tokens.scene_drift, read_tokens.weigh_flatness

    def weigh_spy(post, names, free, board, boxes, model, share, *a, **k):  # the first weighing of a scene
        if scene.get("spreads") is None:
            scene["spreads"] = centre_spread(board, boxes, free, share)
            scene["free"] = [list(c) for c in free]
            scene["flatness"] = model
        return real_weigh(post, names, free, board, boxes, model, share, *a, **k)

    def spy(x, post, model, dists, *a, **k):
        truth = [scene["tokens"].get(tuple(c), EMPTY) for c in scene["free"]]
        if models[-1] is None:
            models[-1] = (replace(model), scene["flatness"])  # without the scan's cached constants
        scenes.append((scene["name"], scene["free"], truth, np.asarray(x, np.float64), post.post.copy(),
                       dists["protos"].astype(np.float32), len(models) - 1, scene["spreads"]))
        return real(x, post, model, dists, *a, **k)

    read_tokens.scene_drift, read_tokens.weigh_flatness = spy, weigh_spy
    try:
        for setup, cal in calibrated_setups(folder, prefix="drift-cal-"):
            models.append(None)
            for tpath, truth, setup_doc in truth_scenes(setup):
                scene.update(name=os.path.relpath(tpath, folder).replace(".truth.json", ""), spreads=None,
                             tokens=_truth_tokens(truth["state"]))
                n = len(scenes)
                try:
                    pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
                except (UnreadableBoardError, BadInputError):
                    del scenes[n:]  # refused (a hand over the board): no reading of its cells
            print(f"  {setup}: {len(scenes)} scenes so far", file=sys.stderr)
    finally:
        read_tokens.scene_drift, read_tokens.weigh_flatness = real, real_weigh
    return [scenes, models]


def load(folders, cache: str) -> list:
    """Every folder's scenes (:func:`read_folder`), kept in ``cache``; rows ``(folder, scene …, model)``."""
    os.makedirs(cache, exist_ok=True)
    rows = []
    for folder in folders:
        path = os.path.join(cache, cache_name(folder).replace(".json", ".pkl"))
        if not os.path.exists(path):
            print(f"reading {folder}", file=sys.stderr)
            with open(path, "wb") as f:
                pickle.dump(read_folder(folder), f)
        with open(path, "rb") as f:
            scenes, models = pickle.load(f)
        name = os.path.basename(os.path.normpath(folder))
        rows += [(name, s[0], s[1], s[2], s[3], s[4], s[5], models[s[6]][0], models[s[6]][1], s[7]) for s in scenes]
    return rows


def second_pass(row, cfg):
    """float64 (N, K + 2): the scene's posteriors, weighed by flatness, after the drift of ``cfg``
    (the first pass's when none)."""
    _, _, free, _, x, post, dp, model, flat, spreads = row
    names = [EMPTY] + model.classes + ["unknown"]
    first = TokenPosteriors([names[b] for b in post.argmax(axis=1)], post, names)
    drift = {}
    shift = scene_drift(x, first, model, {"protos": dp}, cfg, keep=drift)
    if shift is None:
        return post
    again = classify_tokens(x, drifted(model, shift), cfg).post
    weigh_flatness(again, names, free, None, None, flat, FLATNESS.centre_share, spreads=spreads)
    return hold_unsure_odds(again, post, drift["own"]) if cfg.drift_hold else again


def score(rows, cfg):
    """(log-likelihood of the true classes, cells right, cells, [(folder, scene, cell, truth, read, p) wrong])."""
    ll, right, n, wrong = 0.0, 0, 0, []
    for row in rows:
        model = row[7]
        assert len(row[3]) == len(row[5])
        names = [EMPTY] + model.classes
        post = second_pass(row, cfg)
        known = post[:, :-1]
        for c, t, q in zip(row[2], row[3], known):
            if t not in names:
                continue
            k = names.index(t)
            ll += float(np.log(max(q[k] / max(q.sum(), 1e-300), 1e-12)))
            b = int(q.argmax())
            n += 1
            right += b == k
            if b != k:
                wrong.append((row[0], row[1], tuple(c), t, names[b], float(q[b])))
    return ll, right, n, wrong


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", required=True, help="folder of the kept scenes")
    ap.add_argument("--write", help="fitted.json to write the constants into")
    ap.add_argument("--at", help="fitted.json whose constants are scored (no fit)")
    a = ap.parse_args(argv)
    rows = load(a.folders, a.cache)
    off = replace(TOKENS, drift_share=0.0)
    base = score(rows, off)
    print(f"{len(rows)} scenes; no drift: log-likelihood {base[0]:.2f}, right {base[1]}/{base[2]}")
    if a.at:
        d = json.load(open(a.at))["drift"]
        grid = [(d["sure"], d["min_cells"], d["min_total"], d["share"], d["rounds"], d.get("hold", False))]
    else:
        grid = list(itertools.product(SURE, MIN_CELLS, MIN_TOTAL, SHARE, ROUNDS, HOLD))
    table = []
    for sure, m, mt, share, rounds, hold in grid:
        cfg = replace(TOKENS, drift_sure=sure, drift_min_cells=m, drift_min_total=mt, drift_share=share,
                      drift_rounds=rounds, drift_hold=hold)
        ll, right, n, wrong = score(rows, cfg)
        table.append((ll, sure, m, mt, share, rounds, right, wrong, hold))
        print(f"  sure {sure}, min cells {m}, min total {mt}, share {share}, rounds {rounds}, "
              f"hold {hold}: log-likelihood {ll:.2f}, right {right}/{n}", flush=True)
    best = max(table, key=lambda t: t[0])
    print(f"best: sure {best[1]}, min cells {best[2]}, min total {best[3]}, share {best[4]}, rounds {best[5]}, "
          f"hold {best[8]}: {best[0]:.2f}, right {best[6]}")
    before = {w[:4]: w for w in base[3]}
    after = {w[:4]: w for w in best[7]}
    for key in sorted(set(before) | set(after)):
        b, f = before.get(key), after.get(key)
        print(f"  {key}: " + (f"{b[4]} {b[5]:.3f}" if b else "right") + " -> " + (f"{f[4]} {f[5]:.3f}" if f else "right"))
    if a.write:
        doc = json.loads(open(a.write).read()) if os.path.exists(a.write) else {}
        doc["drift"] = {"sure": best[1], "min_cells": best[2], "min_total": best[3], "share": best[4],
                        "rounds": best[5], "hold": best[8],
                        "fitted_on": {"script": "scripts/fit_plazing_drift.py", **fitted_on(a.folders, None, [])}}
        dump_fitted(a.write, doc)
        print(f"wrote drift into {a.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
