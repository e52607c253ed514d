#!/usr/bin/env python3
"""Fit how a Seashells towel cell's evidence maps to the chance it is read right (development tables).

    .venv/bin/python scripts/fit_seashells_confidence.py collect FOLDER [FOLDER ...] --out cells.csv
    .venv/bin/python scripts/fit_seashells_confidence.py fit cells.csv [...] [--fit-setups even|odd|all]
        [--held-out other.csv ...]

``collect`` scans every scene of every ``setupN/`` folder as ``beachscore scan`` does and writes
one row per towel cell of each read scene: the shell posterior, the decision, the truth, the
cell's flags (glared, covered, unlike, straddling), its core's blown-out share, whether its
column is pale, and the scene's basket confidence and whether its basket was read right.

``fit`` prints, per band of posterior margin, the cells read empty, read as a shell and glared
and the wrong ones among them, then measures a calibrated confidence for glared cells (pale-column
cells blown out by a lamp, now capped at ``covered_conf``) fitted on some set-ups (``--fit-setups``):
a glared cell read clearly empty at ``glare_right`` = (right + 1) / (cells + 2), either every such
cell or only those blown out no more than the most blown-out cell where a pale shell was found
(``glare_seen_share``), and reports each scene's confidence so recomputed (RIGHT, TRUSTED, silent
wrong) on the fitted and the held-out set-ups against the rule of the reader of that time (each cell at its
raw posterior margin). A measurement: it prints (docs/tuning.md, Seashells confidence). The reader now
takes each cell's place confidence from ``vision/seashells/fitted.json``, fitted on ``collect``'s rows by
``scripts/fit_seashells_place_confidence.py``.
"""

from __future__ import annotations

import argparse
import csv
import glob
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from calibration import store  # noqa: E402
from vision.mats.config import SEASHELLS as CFG  # noqa: E402
from vision.seashells.columns import pale_columns  # noqa: E402

FIELDS = ("scene", "setup", "cell", "column", "pale", "p_shell", "read", "true", "glared", "covered", "unlike",
          "straddle", "blown", "item_conf", "basket_right")
BASKET = ("fossil_heads", "fossil_tails", "sand_dollars", "bottles")
BANDS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0001)


