#!/usr/bin/env python3
"""Fit the Seashells towel cells' place confidence per kind and band (``vision/seashells/fitted.json``).

    .venv/bin/python scripts/fit_seashells_confidence.py collect FOLDER --out cells-FOLDER.csv   # per folder
    .venv/bin/python scripts/fit_seashells_place_confidence.py FIT.csv [...] [--held-out OTHER.csv ...]
        [--write vision/seashells/fitted.json]

Reads ``collect``'s cell rows (the raw shell posterior, the decision, the truth, the flags) of the
fitting folders and fits :mod:`vision.seashells.confidence`'s constants:

- per kind of cell (pale / vivid column × read empty / read as a shell) and band of posterior
  margin max(p, 1 − p) (:data:`EDGES`), the right share (right + 1) / (cells + 2) of the cells not
  glared, covered, unlike or straddling, made non-decreasing in the margin (a band never above
  the band over it); a band under ``unsure_cell_conf`` (doubted by the reader's old rule) keeps at
  most its lower bound (:data:`LEVEL`) unless that bound reaches ``unsure_cell_conf``;
- ``glare.seen_share``: the most blown-out pale-column cell whose shell was found (beyond it no
  development photo showed a pale shell under glare), and ``glare.right``: the right share of the
  glared cells read clearly empty (margin ≥ ``unsure_cell_conf``) and blown out no more than that,
  None (every glared cell doubted) unless its lower bound reaches ``unsure_cell_conf``.

Then it prints, for every CSV file (fitted and held out), the read scenes' RIGHT / TRUSTED / silent
wrong with the reader's confidence before (the raw margin) and after (the fitted constants), the
scene confidence recomputed as :mod:`vision.seashells.reader` does. ``--write`` writes the fitted
constants, naming the fitting folders. docs/tuning.md, Seashells: honest place confidence.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from scripts.fit_seashells_confidence import load, rate, scene_tally  # noqa: E402
from vision.mats.config import SEASHELLS as CFG  # noqa: E402
from vision.seashells.confidence import KINDS, calibrated, cell_kinds  # noqa: E402

#: Bands of posterior margin (their lower edges, and 1 closing the last).
EDGES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)
#: A doubt is lifted (a band under ``unsure_cell_conf``, a glared cell) only when the fitted cells show it
#: right at least ``unsure_cell_conf`` of the time at this one-sided confidence (Clopper–Pearson lower bound).
LEVEL = 0.95


def lower_bound(right: int, n: int, level: float = LEVEL) -> float:
    """One-sided Clopper–Pearson lower bound of a right share (``right`` of ``n``) at ``level``; 0 when n = 0."""
    if right <= 0 or n <= 0:
        return 0.0
    k = np.arange(right, n + 1)
    log_comb = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k])
    lo, hi = 0.0, 1.0
    for _ in range(50):   # the p at which P(X ≥ right | n, p) = 1 − level
        p = (lo + hi) / 2
        tail = float(np.exp(log_comb + k * math.log(p) + (n - k) * math.log1p(-p)).sum())
        lo, hi = (p, hi) if tail < 1.0 - level else (lo, p)
    return lo


def band_share(n: int, wrong: int, lifts_doubt: bool) -> float:
    """A band's place confidence: its right share (n − wrong + 1) / (n + 2); for a band that would lift the
    old rule's doubt (``lifts_doubt``: margin under ``unsure_cell_conf``), at most its lower bound unless that
    reaches ``unsure_cell_conf``."""
    share = (n - wrong + 1) / (n + 2)
    if n == 0:
        return share   # no evidence: 1/2
    bound = lower_bound(n - wrong, n)
    return min(share, bound) if lifts_doubt and bound < CFG.unsure_cell_conf else share


def fit_bands(rows: list[dict]) -> tuple[dict, dict]:
    """``(bands, counts)``: the fitted ``place_confidence`` (``edges`` and per kind the share per band) and
    per kind the ``[cells, wrong]`` per band, from the cells of ``rows`` not glared, covered, unlike or straddling."""
    plain = [r for r in rows if not (r["glared"] or r["covered"] or r["unlike"] or r["straddle"])]
    margin = np.array([r["margin"] for r in plain])
    kinds = cell_kinds(np.array([r["read"] for r in plain], bool), np.array([r["pale"] for r in plain], bool))
    band = np.clip(np.searchsorted(EDGES, margin, side="right") - 1, 0, len(EDGES) - 2)
    wrong = np.array([r["wrong"] for r in plain], bool)
    bands, counts = {"edges": list(EDGES)}, {}
    for i, name in enumerate(KINDS):
        shares, cells, over = [], [], 1.0
        for b in reversed(range(len(EDGES) - 1)):
            sel = (kinds == i) & (band == b)
            n, w = int(sel.sum()), int(wrong[sel].sum())
            over = min(band_share(n, w, EDGES[b] < CFG.unsure_cell_conf), over)
            shares.insert(0, round(over, 4))
            cells.insert(0, [n, w])
        bands[name], counts[name] = shares, cells
    return bands, counts


def fit_glare(rows: list[dict]) -> dict:
    """The fitted ``glare``: ``seen_share``, ``right`` (None while the cells do not show it, :data:`LEVEL`),
    and the ``cells`` / ``wrong`` it was fitted on."""
    found = [r["blown"] for r in rows if r["pale"] and r["true"] and r["read"] and r["blown"] > CFG.glare_cell_share]
    seen = max(found, default=CFG.glare_cell_share)
    clear = [r for r in rows if r["glared"] and r["margin"] >= CFG.unsure_cell_conf and r["blown"] <= seen]
    wrong = sum(r["wrong"] for r in clear)
    shown = lower_bound(len(clear) - wrong, len(clear)) >= CFG.unsure_cell_conf
    return {"seen_share": round(seen, 3), "right": round(rate(clear), 4) if shown else None, "cells": len(clear),
            "wrong": wrong, "shells_found_under_glare": len(found)}


def scene_confidence(cells: list[dict], fitted: dict) -> float:
    """One read scene's confidence from its cells' rows as :func:`vision.seashells.reader.read` sets it."""
    col = lambda key: np.array([c[key] for c in cells])  # noqa: E731
    conf, doubted = calibrated(col("p_shell"), col("read").astype(bool), col("pale").astype(bool),
                               col("glared").astype(bool), col("blown"), fitted)
    capped = doubted | col("covered").astype(bool) | col("unlike").astype(bool)
    conf = np.where(capped, np.minimum(conf, CFG.covered_conf), conf)
    conf = np.where(col("straddle").astype(bool), np.minimum(conf, CFG.straddle_conf), conf)
    conf = np.where(conf < CFG.unsure_cell_conf, np.minimum(conf, CFG.straddle_conf), conf)
    return float(np.prod(conf)) * cells[0]["item_conf"]


def scores(rows: list[dict], fitted: dict) -> tuple[int, int, int, int]:
    """(read, right, trusted, silent wrong) scenes of ``rows`` under ``fitted``."""
    return scene_tally(rows, lambda cells: scene_confidence(cells, fitted))


def folders(rows: list[dict]) -> list[str]:
    """The folders (base names) the rows' set-ups lie in."""
    return sorted({os.path.basename(os.path.dirname(r["setup"].rstrip("/"))) for r in rows})


