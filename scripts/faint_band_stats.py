#!/usr/bin/env python3
"""Whether the faintly odd free cells of each scene have bare sand around them (Plażing).

    .venv/bin/python scripts/faint_band_stats.py FOLDER [FOLDER ...] [--limits 3,4,5,6,7,8,10,12] [--hands]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders with truth (``occluded``: a hand over
the board). For every scene the reader runs as in a scan; the script takes the free cells beyond
``QualityConfig.faint_distance`` (clipped cells left out) and, for each limit, the largest
4-connected blob of those whose outer band (``faint_band_mm``) lies farther than the limit from
the bare cells' band (:func:`vision.plazing.read_tokens.band_sand_distances`, BGR levels). One
line per scene, then per limit the largest blob of the clean scenes and the smallest of the scenes
with a hand whose unfiltered blob refuses them. ``QualityConfig.faint_band_sand_bgr`` is a limit
that keeps every such hand above ``max_unknown_blob_cells`` and brings clean scenes below it
(docs/tuning.md). ``--hands``: only set-ups and scenes with a hand (the filter can only shrink
blobs, so only hands can be lost). Pass development folders only.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from vision.plazing import read_tokens  # noqa: E402
from vision.plazing.checks import largest_blob  # noqa: E402
from vision.plazing.config import QUALITY  # noqa: E402
from faint_blob_stats import scan_scenes  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--limits", default="3,4,5,6,7,8,10,12")
    ap.add_argument("--hands", action="store_true")
    a = ap.parse_args(argv)
    limits = [float(x) for x in a.limits.split(",")]
    seen: dict = {}
    real = read_tokens._refuse_occlusion

    def spy(free, x, post, dists, prep, view, model, grid, terrain, *rest):  # measure, then decide as the reader does
        clipped = prep.clipped
        faint = [c for c, o in zip(free, read_tokens.faint_cells(dists, QUALITY.faint_distance))
                 if o and (clipped is None or not clipped[c])]
        far = read_tokens.band_sand_distances(faint, free, post, prep, view)
        shape = (grid.rows, grid.cols)
        seen["blobs"] = [largest_blob(faint, shape)] + \
            [largest_blob([c for c, d in zip(faint, far) if d > lim], shape) for lim in limits]
        return real(free, x, post, dists, prep, view, model, grid, terrain, *rest)

    read_tokens._refuse_occlusion = spy
    rows = []
    for name, hand, status in scan_scenes(a.folders, seen, hands_only=a.hands):
        rows.append((hand, seen["blobs"]))
        print(f"{name:45s} {'hand ' if hand else 'clean'} {status:12s} all {seen['blobs'][0]:3d}  "
              f"banded {seen['blobs'][1:]}", flush=True)
    read_tokens._refuse_occlusion = real
    big = QUALITY.max_unknown_blob_cells
    for i, lim in enumerate(limits, start=1):
        clean = [b[i] for hand, b in rows if not hand]
        hands = [b[i] for hand, b in rows if hand and b[0] > big]
        print(f"limit {lim:g}: largest clean blob {max(clean) if clean else '-'}, smallest blob of a hand "
              f"refused unfiltered {min(hands) if hands else '-'} ({len(clean)} clean, {len(hands)} such hands)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
