#!/usr/bin/env python3
"""Fit ``FlatnessConfig.floor`` (:mod:`vision.plazing.flatness`: bare sand, a neutral marker and
a resource told apart by their centre's spread) on development set-ups, and write it into
``fitted.json``.

    .venv/bin/python scripts/fit_plazing_flatness.py FOLDER [FOLDER ...] --cache DIR \
        [--write vision/plazing/fitted.json]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders (the samples' layout, with truth). Every
set-up is calibrated and its scenes read; every free cell read as bare sand, a neutral marker or a
resource (:func:`~vision.plazing.flatness.torn_cells`) is kept, per folder in ``DIR/<folder's last
two path parts>.json`` (a folder already there is not read again), as ``[scene, cell, truth,
centre spread, [classes compared], [their posteriors], [their learned [mean, sd, n]]]``: the
neutral marker, bare sand, then the most probable resource, with the posteriors as the token model
gives them, before any weighing.

Per pair (the neutral marker or bare sand, against the resource) the floor is the one, on a grid,
that gives the true class of the kept cells whose truth is one of the pair the highest likelihood
after weighing; the script prints, per floor, that log-likelihood and how many of those cells are
decided right, and lists every cell decided wrong without or with the chosen floor.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from fit_plazing import _truth_tokens, cached_folder, calibrated_setups, dump_fitted, fitted_on, truth_scenes  # noqa: E402
from vision.plazing.flatness import NEUTRAL, centre_spread, torn_cells, weigh_pair  # noqa: E402
from vision.plazing.tokens import EMPTY  # noqa: E402

read_tokens = importlib.import_module("vision.plazing.read_tokens")

#: The classes weighed against a resource, each with its own floor.
PAIRED = (NEUTRAL, EMPTY)
#: The floors tried, ln(1 + BGR levels).
GRID = np.round(np.exp(np.linspace(np.log(0.05), np.log(3.0), 41)), 4)


def read_folder(folder: str) -> list:
    """Calibrate every set-up of ``folder``, read its scenes; the torn cells (module docstring)."""
    rows, scene = [], {}
    real = read_tokens.weigh_flatness

    def spy(post, names, free, board, boxes, model, share, *a, **k):
        torn = torn_cells(post, names, model) if model else []
        xs = centre_spread(board, boxes, [free[i] for i, _ in torn], share)
        for (i, kr), x in zip(torn, xs.tolist()):
            cell = tuple(free[i])
            truth = EMPTY if cell in scene["covered"] else scene["tokens"].get(cell, EMPTY)
            ks = [names.index(n) for n in PAIRED if n in names and n in model] + [kr]
            rows.append([scene["name"], list(cell), truth, x, [names[k] for k in ks],
                         [float(post[i, k]) for k in ks], [model[names[k]] for k in ks]])
        return real(post, names, free, board, boxes, model, share, *a, **k)

    read_tokens.weigh_flatness = spy
    try:
        for setup, cal in calibrated_setups(folder, prefix="flat-cal-"):
            for tpath, truth, setup_doc in truth_scenes(setup):
                st = truth["state"]
                scene.update(name=os.path.relpath(tpath, folder).replace(".truth.json", ""), tokens=_truth_tokens(st),
                             covered={tuple(c) for p in st["pieces"] for c in p["cells"]})
                try:
                    pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
                except (UnreadableBoardError, BadInputError):
                    continue
            print(f"  {setup}: {len(rows)} torn cells so far", file=sys.stderr)
    finally:
        read_tokens.weigh_flatness = real
    return rows


def load(folders, cache: str) -> list:
    """The torn cells of every folder (:func:`read_folder`), each row with its folder's name in front."""
    return [[os.path.basename(os.path.normpath(folder))] + r
            for folder in folders for r in cached_folder(folder, cache, read_folder)]


def pair_share(row, paired: str, floor: float) -> float | None:
    """``paired``'s share of its pair with the resource (the row's last class) after weighing with
    ``floor`` (0: none); None when the row has no such pair."""
    _, _, _, _, x, classes, p, stats = row
    if paired not in classes:
        return None
    k = classes.index(paired)
    a, b = (weigh_pair(p[k], p[-1], x, stats[k], stats[-1], floor) if floor > 0 else (p[k], p[-1]))
    return a / max(a + b, 1e-300)


def judged(rows, paired: str) -> list:
    """The kept cells whose true class is ``paired`` or the resource weighed against it."""
    return [r for r in rows if paired in r[5] and r[3] in (paired, r[5][-1])]


def fit(rows, paired: str) -> tuple[float, list]:
    """The floor of :data:`GRID` of highest log-likelihood of the true class of the pair (of
    :func:`judged` cells), and per floor ``(floor, log-likelihood, right count)``, 0 (none) first."""
    kept = judged(rows, paired)
    table = []
    for floor in [0.0] + GRID.tolist():
        q = np.array([pair_share(r, paired, floor) for r in kept])
        y = np.array([r[3] == paired for r in kept])
        ll = float(np.log(np.clip(np.where(y, q, 1 - q), 1e-12, 1.0)).sum())
        table.append((floor, ll, int(((q > 0.5) == y).sum())))
    return max(table[1:], key=lambda t: t[1])[0], table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", required=True, help="folder of the kept torn cells")
    ap.add_argument("--write", help="fitted.json to write the floor into")
    a = ap.parse_args(argv)
    rows = load(a.folders, a.cache)
    floors = {}
    for paired in PAIRED:
        best, table = fit(rows, paired)
        floors[paired] = best
        kept = judged(rows, paired)
        print(f"{paired} against a resource: {len(kept)} cells holding one of the two "
              f"({sum(r[3] == paired for r in kept)} {paired})")
        for floor, ll, right in table:
            print(f"  floor {floor:.4f}: log-likelihood {ll:9.2f}, right {right}/{len(kept)}"
                  + ("  <- chosen" if floor == best else ""))
        for r in kept:
            q0, q1 = pair_share(r, paired, 0.0), pair_share(r, paired, best)
            if (q0 > 0.5) != (r[3] == paired) or (q1 > 0.5) != (r[3] == paired):
                print(f"  {r[0]} {r[1]} {tuple(r[2])}: truth {r[3]}, spread {r[4]:.2f} ("
                      + ", ".join(f"{n} {st[0]:.2f}±{st[1]:.2f}" for n, st in zip(r[5], r[7]))
                      + f"); P({paired}) of the pair {q0:.3f} -> {q1:.3f}")
    if a.write:
        doc = json.loads(open(a.write).read()) if os.path.exists(a.write) else {}
        doc["flatness"] = {"floors": {k: float(v) for k, v in floors.items()},
                           "fitted_on": {"script": "scripts/fit_plazing_flatness.py",
                                         **fitted_on(a.folders, None, [])}}
        dump_fitted(a.write, doc)
        print(f"wrote floors {floors} into {a.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