def dumps(fitted: dict) -> str:
    """``fitted`` as JSON, one line per key of its top two levels (the bands' lists on one line each)."""
    def value(v, pad: str) -> str:
        if not isinstance(v, dict):
            return json.dumps(v)
        return "{\n" + ",\n".join(f"{pad} {json.dumps(k)}: {value(x, pad + ' ')}" for k, x in v.items()) + f"\n{pad}}}"
    return value(fitted, "") + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", help="collected cell rows of the fitting folders")
    ap.add_argument("--held-out", nargs="*", default=[], help="collected cell rows reported only")
    ap.add_argument("--write", help="write the fitted constants to this JSON file")
    a = ap.parse_args(argv)
    rows = load(a.csv)
    bands, counts = fit_bands(rows)
    fitted = {"script": "scripts/fit_seashells_place_confidence.py", "fitted_on": folders(rows),
              "place_confidence": bands, "glare": fit_glare(rows), "cells": counts}
    print(dumps(fitted), end="")
    for path in a.csv + a.held_out:
        part = load([path])
        before, after = scores(part, {}), scores(part, fitted)
        print(f"{'fit ' if path in a.csv else 'held'} {os.path.basename(path)}: read {before[0]}, right {before[1]}, "
              f"trusted {before[2]} -> {after[2]}, silent wrong {before[3]} -> {after[3]}")
    if a.write:
        with open(a.write, "w", encoding="utf-8") as f:
            f.write(dumps(fitted))
    return 0


if __name__ == "__main__":
    sys.exit(main())
