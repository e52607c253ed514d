#!/usr/bin/env python3
"""Fit the footprint learned per set-up (:func:`vision.plazing.footprint.pair_stats`): the spread of
a scene cell's ln(1 + coloured area, mm²) around its class's value in its own set-up's calibration
shot, per kind (meeple, resource), and the cap on |ln LR|.

    .venv/bin/python scripts/fit_plazing_footprint_setup.py --cache DIR --cal-cache CAL.json \
        --fit SEED,SEED,... [--folders FOLDER ...] [--write vision/plazing/fitted.json]

DIR: the cells kept by ``scripts/plazing_parallax_cells.py`` (``FOLDER.json`` rows + ``.npz``
windows). ``--folders``: the folders those came from; each set-up is calibrated once (its
``model.footprint``) and kept in CAL.json (read back when present). The folders whose name holds a
seed of ``--fit`` are fitted on, the others held out. The spreads are the root mean square of the
residuals (a Gaussian's maximum likelihood); the cap is the smallest of a grid within
``LL_SLACK`` of the best pair log-likelihood on the fitted cells (a cell is then not decided by a
Gaussian's tail alone). Printed: per cap the pair log-likelihood, cells mended and broken, fitted and
held out; the residuals' percentiles. docs/tuning.md, "… the footprint learned per set-up".
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fit_plazing import dump_fitted  # noqa: E402
from vision.plazing.footprint import coloured_area  # noqa: E402

CAPS = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 1e9]
CORE_MM, RADIUS_MM, CHROMA_FLOOR, PPM = 4.0, 14.0, 15.0, 1.5   # as FootprintConfig and the cache
LL_SLACK = 1.0


def key_of(folder: str) -> str:
    """The cache's name of a folder: its parent's name + its own (``judge2+plazing-1080-20290``)."""
    folder = folder.rstrip("/")
    return os.path.basename(os.path.dirname(folder)) + "+" + os.path.basename(folder)


def calibrations(folders, path: str) -> dict:
    """{cache key: {setup: model.footprint}} of every set-up of ``folders``, kept in ``path``."""
    out = json.load(open(path)) if os.path.exists(path) else {}
    from beachscore import pipeline
    from beachscore.errors import BadInputError, UnreadableBoardError
    for folder in folders:
        k = key_of(folder)
        if k in out:
            continue
        out[k] = {}
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            try:
                cal = pipeline.calibrate(os.path.join(setup, "calibration.json"), tempfile.mkdtemp(prefix="pfs-"))
            except (UnreadableBoardError, BadInputError) as e:
                print(f"  {setup}: calibration refused ({e})", file=sys.stderr)
                continue
            out[k][os.path.basename(setup)] = json.load(open(os.path.join(cal.folder, "calibration.json")))[
                "model"].get("footprint") or {}
        print(f"  {k}: {len(out[k])} set-ups", flush=True)
        json.dump(out, open(path, "w"))
    return out


def cells_of(cache: str, cal: dict) -> list:
    """Every cached cell whose truth is a meeple or a resource: dict(folder, scene, truth, post, x,
    learned) with x = ln(1 + area) and learned its set-up's calibration footprint."""
    out = []
    for js in sorted(glob.glob(os.path.join(cache, "*.json"))):
        k = os.path.basename(js)[:-5]
        rows = json.load(open(js))
        if not rows or k not in cal:
            continue
        x = np.log1p(coloured_area(np.load(js[:-5] + ".npz")["windows"], PPM, RADIUS_MM, CHROMA_FLOOR, CORE_MM))
        for row, xi in zip(rows, x.tolist()):
            out.append(dict(folder=k, scene=row[0], cell=tuple(row[1]), truth=row[2], post=row[3], x=xi,
                            learned=cal[k].get(row[0].split("/")[0], {})))
    return out


def kind(name: str) -> str:
    return name.split("/")[0] + "/"


