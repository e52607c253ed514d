#!/usr/bin/env python3
"""Strand unter castle values: how well each value cue separates the true value, yellow against the
other players, and offline candidates for the tower term (measuring only; the reader is not changed).

    .venv/bin/python scripts/strand_castle_cue_stats.py DUMP.jsonl [DUMP.jsonl ...] [--lab lab.json]
    .venv/bin/python scripts/strand_castle_cue_stats.py --calibrate A.txt [B.txt ...] --lab-out lab.json
        [--cal-dir DIR]

``DUMP.jsonl`` are the dumps of ``scripts/strand_castle_value_misses.py --dump`` (one castle a line:
``read``, ``true``, ``ll_platform``, ``ll_footprint``, ``ll_towers``, ``towers``, ``towers_seen``,
``towers_p``, ``tower_reliability``, ``contrast_ab``, ``folder``, ``scene``, ``player`` ...).

``--calibrate`` takes files listing development folders (whitespace separated, as
``/work/renders/slf/A.txt``), calibrates every ``setupN`` (``beachscore calibrate``, into ``--cal-dir``,
default a temporary folder; kept calibrations are reused) and writes ``--lab-out``: per
``folder|setupN`` the calibration model's Lab means of ``sand`` and every ``castle/<player>``
(OpenCV 8-bit Lab: L 0-255). With ``--lab`` each castle gets ``dL`` = |L(castle colour) - L(sand)|
of its set-up (a folder name shared by two paths is told apart by the dump's ``contrast_ab``).

Printed, for yellow and for the other players:

- per cue (platform, footprint, towers): the mean rank of the true value's log likelihood (1 best;
  ties share the best rank), the cue alone's accuracy (true value strictly likeliest) and with ties,
  the mean margin log L(true) - max log L(other), and among the castles the reader got wrong how often
  the cue favours the value read over the true one;
- the tower count's agreement with value + 1 (too many / too few), by |dL| band and by the player's
  calibration ``tower_reliability`` band; per (set-up, player) the correlation of |dL| and of
  ``tower_reliability`` with the scan-time agreement;
- each candidate's guide: the posterior of each castle alone, proportional to exp(sum of the chosen
  cue log likelihoods) under a uniform prior, the tower term rebuilt from the dump's ingredients
  (:func:`tower_ll`, as ``castle_values.tower_likelihood`` with ``tower_exponent`` 0.75): sum of
  log P(true), castles whose likeliest value is wrong, wrong ones at posterior >= 0.8 (the dangerous
  ones) and right ones below 0.8 (confidence lost); and of the values the reader got wrong (its
  scene-wide assignment, not this guide) how many the candidate alone still backs, and at >= 0.8.
  With ``--lab``, one candidate replaces the calibration's pooled count frequencies by those
  counted on the other fold's castles of the same lightness class (|dL| < 30 or not; two folds by
  table, :func:`fold_of`, a table and its wide copy together: each castle is judged by a table
  its own table did not make); a control counts one class for all colours.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import zlib
from collections import defaultdict

import numpy as np

VALUES = ["0", "1", "2", "3"]
CUES = ("platform", "footprint", "towers")
EXPONENT = 0.75  # CastleConfig.tower_exponent as the dump was made


def tower_ll(row: dict, exponent: float = EXPONENT, reliability: float | None = None, pool_weight: float = 1.0) -> np.ndarray:
    """The tower count's tempered log likelihood per value, rebuilt from a dump row as
    ``castle_values.tower_likelihood`` builds it (``reliability`` None: the row's own).

    >>> r = {"towers": 2, "towers_p": {v: [0.1, 0.1, 0.7, 0.1] for v in VALUES}, "towers_seen": {}, "tower_reliability": 1.0}
    >>> np.allclose(tower_ll(r, 1.0), np.log(0.7))
    True
    """
    tp = row["towers_p"]
    n = len(tp[VALUES[0]])
    k = min(int(row["towers"]), n - 1)
    pooled = np.array([tp[v][k] for v in VALUES])
    seen = row.get("towers_seen") or {}
    own = np.array([float(min(int(seen[v]), n - 1) == k) if v in seen else np.nan for v in VALUES])
    read = np.where(np.isnan(own), pooled, (own + pool_weight * pooled) / (1.0 + pool_weight))
    r = row["tower_reliability"] if reliability is None else reliability
    return exponent * np.log(r * read + (1.0 - r) / n)


def posterior(ll: np.ndarray) -> np.ndarray:
    """Normalised exp(ll) (uniform prior).

    >>> np.round(posterior(np.array([0.0, np.log(3.0)])), 2).tolist()
    [0.25, 0.75]
    """
    ll = np.asarray(ll, np.float64)
    e = np.exp(ll - ll.max())
    return e / e.sum()


def rank_of(ll, true: int) -> int:
    """1 + the number of values strictly likelier than the true one (ties share the best rank).

    >>> rank_of([0.0, -1.0, 0.0], 2), rank_of([0.0, -1.0, 0.5], 1)
    (1, 3)
    """
    ll = np.asarray(ll, np.float64)
    return 1 + int(np.sum(ll > ll[true] + 1e-9))


def guide(rows: list, terms) -> dict:
    """Per-castle posterior alone from ``terms(row) -> ll (n_values,)``: sum of log P(true), the
    wrong ones (likeliest value not the true one), wrong at >= 0.8, right below 0.8."""
    slp, wrong, danger, lost, rw_keep, rw_danger = 0.0, 0, 0, 0, 0, 0
    for r in rows:
        p = posterior(terms(r))
        t = int(r["true"])
        if int(r["read"]) != t:  # the reader's own wrong values: does this candidate alone still back them?
            rd = int(r["read"])
            rw_keep += int(p[rd] > p[t])
            rw_danger += int(p[rd] >= 0.8)
        slp += float(np.log(max(p[t], 1e-300)))
        b = int(np.argmax(p))
        if b != t:
            wrong += 1
            danger += int(p[b] >= 0.8)
        else:
            lost += int(p[t] < 0.8)
    return {"logP": round(slp, 1), "wrong": wrong, "wrong>=0.8": danger, "right<0.8": lost, "n": len(rows),
            "reader_wrong_backed": rw_keep, "reader_wrong>=0.8": rw_danger}


def cue_ll(r: dict, cue: str) -> np.ndarray:
    return np.asarray(r[f"ll_{cue}"], np.float64)


def cue_table(rows: list) -> dict:
    """Per cue: mean rank of the true value, accuracy alone (strict, with ties), mean margin, and
    among wrong readings the share where the cue favours the value read over the true one."""
    out = {}
    for cue in CUES:
        ranks, strict, tie, margin, fav, nw = [], 0, 0, [], 0, 0
        for r in rows:
            ll, t = cue_ll(r, cue), int(r["true"])
            ranks.append(rank_of(ll, t))
            others = np.delete(ll, t)
            strict += int(ll[t] > others.max() + 1e-9)
            tie += int(ll[t] >= others.max() - 1e-9)
            margin.append(ll[t] - others.max())
            if int(r["read"]) != t:
                nw += 1
                fav += int(ll[int(r["read"])] > ll[t] + 1e-9)
        n = len(rows)
        out[cue] = {"mean_rank": round(float(np.mean(ranks)), 3), "acc": round(strict / n, 4), "acc_ties": round(tie / n, 4),
                    "margin": round(float(np.mean(margin)), 3), "wrong_favoured": f"{fav}/{nw}"}
    return out


def agreement(rows: list) -> dict:
    """The tower count against value + 1: agree / too many / too few shares."""
    n = len(rows)
    if not n:
        return {"n": 0}
    d = np.array([int(r["towers"]) - (int(r["true"]) + 1) for r in rows])
    return {"n": n, "agree": round(float(np.mean(d == 0)), 4), "too_many": round(float(np.mean(d > 0)), 4),
            "too_few": round(float(np.mean(d < 0)), 4)}


def count_tables(rows: list, near_dl: float, n_counts: int = 8, alpha: float = 1.0) -> dict:
    """P(tower count k | value v) per lightness class (``True``: |dL| < ``near_dl``, a colour near
    the sand's lightness), counted over ``rows`` with ``alpha`` added to every cell.

    >>> t = count_tables([{"dL": 5.0, "true": 0, "towers": 1}], 30.0, 3, 1.0)
    >>> [round(x, 2) for x in t[True]["0"]], [round(x, 2) for x in t[False]["0"]]
    ([0.25, 0.5, 0.25], [0.33, 0.33, 0.33])
    """
    c = {g: {v: np.full(n_counts, alpha) for v in VALUES} for g in (True, False)}
    for r in rows:
        c[r["dL"] < near_dl][str(int(r["true"]))][min(int(r["towers"]), n_counts - 1)] += 1.0
    return {g: {v: (a / a.sum()).tolist() for v, a in d.items()} for g, d in c.items()}


FOLDS = 2


def fold_of(folder: str) -> int:
    """The cross-fitting fold of a dump folder: by its table's name without ``-wide`` (a table and
    its wide copy share a fold), crc32 mod ``FOLDS``.

    >>> fold_of("strand-720-20231") == fold_of("strand-720-20231-wide")
    True
    """
    base = folder[:-5] if folder.endswith("-wide") else folder
    return zlib.crc32(base.encode()) % FOLDS


def temper_scale(dl: float, l0: float) -> float:
    """The tower term's weight factor for a colour |dL| from the sand's lightness: min(1, dL / l0).

    >>> temper_scale(10.0, 40.0), temper_scale(70.0, 40.0)
    (0.25, 1.0)
    """
    return float(min(1.0, max(0.0, dl) / l0))


# --- calibration Lab ---------------------------------------------------------------------------------

def calibrate_lab(list_files: list, cal_dir: str) -> dict:
    paths = [p for f in list_files for p in open(f).read().split()]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = {}
    for p in paths:
        for s in sorted(os.listdir(p)):
            cj = os.path.join(p, s, "calibration.json")
            if not s.startswith("setup") or not os.path.exists(cj):
                continue
            d = os.path.join(cal_dir, p.strip("/").replace("/", "+"), s)
            if not os.path.exists(os.path.join(d, "calibration.json")):
                res = subprocess.run([sys.executable, "-m", "beachscore.cli", "calibrate", cj, "--out", d],
                                     capture_output=True, text=True, cwd=root)
                if res.returncode:
                    print("calibration failed", p, s, res.stderr[-300:], file=sys.stderr)
                    continue
            with open(os.path.join(d, "calibration.json")) as f:
                m = json.load(f)
            m = m.get("model", m)
            out[f"{p}|{s}"] = {k: v["mean"] for k, v in m["classes"].items() if k == "sand" or k.startswith("castle/")}
    return out


def attach_dl(rows: list, lab: dict) -> int:
    """Each row's ``dL`` (|L castle - L sand|) from ``lab``; returns how many rows got none."""
    by = defaultdict(list)
    for key, means in lab.items():
        p, s = key.split("|")
        by[(os.path.basename(p), s)].append(means)
    miss = 0
    for r in rows:
        cands = by.get((r["folder"], r["scene"].split("/")[0]), [])
        best, err = None, 1e9
        for m in cands:
            c, sand = m.get(f"castle/{r['player']}"), m["sand"]
            if c is None:
                continue
            e = abs(float(np.hypot(c[1] - sand[1], c[2] - sand[2])) - r["contrast_ab"])
            if e < err:
                best, err = m, e
        if best is None or err > 0.05:
            miss += 1
            continue
        r["dL"] = abs(best[f"castle/{r['player']}"][0] - best["sand"][0])
        r["L_castle"], r["L_sand"] = best[f"castle/{r['player']}"][0], best["sand"][0]
    return miss


# --- report ------------------------------------------------------------------------------------------

def candidates(has_dl: bool, cross: dict | None = None) -> dict:
    c = {
        "base (platform+footprint+towers^0.75)": lambda r: cue_ll(r, "platform") + cue_ll(r, "footprint") + cue_ll(r, "towers"),
        "no tower term": lambda r: cue_ll(r, "platform") + cue_ll(r, "footprint"),
        "towers only": lambda r: cue_ll(r, "towers"),
        "platform only": lambda r: cue_ll(r, "platform"),
        "footprint only": lambda r: cue_ll(r, "footprint"),
    }
    for t in (0.5, 0.6, 0.8):  # calibration reliabilities are (agree + 1) / 5.5: 0.364, 0.545, 0.727, 0.909
        c[f"tower term dropped if reliability < {t}"] = (
            lambda r, t=t: cue_ll(r, "platform") + cue_ll(r, "footprint") + (cue_ll(r, "towers") if r["tower_reliability"] >= t else 0.0))
    for k in (1.0, 2.0):
        c[f"exponent 0.75 * reliability^{k:g}"] = (
            lambda r, k=k: cue_ll(r, "platform") + cue_ll(r, "footprint") + tower_ll(r, EXPONENT * r["tower_reliability"] ** k))
    for e in (0.0, 0.25, 0.5):
        c[f"yellow only (colour named): exponent {e}"] = (
            lambda r, e=e: cue_ll(r, "platform") + cue_ll(r, "footprint") + (tower_ll(r, e) if r["player"] == "yellow" else cue_ll(r, "towers")))
    if has_dl:
        for l0 in (20.0, 30.0, 40.0, 60.0):
            c[f"exponent 0.75 * min(1, |dL|/{l0:g})"] = (
                lambda r, l0=l0: cue_ll(r, "platform") + cue_ll(r, "footprint") + tower_ll(r, EXPONENT * temper_scale(r["dL"], l0)))
        for l0 in (20.0, 40.0):
            c[f"reliability * min(1, |dL|/{l0:g})"] = (
                lambda r, l0=l0: cue_ll(r, "platform") + cue_ll(r, "footprint")
                + tower_ll(r, EXPONENT, r["tower_reliability"] * temper_scale(r["dL"], l0)))
    if cross:
        # cross-fitted: the count frequencies per value learned on the other dump files' castles of the
        # same lightness class (|dL| < 30 or not), in place of the calibration's pooled towers_p
        # (control: one class for all colours, threshold 0)
        for thr in (0.0, 30.0):
            def crossed(r, thr=thr):
                t = cross[(r["_fold"], thr)][r["dL"] < thr]
                return cue_ll(r, "platform") + cue_ll(r, "footprint") + tower_ll(dict(r, towers_p=t))
            c["count table, one class, cross-fitted" if thr == 0 else f"count table by |dL| < {thr:g} class, cross-fitted"] = crossed
    return c


def bands(rows: list, key, edges: list) -> list:
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        sub = [r for r in rows if lo <= key(r) < hi]
        if sub:
            out.append((f"[{lo:g}, {hi:g})", agreement(sub), sum(int(r["read"]) != int(r["true"]) for r in sub)))
    return out


def group_corr(rows: list, has_dl: bool) -> dict:
    g = defaultdict(list)
    for r in rows:
        g[(r["folder"], r["scene"].split("/")[0], r["player"], r.get("dL"))].append(r)
    keys = list(g)
    agree = np.array([agreement(g[k])["agree"] for k in keys])
    rel = np.array([g[k][0]["tower_reliability"] for k in keys])
    out = {"groups": len(keys), "corr(reliability, agreement)": round(float(np.corrcoef(rel, agree)[0, 1]), 3)}
    if has_dl:
        dl = np.array([k[3] for k in keys], np.float64)
        out["corr(|dL|, agreement)"] = round(float(np.corrcoef(dl, agree)[0, 1]), 3)
        out["corr(|dL|, reliability)"] = round(float(np.corrcoef(dl, rel)[0, 1]), 3)
        for pl in sorted({k[2] for k in keys}):
            idx = [i for i, k in enumerate(keys) if k[2] == pl]
            out[f"{pl}: |dL| median, reliability median, agreement median"] = (
                round(float(np.median(dl[idx])), 1), round(float(np.median(rel[idx])), 3), round(float(np.median(agree[idx])), 3))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dumps", nargs="*")
    ap.add_argument("--lab", help="the --lab-out file: adds |dL| per castle")
    ap.add_argument("--calibrate", nargs="+", metavar="LIST", help="folder lists to calibrate")
    ap.add_argument("--lab-out")
    ap.add_argument("--cal-dir")
    a = ap.parse_args(argv)
    if a.calibrate:
        lab = calibrate_lab(a.calibrate, a.cal_dir or tempfile.mkdtemp(prefix="strand_lab_"))
        with open(a.lab_out or "lab.json", "w") as f:
            json.dump(lab, f)
        print(f"{len(lab)} set-ups' Lab means written to {a.lab_out or 'lab.json'}")
        if not a.dumps:
            return 0
    rows = [json.loads(line) for path in a.dumps for line in open(path) if line.strip()]
    for r in rows:
        r["_fold"] = fold_of(r["folder"])
    has_dl = False
    if a.lab:
        with open(a.lab) as f:
            miss = attach_dl(rows, json.load(f))
        has_dl = miss == 0
        print(f"|dL| attached to {len(rows) - miss} of {len(rows)} castles")
    groups = {"yellow": [r for r in rows if r["player"] == "yellow"],
              "others": [r for r in rows if r["player"] != "yellow"]}
    nw = {k: sum(int(r["read"]) != int(r["true"]) for r in v) for k, v in groups.items()}
    print(f"{len(rows)} castles, {sum(nw.values())} read wrong: " + ", ".join(f"{k} {nw[k]}/{len(v)}" for k, v in groups.items()))

    print("\n== per cue: mean rank of true | alone accuracy (strict / with ties) | mean margin | wrong readings the cue favours")
    for k, v in groups.items():
        for cue, s in cue_table(v).items():
            print(f"{k:7s} {cue:9s} rank {s['mean_rank']:.3f}  acc {s['acc']:.4f} / {s['acc_ties']:.4f}  margin {s['margin']:+.3f}"
                  f"  favours read {s['wrong_favoured']}")

    print("\n== tower count vs value + 1")
    for k, v in groups.items():
        print(f"{k:7s} {agreement(v)}")
    for pl in sorted({r["player"] for r in rows}):
        print(f"  {pl:6s} {agreement([r for r in rows if r['player'] == pl])}")
    print("by the player's calibration tower_reliability (band, agreement, values read wrong):")
    for b in bands(rows, lambda r: r["tower_reliability"], [0, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 1.01]):
        print("  ", b)
    if has_dl:
        print("by |dL| (castle colour's L against the sand's, calibration):")
        for b in bands(rows, lambda r: r["dL"], [0, 10, 20, 30, 40, 60, 80, 120, 256]):
            print("  ", b)
        for k, v in groups.items():
            d = np.array([r["dL"] for r in v])
            print(f"  {k}: |dL| median {np.median(d):.1f}, 5-95 % {np.percentile(d, 5):.1f}-{np.percentile(d, 95):.1f}")
    print("per (set-up, player):", group_corr(rows, has_dl))
    y = groups["yellow"]
    print("yellow only, by tower_reliability:")
    for b in bands(y, lambda r: r["tower_reliability"], [0, 0.5, 0.6, 0.8, 1.01]):
        print("  ", b)
    if has_dl:
        print("yellow only, by |dL|:")
        for b in bands(y, lambda r: r["dL"], [0, 5, 10, 15, 20, 40]):
            print("  ", b)
    print("yellow only, per (set-up, player):", {k: v for k, v in group_corr(y, has_dl).items() if ":" not in k})

    print("\n== guide: each castle alone, uniform prior (logP = sum log P(true); wrong; wrong at >= 0.8; right below 0.8;\n   the reader's wrong values still backed by this posterior alone, and at >= 0.8)")
    cross = None
    if has_dl:
        n_counts = len(rows[0]["towers_p"][VALUES[0]])
        cross = {(i, thr): count_tables([r for r in rows if r["_fold"] != i], thr, n_counts)
                 for i in range(FOLDS) for thr in (0.0, 30.0)}
    for name, fn in candidates(has_dl, cross).items():
        res = {k: guide(v, fn) for k, v in groups.items()}
        tot = guide(rows, fn)
        print(f"{name:44s} all {tot['logP']:8.1f} {tot['wrong']:4d} {tot['wrong>=0.8']:3d} {tot['right<0.8']:4d}"
              f" [reader's wrong: {tot['reader_wrong_backed']:2d} backed, {tot['reader_wrong>=0.8']:2d} >= 0.8] | "
              + " | ".join(f"{k} {s['logP']:7.1f} {s['wrong']:3d} {s['wrong>=0.8']:3d} {s['right<0.8']:4d}" for k, s in res.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
