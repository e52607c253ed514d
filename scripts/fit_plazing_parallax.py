#!/usr/bin/env python3
"""Measure and fit the parallax cue of :mod:`vision.plazing.parallax` (a standing meeple's colour
seen displaced away from the camera's nadir, a flat resource's not) on the cells kept by
``scripts/plazing_parallax_cells.py``.

    .venv/bin/python scripts/fit_plazing_parallax.py --cache DIR --fit SEED,SEED,... [--per-class] \
        [--radius MM] [--floor C] [--area [--write vision/plazing/fitted.json]]

The folders of DIR whose name holds a seed of ``--fit`` are fitted on, the others held out. Per
kind (meeple, resource: the cells whose truth is one) the blob's offset along the nadir's ray is
modelled as a Gaussian whose mean grows linearly with the cell's distance from the nadir
(``a·r + b``, least squares) and whose sd is the residuals'. Printed: the area under the curve of
yellow meeples over ambers and of meeples over resources, per set-up (median) and pooled, by
distance from the nadir; then, per cap on the likelihood ratio (a grid), the cells whose
most probable known class is a meeple or a resource with the pair's mass split by the ratio
(as :func:`vision.plazing.flatness.weigh_pair`): the pair's log-likelihood and the cells mended
and broken, fitted and held out, and every cell mended or broken at the chosen cap.

With ``--area`` the cue measured is the footprint instead (:mod:`vision.plazing.footprint`:
ln(1 + the coloured area in mm²), no dependence on the distance), and ``--write`` keeps its
per-class statistics, sd floor and cap in ``fitted.json`` (``footprint``; read only when
``FootprintConfig.weigh``). docs/tuning.md, "A standing meeple told from a flat amber by its
parallax".
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fit_plazing import dump_fitted  # noqa: E402
from vision.plazing.footprint import coloured_area  # noqa: E402
from vision.plazing.parallax import radial_offsets  # noqa: E402

CAPS = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 1e9]   # cap on |ln LR|; 0: no weighing
CORE_MM = 4.0                                           # the footprint's parts must reach this near the centre
LL_SLACK = 1.0                                          # log-likelihood units
FLOORS = [0.0, 0.1, 0.2, 0.3, 0.5]                      # widening of every sd


def auc(pos, neg) -> float:
    """Area under the ROC curve of ``pos`` over ``neg`` (ties half); nan when one is empty."""
    pos, neg = np.asarray(pos, float), np.asarray(neg, float)
    if not len(pos) or not len(neg):
        return float("nan")
    return float(((pos[:, None] > neg[None]).sum() + 0.5 * (pos[:, None] == neg[None]).sum()) / (len(pos) * len(neg)))


def load(cache: str, radius: float, floor: float, area: bool = False) -> list:
    """Every kept cell: dict(folder, scene, cell, truth, post, r, off, weight); with ``area``,
    ``off`` is ln(1 + the coloured area in mm², :func:`~vision.plazing.footprint.coloured_area`)
    and ``r`` 0 (the footprint cue, measured with the same machinery for comparison)."""
    out = []
    for js in sorted(glob.glob(os.path.join(cache, "*.json"))):
        rows = json.load(open(js))
        if not rows:
            continue
        wins = np.load(js[:-5] + ".npz")["windows"]
        rays = np.array([np.subtract(r[4], r[5]) for r in rows], np.float64)
        f = radial_offsets(wins, rays, 1.5, radius, floor)
        if area:
            f[:, 0] = np.log1p(coloured_area(wins, 1.5, radius, floor, CORE_MM))
            f[:, 3] = 1.0
            rays = np.zeros_like(rays)
        for row, ray, fi in zip(rows, rays, f):
            out.append(dict(folder=os.path.basename(js)[:-5], scene=row[0], cell=tuple(row[1]), truth=row[2],
                            post=row[3], r=float(np.hypot(*ray)), off=float(fi[0]), weight=float(fi[3])))
    return out


def kind(name: str) -> str:
    return name.split("/")[0] + "/" if "/" in name else name


def fit_lines(cells, per_class: bool = False) -> dict:
    """{kind or class: (a, b, sd)}: the along-ray offset's mean a·r + b and sd, per kind (meeple,
    resource) or, with ``per_class``, per true class too."""
    out = {}
    keys = ["meeple/", "resource/"] + (sorted({x["truth"] for x in cells if x["truth"].startswith(("meeple/", "resource/"))})
                                       if per_class else [])
    for k in keys:
        c = [x for x in cells if (x["truth"] == k or (k.endswith("/") and x["truth"].startswith(k))) and x["weight"] > 0]
        if len(c) < 10:
            continue
        r, y = np.array([x["r"] for x in c]), np.array([x["off"] for x in c])
        a, b = np.polyfit(r, y, 1) if np.ptp(r) > 0 else (0.0, float(np.mean(y)))
        out[k] = (float(a), float(b), float(np.std(y - (a * r + b))))
    return out


def log_ratio(x, lines, km: str = "meeple/", kr: str = "resource/", floor: float = 0.0) -> float:
    """ln p(offset | meeple) − ln p(offset | resource) under the fitted lines (those of the classes
    ``km``, ``kr`` when fitted per class, else of their kinds), each sd widened by ``floor``."""
    (am, bm, sm), (ar, br, sr) = lines.get(km, lines["meeple/"]), lines.get(kr, lines["resource/"])
    sm, sr = np.hypot(sm, floor), np.hypot(sr, floor)
    zm, zr = (x["off"] - am * x["r"] - bm) / sm, (x["off"] - ar * x["r"] - br) / sr
    return float(-0.5 * zm ** 2 - np.log(sm) + 0.5 * zr ** 2 + np.log(sr))


def weighed(x, lines, cap: float, floor: float = 0.0) -> str:
    """The cell's most probable known class after its meeple–resource pair is weighed."""
    p = {k: v for k, v in x["post"].items() if k != "unknown"}
    top = max(p, key=p.get)
    if cap <= 0 or not top.startswith(("meeple/", "resource/")) or x["weight"] <= 0:
        return top
    m = [k for k in p if k.startswith("meeple/")]
    r = [k for k in p if k.startswith("resource/")]
    if not m or not r:
        return top
    km, kr = max(m, key=p.get), max(r, key=p.get)
    z = np.clip(log_ratio(x, lines, km, kr, floor), -cap, cap)
    s = p[km] + p[kr]
    pm = s / (1 + np.exp(-(z + np.log(p[km]) - np.log(p[kr]))))
    p[km], p[kr] = pm, s - pm
    return max(p, key=p.get)


