#!/usr/bin/env python3
"""The Plażing reader's neutral markers and resources on development set-ups: every cell the truth
or the reading says holds one, with its posterior and its pixels, kept on disk.

    .venv/bin/python scripts/plazing_marker_cells.py FOLDER [FOLDER ...] --cache DIR

Each FOLDER holds ``profile.json`` and ``setupN/`` folders (the samples' layout, with truth). Per
folder, ``DIR/<folder's last two path parts>.npz`` (a folder already there is not read again) holds:

- ``rows``: JSON, one row per cell: ``[scene, (row, col), truth class, class in the reading scored, token posterior of
  that class, posterior of the true class, px_per_mm of the photo]`` (scene ``calib`` for the
  calibration shot's labelled samples, read as labelled, posterior 1);
- ``crops``: uint8 (N, 2s, 2s, 3): each row's cell with half a cell around it, BGR, on the
  reader's rectified, light-normalised board (``RECTIFY.px_per_mm``, marks painted over), s the
  cell's side in px;
- ``sand``: float32 (N, 3): the median BGR of that board's bare cells' cores.

It then prints every cell where a neutral marker is read as a resource or a resource as a neutral
marker, with its posterior. Photos refused by the reader are left out.
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
learn = importlib.import_module("vision.plazing.learn")  # the package's ``learn`` is a function
read_tokens = importlib.import_module("vision.plazing.read_tokens")
reader = importlib.import_module("vision.plazing.reader")
from vision.plazing.config import RECTIFY  # noqa: E402
from vision.plazing.tokens import EMPTY  # noqa: E402

#: The classes whose confusions this script looks for.
WATCHED = ("neutral", "resource/")


def watched(name: str) -> bool:
    """Whether a class name is a neutral marker or a resource."""
    return name.startswith(WATCHED)


def _crop(board: np.ndarray, box) -> np.ndarray:
    """A cell's box ``(u0, v0, u1, v1)`` px widened by half a cell each way, edge-padded."""
    u0, v0, u1, v1 = (int(x) for x in box)
    h = (u1 - u0) // 2
    pad = np.pad(board, ((h, h), (h, h), (0, 0)), mode="edge")
    return pad[v0:v1 + 2 * h, u0:u1 + 2 * h].copy()


def _sand(board: np.ndarray, boxes, cells) -> np.ndarray:
    """float32 (3,) median BGR of the central halves of ``cells``."""
    px = []
    for r, c in cells:
        u0, v0, u1, v1 = (int(x) for x in boxes[r, c])
        q = (u1 - u0) // 4
        px.append(board[v0 + q:v1 - q, u0 + q:u1 - q].reshape(-1, 3))
    return np.median(np.concatenate(px), axis=0).astype(np.float32) if px else np.zeros(3, np.float32)


