"""A Strand unter calibration sample whose piece clearly shows another labelled class: a wrong label."""

from __future__ import annotations

import numpy as np

from vision.errors import SampleError, sample_slot
from vision.strand_unter import colour


def check_labels(samples, min_std, max_distance: float, kind=lambda label: label) -> None:
    """Refuse a calibration sample whose piece clearly belongs to another labelled class (a wrong label).

    Leave-one-out: each sample's median colour is compared with every class fitted on the *other*
    samples (Lab Gaussians with the same floors as the learned classes). A sample farther than
    ``max_distance`` (Mahalanobis) from the rest of its own class and nearer to another class is
    mislabelled; a sample alone in its class is judged by the other classes only (nearer to one of
    them than ``max_distance`` / 2 while the classes themselves are apart).

    Args:
        samples: ``[(label, board_mm (x, y), Lab pixels (N, 3))]``.
        min_std: (3,) std floor of the classes (Lab).
        max_distance: Mahalanobis distance of a sample's colour from its own class beyond which it
            does not belong to it.
        kind: the class a label belongs to (e.g. ``castle/red/2`` → ``castle/red``).
    Raises:
        SampleError: ``bad-sample`` naming the label, its board_mm and the class it looks like: of
            the samples that look mislabelled, one unlike the rest of its own class before one alone
            in its class, then the one farthest from its own class against the nearest other. A
            sample alone in its class is named with the sample of the other class it looks most
            like: either label may be the wrong one.
    """
    classes = sorted({kind(label) for label, _, _ in samples})
    if len(classes) < 2:
        return
    med = [np.median(px, axis=0) for _, _, px in samples]
    suspects = []
    for i, (label, xy, _) in enumerate(samples):
        d = {}
        for c in classes:
            rest = [samples[j][2] for j in range(len(samples)) if j != i and kind(samples[j][0]) == c]
            if rest:
                d[c] = float(colour.mahalanobis(med[i][None], [colour.gaussian(np.concatenate(rest), min_std)])[0, 0])
        own = kind(label)
        others = {c: v for c, v in d.items() if c != own}
        if not others:
            continue
        near = min(others, key=others.get)
        if own in d:
            wrong = d[own] > max_distance and others[near] < d[own]
        else:
            wrong = others[near] < max_distance / 2
        if wrong:
            suspects.append((own in d, d.get(own, 0.0) / max(others[near], 1e-9), label, xy, near, others[near],
                             d.get(own), i))
    if not suspects:
        return
    # a sample unlike the rest of its own class is the wrong label; a sample alone in its class
    # (its partner may have been mislabelled away) only looks like the class the other one joined
    own_known, _, label, xy, near, to_near, to_own, i = max(suspects, key=lambda s: s[:2])
    if own_known:
        raise SampleError("bad-sample", [(label, xy)], f"{sample_slot(0)} looks like {near} (colour distance "
                          f"{to_near:.1f} from {near}, {to_own:.1f} from the other {kind(label)} samples); "
                          "check its label")
    j = min((j for j in range(len(samples)) if kind(samples[j][0]) == near),
            key=lambda j: float(np.sum((med[j] - med[i]) ** 2)))
    raise SampleError("bad-sample", [(label, xy), samples[j][:2]],
                      f"{sample_slot(0)}, the only {kind(label)} sample, looks like {near} (colour distance "
                      f"{to_near:.1f}), most like {sample_slot(1)}: one of the two labels is wrong; check both")