def pair_ll(cells, lines, cap, floor: float = 0.0) -> float:
    ll = 0.0
    for x in cells:
        p = {k: v for k, v in x["post"].items() if k != "unknown"}
        m = [k for k in p if k.startswith("meeple/")]
        r = [k for k in p if k.startswith("resource/")]
        if not m or not r or not x["truth"].startswith(("meeple/", "resource/")) or x["weight"] <= 0:
            continue
        km, kr = max(m, key=p.get), max(r, key=p.get)
        if x["truth"] not in (km, kr):
            continue
        z = 0.0 if cap <= 0 else float(np.clip(log_ratio(x, lines, km, kr, floor), -cap, cap))
        q = 1 / (1 + np.exp(-(z + np.log(max(p[km], 1e-300)) - np.log(max(p[kr], 1e-300)))))
        ll += np.log(max(q if x["truth"] == km else 1 - q, 1e-12))
    return ll


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--fit", required=True, help="comma-separated seeds of the fitted folders")
    ap.add_argument("--radius", type=float, default=10.0)
    ap.add_argument("--floor", type=float, default=25.0)
    ap.add_argument("--per-class", action="store_true", help="a line per true class, not per kind")
    ap.add_argument("--area", action="store_true", help="the footprint cue (ln coloured area) instead")
    ap.add_argument("--write", help="fitted.json to write the footprint's statistics into (with --area)")
    a = ap.parse_args(argv)
    seeds = a.fit.split(",")
    cells = load(a.cache, a.radius, a.floor, a.area)
    part = {"fit": [x for x in cells if any(s in x["folder"] for s in seeds)]}
    part["held"] = [x for x in cells if not any(s in x["folder"] for s in seeds)]
    lines = fit_lines(part["fit"], a.per_class)
    print("fitted lines (offset mm = a·r + b, sd):", {k: tuple(round(v, 4) for v in t) for k, t in lines.items()})
    for name, cs in part.items():
        ym = [x for x in cs if x["truth"] == "meeple/yellow"]
        am = [x for x in cs if x["truth"] == "resource/amber"]
        ms = [x for x in cs if x["truth"].startswith("meeple/")]
        rs = [x for x in cs if x["truth"].startswith("resource/")]
        per = []
        for key in sorted({(x["folder"], x["scene"].split("/")[0]) for x in cs}):
            y = [x["off"] for x in ym if (x["folder"], x["scene"].split("/")[0]) == key]
            b = [x["off"] for x in am if (x["folder"], x["scene"].split("/")[0]) == key]
            if len(y) >= 2 and len(b) >= 2:
                per.append(auc(y, b))
        print(f"{name}: {len(cs)} cells; AUC yellow meeple > amber pooled {auc([x['off'] for x in ym], [x['off'] for x in am]):.3f}, "
              f"per set-up median {np.median(per):.2f} ({len(per)} set-ups, {sum(v >= 0.8 for v in per)} ≥ 0.8, "
              f"{sum(v < 0.6 for v in per)} < 0.6); meeples > resources {auc([x['off'] for x in ms], [x['off'] for x in rs]):.3f}")
        for lo, hi in ((0, 80), (80, 140), (140, 1e9)):
            y = [x["off"] for x in ym if lo <= x["r"] < hi]
            b = [x["off"] for x in am if lo <= x["r"] < hi]
            print(f"  r {lo}–{hi:.0f} mm: yellow meeples {len(y)} median {np.median(y):.2f} mm, ambers {len(b)} "
                  f"median {np.median(b):.2f} sd {np.std(b):.2f}; AUC {auc(y, b):.3f}")
    best, table = None, []
    for floor in FLOORS:
        for cap in CAPS if floor == 0 else CAPS[1:]:
            line = f"floor {floor:g} cap {cap:g}:"
            for name, cs in part.items():
                before = [weighed(x, lines, 0) == x["truth"] for x in cs]
                after = [weighed(x, lines, cap, floor) == x["truth"] for x in cs]
                mended = sum(1 for b, c in zip(before, after) if c and not b)
                broken = sum(1 for b, c in zip(before, after) if b and not c)
                ll = pair_ll(cs, lines, cap, floor)
                line += f"  {name}: pair log-likelihood {ll:8.2f}, mended {mended}, broken {broken};"
                if name == "fit":
                    table.append((floor, cap, ll))
                    if best is None or ll > best[2]:
                        best = (floor, cap, ll)
            print(line)
    # beyond some cap the likelihood is flat (the few cells far out in a Gaussian's tail decide it):
    # the smallest (floor, cap) within LL_SLACK of the best, so that no cell is decided by a tail alone
    near = [t for t in table if t[2] >= best[2] - LL_SLACK]
    best = min(near, key=lambda t: (t[1], t[0]))
    print(f"chosen: floor {best[0]:g}, cap {best[1]:g}" + (" (no weighing)" if best[1] == 0 else ""))
    if a.write and a.area:
        doc = json.loads(open(a.write).read()) if os.path.exists(a.write) else {}
        doc["footprint"] = {"weigh": bool(doc.get("footprint", {}).get("weigh", False)), "radius_mm": a.radius, "chroma_floor": a.floor, "core_mm": CORE_MM,
                            "classes": {k: [round(t[1], 4), round(t[2], 4)] for k, t in sorted(lines.items())},
                            "floor": best[0], "cap": best[1] if np.isfinite(best[1]) and best[1] < 1e8 else 50.0,
                            "fitted_on": {"script": "scripts/fit_plazing_parallax.py --area", "seeds": seeds}}
        dump_fitted(a.write, doc)
        print(f"wrote footprint into {a.write}")
    for name, cs in part.items():
        for x in cs:
            b, c = weighed(x, lines, 0), weighed(x, lines, best[1], best[0])
            if b != c:
                print(f"  {name} {x['folder']} {x['scene']} {x['cell']}: truth {x['truth']}, {b} -> {c} "
                      f"(offset {x['off']:.2f} mm at r {x['r']:.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
