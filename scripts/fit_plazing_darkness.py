#!/usr/bin/env python3
"""Fit ``DarknessConfig.floor`` (how far a scene's resource centre darkness spreads around its
class's calibration samples) on rendered tables with truth, and say how well the darkness tells the
resources apart on others.

    .venv/bin/python scripts/fit_plazing_darkness.py FIT… --cache DIR [--check CHECK…] [--write vision/plazing/fitted.json]

Every scene of every folder is read once (kept in ``DIR``, :func:`fit_plazing.cached_folder`); for
each free cell whose truth is one of the two resources its set-up's calibration tells apart best
by darkness (:func:`vision.plazing.darkness.farthest_pair`), the row keeps its
:func:`vision.plazing.darkness.dark_ratio` (against the sand of the cells read bare, as a scan
measures it) and every learned resource class's ``[mean, sd, count]``
(:func:`vision.plazing.darkness.learn_darkness`). The floor is the maximum-likelihood one on the
FIT folders (a Student t around the truth class's mean, variance sd² + floor², over the grid
``FLOORS`` × ``DOFS``). Per folder it prints the cells whose darkness favours another learned resource over
the truth's (odds above 1 and above 10 at the fitted floor). ``--write`` puts the floor and the
folders it was fitted on into ``fitted.json`` under ``darkness``. Pass development folders only.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from calibration import store  # noqa: E402
from fit_plazing import _truth_tokens, cached_folder  # noqa: E402
from vision.plazing import read_tokens  # noqa: E402
from vision.plazing.darkness import dark_ratio, farthest_pair, log_likelihood, sand_grey  # noqa: E402
from vision.plazing.model import ReaderModel  # noqa: E402
from vision.plazing.tokens import EMPTY  # noqa: E402

#: The floors tried, ratios to the sand's grey, and the Student t's degrees of freedom.
FLOORS = (0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2)
DOFS = (1.0, 2.0, 4.0, 8.0, 16.0, float("inf"))


def read_folder(folder: str) -> list:
    """Rows ``{"scene", "cell", "truth", "x", "model"}`` of every free cell whose truth is a resource
    learned by its set-up's calibration, in every scene of ``folder`` the reader reads."""
    seen: dict = {}
    real = read_tokens._decide_cells

    def spy(free, post, prep, view, boxes, *rest):
        names = post.names_all
        known = np.argmax(post.post[:, :-1], axis=1).tolist()
        bare = [c for c, k in zip(free, known) if names[k] == EMPTY]
        seen["free"] = list(free)
        seen["x"] = dark_ratio(view.board, boxes, list(free), sand_grey(view.board, boxes, bare)).tolist()
        return real(free, post, prep, view, boxes, *rest)

    rows = []
    read_tokens._decide_cells = spy
    try:
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            try:
                cal = store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"),
                                                    tempfile.mkdtemp(prefix="plazing-dark-")).folder)
            except (UnreadableBoardError, BadInputError) as e:
                print(f"  {setup}: calibration refused ({e})", file=sys.stderr)
                continue
            model = ReaderModel.of(cal).darkness or {}
            for tpath in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
                truth = json.load(open(tpath))
                sp = tpath.replace(".truth.json", ".setup.json")
                seen.clear()
                try:
                    pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal,
                                       json.load(open(sp)) if os.path.exists(sp) else None)
                except (UnreadableBoardError, BadInputError):
                    pass
                if not seen:
                    continue
                want = _truth_tokens(truth["state"])
                name = os.path.relpath(tpath, folder)[:-11]
                for c, x in zip(seen["free"], seen["x"]):
                    t = want.get(tuple(c))
                    if t in (farthest_pair(model) or ()) and x == x:
                        rows.append({"scene": name, "cell": list(c), "truth": t, "x": x, "model": model})
    finally:
        read_tokens._decide_cells = real
    return rows


def log_lik(rows, floor: float, nu: float) -> float:
    """Σ ln p(x | the truth class) over ``rows``: a Student t of ``nu`` degrees of freedom, variance
    sd² + floor² (:func:`vision.plazing.darkness.log_likelihood`, normalised)."""
    xs = np.array([r["x"] for r in rows])
    st = np.array([r["model"][r["truth"]] for r in rows], np.float64)
    if np.isfinite(nu):
        const = math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * np.log(nu * np.pi)
    else:
        const = -0.5 * np.log(2 * np.pi)
    return float(np.sum(log_likelihood(xs, st, floor, nu) + const))


def against(rows, floor: float, nu: float) -> list:
    """(row, the pair's other class, log odds over the truth) of the rows whose darkness favours the
    other class of their set-up's :func:`~vision.plazing.darkness.farthest_pair` at ``floor``, ``nu``."""
    out = []
    for r in rows:
        k = [n for n in farthest_pair(r["model"]) if n != r["truth"]][0]
        z = float(log_likelihood(r["x"], r["model"][k], floor, nu) - log_likelihood(r["x"], r["model"][r["truth"]],
                                                                                 floor, nu))
        if z > 0:
            out.append((r, k, z))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fit", nargs="+")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--check", nargs="*", default=[])
    ap.add_argument("--write")
    a = ap.parse_args(argv)
    data = {f: cached_folder(f, a.cache, read_folder) for f in a.fit + a.check}
    fit_rows = [r for f in a.fit for r in data[f]]
    lls = {(fl, nu): log_lik(fit_rows, fl, nu) for fl in FLOORS for nu in DOFS}
    floor, nu = max(lls, key=lls.get)
    for d in DOFS:
        print(f"t_dof {d:g}: " + ", ".join(f"{fl:g}: {lls[(fl, d)]:.1f}" for fl in FLOORS))
    print(f"fitted floor {floor:g}, t_dof {nu:g} on {len(fit_rows)} resource cells")
    for f in a.fit + a.check:
        bad = against(data[f], floor, nu)
        print(f"{'FIT  ' if f in a.fit else 'CHECK'} {f}: {len(data[f])} resource cells, darkness favours the other "
              f"on {len(bad)} (odds > 10: {sum(1 for _, _, z in bad if z > np.log(10))})")
        for r, k, z in bad:
            print(f"      {r['scene']} {tuple(r['cell'])} {r['truth']} x {r['x']:.3f} → {k} odds {np.exp(z):.2f}")
    if a.write:
        doc = json.load(open(a.write, encoding="utf-8"))
        doc["darkness"] = {"floor": floor, "t_dof": nu, "script": "scripts/fit_plazing_darkness.py",
                           "fitted_on": ["/".join(os.path.normpath(f).split(os.sep)[-2:]) for f in a.fit]}
        with open(a.write, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
        print(f"wrote {a.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
