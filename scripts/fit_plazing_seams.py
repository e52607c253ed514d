#!/usr/bin/env python3
"""Fit the seam model's constants (:class:`vision.plazing.seam_config.SeamConfig`: how a cut between two
same-colour pieces and the inside of one piece look) on development set-ups, and write them into
``fitted.json``.

    .venv/bin/python scripts/fit_plazing_seams.py FOLDER [FOLDER ...] --cache DIR \
        [--check FOLDER ...] [--write vision/plazing/fitted.json]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders (the samples' layout, with truth). Every
set-up is calibrated and its scenes read; every group of one player's touching cells that the reader
splits into pieces (:func:`vision.plazing.pieces.split_group`) is kept, per folder in
``DIR/<folder's last two path parts>.json`` (a folder already there is not read again), when the
truth's pieces tile it exactly: its cells, the dip and jog of its inner edges, the calibration's
``seam_sd`` and ``jog_sd``, the print's log-likelihood of every placement the catalogue allows, the
photo's scale and the true tiling.

The constants (:data:`GRID`; ``invisible_cut_share`` stays the config's: a faint dip must never
prove "one piece" for sure) are those, on a grid, that give the true tilings of the groups of the
FOLDERs the highest posterior (the split weighed again from what was kept, as the reader weighs it); the
script prints the log-likelihood and the wrong splits with the config's and with the fitted
constants, on the FOLDERs and on the ``--check`` folders (held out: never fitted on).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from fit_plazing import cached_folder, calibrated_setups, dump_fitted, fitted_on, truth_scenes  # noqa: E402
from vision.plazing import pieces as pieces_module  # noqa: E402
from vision.plazing import read_pieces  # noqa: E402
from vision.plazing.seam_config import SEAM  # noqa: E402

#: The constants fitted (:class:`~vision.plazing.seam_config.SeamConfig`), each with the values tried.
GRID = {
    "cut_sd_bgr": (20.0, 40.0, 60.0, 80.0, 120.0, 160.0, 240.0),
    "joined_spread": (0.75, 1.0, 1.25, 1.5, 2.0, 3.0),
    "jog_spread": (0.25, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0),
    "jog_t_dof": (0.5, 1.0, 2.0, 4.0, 8.0, 30.0),
    "aligned_cut_share": (0.05, 0.1, 0.2, 0.3, 0.5, 0.7),
    "placed_sd_mm": (0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0),
}
#: Rounds of coordinate ascent over :data:`GRID` (one constant at a time, the others held).
ROUNDS = 3


def _key(edge) -> str:
    return json.dumps([list(edge[0]), list(edge[1])])


def read_folder(folder: str) -> list:
    """Calibrate every set-up of ``folder``, read its scenes; the groups kept (module docstring)."""
    rows, scene = [], {}
    real = read_pieces.split_group

    def spy(cells, seams, shapes, piece_score=None, joined_sd_bgr=None, jogs=None, jog_sd_mm=None, **k):
        order = sorted(cells)
        truth = [p for p in scene["pieces"] if set(p[1]) <= cells]
        if sum(len(p[1]) for p in truth) == len(cells) and len(cells) > 1 and piece_score is not None:
            table = pieces_module._placement_table(order, shapes)
            places = [[kind, placed, float(piece_score(kind, placed)[0])] for row in table for _, kind, placed in row]
            inner = {e: v for e, v in seams.items() if e[0] in cells and e[1] in cells}
            rows.append({"scene": scene["name"], "px_per_mm": scene["ppm"], "cells": order,
                         "dips": {_key(e): v for e, v in inner.items()},
                         "jogs": {_key(e): jogs[e] for e in inner if jogs and e in jogs},
                         "seam_sd": joined_sd_bgr, "jog_sd": jog_sd_mm, "places": places,
                         "truth": sorted([k, sorted(map(list, cs))] for k, cs in truth)})
        return real(cells, seams, shapes, piece_score, joined_sd_bgr, jogs, jog_sd_mm, **k)

    read_pieces.split_group = spy
    try:
        for setup, cal in calibrated_setups(folder, None, "fit-seam-cal-"):
            for tpath, truth, setup_doc in truth_scenes(setup):
                scene.update(name=os.path.relpath(tpath, folder).replace(".truth.json", ""), ppm=0.0,
                             pieces=[(p["kind"], tuple(sorted(map(tuple, p["cells"]))))
                                     for p in truth["state"]["pieces"]])
                try:
                    res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
                except (UnreadableBoardError, BadInputError):
                    continue
                ppm = float(res.reading.details["ledger"].px_per_mm)
                for r in rows:
                    if r["scene"] == scene["name"] and not r["px_per_mm"]:
                        r["px_per_mm"] = ppm
    finally:
        read_pieces.split_group = real
    return rows


def parsed(row: dict) -> dict:
    """A kept group with its edges, placements and truth as tuples (what :func:`weigh` takes)."""
    places = {(k, tuple(map(tuple, cs))): ll for k, cs, ll in row["places"]}
    return dict(row, cells={tuple(c) for c in row["cells"]},
                dips={tuple(map(tuple, json.loads(k))): v for k, v in row["dips"].items()},
                jogs={tuple(map(tuple, json.loads(k))): v for k, v in row["jogs"].items()}, places=places,
                shapes=sorted({(k, pieces_module.normalise(cs)) for k, cs in places}),
                truth={(k, tuple(map(tuple, cs))) for k, cs in row["truth"]})


def weigh(row, cfg) -> tuple[float, bool, float]:
    """One kept group (:func:`parsed`) split again under ``cfg``: (log posterior of the true
    tiling, read right?, posterior of the tiling read)."""
    cells, seams, jogs, places, shapes, truth = (row[k] for k in ("cells", "dips", "jogs", "places", "shapes", "truth"))

    def score(kind, placed):
        return places[kind, tuple(map(tuple, placed))], None, 1.0

    sd = row["seam_sd"] if row["seam_sd"] is not None else cfg.default_joined_sd_bgr
    jsd = row["jog_sd"] if row["jog_sd"] is not None else cfg.default_jog_sd_mm
    split = pieces_module.split_group(cells, seams, shapes, score, joined_sd_bgr=sd, jogs=jogs, jog_sd_mm=jsd,
                                      cfg=cfg)
    read = {(k, tuple(map(tuple, cs))) for k, cs, _, _ in split.pieces}
    if read == truth:
        return float(np.log(max(split.posterior, 1e-300))), True, split.posterior
    alt = 1.0 - split.posterior if split.runner_up is None else split.alt_posterior
    runner = {(k, tuple(map(tuple, cs))) for k, cs in (split.runner_up or [])}
    p_true = alt if runner == truth else 1e-6
    return float(np.log(max(p_true, 1e-300))), False, split.posterior


def load(folders, cache: str) -> list:
    """Per folder its kept groups (:func:`read_folder`), from ``cache`` when there, else read and kept."""
    return [(folder, [parsed(r) for r in cached_folder(folder, cache, read_folder)]) for folder in folders]


def report(label: str, data, cfg) -> float:
    """Print the log-likelihood and the wrong splits of ``data`` under ``cfg``; the log-likelihood."""
    total, wrong, n = 0.0, [], 0
    for folder, rows in data:
        for r in rows:
            ll, ok, p = weigh(r, cfg)
            total += ll
            n += 1
            if not ok:
                wrong.append(f"{os.path.basename(folder)} {r['scene']} {r['cells']} at {p:.3f}")
    print(f"  {label}: {n} groups, log-likelihood {total:.2f}, {len(wrong)} wrong")
    for w in wrong:
        print(f"    {w}")
    return total


def fit(data, cfg):
    """The grid's constants (:data:`GRID`) of highest log-likelihood on ``data`` found by
    :data:`ROUNDS` rounds of coordinate ascent from ``cfg``, as a config."""
    def ll(trial):
        return sum(weigh(r, trial)[0] for _, rows in data for r in rows)

    best = (ll(cfg), cfg)
    for _ in range(ROUNDS):
        for name, values in GRID.items():
            for v in values:
                trial = dataclasses.replace(best[1], **{name: v})
                got = ll(trial)
                if got > best[0] + 1e-9:
                    best = (got, trial)
        print(f"  round: log-likelihood {best[0]:.2f}, {dict((k, getattr(best[1], k)) for k in GRID)}")
    return best[1]


def write(path: str, cfg, made_on: dict) -> None:
    """Put the fitted constants, and what they were fitted on, into ``fitted.json``'s ``seams``."""
    doc = json.loads(open(path, encoding="utf-8").read())
    doc["seams"] = {k: float(getattr(cfg, k)) for k in GRID} | {"script": "scripts/fit_plazing_seams.py",
                                                                  "fitted_on": made_on}
    dump_fitted(path, doc)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", required=True, help="folder of the kept groups")
    ap.add_argument("--check", nargs="*", default=[], help="held-out folders: measured, never fitted on")
    ap.add_argument("--write", help="fitted.json to write the constants into")
    a = ap.parse_args(argv)
    data, check = load(a.folders, a.cache), load(a.check, a.cache)
    print("the config's constants:", {k: getattr(SEAM, k) for k in GRID})
    report("fitted folders", data, SEAM)
    report("held-out folders", check, SEAM)
    best = fit(data, SEAM)
    print("fitted:", {k: getattr(best, k) for k in GRID})
    report("fitted folders", data, best)
    report("held-out folders", check, best)
    if a.write:
        write(a.write, best, fitted_on(a.folders, None, []))
        print(f"wrote {a.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
