#!/usr/bin/env python3
"""The seams the Plażing split stage weighs, measured against the truth (measuring only).

    .venv/bin/python scripts/plazing_seam_stats.py --cache /tmp/pseam.jsonl FOLDER [FOLDER ...] \
        [--budget SECONDS] [--every N]
    .venv/bin/python scripts/plazing_seam_stats.py --cache /tmp/pseam.jsonl       # report only, from the cache

Each set-up of each folder (setupN/calibration.json, scene_XX.jpg, scene_XX.truth.json,
scene_XX.setup.json) is calibrated once and every scene scanned with ``pipeline.scan_file``;
``read_pieces.split_group`` is hooked, so that for every inner edge of a player's group the stage
weighs we keep the dip (BGR), the jog (mm, None when not seen), the log likelihoods of seam and
jog (cut, joined) as the reader computes them, and the truth: ``cut`` (both cells of the player,
two pieces), ``joined`` (one piece) or ``other`` (the reader's owner is wrong there). Per scene
we keep every weighed edge's dip, so that an edge can be judged against the scene's own joined
dips (truth: median, max of the other joined edges; truth-free proxy: the median of all the
scene's other weighed dips). The hook also reruns the split under a few candidate rules
(:data:`VARIANTS`) and keeps, per edge, whether each tiling joins it; the reader's own result is
unchanged. Rows are appended to ``--cache`` (JSON lines, one per scene) as they come, so a run cut
short still reports; a folder whose scenes are in the cache is skipped.

Then it prints: the dips of true cuts vs true joins (absolute and relative to the scene's joined
median / max), how many true cuts the current edge evidence (seam + jog, even prior) calls joined
at > 0.9, and per candidate rule how many cut / joined edges it flips, right and wrong (edge
evidence alone, and the whole split with the print pooled). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: Candidate rules, each {name: SeamConfig overrides, plus "scene_sd": joined sd = max(calibration's,
#: robust sd of the scene's weighed dips); "jog0_none": a zero jog is no evidence; "jog0_k": … only
#: where the dip exceeds k × the median of the scene's other weighed dips (those outside the group:
#: mostly inside pieces); "scene_k", "scene_pen": where the dip exceeds k × that median, ``scene_pen``
#: log units less for "joined"}.
VARIANTS = {
    "current": {},
    "cut_sd40": {"cut_sd_bgr": 40.0},
    "cut_sd20": {"cut_sd_bgr": 20.0},
    "cut_sd10": {"cut_sd_bgr": 10.0},
    "jog0_none": {"jog0_none": True},
    "scene_sd": {"scene_sd": True},
    "cut_sd20+jog0_none": {"cut_sd_bgr": 20.0, "jog0_none": True},
    "jog0_if_2x": {"jog0_k": 2.0},
    "jog0_if_3x": {"jog0_k": 3.0},
    "scene3.5_pen2.5": {"scene_k": 3.5, "scene_pen": 2.5},
    "scene5_pen2.5": {"scene_k": 5.0, "scene_pen": 2.5},
    "scene3.5_pen2.5+jog0_if_3x": {"scene_k": 3.5, "scene_pen": 2.5, "jog0_k": 3.0},
    "scene5_pen2.5+jog0_if_3x": {"scene_k": 5.0, "scene_pen": 2.5, "jog0_k": 3.0},
}
_EXTRA = ("jog0_none", "scene_sd", "jog0_k", "scene_k", "scene_pen")


# ---------------------------------------------------------------- pure helpers (tested)

def truth_pieces(truth: dict) -> dict:
    """{(row, col): (player, piece index, kind)} of the truth's pieces."""
    out = {}
    for i, p in enumerate(truth.get("state", truth).get("pieces", [])):
        for r, c in p["cells"]:
            out[(int(r), int(c))] = (p["player"], i, p["kind"])
    return out


def edge_truth(cells_truth: dict, a, b, player: str) -> str:
    """``joined`` (a and b in one piece of ``player``), ``cut`` (in two pieces of ``player``) or
    ``other`` (either cell not the player's in the truth)."""
    ta, tb = cells_truth.get(tuple(a)), cells_truth.get(tuple(b))
    if ta is None or tb is None or ta[0] != player or tb[0] != player:
        return "other"
    return "joined" if ta[1] == tb[1] else "cut"


def robust_sd(dips, floor: float = 0.0) -> float:
    """sd of a half-normal from the median of the squares (as ``seams.joined_sd``), at least
    ``floor``; ``floor`` when there are no dips."""
    d = np.asarray(list(dips), np.float64)
    if not len(d):
        return floor
    return float(max(math.sqrt(float(np.median(d * d)) / 0.4549), floor))


