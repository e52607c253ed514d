"""The Sand Castles calibration's labelled samples, checked before anything is learned from them.

Input: the samples' place features on the rectified calibration shot (:mod:`vision.places`) and,
for lane spaces, the other sea spaces of their lanes. Output: nothing, a ``bad-sample`` refusal
(a label that is clearly wrong), or the samples kept although they look like another class (the
calibration names them in ``confusable``).
"""

from __future__ import annotations

import numpy as np

from vision.errors import BadInputError, SampleError, sample_slot
from vision.mats.config import SAND_CASTLES as CFG
from vision.mats.ring_contrast import GaussianClasses
from vision.places import COVARIANCE_FLOOR, place_features


def check_samples(board_bgr: np.ndarray, samples, shown, px_per_mm: float, patch_mm: float,
                   lane_seas: list | None = None) -> list[dict]:
    """Refuse a calibration sample that clearly looks like another class (``bad-sample``, exit 2).

    Leave-one-out over the place features of :mod:`vision.places` (per-class diagonal Gaussians
    floored by its covariance floor, :meth:`vision.mats.ring_contrast.GaussianClasses.mislabelled`).
    A suspect ``wave`` is judged by the rules: each lane has one wave, so a wave sample that is the
    least like an empty space of its lane's sea spaces is that wave, however the light disguises
    it (a glossy wave under the lamp's reflection looks pale like an empty space), and one that is
    not is refused. Another suspect within ``CFG.bad_sample_clear_rms_z`` of the class it looks like is
    refused; one farther, up to ``CFG.bad_sample_other_rms_z``, may be a right label the light
    disguises. Kept suspects are learned from and returned so that calibration names them. A
    sample unlike every class is no suspect.

    Args:
        board_bgr: the view the samples are read from; samples: ``(label, (x, y))`` in its mm.
        shown: the same samples in board mm, for the message.
        lane_seas: per sample, float (K, 2) the centres (view mm) of the other sea spaces of its
            lane (spaces 1…length−2), or None (castle slots).
    Returns:
        the kept suspects, ``[{"label": str, "board_mm": [x, y], "looks_like": str}]``.
    """
    if len(samples) < 3:
        return []
    feats = place_features(board_bgr, [xy for _, xy in samples], px_per_mm, patch_mm).astype(np.float64)
    labels = [lab_ for lab_, _ in samples]

    def suspects(near: float) -> list[tuple[int, str]]:
        return GaussianClasses.mislabelled(feats, labels, COVARIANCE_FLOOR, CFG.bad_sample_llr,
                                           CFG.bad_sample_rms_z, near_rms_z=near)

    clear = {i for i, _ in suspects(CFG.bad_sample_clear_rms_z)}
    kept = []
    for i, other in suspects(CFG.bad_sample_other_rms_z):
        if labels[i] == "wave" and lane_seas is not None and "space" in labels:
            lane = place_features(board_bgr, lane_seas[i], px_per_mm, patch_mm).astype(np.float64)
            refuse = not least_space_like(feats, labels, i, lane)
        else:
            refuse = i in clear
        x, y = shown[i][1]
        if refuse:
            raise SampleError("bad-sample", [(labels[i], (x, y))], f"{sample_slot(0)} looks like {other!r}, not like "
                              f"the other {labels[i]!r} samples; check its label and point")
        kept.append({"label": labels[i], "board_mm": [round(float(x), 2), round(float(y), 2)], "looks_like": other})
    return kept


def one_wave_a_lane(waves) -> None:
    """Refuse two ``wave`` samples in one lane (``bad-sample``): by the rules a lane holds one wave.

    Args:
        waves: ``(lane name, (x, y))`` of every ``wave`` sample, in board mm.
    """
    seen: dict[str, tuple[float, float]] = {}
    for lane, (x, y) in waves:
        if lane in seen:
            x0, y0 = seen[lane]
            raise BadInputError("bad-sample", f"calibration samples 'wave' at {x0:g},{y0:g} mm and 'wave' at "
                                f"{x:g},{y:g} mm are in the same lane ({lane}), which holds one wave; check their labels")
        seen[lane] = (x, y)


def least_space_like(feats: np.ndarray, labels: list[str], i: int, lane: np.ndarray) -> bool:
    """Whether sample ``i`` lies farther from the empty spaces (``space`` class learned from the
    other samples, Mahalanobis distance) than every other sea space of its lane (``lane``: (K, F)).
    The distance, not a likelihood ratio against the waves: a disguised wave is unlike both."""
    rest = [j for j in range(len(feats)) if j != i]
    model = GaussianClasses.fit(feats[rest], [labels[j] for j in rest], COVARIANCE_FLOOR)
    d2 = model.distances2(np.vstack([feats[i:i + 1], lane]))[:, model.classes.index("space")]
    return bool(len(d2) == 1 or d2[0] > d2[1:].max())
