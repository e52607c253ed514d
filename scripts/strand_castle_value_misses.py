#!/usr/bin/env python3
"""List every Strand unter castle value the reader gets wrong on development tables, with its cues.

    .venv/bin/python scripts/strand_castle_value_misses.py FOLDER [FOLDER ...] [--dump castles.jsonl]
        [--from castles.jsonl]

Each FOLDER is a rendered development table (``profile.json``, ``setupN/`` with ``calibration.json``,
``scene_XX.jpg``, ``scene_XX.truth.json``). Every set-up is calibrated and every scene read with the
current reader (:func:`fit_strand.scanned_scenes`); every castle read with a value whose player the
truth has in its groove is one row:

- ``folder``, ``scene`` (set-up/scene), ``conf`` (the scene's confidence), ``player``, ``read`` and
  ``true`` values (the truth's castle of that player in that groove; of several, the one read if it
  is there), ``p`` (the value's posterior);
- ``photo_ppm`` (photo px per board mm: the truth's board corners' mean side over the board's mm),
  ``lever_mm`` (the coloured part's distance from the camera's nadir, board mm) and ``nadir_side``
  (its position relative to the nadir, (x, y) mm);
- the cues (:func:`vision.strand_unter.castle_cues.measure`: ``platform_px``, ``footprint_px``, their
  standard errors, ``towers``, ``core_px2``, ``contrast_share``) and each cue's log likelihood per
  value (``ll_platform``, ``ll_footprint``, ``ll_towers`` — the tower term already tempered by
  ``tower_exponent``), the player's tower reliability and its calibration counts (``towers_seen``),
  the count frequencies per value over all players (``towers_p``);
- the set-up: ``camera_mm`` (the camera's height), ``cal_tan`` (the calibration castles' mean
  tangent of the view angle), ``contrast_ab`` (the player's colour against the sand, |Δ(a, b)|),
  ``lightness_gap`` (|ΔL|, OpenCV 8-bit Lab),
  ``cal_platform_resid`` and ``cal_tan_own`` (per value, the player's own calibration castle's
  platform log residual around the pooled model and its view tangent), ``sigma_log`` and
  ``spread_ss`` (each cue's Σ residual² and degrees of freedom behind ``sigma_log``).

``--dump`` writes the rows as JSON lines; ``--from`` reads such a file instead of reading photos.
The summary prints the wrong ones and tallies wrong / all by player, by the values confused, by the
posterior's band and by the lever from the nadir.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter, defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vision.strand_unter.reading as reading  # noqa: E402
from vision.strand_unter.castle_values import size_loglik, tower_likelihood, tower_reliability  # noqa: E402
from vision.strand_unter.config import CASTLES  # noqa: E402


def _board_mm(folder: str) -> tuple[float, float] | None:
    try:
        with open(os.path.join(folder, "profile.json")) as f:
            prof = json.load(f)
    except OSError:
        return None
    return tuple(prof["board_mm"]) if "board_mm" in prof else None


def cue_terms(f: dict, cm: dict, player: str, cfg=CASTLES) -> dict:
    """Each value cue's log likelihood per value (lists of n_values floats, nats), as
    :func:`vision.strand_unter.castle_values.value_loglik` sums them."""
    vs = [str(v) for v in cm["values"]]
    sig = cm["sigma_log"]
    scale = cm["platform_scale"].get(player, 1.0)
    lp = size_loglik(f["platform_px"], f["platform_se_px"], [scale * cm["platform_px"][v] for v in vs],
                     sig["platform"], cfg)
    lf = size_loglik(f["footprint_px"], f["footprint_se_px"], [cm["footprint_px"][v] for v in vs],
                     sig["footprint"], cfg)
    lt = cfg.tower_exponent * np.log(tower_likelihood(f["towers"], cm, player, cfg))
    return {"ll_platform": np.round(lp, 3).tolist(), "ll_footprint": np.round(lf, 3).tolist(),
            "ll_towers": np.round(lt, 3).tolist()}


def rows_of(folder: str, extra_cues: tuple = ()) -> list:
    """The rows (see the module docstring) of one folder, with the cues named in ``extra_cues`` too."""
    from fit_strand import scanned_scenes
    seen: dict = {}
    enter = reading._enter_castles
    nadir_fn = reading._nadir_px

    def castles(*a, **k):
        out = enter(*a, **k)
        seen["castles"], seen["A"] = out[0], a[2]
        return out

    def nadir(*a, **k):
        seen["nadir"] = nadir_fn(*a, **k)
        return seen["nadir"]

    reading._enter_castles, reading._nadir_px = castles, nadir
    rows = []
    try:
        for img, state, res in _scenes(folder, seen, scanned_scenes):
            A = seen["A"]
            cm = A.model["castle_model"]
            truth = {g["number"]: g for g in state["grooves"]}
            corners = np.array(json.load(open(img[:-4] + ".truth.json")).get("corners_px") or [], np.float64)
            board_w_mm = (_board_mm(folder) or (None,))[0]
            photo_ppm = None
            if len(corners) == 4 and board_w_mm:
                photo_ppm = float(np.mean([np.linalg.norm(corners[1] - corners[0]),
                                           np.linalg.norm(corners[2] - corners[3])]) / board_w_mm)
            nad = seen.get("nadir")
            for c in seen["castles"]:
                if c.value is None or c.groove not in truth:
                    continue
                mine = [t["value"] for t in truth[c.groove]["castles"] if t["player"] == c.player]
                if not mine:
                    continue
                true = c.value if c.value in mine else mine[0]
                f = c.cues
                row = {"folder": os.path.basename(folder.rstrip("/")),
                       "scene": os.path.relpath(img, folder)[:-4], "conf": round(float(res.confidence), 3),
                       "player": c.player, "groove": c.groove, "read": int(c.value), "true": int(true),
                       "p": round(float(c.p_value), 4), "photo_ppm": photo_ppm and round(photo_ppm, 3),
                       "x_mm": round(c.core_x / A.ppm, 1), "y_mm": round(c.core_y / A.ppm, 1)}
                if nad is not None:
                    dx, dy = (c.core_x - nad[0]) / A.ppm, (c.core_y - nad[1]) / A.ppm
                    row.update(nadir_side=[round(float(dx), 1), round(float(dy), 1)], lever_mm=round(float(np.hypot(dx, dy)), 1))
                for k in ("platform_px", "platform_se_px", "footprint_px", "footprint_se_px", "towers", "core_px2",
                          "contrast_share") + tuple(extra_cues):
                    if k in f:
                        row[k] = f[k] if isinstance(f[k], list) else round(float(f[k]), 3)
                row.update(cue_terms(f, cm, c.player))
                row.update(_setup_geometry(A.model, c.player))
                row["sigma_log"] = cm["sigma_log"]
                row["spread_ss"] = cm.get("spread_ss")
                row["tower_reliability"] = round(tower_reliability(cm, c.player), 3)
                row["towers_seen"] = cm.get("towers_seen", {}).get(c.player)
                row["towers_p"] = {v: [round(float(q), 5) for q in cm["towers_p"][str(v)]] for v in map(str, cm["values"])}
                row["platform_model"] = [round(cm["platform_scale"].get(c.player, 1.0) * cm["platform_px"][str(v)], 3)
                                         for v in cm["values"]]
                row["footprint_model"] = [cm["footprint_px"][str(v)] for v in cm["values"]]
                rows.append(row)
    finally:
        reading._enter_castles, reading._nadir_px = enter, nadir_fn
    return rows


def _setup_geometry(model: dict, player: str) -> dict:
    """The camera's height (mm), the calibration castles' mean tan of the view angle at their coloured
    parts, the player's colour contrast against the sand (|Δ(a, b)| and |ΔL|), and per value the player's own
    calibration castle's platform log residual around the pooled model and its view tangent."""
    par = model.get("parallax") or {}
    out = {"camera_mm": par.get("camera_mm")}
    n = np.asarray(par.get("nadir_px", (np.nan, np.nan)), np.float64)
    ppm = float(model["ppm"])
    t = [float(np.hypot(*(np.asarray(c["centre_px"]) - np.asarray(c["offset_px"]) - n))) / ppm
         for d in model["castles"].values() for c in d.values()]
    if out["camera_mm"]:
        out["cal_tan"] = round(float(np.mean(t)) / out["camera_mm"], 4)
    cm = model["castle_model"]
    own = model["castles"].get(player, {})
    out["cal_platform_resid"] = {v: round(float(np.log(c["platform_px"] / (cm["platform_scale"].get(player, 1.0)
                                                                             * cm["platform_px"][v]))), 4)
                                 for v, c in own.items() if "platform_px" in c}
    if out["camera_mm"]:
        out["cal_tan_own"] = {v: round(float(np.hypot(*(np.asarray(c["centre_px"]) - np.asarray(c["offset_px"]) - n)))
                                       / ppm / out["camera_mm"], 4) for v, c in own.items()}
    sand = np.asarray(model["classes"]["sand"]["mean"], np.float64)
    cl = model["classes"][f"castle/{player}"]
    out["contrast_ab"] = round(float(np.hypot(*(np.asarray(cl["mean"], np.float64)[1:] - sand[1:]))), 2)
    out["lightness_gap"] = round(abs(float(cl["mean"][0]) - float(sand[0])), 2)
    return out