def read_folder(folder: str) -> dict:
    """Calibrate every set-up of ``folder`` and read its scenes; the watched cells (module docstring)."""
    rows, crops, sands = [], [], []
    seen: dict = {}
    real_read, real_classify, real_paste = reader.read_tokens, read_tokens.classify_tokens, learn._pasted_tokens

    def spy_read(prep, view, local, feats, free_mask, *a, **k):
        seen.update(board=view.board.copy(), boxes=local.boxes_px(RECTIFY.px_per_mm, 1.0),
                    free=[tuple(rc) for rc in np.argwhere(free_mask).tolist()])
        return real_read(prep, view, local, feats, free_mask, *a, **k)

    def spy_classify(x, model, *a, **k):
        post = real_classify(x, model, *a, **k)
        seen.update(post=post)
        return post

    def spy_paste(view, table, grid, feats, token_samples, empty_cells, *a, **k):
        seen.update(cal_board=view.board.copy(), cal_boxes=grid.boxes_px(RECTIFY.px_per_mm, 1.0),
                    cal_samples=list(token_samples), cal_empty=list(empty_cells))
        return real_paste(view, table, grid, feats, token_samples, empty_cells, *a, **k)

    reader.read_tokens, read_tokens.classify_tokens, learn._pasted_tokens = spy_read, spy_classify, spy_paste
    try:
        seen.clear()
        for setup, cal in calibrated_setups(folder, prefix="marker-cal-"):
            sname = os.path.basename(setup)
            board, boxes = seen["cal_board"], seen["cal_boxes"]
            sand = _sand(board, boxes, seen["cal_empty"])
            for label, rc in seen["cal_samples"]:
                if watched(label):
                    rows.append([f"{sname}/calib", list(rc), label, label, 1.0, 1.0, 0.0])
                    crops.append(_crop(board, boxes[rc]))
                    sands.append(sand)
            for tpath, truth, setup_doc in truth_scenes(setup):
                seen.pop("post", None)
                try:
                    res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
                except (UnreadableBoardError, BadInputError):
                    continue
                scene = os.path.relpath(tpath, folder).replace(".truth.json", "")
                st = truth["state"]
                covered = {tuple(c) for p in st["pieces"] for c in p["cells"]}
                true_tok = _truth_tokens(st)
                post = seen["post"]
                names = post.names_all
                read = _truth_tokens(res.state)
                board, boxes, free = seen["board"], seen["boxes"], seen["free"]
                bare = [c for c, k in zip(free, np.argmax(post.post, axis=1).tolist()) if names[k] == EMPTY]
                sand = _sand(board, boxes, bare)
                ppm = float(res.reading.details["ledger"].px_per_mm)
                for i, cell in enumerate(free):
                    t = EMPTY if cell in covered else true_tok.get(cell, EMPTY)
                    r = read.get(cell, EMPTY)
                    if not (watched(t) or watched(r)):
                        continue
                    p_true = float(post.post[i, names.index(t)]) if t in names else 0.0
                    p_read = float(post.post[i, names.index(r)]) if r in names else 0.0
                    rows.append([scene, list(cell), t, r, p_read, p_true, ppm])
                    crops.append(_crop(board, boxes[cell]))
                    sands.append(sand)
            print(f"  {setup}: {len(rows)} cells so far", file=sys.stderr)
            seen.clear()
    finally:
        reader.read_tokens, read_tokens.classify_tokens, learn._pasted_tokens = real_read, real_classify, real_paste
    return {"rows": rows, "crops": np.stack(crops) if crops else np.zeros((0, 60, 60, 3), np.uint8),
            "sand": np.array(sands, np.float32).reshape(-1, 3)}


def load(folder: str, cache: str) -> dict:
    """A folder's watched cells (:func:`read_folder`), from ``cache`` when there, else read and kept."""
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, cache_name(folder).replace(".json", ".npz"))
    if not os.path.exists(path):
        print(f"reading {folder}", file=sys.stderr)
        d = read_folder(folder)
        np.savez_compressed(path, rows=json.dumps(d["rows"]), crops=d["crops"], sand=d["sand"])
    z = np.load(path)
    return {"rows": json.loads(str(z["rows"])), "crops": z["crops"], "sand": z["sand"]}


def confusions(rows) -> list:
    """The rows where a neutral marker is read as a resource or a resource as a neutral marker."""
    return [r for r in rows if r[2] != r[3] and watched(r[2]) and watched(r[3])
            and "neutral" in (r[2], r[3])]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", required=True, help="folder of the kept cells")
    a = ap.parse_args(argv)
    for folder in a.folders:
        rows = load(folder, a.cache)["rows"]
        n = sum(1 for r in rows if r[2] == "neutral" and not r[0].endswith("calib"))
        print(f"{folder}: {n} neutral markers in scenes, {len(rows)} cells kept")
        for r in confusions(rows):
            print(f"  {r[0]} {tuple(r[1])}: {r[2]} read as {r[3]} at {r[4]:.3f} (true class {r[5]:.3f}, "
                  f"{r[6]:.2f} px/mm)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
