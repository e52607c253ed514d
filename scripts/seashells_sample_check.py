#!/usr/bin/env python3
"""Does the Seashells towel check keep right labels and refuse swapped ones? (development tables)

    .venv/bin/python scripts/seashells_sample_check.py SETUP_FOLDER [SETUP_FOLDER ...]

Each set-up's calibration shot is calibrated once, recording the towel samples' contrast features;
then the towel check (``vision.seashells.reader._check_samples``) runs on the samples as labelled
(a refusal is a right label refused) and once per sample with ``shell`` and ``empty`` swapped (a
made mislabel: refused, kept and named in ``confusable``, or taken silently). Evidence for
docs/tuning.md. A measurement: it prints.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore.errors import BadInputError, CodedError  # noqa: E402
import vision.seashells.reader as seashells  # noqa: E402
from sand_castles_wave_check import calibrate_request  # noqa: E402

SWAP = {"shell": "empty", "empty": "shell"}


def towel_samples(folder: str):
    """``(features (N, F), labels, where)`` of the set-up's towel samples, as calibration saw them,
    or the error code of a calibration refused before its towel check."""
    seen = []
    check = seashells._check_samples

    def record(feats, labels, where, what):
        if what == "towel":
            seen.append((feats, list(labels), list(where)))
        return check(feats, labels, where, what)

    request = json.load(open(os.path.join(folder, "calibration.json")))
    seashells._check_samples = record
    try:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                calibrate_request(request, folder, tmp)
            except CodedError as e:
                if not seen:
                    return e.code
    finally:
        seashells._check_samples = check
    return seen[0]


def outcome(feats, labels, where) -> str:
    """``refused`` (bad-sample), ``named`` (kept, named in confusable) or ``taken``."""
    try:
        kept = seashells._check_samples(feats, labels, where, "towel")
    except BadInputError:
        return "refused"
    return "named" if kept else "taken"


def tally(folder: str, right: Counter, made: Counter) -> None:
    """Count one set-up's outcomes: as labelled into ``right``, each swap into ``made``."""
    seen = towel_samples(folder)
    if isinstance(seen, str):
        right[seen] += 1
        print(f"{folder}: calibration refused first: {seen}", flush=True)
        return
    feats, labels, where = seen
    right[outcome(feats, labels, where)] += 1
    for k, label in enumerate(labels):
        got = outcome(feats, [SWAP[lab] if j == k else lab for j, lab in enumerate(labels)], where)
        made[got, label] += 1
        if got != "refused":
            print(f"{folder}: {label} at {where[k]} labelled {SWAP[label]}: {got}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("setups", nargs="+")
    right, made = Counter(), Counter()
    for folder in ap.parse_args(argv).setups:
        tally(folder, right, made)
    print(f"right labels: {dict(right)}; made mislabels (outcome, true label): {dict(made)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
