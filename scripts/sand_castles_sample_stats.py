#!/usr/bin/env python3
"""How far Sand Castles calibration samples lie from the class they are suspected of (bad-sample check).

    .venv/bin/python scripts/sand_castles_sample_stats.py /work/renders/judge/sand-castles-rel-20108/setup* …

Each set-up's calibration.json is calibrated with the sample check spied on: for every sample the
leave-one-out model of :meth:`vision.mats.ring_contrast.GaussianClasses.mislabelled` is fitted,
and two figures are printed — for samples with their true label that the log-likelihood and own-
distance rules suspect, the RMS z distance to the better class (a false alarm when large: the
sample looks like nothing learned, e.g. a glossy wave catching the light); and for every sample
relabelled as each other class of its group (a made mislabel) that those rules catch, its RMS z
distance to the class it looks like. The evidence for ``SandCastlesConfig.bad_sample_other_rms_z`` and
``bad_sample_clear_rms_z`` (docs/tuning.md).
A measurement, not a test: it prints.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from vision.mats.config import SAND_CASTLES as CFG  # noqa: E402
from vision.mats.ring_contrast import GaussianClasses  # noqa: E402
from vision.places import COVARIANCE_FLOOR, place_features  # noqa: E402
import vision.sand_castles.reader as reader  # noqa: E402


def _loo(X: np.ndarray, labels: list[str], i: int):
    """(llr of the best other class over the own, own rms z, best other class, its rms z, true-class rms z)."""
    rest = [j for j in range(len(X)) if j != i]
    model = GaussianClasses.fit(X[rest], [labels[j] for j in rest], COVARIANCE_FLOOR)
    ll = model.log_likelihood(X[i:i + 1])[0]
    d2 = model.distances2(X[i:i + 1])[0]
    own = model.classes.index(labels[i])
    other = int(np.argmax(np.where(np.arange(len(ll)) == own, -np.inf, ll)))
    rms = np.sqrt(d2 / X.shape[1])
    return float(ll[other] - ll[own]), float(rms[own]), model.classes[other], float(rms[other]), rms, model.classes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("setups", nargs="+")
    args = ap.parse_args()
    groups: list = []

    def spy(board, samples, shown, px_per_mm, patch_mm, *_):
        groups.append(place_features(board, [xy for _, xy in samples], px_per_mm, patch_mm).astype(np.float64))
        groups.append([lab for lab, _ in samples])
        return []

    reader.check_samples = spy
    alarms, flips, ratios = [], [], []
    for folder in args.setups:
        groups.clear()
        with tempfile.TemporaryDirectory() as out:
            pipeline.calibrate(os.path.join(folder, "calibration.json"), os.path.join(out, "cal"))
        for X, labels in zip(groups[::2], groups[1::2]):
            for i in range(len(X)):
                if labels.count(labels[i]) < 2:
                    continue
                llr, own, other, other_z, _, _ = _loo(X, labels, i)
                if llr > CFG.bad_sample_llr and own > CFG.bad_sample_rms_z:
                    alarms.append((other_z, own / other_z))
                    print(f"{folder}: true {labels[i]!r} #{i} suspected of {other!r}: rms z to it {other_z:.2f} "
                          f"(own {own:.2f})")
                for wrong in sorted(set(labels) - {labels[i]}):
                    flipped = labels[:i] + [wrong] + labels[i + 1:]
                    if flipped.count(wrong) < 2 or len(set(flipped)) < 2:
                        continue
                    llr, own, other, other_z, _, _ = _loo(X, flipped, i)
                    if llr > CFG.bad_sample_llr and own > CFG.bad_sample_rms_z:
                        flips.append(other_z)
                        ratios.append(own / other_z)
                        if other_z > 2.0:
                            print(f"{folder}: {labels[i]!r} #{i} labelled {wrong!r}: caught, looks like "
                                  f"{other!r} at rms z {other_z:.2f} (own {own:.2f})")
    print(f"made mislabels caught: {len(flips)}, rms z to the class they look like: max {max(flips, default=0):.2f}, "
          f"95th percentile {np.percentile(flips, 95) if flips else 0:.2f}")
    print(f"false alarms (true labels suspected): {len(alarms)}, rms z to the suspected class: "
          f"min {min((a for a, _ in alarms), default=float('nan')):.2f}; own/other ratio max "
          f"{max((r for _, r in alarms), default=float('nan')):.2f}")
    print(f"made mislabels caught: own/other rms z ratio min {min(ratios, default=float('nan')):.2f}")
    clear = np.mean(np.asarray(flips) < CFG.bad_sample_clear_rms_z) if flips else float("nan")
    print(f"made mislabels refused (within bad_sample_clear_rms_z = {CFG.bad_sample_clear_rms_z} of the class "
          f"they look like): {clear:.1%}; the rest are kept and named in the calibration's confusable")


if __name__ == "__main__":
    main()