def scene_rows(result, truth: dict, scene: str, setup: str, pale) -> list[dict]:
    """One row (FIELDS) per towel cell of one read scene; ``pale``: bool (C,) the set-up's pale columns."""
    d = result.reading.details
    rows, cols = d["shapes"], d["colours"]
    want = {tuple(s) for s in truth["state"]["players"][0]["shells"]}
    straddle = {k for pair in d.get("straddling", []) for k in pair}
    item_conf = float(np.prod([it["confidence"] for it in d.get("items", [])] or [1.0]))
    got = result.reading.state["players"][0]
    basket_right = all(got.get(f) == truth["state"]["players"][0].get(f) for f in BASKET)
    out = []
    for k, p in enumerate(d["p_shell"]):
        out.append({"scene": scene, "setup": setup, "cell": k, "column": k % len(cols),
                    "pale": int(pale[k % len(cols)]), "p_shell": p,
                    "read": int(d["occupied"][k]), "true": int((rows[k // len(cols)], cols[k % len(cols)]) in want),
                    "glared": int(d["glared"][k]), "covered": int(d["covered"][k]), "unlike": int(d["unlike"][k]),
                    "straddle": int(k in straddle), "blown": d["blown"][k],
                    "item_conf": round(item_conf, 6), "basket_right": int(basket_right)})
    return out


def calibrated_setups(folders: list[str]):
    """Yield ``(setup, calibration, scenes)`` for every set-up of ``folders`` whose calibration is accepted
    (a refused one is printed and skipped); ``scenes`` yields ``(truth path, truth, scan result)`` for
    every scene the reader does not refuse."""
    for folder in folders:
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            try:
                cal = store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"), tempfile.mkdtemp()).folder)
            except (UnreadableBoardError, BadInputError) as e:
                print(f"{setup}: calibration refused ({e.code})", flush=True)
                continue
            yield setup, cal, _scene_results(setup, cal)


def _scene_results(setup: str, cal):
    for tpath in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
        try:
            res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal)
        except (UnreadableBoardError, BadInputError):
            continue
        yield tpath, json.load(open(tpath)), res


def collect_fit_args(description: str, argv=None) -> argparse.Namespace:
    """The ``collect FOLDERS --out CSV`` / ``fit CSV… --fit-setups … --held-out …`` command line."""
    ap = argparse.ArgumentParser(description=description)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("folders", nargs="+")
    c.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("csv", nargs="+")
    f.add_argument("--fit-setups", choices=("even", "odd", "all"), default="odd")
    f.add_argument("--held-out", nargs="*", default=[], help="collected CSV files held out whole")
    return ap.parse_args(argv)


def collect(folders: list[str], out: str) -> None:
    """Scan every scene of ``folders`` and write the cells' rows to ``out`` (CSV)."""
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for setup, cal, scenes in calibrated_setups(folders):
            for tpath, truth, res in scenes:
                pale = pale_columns(cal.model.get("column_shells"), len(res.reading.details["colours"]))
                w.writerows(scene_rows(res, truth, tpath.replace(".truth.json", ""), setup, pale))
            print(f"{setup}: done", flush=True)


def load(paths: list[str]) -> list[dict]:
    """The rows of ``collect``'s CSV files, typed; ``margin`` = max(p, 1 − p), ``wrong`` = read ≠ true."""
    rows = []
    for path in paths:
        for r in csv.DictReader(open(path)):
            for k in FIELDS[2:]:
                if k not in ("p_shell", "blown", "item_conf"):
                    r[k] = int(r[k])
            for k in ("p_shell", "blown", "item_conf"):
                r[k] = float(r[k])
            r["margin"], r["wrong"] = max(r["p_shell"], 1 - r["p_shell"]), r["read"] != r["true"]
            r["index"] = int(os.path.basename(r["setup"]).removeprefix("setup"))
            rows.append(r)
    return rows


def rate(cells: list[dict]) -> float:
    """Share of ``cells`` read right, (right + 1) / (n + 2): never 1 from a finite count."""
    return (sum(not c["wrong"] for c in cells) + 1) / (len(cells) + 2)


def place_confidence(r: dict, glare_right: float | None, seen_share: float = 1.0) -> float:
    """A cell's place confidence as :mod:`vision.seashells.reader` sets it: a glared cell read clearly
    empty and blown out no more than ``seen_share`` at ``glare_right``; ``glare_right`` None: every
    glared cell doubted as a covered one (``covered_conf``)."""
    conf = r["margin"]
    clear_glare = (r["glared"] and conf >= CFG.unsure_cell_conf and glare_right is not None
                   and r["blown"] <= seen_share)
    if clear_glare:
        conf = min(conf, glare_right)
    elif r["glared"] or r["covered"] or r["unlike"]:
        conf = min(conf, CFG.covered_conf)
    if r["straddle"]:
        conf = min(conf, CFG.straddle_conf)
    return min(conf, CFG.straddle_conf) if conf < CFG.unsure_cell_conf else conf


def scene_tally(rows: list[dict], confidence) -> tuple[int, int, int, int]:
    """(read, right, trusted, silent wrong) scenes of ``rows``, each scene's confidence
    ``confidence(its cell rows)``."""
    scenes: dict[str, list[dict]] = {}
    for r in rows:
        scenes.setdefault(r["scene"], []).append(r)
    right = trusted = silent = 0
    for cells in scenes.values():
        ok = not any(c["wrong"] for c in cells) and bool(cells[0]["basket_right"])
        sure = confidence(cells) >= 0.5
        right, trusted, silent = right + ok, trusted + (ok and sure), silent + ((not ok) and sure)
    return len(scenes), right, trusted, silent


def scene_scores(rows: list[dict], glare_right: float | None = None, seen_share: float = 1.0) -> tuple[int, int, int]:
    """(right, trusted, silent wrong) scenes of ``rows`` as the reader's confidence sets them."""
    return scene_tally(rows, lambda cells: float(np.prod([place_confidence(c, glare_right, seen_share)
                                                          for c in cells])) * cells[0]["item_conf"])[1:]


def report(rows: list[dict], glare_right: float | None, label: str, seen_share: float = 1.0) -> None:
    """Print RIGHT / TRUSTED / silent wrong and the reliability of ``rows``' read scenes."""
    right, trusted, silent = scene_scores(rows, glare_right, seen_share)
    hi = trusted + silent
    print(f"  {label}: read {len({r['scene'] for r in rows})}, right {right}, trusted {trusted}, silent wrong {silent}; "
          f"≥0.5 right {trusted}/{hi} ({100 * trusted / max(hi, 1):.1f} %), "
          f"right at ≥0.5 {trusted}/{right} ({100 * trusted / max(right, 1):.1f} %)")


def fit(paths: list[str], fit_setups: str, held_out: list[str]) -> None:
    """Fit ``glare_right`` on the chosen set-ups of ``paths`` and report before / after on the fitted
    set-ups and on the held-out ones (the others of ``paths``, and every set-up of ``held_out``)."""
    rows = load(paths)
    chosen = {"even": lambda i: i % 2 == 0, "odd": lambda i: i % 2 == 1, "all": lambda i: True}[fit_setups]
    fit_rows = [r for r in rows if chosen(r["index"])]
    held = [r for r in rows if not chosen(r["index"])] + load(held_out)
    rows = rows + load(held_out)
    print("cells by posterior margin (all set-ups): band, read empty n/wrong, read shell n/wrong, glared n/wrong")
    for lo, hi in zip(BANDS[:-1], BANDS[1:]):
        band = [r for r in rows if lo <= r["margin"] < hi]
        e, s, g = ([r for r in band if not r["read"]], [r for r in band if r["read"]],
                   [r for r in band if r["glared"]])
        print(f"  {lo:.2f}–{min(hi, 1):.2f}: {len(e):5d}/{sum(r['wrong'] for r in e):2d}  "
              f"{len(s):5d}/{sum(r['wrong'] for r in s):2d}  {len(g):4d}/{sum(r['wrong'] for r in g):2d}")
    clear = [r for r in fit_rows if r["glared"] and r["margin"] >= CFG.unsure_cell_conf]
    glare_right = rate(clear)
    print(f"glare_right = {glare_right:.3f} (glared cells read clearly, fit set-ups: {len(clear)}, "
          f"wrong {sum(r['wrong'] for r in clear)}; held out: "
          f"{sum(1 for r in held if r['glared'] and r['margin'] >= CFG.unsure_cell_conf)}, "
          f"wrong {sum(1 for r in held if r['glared'] and r['margin'] >= CFG.unsure_cell_conf and r['wrong'])})")
    under = [r for r in fit_rows if r["pale"] and r["true"] and r["blown"] > CFG.glare_cell_share]
    seen = max((r["blown"] for r in under if r["read"]), default=CFG.glare_cell_share)
    print(f"glare_seen_share = {seen:.3f} (the most blown-out pale-column cell whose shell was found, fit set-ups; "
          f"pale shells in cells blown beyond {CFG.glare_cell_share}: {len(under)}, missed "
          f"{sum(not r['read'] for r in under)})")
    for part, label in ((fit_rows, "fit"), (held, "held out")):
        report(part, None, f"{label}, before")
        report(part, glare_right, f"{label}, after (every clear glared cell)")
        report(part, glare_right, f"{label}, after (clear glared cells blown ≤ {seen:.2f})", seen)


def main(argv=None) -> int:
    a = collect_fit_args(__doc__.splitlines()[0], argv)
    if a.cmd == "collect":
        collect(a.folders, a.out)
    else:
        fit(a.csv, a.fit_setups, a.held_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
