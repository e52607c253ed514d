#!/usr/bin/env python3
"""How many of a setup's closing cells look placeable, with the right terrain and with all '#'.

    .venv/bin/python scripts/wrong_walls_stats.py /work/renders/dev/plazing-dev-10001/setup0 …

Each set-up folder (calibration.json, scene_NN.jpg + scene_NN.setup.json) is calibrated into a
temporary folder; every scene is read with its own terrain and with a terrain of '#' only, and
the count of closing cells that ``TerrainModel.placeable_walls`` finds is printed (the evidence
for ``TerrainConfig.wrong_wall_share``, docs/tuning.md). A measurement, not a test: it prints.
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
from calibration import store  # noqa: E402
import vision.plazing.reader as plazing_reader  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("setups", nargs="+")
    args = ap.parse_args()
    seen: dict = {}
    real = plazing_reader.wrong_walls

    def spy(looks, model, terrain, terrain_given):
        seen.update(n=int((terrain == "#").sum()),
                    odd=int(model.terrain.placeable_walls(looks, terrain == "#").sum()))
        real(looks, model, terrain, terrain_given)

    plazing_reader.wrong_walls = spy
    worst_right, least_wrong = 0.0, 1.0
    for folder in args.setups:
        with tempfile.TemporaryDirectory() as out:
            pipeline.calibrate(os.path.join(folder, "calibration.json"), os.path.join(out, "cal"))
            cal = store.load(os.path.join(out, "cal"))
            for photo in sorted(glob.glob(os.path.join(folder, "scene_*.jpg"))):
                setup = json.load(open(photo[:-4] + ".setup.json"))
                row = []
                for name, terrain in (("right", setup["terrain"]), ("all-#", ["#" * len(r) for r in setup["terrain"]])):
                    seen.clear()
                    try:
                        pipeline.scan_file(photo, cal, dict(setup, terrain=terrain))
                    except Exception:  # noqa: BLE001 - a refusal still measured the cells
                        pass
                    if seen:
                        share = seen["odd"] / max(seen["n"], 1)
                        row.append(f"{name} {seen['odd']}/{seen['n']}")
                        if name == "right":
                            worst_right = max(worst_right, share)
                        else:
                            least_wrong = min(least_wrong, share)
                print(os.path.relpath(photo), "; ".join(row), flush=True)
    print(f"most share with the right terrain {worst_right:.2f}; least with all '#' {least_wrong:.2f}")


if __name__ == "__main__":
    main()