def p_joined(gain: float) -> float:
    """Probability of "joined" from the log likelihood ratio (joined − cut), even prior."""
    return 1.0 / (1.0 + math.exp(-max(min(gain, 50.0), -50.0)))


def quantiles(xs, qs=(0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)) -> list:
    """Rounded quantiles of ``xs`` (empty list when empty)."""
    if not len(xs):
        return []
    return [round(float(np.quantile(np.asarray(xs, np.float64), q)), 2) for q in qs]


def flips(rows, key_old: str, key_new: str) -> dict:
    """Counts of edges (rows with ``truth`` in cut / joined and boolean ``key_old``/``key_new`` =
    "read as joined") whose reading changes: {truth: {"to_right": n, "to_wrong": n}}."""
    out = {t: {"to_right": 0, "to_wrong": 0} for t in ("cut", "joined")}
    for r in rows:
        t = r["truth"]
        if t not in out or r[key_old] == r[key_new]:
            continue
        right_new = r[key_new] == (t == "joined")
        out[t]["to_right" if right_new else "to_wrong"] += 1
    return out


# ---------------------------------------------------------------- collection (scans)

def _collect(folders, cache: str, budget: float, every: int) -> None:
    from beachscore import pipeline
    from beachscore.errors import BadInputError, UnreadableBoardError
    from scripts.setup_calibration import calibrate_setup
    from vision.plazing import pieces as pieces_module
    from vision.plazing import read_pieces
    from vision.plazing.seam_config import SEAM
    from vision.plazing.seams import jog_log_likelihoods, seam_log_likelihoods

    done = set()
    if os.path.exists(cache):
        with open(cache) as f:
            done = {json.loads(line)["folder"] for line in f if line.strip()}
    original = read_pieces.split_group
    ctx = {}

    def variant_cfg(v):
        return dataclasses.replace(SEAM, **{k: x for k, x in v.items() if k not in _EXTRA})

    orig_sll = pieces_module.seam_log_likelihoods

    def sll(d, sd, cfg=SEAM):  # the split's seam likelihoods, with the scene rule when one is set
        lc, lj = orig_sll(d, sd, cfg)
        if ctx.get("pen"):
            thr, pen = ctx["pen"]
            lj = lj - pen * (np.asarray(d) > thr)
        return lc, lj

    def hooked(cells, seams, shapes, piece_score=None, joined_sd_bgr=None, jogs=None, jog_sd_mm=None, cfg=SEAM,
               **kw):  # kw: the print pitch evidence (prints, print_kinds), passed on unchanged
        res = original(cells, seams, shapes, piece_score, joined_sd_bgr=joined_sd_bgr, jogs=jogs,
                       jog_sd_mm=jog_sd_mm, cfg=cfg, **kw)
        try:
            _record(cells, seams, shapes, piece_score, joined_sd_bgr, jogs, jog_sd_mm, cfg, res, kw)
        except Exception as e:  # a measurement must never change the reading
            print(f"    hook failed: {e!r}", file=sys.stderr)
        return res

    def joined_set(split):
        inside = set()
        for _, cs, *_ in split.pieces:
            s = {tuple(c) for c in cs}
            for a in s:
                for b in ((a[0], a[1] + 1), (a[0] + 1, a[1])):
                    if b in s:
                        inside.add((a, b))
        return inside

    def _record(cells, seams, shapes, piece_score, jsd, jogs, jog_sd, cfg, res, kw):
        scene = ctx["scene"]
        scene["seams"] = {f"{a[0]},{a[1]}|{b[0]},{b[1]}": float(v) for (a, b), v in seams.items()}
        player = ctx.get("player_name")
        inner = [(a, b) for a in sorted(cells) for b in ((a[0], a[1] + 1), (a[0] + 1, a[1]))
                 if b in cells and (a, b) in seams]
        if not inner:
            return
        sd = (cfg.default_joined_sd_bgr if jsd is None else jsd) * cfg.joined_spread
        jsd_mm = (cfg.default_jog_sd_mm if jog_sd is None else jog_sd) * cfg.jog_spread
        others = list(seams.values())  # the scene's weighed dips (mostly inside pieces)
        outside = [x for e, x in seams.items() if not (e[0] in cells and e[1] in cells)]
        med = float(np.median(outside)) if outside else None
        reads = {}
        for name, v in VARIANTS.items():
            c2 = variant_cfg(v)
            jg = jogs
            if v.get("jog0_none") and jogs:
                jg = {e: x for e, x in jogs.items() if x != 0.0}
            if v.get("jog0_k") and jogs and med is not None:
                jg = {e: x for e, x in jogs.items() if not (x == 0.0 and seams.get(e, 0.0) > v["jog0_k"] * med)}
            ctx["pen"] = (v["scene_k"] * med, v["scene_pen"]) if v.get("scene_k") and med is not None else None
            j = jsd
            if v.get("scene_sd"):
                j = max(jsd if jsd is not None else cfg.default_joined_sd_bgr, robust_sd(others))
            sp = res if name == "current" else original(cells, seams, shapes, piece_score, joined_sd_bgr=j,
                                                        jogs=jg, jog_sd_mm=jog_sd, cfg=c2, **kw)
            ctx["pen"] = None
            reads[name] = (joined_set(sp), float(sp.posterior))
        for a, b in inner:
            d = float(seams[(a, b)])
            lc, lj = seam_log_likelihoods(d, sd, cfg)
            jog = jogs.get((a, b)) if jogs else None
            jc = jj = 0.0
            if jog is not None:
                jc, jj = jog_log_likelihoods(jog, jsd_mm, cfg)
            scene["edges"].append({
                "a": list(a), "b": list(b), "player": player, "dip": d, "jog": jog,
                "joined_sd": sd, "jog_sd": jsd_mm, "seam_lc": float(lc), "seam_lj": float(lj),
                "jog_lc": float(jc), "jog_lj": float(jj), "group": len(cells),
                "other_med": med, "read": {n: ((a, b) in s) for n, (s, _) in reads.items()},
                "post": {n: p for n, (_, p) in reads.items()}})

    read_pieces.split_group = hooked
    pieces_module.seam_log_likelihoods = sll
    orig_read_group = read_pieces._read_group

    def read_group_hook(player, *rest, **kw):
        ctx["player_name"] = player
        return orig_read_group(player, *rest, **kw)

    read_pieces._read_group = read_group_hook
    t0 = time.time()
    try:
        for folder in folders:
            name = os.path.relpath(folder, "/work/renders")
            if name in done:
                continue
            rows = []
            for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
                if time.time() - t0 > budget:
                    break
                cal = calibrate_setup(setup, "pseam-")
                if cal is None:
                    continue
                for k, tpath in enumerate(sorted(glob.glob(os.path.join(setup, "scene_*.truth.json")))):
                    if k % every or time.time() - t0 > budget:
                        continue
                    with open(tpath) as f:
                        truth = json.load(f)
                    sp = tpath.replace(".truth.json", ".setup.json")
                    setup_doc = json.load(open(sp)) if os.path.exists(sp) else None
                    ctx["scene"] = {"folder": name, "scene": os.path.relpath(tpath, folder)[:-11], "edges": [],
                                    "seams": {}, "truth": {f"{r},{c}": list(v) for (r, c), v in truth_pieces(truth).items()}}
                    try:
                        res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
                        ctx["scene"]["conf"] = pipeline.shown_confidence(res.confidence)
                    except (UnreadableBoardError, BadInputError) as e:
                        ctx["scene"]["refused"] = getattr(e, "code", str(e))
                    rows.append(ctx["scene"])
            with open(cache, "a") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
                if not rows:
                    f.write(json.dumps({"folder": name, "scene": None, "edges": [], "seams": {}, "truth": {}}) + "\n")
            print(f"{name}: {len(rows)} scenes, {sum(len(r['edges']) for r in rows)} edges, "
                  f"{time.time() - t0:.0f} s", flush=True)
            if time.time() - t0 > budget:
                print("budget spent", flush=True)
                break
    finally:
        read_pieces.split_group = original
        pieces_module.seam_log_likelihoods = orig_sll
        read_pieces._read_group = orig_read_group


