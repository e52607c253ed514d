#!/usr/bin/env python3
"""Every free cell of every scene the Plażing reader reads, with what the occlusion check and the
token decision saw, against the truth; kept on disk for measuring new cues without reading again.

    .venv/bin/python scripts/plazing_cell_dump.py FOLDER [FOLDER ...] --cache DIR

Each FOLDER holds ``profile.json`` and ``setupN/`` folders with truth. ``DIR/<folder's last two
path parts>.json`` (:func:`fit_plazing.cache_name`) holds one row per scene whose occlusion check
ran: ``name``, ``hand`` (truth ``occluded``), ``status`` (``read`` or the refusal's code), and per
free cell (``cells``): ``[row, col, nearest, band, truth, read, p_read, p_shell, p_pebble, dark]``:

- ``nearest``: Mahalanobis distance to the nearest calibration cell or prototype
  (:func:`vision.plazing.read_tokens.nearest_distance2`, base metric);
- ``band``: BGR distance of the cell's outer band from the bare cells' band
  (:func:`vision.plazing.read_tokens.band_sand_distances`);
- ``truth``: the truth's token (``empty``, ``covered`` under a piece); ``read``, ``p_read``: the
  first pass's most probable class and posterior; ``p_shell``, ``p_pebble``: the final (drifted,
  weighed) posteriors of those two classes when learned (else -1);
- ``dark``: the 10th percentile of grey in the cell's central half over the median grey of the
  outer bands of the cells read bare (a ratio).

A folder already in ``DIR`` is not read again. Pass development folders only.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fit_plazing import _truth_tokens, cached_folder  # noqa: E402
from faint_blob_stats import scan_scenes  # noqa: E402
from vision.plazing import read_tokens  # noqa: E402
from vision.plazing.config import QUALITY, RECTIFY  # noqa: E402
from vision.plazing.tokens import EMPTY  # noqa: E402


def dark_ratio(gray: np.ndarray, boxes: np.ndarray, cells, sand_grey: float, share: float = 0.5) -> list:
    """The 10th percentile of grey in each cell's centred square (side ``share`` of its box) over
    ``sand_grey``. ``gray``: uint8 (H, W); ``boxes``: int (rows, cols, 4) px. Returns [float]."""
    out = []
    for r, c in cells:
        u0, v0, u1, v1 = (int(v) for v in boxes[r, c])
        h = max(1, int(round(0.5 * share * (u1 - u0))))
        cu, cv = (u0 + u1) // 2, (v0 + v1) // 2
        patch = gray[max(cv - h, 0):cv + h, max(cu - h, 0):cu + h]
        out.append(float(np.percentile(patch, 10)) / max(sand_grey, 1.0) if patch.size else -1.0)
    return out


def dump(folders) -> dict:
    """{folder: rows} (see the module docstring), each folder read once."""
    seen: dict = {}
    real_occ, real_dec = read_tokens._refuse_occlusion, read_tokens._decide_cells

    def spy_occ(free, x, post, dists, prep, view, *rest):
        seen["free"] = list(free)
        seen["nearest"] = np.sqrt(read_tokens.nearest_distance2(dists)).tolist()
        seen["band"] = read_tokens.band_sand_distances(free, free, post, prep, view)
        top = np.argmax(post.post[:, :-1], axis=1)
        seen["read"] = [post.names_all[k] for k in top.tolist()]
        seen["p_read"] = post.post[np.arange(len(free)), top].tolist()
        return real_occ(free, x, post, dists, prep, view, *rest)

    def spy_dec(free, post, prep, view, boxes, *rest):
        names = post.names_all
        for n, key in (("resource/shell", "p_shell"), ("resource/pebble", "p_pebble")):
            seen[key] = post.post[:, names.index(n)].tolist() if n in names else [-1.0] * len(free)
        gray = view.board.mean(axis=2)
        bare = [c for c, k in zip(free, np.argmax(post.post[:, :-1], axis=1).tolist()) if names[k] == EMPTY]
        band = max(1, int(round(QUALITY.faint_band_mm * RECTIFY.px_per_mm)))
        sand = (float(np.median(read_tokens.band_colours(view.board, boxes, bare, band).mean(axis=1)))
                if bare else 255.0)
        seen["dark"] = dark_ratio(gray, boxes, free, sand)
        return real_dec(free, post, prep, view, boxes, *rest)

    read_tokens._refuse_occlusion, read_tokens._decide_cells = spy_occ, spy_dec
    out = {}
    try:
        for folder in folders:
            rows = []
            for name, hand, status, truth in scan_scenes([folder], seen, with_truth=True):
                want = _truth_tokens(truth["state"])
                covered = {tuple(c) for p in truth["state"]["pieces"] for c in p["cells"]}
                n = len(seen["free"])
                cells = []
                for i, c in enumerate(seen["free"]):
                    t = "covered" if c in covered else want.get(c, EMPTY)
                    cells.append([c[0], c[1], round(seen["nearest"][i], 3), round(float(seen["band"][i]), 2), t,
                                  seen["read"][i], round(seen["p_read"][i], 4),
                                  round(seen.get("p_shell", [-1.0] * n)[i], 4),
                                  round(seen.get("p_pebble", [-1.0] * n)[i], 4),
                                  round(seen.get("dark", [-1.0] * n)[i], 4)])
                rows.append({"name": name, "hand": hand, "status": status, "cells": cells})
                print(f"  {name} {'hand' if hand else 'clean'} {status}", file=sys.stderr, flush=True)
            out[folder] = rows
    finally:
        read_tokens._refuse_occlusion, read_tokens._decide_cells = real_occ, real_dec
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", required=True)
    a = ap.parse_args(argv)
    for folder in a.folders:
        rows = cached_folder(folder, a.cache, lambda f: dump([f])[f])
        print(f"{folder}: {len(rows)} scenes", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
