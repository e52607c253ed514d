#!/usr/bin/env python3
"""How many of a setup's closing cells look placeable, with the right terrain and with wrong ones.

    .venv/bin/python scripts/wrong_walls_stats.py --cache /tmp/ww.pkl $(cat /work/renders/ww/setups.txt)
    .venv/bin/python scripts/wrong_walls_stats.py --cache /tmp/ww.pkl          # rules only, from the cache

Each set-up folder (calibration.json, scene_NN.jpg + scene_NN.setup.json) is calibrated into a
temporary folder; every scene is read up to the terrain check (``checks.wrong_walls``) with

- its own terrain (``right``: must never be refused),
- a terrain of '#' only (``all-#``),
- the terrains of ``--others`` set-ups of other tables (another seed; the same scene number, else
  scene_00): what a user passing the wrong set-up file does (``other``),

and every closing cell's distances to the calibration's closing and placeable cells are kept
(``TerrainModel.wall_distances``), with the count of cells the photo reads as closing terrain
where that terrain says sand (``TerrainModel.classify``). Then the refusal rules are counted: the
old per-cell share (``d_free < d_wall`` on over 0.5 of the closing cells) and the reader's rule
(``checks.wrong_terrain``: objects judged whole, and the objects read elsewhere), the evidence for
``TerrainConfig.wrong_wall_cells`` (docs/tuning.md).
A measurement, not a test: it prints.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import pickle
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from calibration import store  # noqa: E402
from vision.plazing.config import TERRAIN  # noqa: E402
from vision.plazing.checks import wrong_terrain  # noqa: E402
from vision.plazing.terrain import placeable_objects  # noqa: E402
import vision.plazing.reader as plazing_reader  # noqa: E402


class _Seen(Exception):
    """Raised by the spy once the terrain check's inputs are measured: the rest of the read is not needed."""


def _table(folder: str) -> str:
    m = re.search(r"plazing-\d+-(\d+)", folder)
    return m.group(1) if m else folder