# ---------------------------------------------------------------- report

def edge_rows(scenes) -> list:
    """Flat rows, one per weighed edge, with the truth and the scene's own joined dips."""
    out = []
    for s in scenes:
        if not s.get("edges"):
            continue
        tp = {tuple(int(x) for x in k.split(",")): tuple(v) for k, v in s["truth"].items()}
        seams = {}
        for k, v in s["seams"].items():
            a, b = k.split("|")
            seams[(tuple(int(x) for x in a.split(",")), tuple(int(x) for x in b.split(",")))] = v
        labels = {}
        for (a, b) in seams:
            ta = tp.get(a)
            labels[(a, b)] = edge_truth(tp, a, b, ta[0]) if ta else "other"
        for e in s["edges"]:
            a, b = tuple(e["a"]), tuple(e["b"])
            t = edge_truth(tp, a, b, e["player"])
            jd = [v for k, v in seams.items() if labels[k] == "joined" and k != (a, b)]
            od = [v for k, v in seams.items() if k != (a, b)]
            ka, kb = tp.get(a), tp.get(b)
            row = dict(e, truth=t, folder=s["folder"], scene=s["scene"],
                       same_kind=bool(ka and kb and ka[2] == kb[2]), kinds=(ka[2] if ka else None, kb[2] if kb else None),
                       j_med=float(np.median(jd)) if jd else None, j_max=float(max(jd)) if jd else None,
                       all_med=float(np.median(od)) if od else None, n_joined=len(jd))
            gain = (e["seam_lj"] - e["seam_lc"]) + (e["jog_lj"] - e["jog_lc"])
            row["gain"], row["p_join"] = gain, p_joined(gain)
            row["seam_gain"], row["jog_gain"] = e["seam_lj"] - e["seam_lc"], e["jog_lj"] - e["jog_lc"]
            out.append(row)
    return out


