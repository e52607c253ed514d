#!/usr/bin/env python3
"""Whether the faintly odd free cells something spans (their outer band unlike bare sand) form a
blob, corners touching, in clean scenes and in scenes with a hand (Plażing).

    .venv/bin/python scripts/faint_span_stats.py --cache DIR [--limits 5,8,10,12,15,20] [--list N]

Reads the cell rows ``scripts/plazing_cell_dump.py`` kept in ``DIR`` (every free cell's distance
to the calibration's nearest cell and its band's distance from the bare cells' band). For each
limit: the largest blob, 8-connected, of the cells beyond ``QualityConfig.faint_distance`` whose
band lies farther than the limit from sand, over the clean scenes the reader read (the rule would
refuse those above ``max_unknown_blob_cells``) and the scenes with a hand (those it would refuse,
and the hands read today it would refuse). ``--list N``: name the clean scenes whose blob reaches N
at the largest limit of those with no clean blob above ``max_unknown_blob_cells``.
(The dump's faint cells include any clipped ones, which the reader leaves out: the clean blobs are
an upper bound.)
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from vision.plazing.checks import largest_blob  # noqa: E402
from vision.plazing.config import QUALITY  # noqa: E402


def span_blob(cells, limit: float, shape=(12, 20)) -> int:
    """Largest 8-connected blob of the dumped ``cells`` (``[row, col, nearest, band, …]``) beyond
    ``faint_distance`` whose band lies farther than ``limit`` from sand."""
    return largest_blob([(c[0], c[1]) for c in cells if c[2] > QUALITY.faint_distance and c[3] > limit], shape, 8)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--limits", default="5,8,10,12,15,20")
    ap.add_argument("--list", type=int, default=4)
    a = ap.parse_args(argv)
    rows = []
    for path in sorted(glob.glob(os.path.join(a.cache, "*.json"))):
        rows += [dict(r, folder=os.path.basename(path)[:-5]) for r in json.load(open(path))]
    big = QUALITY.max_unknown_blob_cells
    clean = [r for r in rows if not r["hand"] and r["status"] == "read"]
    hands = [r for r in rows if r["hand"]]
    print(f"{len(rows)} scenes: {len(clean)} clean read, {len(hands)} with a hand "
          f"({sum(r['status'] == 'read' for r in hands)} read)")
    safe = None
    for lim in [float(x) for x in a.limits.split(",")]:
        cb = [span_blob(r["cells"], lim) for r in clean]
        hb = [span_blob(r["cells"], lim) for r in hands]
        gained = [r for r, b in zip(hands, hb) if b > big and r["status"] == "read"]
        print(f"limit {lim:g}: largest clean blob {max(cb)} ({sum(b > big for b in cb)} above {big}); hands above "
              f"{big}: {sum(b > big for b in hb)} of {len(hands)}, of them read today: "
              + (", ".join(f"{r['folder']} {r['name'].split('/', 1)[1]}" for r in gained) or "none"))
        if max(cb) <= big and safe is None:
            safe = lim
    if safe is not None:
        for r in clean:
            b = span_blob(r["cells"], safe)
            if b >= a.list:
                print(f"  clean at {safe:g}: {r['folder']} {r['name'].split('/', 1)[1]} blob {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
