"""The sea cloth and the sea front of a Strand unter board.

Input: the corrected board (:class:`~vision.strand_unter.lighting.Lit`), its pixel classes, the
calibration's :class:`~vision.strand_unter.assets.Assets`.
Output: :class:`Sea`: the cloth's edge per column (work px), the cloth mask, each groove's
covered share, the sea front (lowest covered groove; 12 when none), the visible grooves, the
posterior that the front is right, and doubts.

The cloth hangs from the sea side; it is found on colours averaged over 5 × 5 px (noise), each
column's edge by a step fit (a hand lying on the cloth does not end it), median-filtered across
columns (:func:`vision.strand_unter.colour.cloth_edge`). A groove is covered when more than half
of its core (its rims left out) is cloth. The posterior treats each groove's covered share as
measured with the cloth edge's position error (``sea_edge_sigma_mm``): a share near one half is
a coin toss, a share near 0 or 1 is sure. Source: ``shared/rules/strand-unter.md`` §Components
("sea front = the lowest-numbered covered groove").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import erf, sqrt

import cv2
import numpy as np

from vision.strand_unter import colour
from vision.strand_unter.assets import grooves_phrase
from vision.strand_unter.config import CONFIDENCE, READING


@dataclass
class Sea:
    """Where the cloth lies (see the module docstring)."""

    edge: np.ndarray           # float (W,) first row below the cloth, per column (work px)
    mask: np.ndarray           # bool (H, W) cloth
    coverage: dict             # {groove: covered share of its core}
    front: int
    visible: list
    posterior: float
    cap: float = 1.0           # an upper bound on the confidence (no cloth seen and no bare sand at the back)
    doubts: list = field(default_factory=list)
    remarks: list = field(default_factory=list)   # always shown (why the cap)


def phi(z: float) -> float:
    """Standard normal CDF."""
    return 0.5 * (1.0 + erf(z / sqrt(2.0)))


def find_sea(image: np.ndarray, cls: np.ndarray, A, cfg=READING, conf=CONFIDENCE) -> Sea:
    """Find the cloth and the sea front on the corrected board ``image`` (BGR uint8 work px)."""
    h, w = image.shape[:2]
    # every other column (image[:, ::2]; for an even width a nearest-neighbour halving picks exactly those,
    # without the strided copy)
    cols = cv2.resize(image, (w // 2, h), interpolation=cv2.INTER_NEAREST) if w % 2 == 0 else image[:, ::2]
    half = colour.sea_pixels(cols, A.lut, A.bits, A.sea, cfg.sea_smooth_px)
    edge = np.repeat(colour.cloth_edge(half, cfg.cloth_edge_window_px // 2), 2)[:image.shape[1]]
    rows = np.arange(image.shape[0], dtype=np.float32)[:, None]     # (float32: the same comparison, faster)
    mask = rows < edge[None, :]
    # each groove's core pixels above the edge (rows < edge: the first ceil(edge) rows of a column)
    reach = np.clip(np.ceil(edge), 0, image.shape[0]).astype(np.intp)
    covered_px = A.core_above[:, reach, np.arange(len(reach))].sum(axis=1)
    coverage = {n: float(int(covered_px[j]) / int(A.core_len[j])) if A.core_len[j] else 0.0
                for j, n in enumerate(A.numbers)}
    covered = [n for n in A.numbers if coverage[n] > cfg.sea_coverage]
    front = min(covered) if covered else max(A.numbers) + 1
    doubts: list[str] = []
    post = 1.0
    for n in A.numbers:
        lo, hi = A.extent[n]
        sigma = conf.sea_edge_sigma_mm / max(hi - lo - 2 * cfg.sea_band_margin_mm, 1.0)
        p = phi(abs(coverage[n] - cfg.sea_coverage) / sigma)
        if n <= front:               # grooves beyond the front do not change it
            post *= p
        if p < conf.doubt_below:
            doubts.append(f"groove {n} is only partly under the sea cloth ({coverage[n]:.0%}); "
                          "check where the sea front is")
    holes = [n for n in A.numbers if n > front and coverage[n] <= cfg.sea_coverage]
    if holes:
        post *= conf.sea_hole_posterior
        doubts.append(f"{grooves_phrase(holes)} beyond the sea front (groove {front}) "
                      f"{'looks' if len(holes) == 1 else 'look'} uncovered; straighten the sea cloth")
    cap, remarks = 1.0, []
    if not covered:
        # no cloth anywhere: only plausible when the back groove's sand is seen bare (positive evidence)
        back = max(A.numbers)
        idx = A.core_idx[back]
        sand_share = float((cls.ravel()[idx] == A.sand).mean()) if len(idx) else 0.0
        if sand_share < cfg.empty_back_sand:
            cap = conf.unsure_cap
            remarks.append(f"the sea cloth was not found, yet groove {back} at the back does not look like bare sand "
                          f"({sand_share:.0%} sand-coloured); check the sea front and the light")
    visible = [n for n in A.numbers if n < front]
    return Sea(edge=edge, mask=mask, coverage=coverage, front=front, visible=visible, posterior=post, cap=cap,
               doubts=doubts, remarks=remarks)