def report(scenes) -> None:
    rows = edge_rows(scenes)
    nsc = sum(1 for s in scenes if s.get("scene"))
    folders = sorted({s["folder"] for s in scenes})
    print(f"{nsc} scenes in {len(folders)} folders; {len(rows)} weighed edges")
    for t in ("cut", "joined", "other"):
        print(f"  {t}: {sum(r['truth'] == t for r in rows)}")
    sk = [r for r in rows if r["truth"] == "joined" or (r["truth"] == "cut" and r["same_kind"])]
    cuts = [r for r in sk if r["truth"] == "cut"]
    joins = [r for r in sk if r["truth"] == "joined"]
    kinds = {}
    for r in cuts:
        kinds[r["kinds"][0]] = kinds.get(r["kinds"][0], 0) + 1
    print(f"same-kind cuts {len(cuts)} {kinds}; joins {len(joins)}")
    qs = "min p10 p25 med p75 p90 max"
    print(f"quantiles ({qs}):")
    for name, sel in (("cut", cuts), ("joined", joins)):
        print(f"  {name:6s} dip            {quantiles([r['dip'] for r in sel])}")
        print(f"  {name:6s} dip/scene j-med {quantiles([r['dip'] / r['j_med'] for r in sel if r['j_med']])}")
        print(f"  {name:6s} dip/scene j-max {quantiles([r['dip'] / r['j_max'] for r in sel if r['j_max']])}")
        print(f"  {name:6s} dip/scene all-med {quantiles([r['dip'] / r['all_med'] for r in sel if r['all_med']])}")
        jogs = [r['jog'] for r in sel if r['jog'] is not None]
        print(f"  {name:6s} jog (mm)       {quantiles(jogs)}  (seen {len(jogs)}/{len(sel)}, "
              f"exactly 0: {sum(j == 0.0 for j in jogs)})")
        print(f"  {name:6s} seam gain      {quantiles([r['seam_gain'] for r in sel])}")
        print(f"  {name:6s} jog gain       {quantiles([r['jog_gain'] for r in sel])}")
    print("by kind (dip; dip / scene's joined max; dip / median of the scene's weighed dips outside the group):")
    for kind in ("gear", "screen", "blanket"):
        for name, sel in (("cut", [r for r in cuts if r["kinds"][0] == kind]),
                          ("joined", [r for r in joins if r["kinds"][0] == kind])):
            print(f"  {kind:7s} {name:6s} n {len(sel):5d} dip {quantiles([r['dip'] for r in sel])}; /j-max "
                  f"{quantiles([r['dip'] / r['j_max'] for r in sel if r['j_max']])}; /out-med "
                  f"{quantiles([r['dip'] / r['other_med'] for r in sel if r.get('other_med')])}")
    for thr in (0.5, 0.9):
        bad = [r for r in cuts if r["p_join"] > thr]
        print(f"true cuts the edge evidence calls joined at > {thr}: {len(bad)}/{len(cuts)}; "
              f"true joins called cut at > {thr}: {sum(1 - r['p_join'] > thr for r in joins)}/{len(joins)}")
    bad = [r for r in cuts if r["p_join"] > 0.9]
    print(f"  of those at > 0.9: dip > scene joined max: {sum(1 for r in bad if r['j_max'] and r['dip'] > r['j_max'])}; "
          f"jog exactly 0: {sum(1 for r in bad if r['jog'] == 0.0)}")
    for r in sorted(bad, key=lambda r: -r["p_join"])[:12]:
        print(f"    {r['folder']} {r['scene']} {r['player']} {r['a']}-{r['b']} {r['kinds']} dip {r['dip']:.2f} "
              f"(scene joined med {r['j_med'] and round(r['j_med'], 2)}, max {r['j_max'] and round(r['j_max'], 2)}) "
              f"jog {r['jog'] if r['jog'] is None else round(r['jog'], 2)} p {r['p_join']:.3f} read "
              f"{'joined' if r['read']['current'] else 'cut'} (split p {r['post']['current']:.3f})")
    print("the reader's split (print pooled), same-kind edges:")
    for name in VARIANTS:
        for r in sk:
            r["_" + name] = r["read"][name]
        wc = sum(r["_" + name] for r in cuts)
        wj = sum(not r["_" + name] for r in joins)
        f = flips(sk, "_current", "_" + name)
        conf = sum(1 for r in cuts if r["_" + name] and r["post"][name] > 0.9)
        sure = sum(1 for r in joins if r["_" + name] and r["post"][name] > 0.9)
        gsure = sum(1 for r in joins if r["_" + name] and r["post"][name] > 0.9 and r["kinds"][0] == "gear")
        print(f"  {name:20s} cuts read joined {wc}/{len(cuts)} (at split p > 0.9: {conf}); joins read cut {wj}/{len(joins)}"
              f" (read joined at p > 0.9: {sure}, gears {gsure}); flips vs current: cut {f['cut']}, joined {f['joined']}")
        if name == "current" or name.startswith(("jog0", "scene")):
            for r in cuts:
                if r["_" + name]:
                    print(f"      cut read joined: {r['folder']} {r['scene']} {r['player']} {r['a']}-{r['b']} "
                          f"dip {r['dip']:.2f} jog {r['jog'] if r['jog'] is None else round(r['jog'], 2)} "
                          f"split p {r['post'][name]:.3f}")
    print("edge evidence alone (seam + jog, even prior), candidate rules, same-kind edges:")
    for name, fn in edge_rules().items():
        for r in sk:
            r["_e_cur"] = r["p_join"] > 0.5
            r["_e_new"] = fn(r) > 0.5
        f = flips(sk, "_e_cur", "_e_new")
        wc = sum(r["_e_new"] for r in cuts)
        wj = sum(not r["_e_new"] for r in joins)
        c9 = sum(fn(r) > 0.9 for r in cuts)
        print(f"  {name:28s} cuts called joined {wc}/{len(cuts)} (> 0.9: {c9}); joins called cut {wj}/{len(joins)};"
              f" flips: cut {f['cut']}, joined {f['joined']}")


