#!/usr/bin/env python3
"""Distributions of the "is this the calibrated board?" statistic (``vision.board.identity.board_identity``).

    .venv/bin/python scripts/board_identity_stats.py ../shared/samples/* ../shared/samples-new-setups/* \\
        ../shared/real/go-gomrade /tmp/plazing-k1 ... [--paths cli,station] [--quiet]

Every FOLDER holds profile.json and setupN/ folders (calibration.json + scene_*.jpg), as
``evaluate.py`` reads them. Each set-up is calibrated once into a temporary folder. Then:

* *right board*: every scene with its own set-up's calibration;
* *other game*: every scene with the calibration of every set-up of another game among the folders;
* *same game, another set-up* (camera elsewhere; shown for information, not used for the threshold).

Each photo is prepared as ``pipeline.scan_image`` prepares it, on the command line's path (the file
decoded at the reader's reduced size) and on the station's (the full-size frame shrunk by
``at_reader_scale``); the statistic is measured in full (``exhaustive``: the scan stops fitting a
motion once "nothing moved" explains enough, with the same verdict). Per line: the share of usable strips explained by one board position, the
strip counts, the verdict. At the end the distributions: min and quantiles for right boards, max
and quantiles for other games, and the threshold ``IDENTITY.min_share`` between them.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile
import time
from collections import defaultdict

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore.errors import BeachscoreError  # noqa: E402
from beachscore.games import reader  # noqa: E402
from beachscore.pipeline import at_reader_scale, calibrate  # noqa: E402
from vision.board.stage import board_identity  # noqa: E402
from beachscore.checks import check_photo  # noqa: E402
from vision.image.decode import read_image  # noqa: E402
from vision.board.identity import IDENTITY  # noqa: E402


def prepared(path: str, cal, path_kind: str) -> np.ndarray:
    """The photo as scan_image hands it to registration (reader scale, undistorted)."""
    module = reader(cal.game)
    if path_kind == "cli":
        image = read_image(path, reduce=module.decode_reduce)
    else:
        image = cv2.imread(path, cv2.IMREAD_COLOR)
    check_photo(image, cal)
    image = at_reader_scale(image, cal, module)
    return cal.lens.undistort_image(image) if cal.lens is not None else image


def quantiles(values) -> str:
    v = np.sort(np.asarray(values, float))
    if not len(v):
        return "none"
    q = np.quantile(v, [0.05, 0.25, 0.5, 0.75, 0.95])
    return (f"n={len(v)} min={v[0]:.3f} q05={q[0]:.3f} q25={q[1]:.3f} median={q[2]:.3f} q75={q[3]:.3f} "
            f"q95={q[4]:.3f} max={v[-1]:.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--paths", default="cli,station", help="cli, station or both (comma-separated)")
    ap.add_argument("--quiet", action="store_true", help="print only the distributions")
    a = ap.parse_args()
    kinds = [k for k in a.paths.split(",") if k]
    setups = []  # (folder label, game, setup dir, calibration)
    tmp = tempfile.mkdtemp(prefix="identity-cal-")
    for folder in a.folders:
        game = json.load(open(os.path.join(folder, "profile.json")))["game"]
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            out = os.path.join(tmp, f"{len(setups)}")
            label = "/".join(os.path.normpath(folder).split(os.sep)[-2:])
            setups.append((label, game, setup, calibrate(
                os.path.join(setup, "calibration.json"), out)))
    groups = defaultdict(list)
    fewest = defaultdict(list)  # pinning of the fitted positions taken
    unused = defaultdict(list)  # pinning of the fitted positions not taken
    times = defaultdict(list)
    by_folder = defaultdict(list)  # (group, folder of the photo) -> shares
    refused = defaultdict(list)
    for label, game, setup, _ in setups:
        scenes = sorted(glob.glob(os.path.join(setup, "scene_*.jpg")))
        for clabel, cgame, csetup, cal in setups:
            group = "right" if csetup == setup else "other game" if cgame != game else "same game, another set-up"
            for scene in scenes:
                for kind in kinds:
                    name = f"{label}/{os.path.basename(setup)}/{os.path.basename(scene)}"
                    against = f"{clabel}/{os.path.basename(csetup)}"
                    try:
                        image = prepared(scene, cal, kind)
                        t0 = time.perf_counter()
                        ident = board_identity(image, cal, reader(cal.game), exhaustive=True)
                        times[group].append(1e3 * (time.perf_counter() - t0))
                    except BeachscoreError as err:
                        refused[group].append(err.code)
                        if not a.quiet:
                            print(f"{group:26s} {name:40s} cal {against:28s} {kind:7s} refused before: {err.code}")
                        continue
                    if ident is None or ident.verdict is None:
                        refused[group].append("no verdict")
                        if not a.quiet:
                            print(f"{group:26s} {name:40s} cal {against:28s} {kind:7s} no verdict")
                        continue
                    groups[group].append(ident.share)
                    by_folder[(group, label)].append(ident.share)
                    if ident.moved:
                        fewest[group].append(ident.fewest)
                    elif ident.fitted:
                        unused[group].append(ident.fewest)
                    if not a.quiet:
                        print(f"{group:26s} {name:40s} cal {against:28s} {kind:7s} share={ident.share:.3f} "
                              f"explained={ident.explained:6.1f} matched={ident.matched:3d} fitted={ident.fitted:6.1f} "
                              f"(fewest across a direction {ident.fewest:5.1f}) "
                              f"usable={ident.usable:3d} {'(red and blue swapped) ' if ident.swapped else ''}"
                              f"{'moved' if ident.moved else 'still'} -> {'board' if ident.verdict else 'NOT the board'}")
    print()
    for (group, label), shares in sorted(by_folder.items()):
        if group != "same game, another set-up":
            print(f"{group:26s} photos of {label:34s} n={len(shares):4d} min {min(shares):.3f} "
                  f"median {np.median(shares):.3f} max {max(shares):.3f}")
    for group in ("right", "other game", "same game, another set-up"):
        extra = f"; not measured: {dict((c, refused[group].count(c)) for c in set(refused[group]))}" \
            if refused[group] else ""
        print(f"{group:26s} share {quantiles(groups[group])}{extra}")
    print(f"fitted positions taken, strips across the direction with fewer: right boards "
          f"min {min(fewest['right'], default=0)} (n={len(fewest['right'])}); other games "
          f"max {max(fewest['other game'], default=0)} (n={len(fewest['other game'])}); not taken: right boards "
          f"max {max(unused['right'], default=0)}, other games max {max(unused['other game'], default=0)} "
          f"(counted from {IDENTITY.min_pinning} on)")
    for group in ("right", "other game"):
        if times[group]:
            print(f"time of the check, {group}: median {np.median(times[group]):.1f} ms, "
                  f"max {np.max(times[group]):.1f} ms (this machine, as loaded while measuring)")
    right, other = groups["right"], groups["other game"]
    wrong_right = sum(s < IDENTITY.min_share for s in right)
    passed_other = sum(s >= IDENTITY.min_share for s in other)
    print(f"threshold min_share={IDENTITY.min_share}: right boards refused {wrong_right}/{len(right)}, "
          f"other games let through {passed_other}/{len(other)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
