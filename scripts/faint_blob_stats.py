#!/usr/bin/env python3
"""How large a blob of faintly odd free cells clean scenes and scenes with a hand give (Plażing).

    .venv/bin/python scripts/faint_blob_stats.py FOLDER [FOLDER ...] [--limits 2,2.5,3,3.5,4,5]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders with truth (``occluded``: a hand over
the board). For every scene the reader runs as in a scan; for each limit the script measures the
largest 4-connected blob of free cells whose distance to everything seen at calibration in the
base metric (:func:`vision.plazing.read_tokens.faint_cells`: light drift allowed) exceeds it
(clipped cells left out), and prints one line per scene, then per limit the largest blob of the clean scenes and the smallest of the scenes with
a hand. ``QualityConfig.faint_distance`` is the limit where the two stay furthest apart around
``QualityConfig.max_unknown_blob_cells`` (docs/tuning.md). Pass development folders only.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from calibration import store  # noqa: E402
from vision.plazing import read_tokens  # noqa: E402
from vision.plazing.checks import grown_blob, largest_blob  # noqa: E402
from vision.plazing.config import QUALITY  # noqa: E402


def scan_scenes(folders, seen: dict, hands_only: bool = False, with_truth: bool = False):
    """Scan every scene of every set-up of ``folders`` (each set-up calibrated once); yield
    ``(scene name, has a hand, "read" or the refusal's code)`` for the scenes whose occlusion check
    ran (``seen`` filled by the caller's spy on it; cleared before each scan), with the scene's
    truth (its ``truth.json`` as a dict) as a fourth item when ``with_truth``."""
    for folder in folders:
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            truths = sorted(glob.glob(os.path.join(setup, "scene_*.truth.json")))
            if hands_only:
                truths = [t for t in truths if json.load(open(t)).get("occluded")]
            if not truths:
                continue
            cal = store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"), tempfile.mkdtemp()).folder)
            for tpath in truths:
                truth = json.load(open(tpath))
                sp = tpath.replace(".truth.json", ".setup.json")
                seen.clear()
                try:
                    pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal,
                                       json.load(open(sp)) if os.path.exists(sp) else None)
                    status = "read"
                except (UnreadableBoardError, BadInputError) as e:
                    status = e.code
                if seen:
                    row = (os.path.relpath(tpath, os.path.dirname(folder))[:-11], bool(truth.get("occluded")), status)
                    yield row + (truth,) if with_truth else row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--limits", default="2,2.5,3,3.5,4,5")
    ap.add_argument("--grow", default="", help="with these lower limits too: blobs of cells beyond "
                    "faint_distance grown through cells beyond each (checks.grown_blob)")
    a = ap.parse_args(argv)
    limits = [float(x) for x in a.limits.split(",")]
    grows = [float(x) for x in a.grow.split(",") if x]
    seen: dict = {}
    real = read_tokens._refuse_occlusion

    def spy(free, x, post, dists, prep, view, model, grid, terrain, *rest):  # measure, then decide as the reader does
        clipped = prep.clipped if prep.clipped is not None else None
        def beyond(lim):
            return sorted(c for c, o in zip(free, read_tokens.faint_cells(dists, lim))
                          if o and (clipped is None or not clipped[c]))
        shape = (grid.rows, grid.cols)
        seeds = beyond(QUALITY.faint_distance)
        seen["blobs"] = [largest_blob(beyond(lim), shape) for lim in limits] + \
            [len(grown_blob(seeds, sorted(set(beyond(g)) | set(seeds)), shape)) for g in grows]
        return real(free, x, post, dists, prep, view, model, grid, terrain, *rest)

    read_tokens._refuse_occlusion = spy
    rows = []
    for name, hand, status in scan_scenes(a.folders, seen):
        rows.append((hand, seen["blobs"]))
        print(f"{name:45s} {'hand ' if hand else 'clean'} {status:12s} {seen['blobs']}", flush=True)
    read_tokens._refuse_occlusion = real
    for i, lim in enumerate(limits + [f"grown through {g:g}" for g in grows]):
        clean = [b[i] for hand, b in rows if not hand]
        hands = [b[i] for hand, b in rows if hand]
        print(f"limit {lim}: clean scenes {len(clean)}, largest blob {max(clean, default=0)}; "
              f"scenes with a hand {len(hands)}, smallest blob {min(hands, default=0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
