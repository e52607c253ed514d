#!/usr/bin/env python3
"""List every Strand unter groove whose shell count the reader got wrong, with the parts behind it.

    .venv/bin/python scripts/strand_shell_misses.py FOLDER [FOLDER ...] [--json OUT]

Each FOLDER holds ``setupN/`` folders with ``calibration.json`` and ``scene_XX.jpg`` +
``scene_XX.truth.json`` (rendered development tables). Every set-up is calibrated and every scene
read; for each (groove, colour) whose read count differs from the truth it prints the scene's
confidence and every part of that colour in that groove (area in shells of this photo, count read,
the count's posterior, the colour's posterior, thickness), the parts of that groove that were no
shells (``why``) and the castles read in it, so that the cause (a shell under a castle, shells
touching, a shadow) can be told. ``--json`` also writes every row and every sandpiper found (its blob's log
area over the calibration bird's, ``p_alone``, shells missed in its groove).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from strand_scenes import calibrated_scenes  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
import vision.strand_unter.reading as reading  # noqa: E402


def _capture() -> dict:
    """Wrap the shell stage so that its parts can be looked at after each scan."""
    seen: dict = {}
    read_shells, find_bird = reading.read_shells, reading.find_bird

    def shells(*a, **k):
        seen["parts"] = read_shells(*a, **k)
        return seen["parts"]

    def bird(blobs, owned, image, A, *a, **k):
        out = find_bird(blobs, owned, image, A, *a, **k)
        if out.mask is not None:
            want = A.model["sandpiper"]["features"][4]
            seen["bird"] = {"groove": out.groove, "p_alone": out.p_alone,
                            "log_ratio": float(np.log(out.mask.sum()) - want),
                            "shell_share": float(np.median(list(A.model["shell_area_px2"].values())) / np.exp(want))}
        return out
    reading.read_shells, reading.find_bird = shells, bird
    return seen


def scenes(folder: str, seen: dict):
    """Yield (photo path, true state, ScanResult) of every scene the reader reads in ``folder``."""
    for img, state, cal in calibrated_scenes(folder):
        seen.clear()
        try:
            res = pipeline.scan_file(img, cal)
        except (UnreadableBoardError, BadInputError):
            continue
        yield img, state, res


def groove_rows(parts: list, state: dict, read: dict, confidence: float, name: str) -> list[dict]:
    """One row per (groove, colour) with a true or read shell: its counts and its parts' cues."""
    rows = []
    for g in state["grooves"]:
        n = g["number"]
        got = read.get(n)
        if got is None:
            continue
        for c, t in g["shells"].items():
            r = got["shells"].get(c, 0)
            mine = [p for p in parts if p.colour == c and p.groove == n]
            if t == 0 and r == 0 and not mine:
                continue
            rows.append({
                "scene": name, "groove": n, "colour": c, "truth": t, "read": r, "confidence": confidence,
                "parts": [{"x": round(p.x), "y": round(p.y), "shells": round(p.shells, 3), "count": p.count,
                           "p_count": round(p.p_count, 4), "p_colour": round(p.p_colour, 4),
                           "thickness": round(p.thickness, 2), "share": getattr(p, "contrast_share", None)}
                          for p in mine],
                "others": [{"why": p.why, "x": round(p.x), "y": round(p.y), "area": p.area}
                           for p in parts if p.colour is None and p.groove == n],
                "castles": [(x["player"], x["value"]) for x in got["castles"]],
                "true_castles": [(x["player"], x["value"]) for x in g["castles"]],
            })
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--json", help="write every row here")
    args = ap.parse_args()
    seen = _capture()
    rows, birds = [], []
    for folder in args.folders:
        base = "-".join(os.path.normpath(folder).split(os.sep)[-2:])
        for img, state, res in scenes(folder, seen):
            name = f"{base}/{os.path.relpath(img, folder)}"
            read = {g["number"]: g for g in res.state["grooves"]}
            rs = groove_rows(seen["parts"].parts, state, read, res.confidence, name)
            rows += rs
            if "bird" in seen:
                b = dict(seen["bird"], scene=name, confidence=res.confidence, true_groove=state["sandpiper"])
                g = b["groove"]
                b["missed"] = sum(max(r["truth"] - r["read"], 0) for r in rs if r["groove"] == g)
                birds.append(b)
            for r in rs:
                if r["truth"] != r["read"]:
                    print(f"{name} conf {r['confidence']:.3f} groove {r['groove']} {r['colour']}: "
                          f"read {r['read']} truth {r['truth']}")
                    for p in r["parts"]:
                        print(f"    part {p}")
                    if r["others"]:
                        print(f"    not shells {r['others']}")
                    print(f"    castles read {r['castles']} truth {r['true_castles']}")
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"grooves": rows, "birds": birds}, f)


if __name__ == "__main__":
    main()
