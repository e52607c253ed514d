#!/usr/bin/env python3
"""Keep, per scene of rectified Plażing development set-ups, the window around every free cell whose
truth or reading is a meeple or a resource, with the camera's nadir, for the parallax measurements
of :mod:`vision.plazing.parallax` (docs/tuning.md, "A standing meeple told from a flat amber by
its parallax").

    .venv/bin/python scripts/plazing_parallax_cells.py FOLDER [FOLDER ...] --cache DIR

Each FOLDER holds ``setupN/`` folders with truth. Every set-up is calibrated and its scenes read
as the reader reads them; per folder ``DIR/<last two path parts>.json`` (rows) and ``.npz``
(windows, uint8 (n, S, S, 3) of the light-normalised rectified board, ``WINDOW`` cells wide,
centred on the cell) are written (a folder already there is not read again). A row:
``[scene, cell, truth, {class: final posterior ≥ 1e-4}, cell centre board mm (x, y), nadir board
mm (x, y), camera height mm or None]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from fit_plazing import _truth_tokens, cache_name, calibrated_setups, truth_scenes  # noqa: E402
from vision.plazing.config import RECTIFY  # noqa: E402
from vision.strand_unter.geometry import camera_nadir  # noqa: E402

read_tokens = importlib.import_module("vision.plazing.read_tokens")
reader = importlib.import_module("vision.plazing.reader")

#: The window kept around a cell, in cells.
WINDOW = 1.6
KINDS = ("meeple/", "resource/")


def _window(board: np.ndarray, centre_px, side: int) -> np.ndarray:
    h = side // 2
    cu, cv = int(round(centre_px[0])), int(round(centre_px[1]))
    ys = np.clip(np.arange(cv - h, cv - h + side), 0, board.shape[0] - 1)
    xs = np.clip(np.arange(cu - h, cu - h + side), 0, board.shape[1] - 1)
    return board[ys[:, None], xs[None, :]].copy()


def read_folder(folder: str):
    rows, wins, scene = [], [], {}
    real_w, real_p = read_tokens.weigh_flatness, reader.prepare

    def spy_w(post, names, free, board, boxes, *a, **k):
        out = real_w(post, names, free, board, boxes, *a, **k)
        scene.update(post=post, names=list(names), free=list(free), board=board, boxes=boxes)
        return out

    def spy_p(photo, *a, **k):
        prep = real_p(photo, *a, **k)
        img = photo.image
        scene.update(nadir=camera_nadir(photo.registration.H_px_from_mm, (img.shape[1], img.shape[0])),
                     offset=prep.rect.offset_mm)
        return prep

    read_tokens.weigh_flatness, reader.prepare = spy_w, spy_p
    ppm = RECTIFY.px_per_mm
    try:
        for setup, cal in calibrated_setups(folder, prefix="parallax-cal-"):
            for tpath, truth, setup_doc in truth_scenes(setup):
                st = truth["state"]
                scene.clear()
                tokens = _truth_tokens(st)
                covered = {tuple(c) for p in st["pieces"] for c in p["cells"]}
                try:
                    pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
                except (UnreadableBoardError, BadInputError):
                    continue
                if "post" not in scene:
                    continue
                name = os.path.relpath(tpath, folder).replace(".truth.json", "")
                post, names = scene["post"], scene["names"]
                side = int(round(WINDOW * (scene["boxes"][0, 0, 2] - scene["boxes"][0, 0, 0])))
                nadir, height = scene["nadir"]
                for i, cell in enumerate(scene["free"]):
                    cell = tuple(cell)
                    t = "empty" if cell in covered else tokens.get(cell, "empty")
                    top = names[int(np.argmax(post[i, :-1]))]
                    if not (t.startswith(KINDS) or top.startswith(KINDS)):
                        continue
                    u0, v0, u1, v1 = scene["boxes"][cell]
                    cpx = (0.5 * (u0 + u1), 0.5 * (v0 + v1))
                    cmm = (scene["offset"][0] + cpx[0] / ppm, scene["offset"][1] + cpx[1] / ppm)
                    rows.append([name, list(cell), t, {n: round(float(p), 6) for n, p in zip(names, post[i])
                                                          if p >= 1e-4}, list(cmm), [float(v) for v in nadir],
                                 height])
                    wins.append(_window(scene["board"], (cpx[0] - 0.5, cpx[1] - 0.5), side))
            print(f"  {setup}: {len(rows)} cells so far", file=sys.stderr)
    finally:
        read_tokens.weigh_flatness, reader.prepare = real_w, real_p
    return rows, np.array(wins, np.uint8)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", required=True)
    a = ap.parse_args(argv)
    os.makedirs(a.cache, exist_ok=True)
    for folder in a.folders:
        base = os.path.join(a.cache, cache_name(folder)[:-5])
        if os.path.exists(base + ".json"):
            continue
        print(f"reading {folder}", file=sys.stderr)
        rows, wins = read_folder(folder)
        np.savez_compressed(base + ".npz", windows=wins)
        with open(base + ".json", "w") as f:
            json.dump(rows, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