def fit_spread(cells) -> dict:
    """{kind: rms of x − its true class's calibration mean} over the cells whose class the set-up learned."""
    res = {"meeple/": [], "resource/": []}
    for c in cells:
        t = c["truth"]
        if t.startswith(("meeple/", "resource/")) and t in c["learned"]:
            res[kind(t)].append(c["x"] - c["learned"][t][0])
    for k, v in res.items():
        v = np.array(v)
        print(f"  {k}: {len(v)} cells, residual mean {v.mean():+.3f}, rms {np.sqrt((v ** 2).mean()):.3f}, "
              f"percentiles 1/5/50/95/99 {np.round(np.percentile(v, [1, 5, 50, 95, 99]), 2).tolist()}")
    return {k: float(np.sqrt(np.mean(np.square(v)))) for k, v in res.items()}


def weigh(c, spread, cap):
    """(km, kr, posterior of km after weighing) of a cell, or None when it is not weighed."""
    p = {k: v for k, v in c["post"].items() if k != "unknown"}
    top = max(p, key=p.get)
    m = [k for k in p if k.startswith("meeple/")]
    r = [k for k in p if k.startswith("resource/")]
    if not top.startswith(("meeple/", "resource/")) or not m or not r:
        return None
    km, kr = max(m, key=p.get), max(r, key=p.get)
    L = c["learned"]
    if km not in L or kr not in L:
        return None
    sa, sb = np.hypot(L[km][1], spread["meeple/"]), np.hypot(L[kr][1], spread["resource/"])
    z = -0.5 * ((c["x"] - L[km][0]) / sa) ** 2 - np.log(sa) + 0.5 * ((c["x"] - L[kr][0]) / sb) ** 2 + np.log(sb)
    z = float(np.clip(z, -cap, cap)) if cap > 0 else 0.0
    s = p[km] + p[kr]
    return km, kr, s / (1 + np.exp(-(z + np.log(max(p[km], 1e-300)) - np.log(max(p[kr], 1e-300))))), s


def score(cells, spread, cap):
    """(pair log-likelihood, mended, broken, [(cell, before, after)]) at ``cap``."""
    ll, mended, broken, changed = 0.0, 0, 0, []
    for c in cells:
        w = weigh(c, spread, cap)
        if w is None:
            continue
        km, kr, pm, s = w
        t = c["truth"]
        if t in (km, kr):
            q = pm / s if s > 0 else 0.5
            ll += np.log(max(q if t == km else 1 - q, 1e-12))
        p = {k: v for k, v in c["post"].items() if k != "unknown"}
        before = max(p, key=p.get)
        p[km], p[kr] = pm, s - pm
        after = max(p, key=p.get)
        if before != after:
            mended += after == t
            broken += before == t
            changed.append((f"{c['folder']} {c['scene']} {c['cell']} truth {t} x {c['x']:.2f}", before, after))
    return ll, mended, broken, changed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--cal-cache", required=True)
    ap.add_argument("--fit", required=True)
    ap.add_argument("--folders", nargs="*", default=[])
    ap.add_argument("--write")
    a = ap.parse_args(argv)
    seeds = a.fit.split(",")
    cal = calibrations(a.folders, a.cal_cache)
    cells = cells_of(a.cache, cal)
    fit = [c for c in cells if any(s in c["folder"] for s in seeds)]
    held = [c for c in cells if not any(s in c["folder"] for s in seeds)]
    print(f"{len(fit)} fitted cells, {len(held)} held out")
    spread = fit_spread(fit)
    print("held out:")
    fit_spread(held)
    rows = []
    for cap in CAPS:
        f, h = score(fit, spread, cap), score(held, spread, cap)
        rows.append((cap, f, h))
        print(f"cap {cap:g}: fitted ll {f[0]:.1f} mended {f[1]} broken {f[2]}; held out ll {h[0]:.1f} "
              f"mended {h[1]} broken {h[2]}")
    best = max(r[1][0] for r in rows)
    cap = min(r[0] for r in rows if r[1][0] >= best - LL_SLACK)
    print(f"chosen cap {cap:g}; spreads {spread}")
    for name, part in (("fitted", fit), ("held out", held)):
        for line in score(part, spread, cap)[3]:
            print(f"  {name}: {line}")
    if a.write:
        d = json.load(open(a.write))
        d.setdefault("footprint", {})["setup"] = {
            "spread": {k: round(v, 4) for k, v in spread.items()}, "cap": cap,
            "fitted_on": {"script": "scripts/fit_plazing_footprint_setup.py", "seeds": seeds}}
        dump_fitted(a.write, d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
