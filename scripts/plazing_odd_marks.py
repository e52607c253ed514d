#!/usr/bin/env python3
"""How often a token read on a printed mark cell whose print the painting left is right, on rendered
tables with truth: what ``read_tokens.PRINT_LEFT_TOKEN_POSTERIOR`` is fitted to.

    .venv/bin/python scripts/plazing_odd_marks.py FOLDER [FOLDER ...]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders with truth (``scene_XX.truth.json``) and
the scenes' terrain (``scene_XX.setup.json``). Every scene is scanned as the reader does; for each
free cell on a printed mark (``+ - x``) whose print was nearly one flat ink before painting
(``read_tokens.PRINT_LEFT_SHARE``) and that lies farther than ``QualityConfig.odd_distance`` from
everything seen at calibration after it (:func:`vision.plazing.tokens.odd_cells`), the token read
there (a neutral marker, not doubted, is left out) is checked against the truth. Prints each such
cell (scene, cell, read, truth, its flat share) and
per folder and in all: reads right, reads wrong, and the smoothed share right
(right + 1) / (all + 2), a probability. With ``--any-flat`` every odd mark cell counts, whatever
its flat share (how the flat share tells the print's leftovers from tokens). Pass development
folders only.
"""

from __future__ import annotations

import argparse
import os
import sys

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
    a = ap.parse_args(argv)
    if a.any_flat:
        read_tokens.PRINT_LEFT_SHARE = 0.0
    seen: dict = {}
    real = read_tokens._decide_cells

    def spy(free, post, prep, view, boxes, unseen, ledger, tokens, left_prints=frozenset(), *rest):
        known = post.post[:, :-1].argmax(axis=1).tolist()  # the reads the doubt is about
        seen["reads"] = [(c, post.names_all[k]) for c, k in zip(free, known) if c in left_prints]
        return real(free, post, prep, view, boxes, unseen, ledger, tokens, left_prints, *rest)

    real_marks = reader.remove_marks

    def spy_marks(*args, **kw):  # each free mark cell's flat share before painting, as the reader measures it
        kw.setdefault("shares", {})
        out = real_marks(*args, **kw)
        seen["flat"] = dict(kw["shares"])
        return out

    read_tokens._decide_cells = spy
    reader.remove_marks = spy_marks
    total = [0, 0]
    try:
        for folder in a.folders:
            counts = [0, 0]
            for name, _hand, status, truth in scan_scenes([folder], seen, with_truth=True):
                if status != "read":
                    continue
                want = _truth_tokens(truth["state"])
                for cell, read in seen.get("reads", []):
                    if read in (EMPTY, NEUTRAL):
                        continue
                    ok = want.get(tuple(cell), EMPTY) == read
                    counts[0 if ok else 1] += 1
                    flat = seen.get("flat", {}).get(tuple(cell))
                    print(f"  {name} {tuple(cell)} read {read} truth {want.get(tuple(cell), EMPTY)}"
                          f" {'right' if ok else 'WRONG'} flat {-1 if flat is None else flat:.2f}", flush=True)
            total = [total[0] + counts[0], total[1] + counts[1]]
            print(f"{folder}: {counts[0]} right, {counts[1]} wrong", flush=True)
    finally:
        read_tokens._decide_cells = real
        reader.remove_marks = real_marks
    print(f"all: {total[0]} right, {total[1]} wrong; share right {share_right(*total):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
