#!/usr/bin/env python3
"""Can a Plażing calibration foresee which tokens its scans will confuse? A measurement.

    .venv/bin/python scripts/plazing_pair_distances.py OUT.json FOLDER [FOLDER ...]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders with truth (the layout of
``../shared/render`` output). Per set-up it calibrates and records, for every pair of token
classes (bare sand included), how far apart the calibration's token model holds them: the
smallest squared distance between a prototype of one and one of the other in the model's metric,
in units of its token spread (``TokenModel.scale_token``). It then reads every scene and counts
the free cells whose token was read as another class than the truth's, per pair. It prints, per
pair, the set-ups sorted by distance as ``distance:confusions/scans`` and writes the rows to
OUT.json. The answer on the development tables is in ``docs/tuning.md`` ("Token pairs the
calibration cannot foresee").
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from fit_plazing import _truth_tokens, calibrated_setups, truth_scenes  # noqa: E402
from vision.plazing.tokens import EMPTY, TokenModel, _sq_distances  # noqa: E402


def pair_distances(tokens_json: dict) -> dict:
    """``{"a|b": distance}`` of a calibration's token model (``model["tokens"]``): the smallest
    squared distance between prototypes of classes a and b (bare cells for ``empty``) in the
    model's metric, divided by ``scale_token``."""
    m = TokenModel.from_json(tokens_json)
    W = np.linalg.cholesky(m.precision)
    looks = {EMPTY: m.empties}
    looks.update({name: m.protos[m.proto_class == k] for k, name in enumerate(m.classes)})
    return {f"{a}|{b}": float(_sq_distances(looks[a], looks[b], W).min() / m.scale_token)
            for a, b in itertools.combinations(sorted(looks), 2) if len(looks[a]) and len(looks[b])}


def token_confusions(res, truth: dict) -> collections.Counter:
    """``{"a|b": cells}``: free cells whose token a scan (a :class:`~beachscore.pipeline.ScanResult`)
    read as b where the truth has a (or the other way round)."""
    st = truth["state"]
    tokens = _truth_tokens(st)
    covered = {tuple(c) for p in st["pieces"] for c in p["cells"]}
    ledger = res.reading.details["ledger"]
    claims = [(tuple(c), n) for kind, cells, _, names in ledger.bulk if kind == "token"
              for c, n in zip(cells.tolist(), names)]
    claims += [(tuple(d.claim[0]), d.claim[1]) for d in ledger.decisions if d.kind == "token" and d.claim]
    out = collections.Counter()
    for cell, name in claims:
        want = tokens.get(cell, EMPTY)
        if cell not in covered and want != name:
            out["|".join(sorted([want, name]))] += 1
    return out


def main() -> None:
    out_path, folders = sys.argv[1], sys.argv[2:]
    rows = []
    for folder in folders:
        for setup, cal in calibrated_setups(folder, prefix="pair-distances-"):
            confusions, scans = collections.Counter(), 0
            for tpath, truth, setup_doc in truth_scenes(setup):
                try:
                    res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
                except (UnreadableBoardError, BadInputError):
                    continue
                scans += 1
                confusions += token_confusions(res, truth)
            rows.append({"setup": setup, "scans": scans, "distance": pair_distances(cal.model["tokens"]),
                         "confusions": dict(confusions)})
    with open(out_path, "w") as f:
        json.dump(rows, f)
    for pair in sorted({p for r in rows for p in r["confusions"]}):
        seen = sorted((r["distance"][pair], r["confusions"].get(pair, 0), r["scans"]) for r in rows if pair in r["distance"])
        print(f"{pair}: " + " ".join(f"{d:.0f}:{c}/{s}" for d, c, s in seen))


if __name__ == "__main__":
    main()