def _others(setups: list, i: int, k: int) -> list:
    """``k`` set-ups of other tables, spread over the list (deterministic)."""
    n, out = len(setups), []
    for m in range(n):
        j = (i + 1 + m * max(n // max(k, 1), 1)) % n
        if _table(setups[j]) != _table(setups[i]) and setups[j] not in out:
            out.append(setups[j])
        if len(out) == k:
            break
    return out


def collect(setups: list, k: int) -> list:
    """Records (photo, kind, walls (rows, cols) bool, d_wall (n,), d_free (n,), own float)."""
    seen: dict = {}

    def spy(looks, model, terrain, terrain_given):
        walls = terrain == "#"
        d = model.terrain.wall_distances(looks, walls) if model.terrain is not None and looks is not None else None
        read = model.terrain.classify(looks)[0] if d is not None else None
        seen.update(walls=walls, d=d, elsewhere=int(((read == "#") & ~walls).sum()) if d is not None else 0)
        raise _Seen

    real = plazing_reader.wrong_walls
    plazing_reader.wrong_walls = spy
    recs = []
    try:
        for i, folder in enumerate(setups):
            with tempfile.TemporaryDirectory() as out:
                pipeline.calibrate(os.path.join(folder, "calibration.json"), os.path.join(out, "cal"))
                cal = store.load(os.path.join(out, "cal"))
                for photo in sorted(glob.glob(os.path.join(folder, "scene_*.jpg"))):
                    setup = json.load(open(photo[:-4] + ".setup.json"))
                    tries = [("right", setup["terrain"]), ("all-#", ["#" * len(r) for r in setup["terrain"]])]
                    for o in _others(setups, i, k):
                        alt = os.path.join(o, os.path.basename(photo)[:-4] + ".setup.json")
                        alt = alt if os.path.exists(alt) else os.path.join(o, "scene_00.setup.json")
                        tries.append(("other " + alt, json.load(open(alt))["terrain"]))
                    for kind, terrain in tries:
                        seen.clear()
                        try:
                            pipeline.scan_file(photo, cal, dict(setup, terrain=terrain))
                        except _Seen:
                            pass
                        except Exception:  # noqa: BLE001 - refused before the check: nothing measured
                            pass
                        if seen.get("d") is not None:
                            recs.append((photo, kind, seen["walls"], *seen["d"], seen["elsewhere"]))
            print(f"{i + 1}/{len(setups)} {folder}", file=sys.stderr, flush=True)
    finally:
        plazing_reader.wrong_walls = real
    return recs


OLD_SHARE = 0.5  #: the former ``TerrainConfig.wrong_wall_share`` (until branch plazing-walls), for the comparison


def old_rule(walls, d_wall, d_free, own, n_elsewhere, share=OLD_SHARE):
    """The former rule: cells with ``d_free < d_wall`` (beyond ``own``), at least ``wrong_wall_cells``
    and over ``share`` of the closing cells."""
    n = int(((d_free < d_wall) & (d_wall > own)).sum())
    return n >= TERRAIN.wrong_wall_cells and n > share * len(d_wall)


def object_share_rule(walls, d_wall, d_free, own, n_elsewhere, share):
    """Objects judged as in the reader, refused on their share alone (no look elsewhere)."""
    n = int(placeable_objects(walls, d_wall, d_free, own).sum())
    return n >= TERRAIN.wrong_wall_cells and n > share * len(d_wall)


def new_rule(walls, d_wall, d_free, own, n_elsewhere):
    """The reader's rule (``checks.wrong_terrain`` on ``placeable_objects``)."""
    return wrong_terrain(int(placeable_objects(walls, d_wall, d_free, own).sum()), len(d_wall), n_elsewhere)


def counts(recs, rule) -> dict:
    """{kind: [wrong outcomes, photos, [(photo, kind)]]}: a right terrain refused, a wrong one passed."""
    c = {"right": [0, 0, []], "all-#": [0, 0, []], "other": [0, 0, []]}
    for photo, kind, walls, d_wall, d_free, own, n_elsewhere in recs:
        key = kind.split()[0]
        c[key][1] += 1
        if rule(walls, d_wall, d_free, own, n_elsewhere) == (key == "right"):
            c[key][0] += 1
            c[key][2].append((photo, kind))
    return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("setups", nargs="*")
    ap.add_argument("--cache", help="pickle of the measured records (written when set-ups are given, else read)")
    ap.add_argument("--others", type=int, default=6, help="wrong terrains from other tables per photo")
    ap.add_argument("-v", action="store_true", help="name the photos each rule gets wrong")
    args = ap.parse_args()
    if args.setups:
        recs = collect(args.setups, args.others)
        if args.cache:
            with open(args.cache, "wb") as f:
                pickle.dump(recs, f)
    else:
        with open(args.cache, "rb") as f:
            recs = pickle.load(f)
    rules = [(f"old: cells, share {OLD_SHARE}", old_rule),
             ("old: cells, share 0.8", lambda *a: old_rule(*a, share=0.8)),
             (f"objects, share {OLD_SHARE}", lambda *a: object_share_rule(*a, OLD_SHARE)),
             ("new: objects + read elsewhere", new_rule)]
    for name, rule in rules:
        c = counts(recs, rule)
        print(f"{name:32s} right refused {c['right'][0]:4d}/{c['right'][1]}; all-# passed "
              f"{c['all-#'][0]:4d}/{c['all-#'][1]}; other passed {c['other'][0]:4d}/{c['other'][1]}")
        if args.v:
            for key in ("right", "all-#", "other"):
                for photo, kind in c[key][2][:12]:
                    print(f"    {key}: {photo} {kind[6:]}")
    right = [(int(placeable_objects(w, dw, df, own).sum()), e) for _, k, w, dw, df, own, e in recs if k == "right"]
    print("right terrains: most closing cells in placeable-looking objects "
          f"{max(r[0] for r in right)}; most cells read closing where the setup says sand {max(r[1] for r in right)}")


if __name__ == "__main__":
    main()
