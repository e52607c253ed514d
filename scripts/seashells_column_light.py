#!/usr/bin/env python3
"""Collect, per Seashells development set-up, the calibration shot's towel columns and how its scans went.

    .venv/bin/python scripts/seashells_column_light.py FOLDER [FOLDER ...] --cache DIR

For every ``setupN/`` of every folder (``profile.json`` + ``setupN/`` with truths, the layout of
``../shared/tools/evaluate.py``) it calibrates as ``beachscore calibrate`` does, keeps the
calibration shot's every towel cell's contrast features (as the reader measures them), the
labelled samples' cells and the learned model's towel classes, then scans every scene and keeps,
per scene, whether it was read right, its confidence, and per colour column the cells read wrong
and the cells the reader called hard to read. One JSON per set-up under ``--cache`` (reused when it
exists). ``scripts/fit_confusable.py --seashells-columns`` fits the light check's column threshold
on them.
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

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from calibration import store  # noqa: E402
from vision.mats.config import SEASHELLS as CFG  # noqa: E402
from vision.seashells.column_light import bare_towel_doubt, towel_samples  # noqa: E402

BASKET = ("fossil_heads", "fossil_tails", "sand_dollars", "bottles")
#: What each record keeps of the learned model.
MODEL_KEYS = ("towel", "column_shells", "glared_cells", "doubted_samples")


def _calibrate(setup: str):
    """Calibrate ``setup``; returns ``(calibration, (profile, image, H, samples))`` as the light check sees them."""
    seen = {}
    real = pipeline.light_check

    def spy(game, profile, image, H, samples, model, *a, **k):
        seen["args"] = (profile, image, H, samples)
        return real(game, profile, image, H, samples, model, *a, **k)

    pipeline.light_check = spy
    try:
        cal = store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"), tempfile.mkdtemp()).folder)
    finally:
        pipeline.light_check = real
    return cal, seen["args"]


def scene_record(res, truth: dict) -> dict:
    """One scene's outcome: right, confidence, and per column the wrong and the hard-to-read cells."""
    d = res.reading.details
    rows, cols = d["shapes"], d["colours"]
    want = {tuple(s) for s in truth["state"]["players"][0]["shells"]}
    got = res.reading.state["players"][0]
    wrong_cols, unsure_cols = [0] * len(cols), [0] * len(cols)
    for k, occ in enumerate(d["occupied"]):
        c = k % len(cols)
        wrong_cols[c] += int(bool(occ) != ((rows[k // len(cols)], cols[c]) in want))
        unsure_cols[c] += int(d["place_conf"][k] < CFG.unsure_cell_conf)
    shells_right = {tuple(s) for s in got["shells"]} == want
    basket_right = all(got.get(f) == truth["state"]["players"][0].get(f) for f in BASKET)
    return {"right": bool(shells_right and basket_right), "confidence": float(res.reading.confidence),
            "wrong_cols": wrong_cols, "unsure_cols": unsure_cols}


def measure_setup(setup: str) -> dict:
    """The calibration shot's towel samples and every scene's outcome of one set-up."""
    try:
        cal, (profile, image, H, samples) = _calibrate(setup)
    except (UnreadableBoardError, BadInputError) as e:
        return {"setup": setup, "refused": e.code}
    sep = cal.extra.get("separability", {}) if isinstance(getattr(cal, "extra", None), dict) else {}
    out = {"setup": setup, "cols": list(profile["towel"]["cols"]),
           "towel": towel_samples(profile, image, H, samples, cal.model),
           "model": {k: cal.model.get(k) for k in MODEL_KEYS},
           "confusable": [c["classes"] for c in sep.get("confusable", [])], "scenes": {}}
    for tpath in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
        name = os.path.basename(tpath).replace(".truth.json", "")
        try:
            res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal)
        except (UnreadableBoardError, BadInputError) as e:
            out["scenes"][name] = {"refused": e.code}
            continue
        out["scenes"][name] = scene_record(res, json.load(open(tpath)))
    return out


def remeasure_shot(rec: dict) -> dict:
    """``rec`` with its calibration shot measured again (the scenes' outcomes kept)."""
    if "refused" in rec:
        return rec
    cal, (profile, image, H, samples) = _calibrate(rec["setup"])
    rec["towel"] = towel_samples(profile, image, H, samples, cal.model)
    rec["model"] = {k: cal.model.get(k) for k in MODEL_KEYS}
    return rec


def collect(folders: list[str], cache: str, remeasure: bool = False) -> list[dict]:
    """Every set-up's record of ``folders``, measured or read back from ``cache`` (``remeasure``: the
    calibration shot measured again, the scenes read back)."""
    os.makedirs(cache, exist_ok=True)
    records = []
    for folder in folders:
        folder = os.path.abspath(folder)
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            key = os.path.join(cache, f"{os.path.basename(folder)}__{os.path.basename(setup)}.json")
            if not os.path.exists(key):
                rec = measure_setup(setup)
                with open(key, "w") as f:
                    json.dump(rec, f)
                print(f"{setup}: measured", flush=True)
            elif remeasure:
                rec = remeasure_shot(json.load(open(key)))
                with open(key, "w") as f:
                    json.dump(rec, f)
            records.append(json.load(open(key)))
    return records


def column_rows(records: list[dict]) -> list[dict]:
    """One row per colour column of every calibrated set-up with a read scene: its bare towel doubt on
    the calibration shot (``error_bound``, the figure :func:`fit_confusable.choose_threshold` splits),
    the scenes read (``scenes``) and those read wrong or doubted (not right with confidence ≥ 0.5) with a
    wrong or hard-to-read cell in that column (``mixed``)."""
    rows = []
    for rec in records:
        scenes = [s for s in rec.get("scenes", {}).values() if "refused" not in s]
        if "refused" in rec or not scenes:
            continue
        n_cols = len(rec["cols"])
        shells = [k for k, label in rec["towel"]["labelled"] if label == "shell"]
        doubt = bare_towel_doubt(np.asarray(rec["towel"]["p_shell"]), shells, n_cols)
        for c, name in enumerate(rec["cols"]):
            if not np.isfinite(doubt[c]):
                continue
            mixed = sum(1 for s in scenes if not (s["right"] and s["confidence"] >= 0.5)
                        and s["wrong_cols"][c] + s["unsure_cols"][c] > 0)
            rows.append({"folder": os.path.dirname(rec["setup"]), "setup": os.path.basename(rec["setup"]),
                         "column": name, "error_bound": round(float(doubt[c]), 4), "mixed": mixed,
                         "scenes": len(scenes), "right": sum(s["right"] for s in scenes),
                         "trusted": sum(s["right"] and s["confidence"] >= 0.5 for s in scenes),
                         "glare": name in {c.rsplit("/", 1)[-1] for c in rec["model"].get("glared_cells") or []}})
    return rows


def setup_table(rows: list[dict], threshold: float) -> list[str]:
    """One line per set-up: its worst column and doubt, flagged or not, the columns the light check
    names (``glare``: the lamp's reflection said instead, :func:`calibration.light_check.column_check`),
    its scans right / trusted / read, and the columns that made its scans wrong or doubted (at least
    half of them)."""
    by: dict[tuple, list[dict]] = {}
    for r in rows:
        by.setdefault((r["folder"], r["setup"]), []).append(r)
    lines = [f"{'set-up':<36} {'worst':<7} {'doubt':>6} {'flagged':<8} {'named':<22} {'right/trusted/read':<19} hard"]
    for (folder, setup), rs in sorted(by.items()):
        worst = max(rs, key=lambda r: r["error_bound"])
        hard = [r["column"] for r in rs if 2 * r["mixed"] >= r["scenes"]]
        named = [r["column"] + (" (glare)" if r["glare"] else "") for r in rs if r["error_bound"] > threshold]
        lines.append(f"{os.path.basename(folder) + '/' + setup:<36} {worst['column']:<7} {worst['error_bound']:6.3f} "
                     f"{'YES' if named else 'no':<8} {', '.join(named) or '-':<22} "
                     f"{worst['right']:>2}/{worst['trusted']:>2}/{worst['scenes']:<13} {', '.join(hard) or '-'}")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--remeasure", action="store_true", help="measure the cached set-ups' calibration shots again")
    args = ap.parse_args(argv)
    collect(args.folders, args.cache, args.remeasure)
    return 0


if __name__ == "__main__":
    sys.exit(main())
