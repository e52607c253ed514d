#!/usr/bin/env python3
"""How often a printed mark cell whose print the painting left holds a token, on rendered tables
with truth: what ``read_tokens.PRINT_LEFT_BARE_POSTERIOR``, ``PRINT_ON_TOKEN_POSTERIOR`` and
``PRINT_LEFT_AREA`` are fitted to.

    .venv/bin/python scripts/plazing_odd_marks.py FOLDER [FOLDER ...] [--any-flat] [--areas]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders with truth (``scene_XX.truth.json``) and
the scenes' terrain (``scene_XX.setup.json``). Every scene is scanned as the reader does; for each
free cell on a printed mark (``+ - x``) whose print was nearly one flat ink before painting
(``read_tokens.PRINT_LEFT_SHARE``) and that lies farther than ``QualityConfig.odd_distance`` from
everything seen at calibration after it (:func:`vision.plazing.tokens.odd_cells`), the token most
probable there (a neutral marker is left out) is checked against the truth, apart for the cells
where more deviates from sand than the print's area (``read_tokens.PRINT_LEFT_AREA``: a token on
the print). Prints each such cell (scene, cell, read, truth, its flat share and area ratio) and per
folder and in all: reads right, reads wrong, how many of the cells are bare in the truth, the
smoothed shares right and bare, (right + 1) / (all + 2) and (bare + 1) / (all + 2), and the share
right beyond the print's area, probabilities. With ``--any-flat`` every odd mark cell counts,
whatever its flat share (how the flat share tells the print's leftovers from tokens). With
``--areas``, every free mark cell's area ratio (:func:`vision.plazing.prints.remove_marks`'
``areas``: its deviating pixels over the mark's bare witnesses') instead, bare cells against cells
under a token. Pass development folders only.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from faint_blob_stats import scan_scenes  # noqa: E402
from fit_plazing import _truth_tokens  # noqa: E402
from vision.plazing import reader, read_tokens  # noqa: E402
from vision.plazing.flatness import NEUTRAL  # noqa: E402
from vision.plazing.tokens import EMPTY  # noqa: E402


def share_right(right: int, wrong: int) -> float:
    """The smoothed share of right reads, (right + 1) / (right + wrong + 2) (Laplace's rule)."""
    return (right + 1) / (right + wrong + 2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--any-flat", action="store_true", help="count odd mark cells of any flat share")
    ap.add_argument("--areas", action="store_true",
                    help="instead: every free mark cell's area ratio, bare in the truth or under a token")
    a = ap.parse_args(argv)
    if a.any_flat:
        read_tokens.PRINT_LEFT_SHARE = 0.0
    seen: dict = {}
    real = read_tokens._decide_cells

    def spy(free, post, prep, view, boxes, unseen, ledger, tokens, left_prints=frozenset(), on_prints=frozenset()):
        known = post.post[:, :-1].argmax(axis=1).tolist()  # the reads the doubt is about
        seen["reads"] = [(c, post.names_all[k], c in on_prints) for c, k in zip(free, known)
                         if c in left_prints or c in on_prints]
        return real(free, post, prep, view, boxes, unseen, ledger, tokens, left_prints, on_prints)

    real_marks = reader.remove_marks

    def spy_marks(*args, **kw):  # each free mark cell's flat share and area ratio, as the reader measures them
        kw.setdefault("shares", {})
        kw.setdefault("areas", {})
        out = real_marks(*args, **kw)
        seen["flat"] = dict(kw["shares"])
        seen["area"] = dict(kw["areas"])
        return out

    reader.remove_marks = spy_marks
    if a.areas:
        try:
            return _areas(a.folders, seen)
        finally:
            reader.remove_marks = real_marks
    read_tokens._decide_cells = spy
    total = [0, 0, 0]
    on_total = [0, 0]
    try:
        for folder in a.folders:
            counts = [0, 0, 0]
            for name, _hand, status, truth in scan_scenes([folder], seen, with_truth=True):
                if status != "read":
                    continue
                want = _truth_tokens(truth["state"])
                for cell, read, on_print in seen.get("reads", []):
                    if read in (EMPTY, NEUTRAL):
                        continue
                    ok = want.get(tuple(cell), EMPTY) == read
                    if on_print:
                        on_total[0 if ok else 1] += 1
                    else:
                        counts[0 if ok else 1] += 1
                        counts[2] += want.get(tuple(cell), EMPTY) == EMPTY
                    flat = seen.get("flat", {}).get(tuple(cell))
                    area = seen.get("area", {}).get(tuple(cell))
                    print(f"  {name} {tuple(cell)}{' on print' if on_print else ''} read {read} "
                          f"truth {want.get(tuple(cell), EMPTY)}"
                          f" {'right' if ok else 'WRONG'} flat {-1 if flat is None else flat:.2f}"
                          f" area {-1 if area is None else area:.2f}", flush=True)
            total = [t + n for t, n in zip(total, counts)]
            print(f"{folder}: {counts[0]} right, {counts[1]} wrong, {counts[2]} bare", flush=True)
    finally:
        read_tokens._decide_cells = real
        reader.remove_marks = real_marks
    bare = share_right(total[2], total[0] + total[1] - total[2])
    print(f"all: {total[0]} right, {total[1]} wrong ({total[2]} bare); share right "
          f"{share_right(total[0], total[1]):.3f}, share bare {bare:.3f}; "
          f"beyond the print's area (read_tokens.PRINT_LEFT_AREA): {on_total[0]} right, {on_total[1]} wrong, "
          f"share right {share_right(*on_total):.3f}")
    return 0


def _areas(folders, seen: dict) -> int:
    """Every free mark cell's area ratio (``prints.remove_marks``' ``areas``) against the truth:
    the quantiles of the bare cells' and the largest area of a bare cell, then every cell under a
    token."""
    bare, under = [], []
    for name, _hand, status, truth in scan_scenes(folders, seen, with_truth=True):
        if status != "read":
            continue
        want = _truth_tokens(truth["state"])
        for cell, area in seen.get("area", {}).items():
            token = want.get(tuple(cell), EMPTY)
            if token == EMPTY:
                bare.append(area)
            else:
                under.append((area, name, tuple(cell), token, seen.get("flat", {}).get(tuple(cell), -1)))
    q = np.quantile(bare, [0.5, 0.9, 0.99, 0.999, 1.0]) if bare else []
    print(f"bare mark cells: {len(bare)}, area ratio quantiles .5 .9 .99 .999 max: "
          + " ".join(f"{x:.2f}" for x in q))
    for area, name, cell, token, flat in sorted(under):
        print(f"  under a token: {name} {cell} {token} area {area:.2f} flat {flat:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