def _scenes(folder: str, seen: dict, scanned_scenes):
    """(photo, truth state, scan result) of every scene read: :func:`fit_strand.scanned_scenes` with the
    result kept (its pipeline call wrapped)."""
    from beachscore import pipeline
    scan = pipeline.scan_file
    last = {}

    def keep(*a, **k):
        last["res"] = scan(*a, **k)
        return last["res"]

    pipeline.scan_file = keep
    try:
        for img, state in scanned_scenes(folder, seen):
            if "castles" in seen:
                yield img, state, last["res"]
    finally:
        pipeline.scan_file = scan


def summary(rows: list) -> None:
    """Print the wrong values and the tallies (see the module docstring)."""
    wrong = [r for r in rows if r["read"] != r["true"]]
    print(f"{len(rows)} castles, {len(wrong)} wrong values")
    for r in sorted(wrong, key=lambda r: -r["p"]):
        print(f"  {r['folder']} {r['scene']} {r['player']} g{r['groove']} read {r['read']} true {r['true']} "
              f"p {r['p']} conf {r['conf']} lever {r.get('lever_mm')} side {r.get('nadir_side')} ppm {r['photo_ppm']} "
              f"towers {r['towers']} seen {r['towers_seen']} rel {r['tower_reliability']} "
              f"plat {r['platform_px']:.2f}/{r['platform_model']} foot {r['footprint_px']:.2f}/{r['footprint_model']}")
        print(f"      ll plat {r['ll_platform']} foot {r['ll_footprint']} towers {r['ll_towers']}")

    def tally(name, key):
        t = defaultdict(lambda: [0, 0])
        for r in rows:
            t[key(r)][0] += 1
            t[key(r)][1] += r["read"] != r["true"]
        print(f"by {name}: " + ", ".join(f"{k}: {w}/{n}" for k, (n, w) in sorted(t.items(), key=lambda kv: str(kv[0]))))

    tally("player", lambda r: r["player"])
    tally("true value", lambda r: r["true"])
    tally("read→true", lambda r: f"{r['read']}→{r['true']}")
    tally("posterior", lambda r: next(b for b in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.01) if r["p"] < b))
    tally("lever mm", lambda r: int(r.get("lever_mm", -1) // 100 * 100))
    tally("photo ppm", lambda r: r["photo_ppm"] and round(r["photo_ppm"], 1))
    print("cue favouring the wrong value (of the wrong ones): " + str(Counter(
        tuple(k for k in ("ll_platform", "ll_footprint", "ll_towers")
              if r[k][r["read"]] > r[k][r["true"]]) for r in wrong)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--dump", help="write the rows here (JSON lines)")
    ap.add_argument("--from", dest="source", help="read the rows from this file instead of photos")
    args = ap.parse_args()
    rows = []
    if args.source:
        with open(args.source) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    for folder in args.folders:
        r = rows_of(folder)
        print(f"{folder}: {len(r)} castles, {sum(x['read'] != x['true'] for x in r)} wrong", flush=True)
        rows += r
        if args.dump:
            with open(args.dump, "a") as f:
                for x in r:
                    f.write(json.dumps(x) + "\n")
    summary(rows)


if __name__ == "__main__":
    main()
