#!/usr/bin/env python3
"""Fit the floor of the pale-column outline classes (``SeashellsConfig.outline_var_floor``) on development tables.

    .venv/bin/python scripts/seashells_pale_cells.py collect FOLDER [FOLDER ...] --out cells.csv
    .venv/bin/python scripts/seashells_pale_cells.py fit cells.csv [...] [--fit-setups odd|even|all]
        [--held-out other.csv ...]

``collect`` calibrates every ``setupN/`` and scans its scenes as ``beachscore scan`` does, but with the
towel judged by colour contrast alone (:func:`vision.seashells.outline.with_outline` switched off), and
writes one row per towel cell: the rows of ``fit_seashells_confidence.py collect`` (posterior, truth,
flags, basket) and the cell's outline contrast (:func:`vision.seashells.outline.outline_contrast`); the
calibration samples' cells too (scene ``calib``, ``true`` = their label).

``fit`` adds the outline evidence to the pale columns' cells as the reader does for each candidate floor,
recomputes every scene's confidence as the reader sets it (``fit_seashells_confidence.place_confidence``)
and picks, on the fitted set-ups, the floor with most trusted readings among those with no silent wrong
and no wrong cell read at a place confidence ≥ ``unsure_cell_conf``; then reports it on the held-out
set-ups and files. A measurement (docs/tuning.md, Seashells: pale outlines).
"""

from __future__ import annotations

import csv
import dataclasses
import glob
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import fit_seashells_confidence as fsc  # noqa: E402
from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from calibration import store  # noqa: E402
from vision.mats.config import SEASHELLS as CFG  # noqa: E402
from vision.seashells import outline, reader  # noqa: E402
from vision.seashells.columns import pale_columns  # noqa: E402

FIELDS = (*fsc.FIELDS, "outline")
FLOORS = (0.01, 0.02, 0.04, 0.06, 0.09, 0.12, 0.16, 0.25)
CAPTURED: list = []
_towel = reader.towel_contrast


def _capture(lab, boxes):
    CAPTURED.append(outline.outline_contrast(lab, boxes))
    return _towel(lab, boxes)


def collect_setup(setup: str, w: csv.DictWriter) -> None:
    """Calibrate one set-up and write its calibration samples' and scenes' cells (FIELDS)."""
    CAPTURED.clear()
    try:
        cal = store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"), tempfile.mkdtemp()).folder)
    except (UnreadableBoardError, BadInputError) as e:
        print(f"{setup}: calibration refused ({e.code})", flush=True)
        return
    boxes, rows, cols = reader.towel_geometry(cal.profile)
    pale = pale_columns(cal.model.get("column_shells"), len(cols))
    for s in json.load(open(os.path.join(setup, "calibration.json")))["samples"]:
        k = reader.cell_of(boxes, *s["board_mm"])
        if k is not None and s["label"] in reader.TOWEL_LABELS:
            w.writerow({"scene": "calib", "setup": setup, "cell": k, "column": k % len(cols),
                        "pale": int(pale[k % len(cols)]), "p_shell": 0, "read": 0,
                        "true": int(s["label"] == "shell"), "glared": 0, "covered": 0,
                        "unlike": 0, "straddle": 0, "blown": 0, "item_conf": 1, "basket_right": 1,
                        "outline": round(float(CAPTURED[-1][k]), 4)})
    for tpath in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
        CAPTURED.clear()
        try:
            res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal)
        except (UnreadableBoardError, BadInputError):
            continue
        for row in fsc.scene_rows(res, json.load(open(tpath)), tpath.replace(".truth.json", ""), setup, pale):
            w.writerow({**row, "outline": round(float(CAPTURED[-1][row["cell"]]), 4)})
    print(f"{setup}: done", flush=True)


def collect(folders: list[str], out: str) -> None:
    """Write every cell of ``folders``' set-ups to ``out`` (CSV), the towel judged without outlines."""
    reader.towel_contrast = _capture
    reader.with_outline = lambda p_shell, log_ratio: p_shell
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for folder in folders:
            for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
                collect_setup(setup, w)


