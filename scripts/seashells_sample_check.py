#!/usr/bin/env python3
"""Does the Seashells towel check keep right labels and refuse swapped ones? (development tables)

    .venv/bin/python scripts/seashells_sample_check.py SETUP_FOLDER [SETUP_FOLDER ...] [--fit]

Each set-up's calibration shot is calibrated once, recording the towel samples' contrast features;
then the towel check (``vision.seashells.reader._check_samples``) runs on the samples as labelled
(a refusal is a right label refused) and once per sample with ``shell`` and ``empty`` swapped (a
made mislabel: refused, kept and named in ``confusable``, or taken silently). Evidence for
docs/tuning.md. A measurement: it prints.

With ``--fit`` it also fits ``SeashellsConfig.bad_sample_clear_rms_z``: every right ``empty``
sample's distance (RMS z) from the other empty samples, as the check measures it, has its upper
tail fitted as an exponential above the 95th percentile (peaks over a threshold); the fitted value
is where that tail refuses one right set-up in :data:`REFUSED_SETUPS` (the median set-up's empty
samples each at risk). It prints the value and how many made mislabels (shells labelled ``empty``)
lie nearer than it (named and left out rather than refused).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from beachscore.errors import BadInputError, CodedError  # noqa: E402
from vision.mats.config import SEASHELLS as CFG  # noqa: E402
from vision.mats.ring_contrast import GaussianClasses  # noqa: E402
import vision.seashells.reader as seashells  # noqa: E402
from sand_castles_wave_check import calibrate_request  # noqa: E402

SWAP = {"shell": "empty", "empty": "shell"}
#: A right calibration refused as ``bad-sample`` in this many set-ups at most (the fit's target).
REFUSED_SETUPS = 1000
TAIL_QUANTILE = 95.0


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


def tally(folder: str, right: Counter, made: Counter):
    """Count one set-up's outcomes: as labelled into ``right``, each swap into ``made``.
    Returns what :func:`towel_samples` returned."""
    seen = towel_samples(folder)
    if isinstance(seen, str):
        right[seen] += 1
        print(f"{folder}: calibration refused first: {seen}", flush=True)
        return seen
    feats, labels, where = seen
    right[outcome(feats, labels, where)] += 1
    for k, label in enumerate(labels):
        got = outcome(feats, [SWAP[lab] if j == k else lab for j, lab in enumerate(labels)], where)
        made[got, label] += 1
        if got != "refused":
            print(f"{folder}: {label} at {where[k]} labelled {SWAP[label]}: {got}", flush=True)
    return seen


def empty_rms_z(feats, labels, k: int) -> float:
    """Sample ``k``'s distance (RMS z per feature) from the other ``empty`` samples, as the check
    sees it: classes learned with ``k`` left out, shells broadened toward the empty cells."""
    X = np.asarray(feats, np.float64)
    rest = [j for j in range(len(X)) if j != k]
    model = GaussianClasses.fit(X[rest], [labels[j] for j in rest], CFG.towel_var_floor).broadened("shell", "empty")
    return float(np.sqrt(model.distances2(X[k:k + 1])[0][model.classes.index("empty")] / X.shape[1]))


def distances(seen, right: list, made: list, counts: list) -> None:
    """Append a set-up's right ``empty`` samples' and made ``empty`` mislabels' RMS z (``seen``: what
    :func:`towel_samples` returned)."""
    if isinstance(seen, str):
        return
    feats, labels, _ = seen
    counts.append(labels.count("empty"))
    for k, label in enumerate(labels):
        as_empty = ["empty" if j == k else lab for j, lab in enumerate(labels)]
        if as_empty.count("empty") < 2 or "shell" not in as_empty[:k] + as_empty[k + 1:]:
            continue
        (right if label == "empty" else made).append(empty_rms_z(feats, as_empty, k))


def fit_clear_rms_z(right: list, made: list, counts: list) -> float:
    """The fitted ``bad_sample_clear_rms_z`` (module docstring); prints the evidence."""
    z, m = np.asarray(right), np.asarray(made)
    u = float(np.percentile(z, TAIL_QUANTILE))
    scale = float((z[z > u] - u).mean())
    at_risk = float(np.median(counts))
    per_sample = 1.0 / (REFUSED_SETUPS * at_risk)
    value = u + scale * np.log((1 - TAIL_QUANTILE / 100) / per_sample)
    print(f"right empty samples: {len(z)} in {len(counts)} set-ups (median {at_risk:g} each); RMS z median "
          f"{np.median(z):.2f}, max {z.max():.2f}; tail above {u:.2f} (p{TAIL_QUANTILE:g}): scale {scale:.3f}")
    print(f"fitted bad_sample_clear_rms_z = {value:.2f} (one right set-up refused in {REFUSED_SETUPS}); "
          f"made mislabels nearer (named, not refused): {int((m <= value).sum())} / {len(m)}")
    return value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("setups", nargs="+")
    ap.add_argument("--fit", action="store_true", help="fit bad_sample_clear_rms_z (module docstring)")
    args = ap.parse_args(argv)
    right, made = Counter(), Counter()
    z_right, z_made, counts = [], [], []
    for folder in args.setups:
        seen = tally(folder, right, made)
        if args.fit:
            distances(seen, z_right, z_made, counts)
    print(f"right labels: {dict(right)}; made mislabels (outcome, true label): {dict(made)}")
    if args.fit:
        fit_clear_rms_z(z_right, z_made, counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
