#!/usr/bin/env python3
"""Every scene read under each combination of the two resource cues — neither, the footprint
(global Gaussians, and learned per set-up), the darkness, both — judged as
``scripts/plazing_darkness_ab.py`` judges (RIGHT / TRUSTED / silent wrong / clean refused;
exactness by ``tests.sample_truth.plazing_exact``).

    .venv/bin/python scripts/plazing_cues_ab.py FOLDER [FOLDER ...] --dark-floor F \
        --spread-meeple S --spread-resource S --setup-cap C [--out ROWS.json]

Each set-up is calibrated once and every scene read once per setting in one process. Prints per
folder the four figures per setting and every scene whose verdict or trust differs between settings.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from plazing_darkness_ab import calibrated_truths, figures, verdict  # noqa: E402
from vision.plazing import darkness, footprint  # noqa: E402
from vision.plazing.config import DARKNESS, FOOTPRINT  # noqa: E402


def settings(a) -> dict:
    """{name: (DarknessConfig, FootprintConfig)} of the combinations read."""
    off_d = dataclasses.replace(DARKNESS, floor=0.0)
    on_d = dataclasses.replace(DARKNESS, floor=a.dark_floor, t_dof=float("inf"))
    off_f = dataclasses.replace(FOOTPRINT, weigh=False)
    glob_f = dataclasses.replace(FOOTPRINT, weigh=True, setup_spread={}, setup_cap=0.0)
    set_f = dataclasses.replace(FOOTPRINT, weigh=True, setup_spread={"meeple/": a.spread_meeple,
                                                                      "resource/": a.spread_resource},
                                setup_cap=a.setup_cap)
    return {"neither": (off_d, off_f), "fp-global": (off_d, glob_f), "fp-setup": (off_d, set_f),
            "dark": (on_d, off_f), "dark+fp-global": (on_d, glob_f), "dark+fp-setup": (on_d, set_f)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--dark-floor", type=float, required=True)
    ap.add_argument("--spread-meeple", type=float, required=True)
    ap.add_argument("--spread-resource", type=float, required=True)
    ap.add_argument("--setup-cap", type=float, required=True)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    sets = settings(a)
    keep_d, keep_f = darkness.weigh_darkness.__defaults__, footprint.weigh_footprint.__defaults__
    everything = {}
    for folder in a.folders:
        rows, hands = [], []
        for cal, tpath, truth, setup_doc in calibrated_truths(folder):
            row = {"scene": os.path.relpath(tpath, folder)[:-11]}
            try:
                for key, (dc, fc) in sets.items():
                    darkness.weigh_darkness.__defaults__ = (dc,)
                    footprint.weigh_footprint.__defaults__ = (None, fc)
                    row[key] = verdict(tpath.replace(".truth.json", ".jpg"), cal, setup_doc, truth)
            finally:
                darkness.weigh_darkness.__defaults__ = keep_d
                footprint.weigh_footprint.__defaults__ = keep_f
            rows.append(row)
            hands.append(bool(truth.get("occluded")))
            vs = {k: (row[k]["right"], row[k]["conf"] is not None and row[k]["conf"] >= 0.5) for k in sets}
            if len(set(vs.values())) > 1:
                print(f"  {os.path.basename(folder)} {row['scene']}: " + "; ".join(
                    f"{k} {'R' if row[k]['right'] else 'W'} {row[k]['conf'] if row[k]['conf'] is None else round(row[k]['conf'], 3)}"
                    for k in sets), flush=True)
        figs = {k: figures(rows, k, hands) for k in sets}
        print(f"{folder}: " + "; ".join(f"{k} {v}" for k, v in figs.items()), flush=True)
        everything[folder] = rows
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(everything, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