def with_floor(paths: list[str], floor: float) -> list[dict]:
    """``collect``'s rows of the scenes (``fsc.load``'s fields) with the outline evidence added to the pale
    columns' cells as the reader adds it, under ``outline_var_floor`` = ``floor``."""
    outline.CFG = dataclasses.replace(CFG, outline_var_floor=floor)
    out = []
    for path in paths:
        raw = list(csv.DictReader(open(path)))
        n_cols = 1 + max(int(r["column"]) for r in raw)
        models, cells = {}, [r for r in fsc.load([path]) if not r["scene"].endswith("calib")]
        for setup in {r["setup"] for r in raw}:
            cal = [r for r in raw if r["scene"] == "calib" and r["setup"] == setup]
            # stand-in column_shells: feature 0 of 0 marks a pale column, 9 a vivid one (pale_columns)
            pale = [[c, 0.0 if p else 9.0] for c, p in {(int(r["column"]), r["pale"] == "1") for r in cal
                                                       if r["true"] == "1"}]
            models[setup] = outline.learn_outline([float(r["outline"]) for r in cal],
                                                  ["shell" if r["true"] == "1" else "empty" for r in cal],
                                                  [int(r["cell"]) for r in cal], pale or None, n_cols)
        scenes: dict[str, list[dict]] = {}
        for r in cells:
            scenes.setdefault(r["scene"], []).append(r)
        for scene in scenes.values():
            scene.sort(key=lambda r: r["cell"])
            values = np.array([float(r["outline"]) for r in scene])
            p = outline.with_outline(np.array([r["p_shell"] for r in scene]),
                                     outline.outline_log_ratio(values, models[scene[0]["setup"]], n_cols))
            for r, q in zip(scene, p):
                read = int(q > 0.5)
                glared = r["pale"] and r["blown"] > CFG.glare_cell_share and not read
                out.append({**r, "p_shell": q, "read": read, "margin": max(q, 1 - q), "wrong": read != r["true"],
                            "glared": int(glared)})
    outline.CFG = CFG
    return out


def sure_wrong(rows: list[dict]) -> int:
    """Wrong cells read at a place confidence ≥ ``unsure_cell_conf``."""
    return sum(r["wrong"] and fsc.place_confidence(r, None) >= CFG.unsure_cell_conf for r in rows)


def part(rows: list[dict], which: str) -> list[dict]:
    """The rows of the odd, even or all set-ups."""
    return [r for r in rows if which == "all" or (r["index"] % 2 == 1) == (which == "odd")]


def fit(paths: list[str], fit_setups: str, held_out: list[str]) -> None:
    """Pick the floor on ``paths``' ``fit_setups`` and report it there and held out."""
    other = {"odd": "even", "even": "odd", "all": None}[fit_setups]
    best = None
    print(f"fitted on {fit_setups} set-ups of {', '.join(map(os.path.basename, paths))}")
    for floor in (None, *FLOORS):
        rows = part(fsc.load(paths) if floor is None else with_floor(paths, floor), fit_setups)
        rows = [r for r in rows if not r["scene"].endswith("calib")]
        right, trusted, silent = fsc.scene_scores(rows)
        sure = sure_wrong(rows)
        print(f"  floor {floor}: right {right}, trusted {trusted}, silent wrong {silent}, sure wrong cells {sure}")
        if floor is not None and silent == 0 and sure == 0 and (best is None or trusted > best[1]):
            best = (floor, trusted)
    if best is None:
        print("no floor keeps every fitted reading honest")
        return
    print(f"outline_var_floor = {best[0]}")
    for label, files, which in ((f"{other} set-ups (held out)", paths, other),
                                *((os.path.basename(h) + " (held out)", [h], "all") for h in held_out)):
        if which is None:
            continue
        for name, rows in (("colour only", fsc.load(files)), ("with outline", with_floor(files, best[0]))):
            rows = [r for r in part(rows, which) if not r["scene"].endswith("calib")]
            print(f"  {label}, {name}: right / trusted / silent wrong {fsc.scene_scores(rows)}, "
                  f"sure wrong cells {sure_wrong(rows)}")


def main() -> None:
    a = fsc.collect_fit_args(__doc__.splitlines()[0])
    if a.cmd == "collect":
        collect(a.folders, a.out)
    else:
        fit(a.csv, a.fit_setups, a.held_out)


if __name__ == "__main__":
    main()
