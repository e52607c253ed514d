#!/usr/bin/env python3
"""How often a board at rest shows a closed Plażing area without its marker: the evidence behind
``beachscore.marked_areas`` (a neutral area unmarked or holding resources is read again; an owned
area with room but no meeple is doubted only where the reader doubts a cell of it).

    python scripts/unmarked_area_stats.py FOLDER [FOLDER ...]

A FOLDER holds rendered Plażing tables (``setupK/scene_XX.truth.json`` with ``areas``, as
``../shared/render/make_plazing_set.py`` and ``make_plazing_game.py`` write them). Prints per
folder the closed areas of the truths, the neutral ones unmarked or holding resources, and the
owned ones unmarked with and without a square free of resources.
"""
from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import sys


def tally(folder: str) -> collections.Counter:
    c: collections.Counter = collections.Counter()
    for path in sorted(glob.glob(os.path.join(folder, "setup*", "scene_*.truth.json"))):
        truth = json.load(open(path))
        c["scenes"] += 1
        held = {tuple(r["cell"]) for r in truth["state"].get("resources", [])}
        for a in truth.get("areas", []):
            if not a["closed"]:
                continue
            c["closed"] += 1
            cells = {tuple(x) for x in a["cells"]}
            if a["owner"] == "neutral":
                c["neutral unmarked or holding resources"] += a["marked"] is None or bool(cells & held)
            elif a["marked"] is None:
                c["owned unmarked, with room" if cells - held else "owned unmarked, no room"] += 1
    return c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    a = ap.parse_args()
    for folder in a.folders:
        print(os.path.basename(os.path.normpath(folder)), dict(tally(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
