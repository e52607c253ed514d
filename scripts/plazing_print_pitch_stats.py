#!/usr/bin/env python3
"""The print pitch across the edges the Plażing split weighs, measured against the truth (measuring
and fitting; the reader is not changed by it).

    .venv/bin/python scripts/plazing_print_pitch_stats.py --cache /tmp/ppitch.jsonl FOLDER [FOLDER ...] [--budget S]
    .venv/bin/python scripts/plazing_print_pitch_stats.py --cache /tmp/ppitch.jsonl        # report only

Each set-up of each folder is calibrated once and every scene scanned with ``pipeline.scan_file``;
``read_pieces.measured_prints`` is hooked to keep, for every edge the reader measures (between two
gear-like cells of one player), :func:`vision.plazing.seams.print_offsets` (along, across, mm),
the dip and jog the split weighs,
and the truth: ``cut`` (two pieces of the player), ``joined`` (one piece) or ``other``, with both
cells' kinds. Rows go to ``--cache`` (JSON lines, one per scene); a folder already there is skipped.
The report gives the offsets of gear joins and gear cuts, the fit of ``SeamConfig.print_*``
(:func:`fit`, on the folders ``--fit-on`` names, checked on the rest) that ``--write`` puts in
``vision/plazing/fitted.json`` (``print_pitch``), and the log likelihood ratios the reader then
weighs (:func:`vision.plazing.seams.print_log_ratios`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def key(e) -> str:
    (a, b) = e
    return f"{a[0]},{a[1]}|{b[0]},{b[1]}"


def scan(folders, cache: str, budget: float) -> None:
    from beachscore import pipeline
    from beachscore.errors import BadInputError, UnreadableBoardError
    from plazing_darkness_ab import calibrated_truths
    from plazing_seam_stats import edge_truth, truth_pieces
    from vision.plazing import read_pieces as rp_module

    done = set()
    if os.path.exists(cache):
        with open(cache) as f:
            done = {json.loads(line)["folder"] for line in f if line.strip()}
    ctx = {}
    original = rp_module.measured_prints
    orig_group = rp_module._read_group

    def hooked(*args, **kw):  # the reader's own offsets, as its split weighs them
        ctx["offsets"] = original(*args, **kw)
        return ctx["offsets"]

    def group_hook(player, cells, seams, jogs, *rest):
        ctx.setdefault("seams", {}).update(seams)
        ctx.setdefault("jogs", {}).update(jogs)
        return orig_group(player, cells, seams, jogs, *rest)

    rp_module.measured_prints = hooked
    rp_module._read_group = group_hook
    t0 = time.time()
    try:
        for folder in folders:
            name = os.path.relpath(folder, "/work")
            if name in done:
                continue
            rows = []
            for cal, tpath, truth, setup_doc in calibrated_truths(folder):
                if time.time() - t0 > budget:
                    break
                ctx.clear()
                try:
                    pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
                except (UnreadableBoardError, BadInputError):
                    continue
                tp = truth_pieces(truth)
                edges = []
                for e, (al, ac) in ctx.get("offsets", {}).items():
                    a, b = e
                    ta = tp.get(a)
                    player = ta[0] if ta else None
                    t = edge_truth(tp, a, b, player) if player else "other"
                    tb = tp.get(b)
                    edges.append({"e": key(e), "along": al, "across": ac, "truth": t,
                                  "kinds": [ta[2] if ta else None, tb[2] if tb else None],
                                  "dip": ctx.get("seams", {}).get(e), "jog": ctx.get("jogs", {}).get(e)})
                rows.append({"folder": name, "scene": os.path.relpath(tpath, folder)[:-11], "edges": edges})
            with open(cache, "a") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
                if not rows:
                    f.write(json.dumps({"folder": name, "scene": None, "edges": []}) + "\n")
            print(f"{name}: {len(rows)} scenes, {time.time() - t0:.0f} s", flush=True)
            if time.time() - t0 > budget:
                print("budget spent", flush=True)
                break
    finally:
        rp_module.measured_prints = original
        rp_module._read_group = orig_group


def robust_sd(x) -> float:
    """sd from the median absolute value (a centred, symmetric noise)."""
    x = np.abs(np.asarray(x, np.float64))
    return float(np.median(x) / 0.6745) if len(x) else float("nan")


def fit(joined, cut) -> dict:
    """The print pitch constants (``SeamConfig.print_*``) from gear edges of known truth.

    Args:
        joined, cut: lists of residuals (along, across) mm (:func:`vision.plazing.seams.print_residuals`,
            the along part judged), edges inside one gear and between two gears.
    Returns:
        {"joined_sd_mm", "joined_dof", "outlier_share", "cut_sd_mm": [along, across]}: the cuts'
        spread per axis (root mean square); the joined edges' mixture (a bivariate Student t about
        0, outliers spread like cuts) by maximum likelihood over a grid (scale in 0.0025 mm, dof
        1–20, outlier share 1e-4–0.05).
    """
    from math import lgamma

    j = np.asarray(joined, np.float64)
    c = np.asarray(cut, np.float64)
    sa, sc = (float(np.sqrt((c[:, k] ** 2).mean())) for k in (0, 1))
    wide = -0.5 * ((j[:, 0] / sa) ** 2 + (j[:, 1] / sc) ** 2) - np.log(2 * np.pi * sa * sc)
    r2 = j[:, 0] ** 2 + j[:, 1] ** 2
    best = None
    for s in np.arange(0.03, 0.2, 0.0025):
        for nu in (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 10.0, 20.0):
            core = (lgamma((nu + 2) / 2) - lgamma(nu / 2) - np.log(nu * np.pi * s * s)
                    - (nu + 2) / 2 * np.log1p(r2 / (s * s * nu)))
            for o in (1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.02, 0.05):
                ll = float(np.logaddexp(np.log(1 - o) + core, np.log(o) + wide).sum())
                if best is None or ll > best[0]:
                    best = (ll, s, nu, o)
    _, s, nu, o = best
    return {"joined_sd_mm": round(float(s), 4), "joined_dof": nu, "outlier_share": o,
            "cut_sd_mm": [round(sa, 3), round(sc, 3)]}


def report(cache: str, write: str | None, fit_on: list) -> None:
    from vision.plazing.seam_config import SEAM
    from vision.plazing.seams import print_log_ratios, print_residuals

    rows = [json.loads(line) for line in open(cache) if line.strip()]
    edges = []
    for r in rows:  # each edge with its residual, judged against its own scene's pitch as the reader does
        res = print_residuals({i: (e["along"], e["across"]) for i, e in enumerate(r["edges"])})
        edges += [dict(e, folder=r["folder"], scene=r["scene"], res=res[i], pitch_n=len(r["edges"]))
                  for i, e in enumerate(r["edges"])]

    def gears(es, truth):
        return [e for e in es if e["truth"] == truth and e["kinds"] == ["gear", "gear"]]

    def lrs(es):  # the reader's ratio for each edge (its residual against its scene's pitch)
        out = []
        for e in es:
            al, ac = e["res"]
            off = {0: (0.0, ac), 1: (0.0, 0.0), 2: (0.0, 0.0)} if al is not None else {0: (0.0, ac)}
            if al is not None:  # a scene of pitch 0 whose first edge lies al off it
                off[0] = (al, ac)
            out.append(print_log_ratios(off, cfg)[0])
        return np.array(out)
    fitting = [e for e in edges if any(e["folder"].startswith(f) for f in fit_on)] if fit_on else edges
    held = [e for e in edges if e not in fitting] if fit_on else []
    folders = sorted({r["folder"] for r in rows})
    print(f"{len(folders)} folders, {sum(1 for r in rows if r['scene'])} scenes, {len(edges)} edges with both prints "
          f"({sum(e['kinds'] != ['gear', 'gear'] for e in edges)} not between two gear cells)")

    def q(v):
        v = np.abs(np.asarray(v, np.float64))
        return " / ".join(f"{x:.2f}" for x in np.percentile(v, [50, 90, 99, 100])) if len(v) else "-"
    for name, es in (("gear joined", gears(edges, "joined")), ("gear cut", gears(edges, "cut"))):
        print(f"{name:12s} n={len(es):5d}  along p50/p90/p99/max of |x| {q([e['along'] for e in es])}"
              f"   across {q([e['across'] for e in es])}")
    gj = [e for e in gears(fitting, "joined") if e["res"][0] is not None]
    gc = [e for e in gears(fitting, "cut") if e["res"][0] is not None]
    f = fit([e["res"] for e in gj], [e["res"] for e in gc])
    fit_folders = sorted({e["folder"] for e in fitting})
    print(f"fit on {len(fit_folders)} folders ({len(gj)} gear joins, {len(gc)} gear cuts): {f}")
    cfg = dataclasses.replace(SEAM, print_joined_sd_mm=f["joined_sd_mm"], print_joined_dof=f["joined_dof"],
                              print_outlier_share=f["outlier_share"], print_cut_sd_mm=tuple(f["cut_sd_mm"]))
    for name, es in (("fit", fitting), ("held out", held)):
        if not es:
            continue
        for truth in ("joined", "cut"):
            g = gears(es, truth)
            lr = lrs(g)
            if len(lr):
                print(f"  {name:8s} {truth:6s} n={len(g):5d} log LR joined p1/p10/p50/p90/p99 "
                      + " / ".join(f"{x:+.1f}" for x in np.percentile(lr, [1, 10, 50, 90, 99]))
                      + f"; for cut (< -1) {int((lr < -1).sum())}, for joined (> 1) {int((lr > 1).sum())}")
    low = sorted(gears(edges, "cut"), key=lambda e: (e["dip"] or 0))[:12]
    print("gear cuts with the faintest dips:")
    for e in low:
        lr = lrs([e])[0]
        print(f"  {e['folder']} {e['scene']} {e['e']} dip {e['dip']:.2f} jog {e['jog']} along {e['along']:+.2f} "
              f"across {e['across']:+.2f} (scene: {e['pitch_n']} edges) log LR {lr:+.1f}")
    if write:
        with open(write) as fh:
            doc = json.load(fh)
        doc["print_pitch"] = f | {"script": "scripts/plazing_print_pitch_stats.py", "fitted_on": fit_folders}
        with open(write, "w") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
        print(f"written to {write}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--budget", type=float, default=1e9, help="seconds")
    ap.add_argument("--write", help="fitted.json to write the print_pitch section into")
    ap.add_argument("--fit-on", nargs="*", default=[], help="folder prefixes (as in the cache) to fit on; "
                    "the rest are held out (default: fit on all)")
    a = ap.parse_args()
    if a.folders:
        scan([os.path.abspath(f) for f in a.folders], a.cache, a.budget)
    report(a.cache, a.write, a.fit_on)


if __name__ == "__main__":
    main()