def edge_rules() -> dict:
    """Candidate edge-evidence rules: name → function(row) → P(joined)."""
    from vision.plazing.seam_config import SEAM
    from vision.plazing.seams import seam_log_likelihoods

    def seam_gain(r, cut_sd=None, sd=None):
        cfg = SEAM if cut_sd is None else dataclasses.replace(SEAM, cut_sd_bgr=cut_sd)
        lc, lj = seam_log_likelihoods(r["dip"], r["joined_sd"] if sd is None else sd, cfg)
        return float(lj - lc)

    def jg(r):
        return r["jog_gain"]

    rules = {"current": lambda r: r["p_join"]}
    for cs in (10.0, 20.0, 40.0):
        rules[f"cut_sd {cs:g}"] = lambda r, cs=cs: p_joined(seam_gain(r, cs) + jg(r))
    rules["jog 0 = no evidence"] = lambda r: p_joined(r["seam_gain"] + (0.0 if r["jog"] == 0.0 else jg(r)))
    rules["sd from scene all-med"] = lambda r: p_joined(
        seam_gain(r, sd=max(r["joined_sd"], (r["all_med"] or 0) / 0.6745)) + jg(r))
    for k in (2.0, 3.0):
        rules[f"dip > {k:g}x scene all-med: cut"] = lambda r, k=k: (
            0.0 if r["all_med"] and r["dip"] > k * r["all_med"] else r["p_join"])
    rules["cut_sd 20 + jog 0 none"] = lambda r: p_joined(seam_gain(r, 20.0) + (0.0 if r["jog"] == 0.0 else jg(r)))
    return rules


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--cache", required=True, help="JSON lines, appended to")
    ap.add_argument("--budget", type=float, default=1e9, help="stop scanning after this many seconds")
    ap.add_argument("--every", type=int, default=1, help="scan every N-th scene of a set-up")
    a = ap.parse_args(argv)
    if a.folders:
        _collect(a.folders, a.cache, a.budget, a.every)
    with open(a.cache) as f:
        scenes = [json.loads(line) for line in f if line.strip()]
    report(scenes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
