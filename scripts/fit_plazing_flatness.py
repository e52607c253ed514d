#!/usr/bin/env python3
"""Fit ``FlatnessConfig.floor`` (:mod:`vision.plazing.flatness`: a neutral marker told from a
resource by its centre's spread) on development set-ups, and write it into ``fitted.json``.

    .venv/bin/python scripts/fit_plazing_flatness.py FOLDER [FOLDER ...] --cache DIR [--write vision/plazing/fitted.json]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders (the samples' layout, with truth). Every
set-up is calibrated and its scenes read; every free cell read as a neutral marker or a resource
(:func:`~vision.plazing.flatness.torn_cells`) is kept, per folder in ``DIR/<folder's last two path
parts>.json`` (a folder already there is not read again), as ``[scene, cell, truth, centre spread,
p neutral, p resource, [neutral's mean, sd, n], [the resource's mean, sd, n], the resource]`` (the
posteriors as the token model gives them, before any weighing; the resource: the most probable).

The floor is the one, on a grid, that gives the true class of the kept cells whose truth is one of
the two the highest likelihood after weighing; the script prints, per floor, that log-likelihood
and how many of those cells are decided right, and lists every cell decided wrong without and with
the chosen floor.
"""

from __future__ import annotations

import argparse
import glob
import importlib
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from calibration import store  # noqa: E402
from fit_plazing import _truth_tokens, fitted_on, truth_scenes  # noqa: E402
from plazing_decisions import cache_name  # noqa: E402
from vision.plazing.config import FlatnessConfig  # noqa: E402
from vision.plazing.flatness import centre_spread, flatness_log_ratio, torn_cells  # noqa: E402
from vision.plazing.tokens import EMPTY  # noqa: E402

read_tokens = importlib.import_module("vision.plazing.read_tokens")

#: The floors tried, ln(1 + BGR levels).
GRID = np.round(np.exp(np.linspace(np.log(0.05), np.log(3.0), 41)), 4)


def read_folder(folder: str) -> list:
    """Calibrate every set-up of ``folder``, read its scenes; the torn cells (module docstring)."""
    rows, scene = [], {}
    real = read_tokens.weigh_flatness

    def spy(post, names, free, board, boxes, model, share, *a, **k):
        if model:
            torn = torn_cells(post, names, model)
            xs = centre_spread(board, boxes, [free[i] for i, _, _ in torn], share)
            for (i, kn, kr), x in zip(torn, xs.tolist()):
                cell = tuple(free[i])
                truth = EMPTY if cell in scene["covered"] else scene["tokens"].get(cell, EMPTY)
                rows.append([scene["name"], list(cell), truth, x, float(post[i, kn]), float(post[i, kr]),
                             model["neutral"], model[names[kr]], names[kr]])
        return real(post, names, free, board, boxes, model, share, *a, **k)

    read_tokens.weigh_flatness = spy
    try:
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            try:
                cal = store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"),
                                                    tempfile.mkdtemp(prefix="flat-cal-")).folder)
            except (UnreadableBoardError, BadInputError) as e:
                print(f"  {setup}: calibration refused ({e})", file=sys.stderr)
                continue
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
    os.makedirs(cache, exist_ok=True)
    out = []
    for folder in folders:
        path = os.path.join(cache, cache_name(folder))
        if not os.path.exists(path):
            print(f"reading {folder}", file=sys.stderr)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(read_folder(folder), f)
        out += [[os.path.basename(os.path.normpath(folder))] + r for r in json.load(open(path))]
    return out


def weighed_neutral(row, floor: float) -> float:
    """The neutral marker's share of the two classes' mass after weighing with ``floor`` (0: none)."""
    _, _, _, _, x, pn, pr, mn, mr, _ = row
    lr = flatness_log_ratio(x, mn, mr, FlatnessConfig(floor=floor)) if floor > 0 else 0.0
    z = lr + np.log(max(pn, 1e-300)) - np.log(max(pr, 1e-300))
    return float(1.0 / (1.0 + np.exp(-np.clip(z, -700, 700))))


def fit(rows) -> tuple[float, list]:
    """The floor of :data:`GRID` of highest log-likelihood of the true class (of the rows whose truth
    is one of the two), and per floor ``(floor, log-likelihood, right count)``, 0 (no weighing) first."""
    kept = [r for r in rows if r[3] == "neutral" or r[3] == r[9]]
    table = []
    for floor in [0.0] + GRID.tolist():
        q = np.array([weighed_neutral(r, floor) for r in kept])
        y = np.array([r[3] == "neutral" for r in kept])
        p = np.clip(np.where(y, q, 1 - q), 1e-12, 1.0)
        table.append((floor, float(np.log(p).sum()), int(((q > 0.5) == y).sum())))
    best = max(table[1:], key=lambda t: t[1])[0]
    return best, table


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", required=True, help="folder of the kept torn cells")
    ap.add_argument("--write", help="fitted.json to write the floor into")
    a = ap.parse_args(argv)
    rows = load(a.folders, a.cache)
    best, table = fit(rows)
    kept = [r for r in rows if r[3] == "neutral" or r[3] == r[9]]
    print(f"{len(rows)} torn cells, {len(kept)} of them a neutral marker or that resource "
          f"({sum(r[3] == 'neutral' for r in kept)} neutral)")
    for floor, ll, right in table:
        print(f"  floor {floor:.4f}: log-likelihood {ll:9.2f}, right {right}/{len(kept)}"
              + ("  <- chosen" if floor == best else ""))
    for r in kept:
        q0, q1 = weighed_neutral(r, 0.0), weighed_neutral(r, best)
        if (q0 > 0.5) != (r[3] == "neutral") or (q1 > 0.5) != (r[3] == "neutral"):
            print(f"  {r[0]} {r[1]} {tuple(r[2])}: truth {r[3]}, spread {r[4]:.2f} (neutral {r[7][0]:.2f}±{r[7][1]:.2f}, "
                  f"{r[9]} {r[8][0]:.2f}±{r[8][1]:.2f}); P(neutral) {q0:.3f} -> {q1:.3f}")
    if a.write:
        doc = json.loads(open(a.write).read()) if os.path.exists(a.write) else {}
        doc["flatness"] = {"floor": float(best), "fitted_on": {"script": "scripts/fit_plazing_flatness.py",
                                                                **fitted_on(a.folders, None, [])}}
        with open(a.write, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"wrote floor {best} into {a.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
