"""The sandpiper of Strand unter: which blob is the bird, and in which groove it stands.

Input: the scan's blobs, the pixels castles already own, the corrected board, the calibration's
:class:`~vision.strand_unter.assets.Assets` and the scan's colour error.
Output: :class:`Bird`: the groove (None: not on the board), its base (work px), the posterior
that this is right, the blob's pixels (bool (H, W)) and doubts.

The bird is described by its mean Lab colour, the spread of its lightness (a dark body and a
white head: a shell of the same mean colour is plain), its area, and — loosely, since a change
of light moves pixels between classes — its pixels' class composition (half the L1 distance
of the histograms; a white and a black shell touching have the bird's mean and spread, not its
composition); each compared with the calibration's bird with the spreads of
:class:`~vision.strand_unter.config.BirdConfig` (a, b widened by the scan's colour error). The
blob is the bird with the posterior ``1 / (1 + exp((d² − d²_shells)/2) + exp((d² − max_d2)/2))``:
its squared distance d² against the same blob read as shells (:func:`shell_d2`: a black shell is
dark and plain like a bird's body) and against the limit ``cfg.max_d2`` (the χ² 99.99% quantile
of 6 features: blobs that are neither lie far beyond it). The blob with the highest posterior is
the bird when that is above one half; "no bird" has one minus it (made less sure by the fitted
slope ``"no sandpiper"`` in :mod:`~vision.strand_unter.confidence`: a bird whose white head
vanished into pale sand looks like neither).

Candidates are the blobs no castle touches and the parts a castle leaves of the blob it touches (a
bird beside a castle merges into its blob). Each is also compared with the bird and one shell of
each colour touching it, looked at as one blob (:func:`mixture_models`, prior ``touch_prior``);
when that explains it best, the shell's pixels are left to the shells.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.strand_unter.blobs import blob_box
from vision.strand_unter.castle_values import student_t_logpdf
from vision.strand_unter.castles import groove_posterior
from vision.strand_unter.config import BIRD, READING


@dataclass
class Bird:
    """The sandpiper as read."""

    groove: int | None
    x: float = 0.0
    y: float = 0.0
    d2: float = float("inf")
    posterior: float = 1.0
    mask: np.ndarray | None = None
    doubts: list | None = None
    p_alone: float = 1.0             # the posterior that nothing else (a shell) is merged into its blob


def features(pixels_bgr: np.ndarray) -> np.ndarray:
    """(L, a, b, log std L, log area) of a blob's BGR pixels (N, 3): float (5,)."""
    lab = cv2.cvtColor(pixels_bgr.reshape(-1, 1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float64)
    return np.array([*lab.mean(axis=0), np.log(max(lab[:, 0].std(), 1.0)), np.log(max(len(lab), 1))])


def shell_models(A, residual_ab: float) -> list:
    """Per shell colour: (mean Lab (3,), inverse covariance (3, 3) widened by the scan's colour
    error, log lightness spread or None, log area of one shell) for :func:`shell_d2`."""
    model = A.model
    out = []
    for c in A.shell_colours:
        cov = np.asarray(model["classes"][f"shell/{c}"]["cov"], np.float64) + \
            np.diag([0, residual_ab ** 2, residual_ab ** 2])
        l_std = (model.get("shell_l_std") or {}).get(c)
        out.append((np.asarray(model["classes"][f"shell/{c}"]["mean"], np.float64), np.linalg.inv(cov),
                    np.log(max(l_std, 1.0)) if l_std else None, float(np.log(model["shell_area_px2"][c]))))
    return out


_LOG_N = tuple(np.log(n) for n in (1, 2, 3))        # (log n shells, n = 1 … 3: computed once)


def shell_d2(f: np.ndarray, models: list, cfg=BIRD) -> float:
    """Squared distance of a blob's :func:`features` from the best "n shells of one colour" reading:
    mean colour against the shell class (its pixel spread, widened by the scan's colour error),
    lightness spread against the calibration shells', area against n shells' (n = 1 … 3)."""
    best = np.inf
    for mu, inv, log_l, a1 in models:
        d = f[:3] - mu
        spread_d2 = ((f[3] - log_l) / cfg.log_l_std_sigma) ** 2 if log_l is not None else 0.0
        area_d2 = min(((f[4] - a1 - log_n) / cfg.log_area_sigma) ** 2 for log_n in _LOG_N)
        best = min(best, float(d @ inv @ d) + spread_d2 + area_d2)
    return best


def mixture_models(A, want: np.ndarray, comp_want: np.ndarray, shells: list) -> list:
    """Per shell colour: the :func:`features` (5,) and class composition (K+1,) of the calibration's
    bird with one shell of that colour touching it, as one blob.

    Mean Lab and composition are the area-weighted means of the bird's and the shell's (its class
    mean, its class alone), the lightness spread that of the two pixel sets pooled, the area the sum:
    all from the calibration, nothing fitted."""
    out = []
    a_bird = float(np.exp(want[4]))
    for (mu, _, log_l, a1), k in zip(shells, A.shell_k):
        a_shell = float(np.exp(a1))
        w = a_shell / (a_bird + a_shell)
        lab = (1 - w) * want[:3] + w * mu
        s_shell = float(np.exp(log_l)) if log_l is not None else 0.0
        var = (1 - w) * (np.exp(want[3]) ** 2 + (want[0] - lab[0]) ** 2) + w * (s_shell ** 2 + (mu[0] - lab[0]) ** 2)
        comp = (1 - w) * comp_want
        comp[k] += w
        out.append((np.array([*lab, np.log(max(np.sqrt(var), 1.0)), np.log(a_bird + a_shell)]), comp, k))
    return out


def _candidates(blobs, owned: np.ndarray, classes: np.ndarray | None, K: int, min_area: float):
    """Yield (box slices, bool mask in the box, area, class composition (K+1,)) of every blob no
    castle touches, and of the parts castles left of the blobs they touch (a bird beside a castle
    merges into its blob) when ``classes`` (uint8 (H, W)) is given."""
    for i in range(1, blobs.n):
        a = blobs.stats[i, cv2.CC_STAT_AREA]
        if a < min_area:
            continue
        rs, cs = blob_box(blobs, i)
        mine = blobs.labels[rs, cs] == i
        taken = owned[rs, cs] & mine
        if not taken.any():
            yield rs, cs, mine, int(a), blobs.counts[i] / max(a, 1)
            continue
        if classes is None:
            continue
        n, lab, st, _ = cv2.connectedComponentsWithStats((mine & ~taken).view(np.uint8), connectivity=8)
        for j in range(1, n):
            if st[j, cv2.CC_STAT_AREA] < min_area:
                continue
            part = lab == j
            hist = np.bincount(np.minimum(classes[rs, cs][part], K), minlength=K + 1)
            yield rs, cs, part, int(st[j, cv2.CC_STAT_AREA]), hist / max(hist.sum(), 1)


def _touching_shell(of_class: np.ndarray) -> np.ndarray:
    """The shell beside the bird: the largest 8-connected part of the blob's pixels of its class
    (bool (h, w)), grown by one pixel for its rim; the bird's own pixels of that class are scattered."""
    n, lab, st, _ = cv2.connectedComponentsWithStats(of_class.view(np.uint8), connectivity=8)
    if n <= 1:
        return of_class
    core = lab == 1 + int(np.argmax(st[1:, cv2.CC_STAT_AREA]))
    return cv2.dilate(core.view(np.uint8), np.ones((3, 3), np.uint8)).view(bool)


def find_bird(blobs, owned: np.ndarray, image: np.ndarray, A, residual_ab: float, cfg=BIRD,
              rcfg=READING, classes: np.ndarray | None = None) -> Bird:
    """The blob that is the sandpiper (see the module docstring); Bird(None) when no blob is.

    A blob is also compared with the bird and one shell touching it (:func:`mixture_models`, prior
    ``cfg.touch_prior``); when that explains it best, the shell's class pixels are left to the
    shells. ``classes``: uint8 (H, W) pixel classes, for the parts castles leave of their blobs and
    for that split (without it neither is looked at)."""
    model = A.model
    bird = model.get("sandpiper")
    if bird is None or "features" not in bird:
        return Bird(None, doubts=[])
    want = np.asarray(bird["features"], np.float64)
    comp_want = np.asarray(bird["composition"], np.float64)
    sig = np.array([cfg.l_sigma, np.hypot(cfg.ab_sigma, residual_ab), np.hypot(cfg.ab_sigma, residual_ab),
                    cfg.log_l_std_sigma, cfg.log_area_sigma])
    min_area = rcfg.min_blob_fraction * min(model["shell_area_px2"].values())
    shells = shell_models(A, residual_ab)
    looks = [(want, comp_want, None, 0.0)]
    if classes is not None:
        looks += [(f, c, k, -2.0 * np.log(cfg.touch_prior)) for f, c, k in mixture_models(A, want, comp_want, shells)]
    best = None
    for rs, cs, mine, a, comp in _candidates(blobs, owned, classes, A.K, min_area):
        if min(abs(np.log(a) - f[4]) for f, *_ in looks) > cfg.area_gate_sigmas * cfg.log_area_sigma:
            continue
        f = features(image[rs, cs][mine])
        d2, k = min((float((((f - fw) / sig) ** 2).sum()) + pen +
                     (0.5 * float(np.abs(comp - cw).sum()) / cfg.composition_sigma) ** 2, k)
                    for fw, cw, k, pen in looks)
        alt = shell_d2(f, shells, cfg)
        # posterior that this blob is the bird: its likelihood against shells' and the limit's
        p = 1.0 / (1.0 + np.exp((d2 - alt) / 2) + np.exp((d2 - cfg.max_d2) / 2))
        if best is None or p > best[0]:
            best = (p, d2, rs, cs, mine, k)
    if best is None:
        return Bird(None, doubts=[])
    p, d2, rs, cs, mine, k = best
    if p < 0.5:
        ys, xs = np.nonzero(mine)
        return Bird(None, d2=d2, posterior=1.0 - p, doubts=[
            f"no sandpiper was recognised, yet the piece at {A.where(cs.start + xs.mean(), rs.start + ys.mean())} "
            "may be it: check whether the bird is on the board"])
    if k is not None:
        mine = mine & ~_touching_shell(mine & (classes[rs, cs] == k))
    mask = np.zeros(owned.shape, bool)
    mask[rs, cs] = mine
    ys, xs = np.nonzero(mine)
    bx = cs.start + float(xs.mean()) + bird["offset_px"][0]
    by = rs.start + float(ys.mean()) + bird["offset_px"][1]
    g = A.groove_at(bx, by)
    doubts = []
    pg = groove_posterior((by + 0.5) / A.ppm, g, A, {"base_sigma_mm": cfg.base_sigma_mm})
    if p < 0.9:
        doubts.append("the sandpiper was hard to recognise; check where it stands")
    if pg < 0.9:
        doubts.append("the sandpiper stands on the line between two grooves")
    p_alone = alone_posterior(float(np.log(max(len(ys), 1))) - want[4],
                              A.one_shell_px2 / float(np.exp(want[4])), cfg)
    return Bird(g, x=bx, y=by, d2=d2, posterior=p * pg, mask=mask, doubts=doubts, p_alone=p_alone)


def touching_shell_colour(bird: Bird, classes: np.ndarray, A, rcfg=READING) -> tuple[str, float] | None:
    """The colour of a shell merged into the bird's blob, from the blob's pixel classes.

    Per shell colour, the blob's pixels of its class beyond the calibration bird's own share of that
    class (its composition × its area), in one shell's area. The shell is of the colour with the
    largest excess; none when no excess reaches ``rcfg.min_blob_fraction`` of a shell (less than
    that is no part at all, as in :func:`~vision.strand_unter.shells.count_posterior`).

    Args:
        bird: :func:`find_bird`'s reading with its mask; classes: uint8 (H, W) pixel classes.
    Returns:
        (colour, that excess's share of all positive excesses, in (0, 1]) or None.
    """
    if bird.mask is None:
        return None
    model = A.model["sandpiper"]
    area = float(np.exp(model["features"][4]))
    one = A.one_shell_px2
    hist = np.bincount(np.minimum(classes[bird.mask], A.K), minlength=A.K + 1).astype(np.float64)
    excess = np.array([hist[k] - model["composition"][k] * area for k in A.shell_k]) / one
    best = int(np.argmax(excess))
    if excess[best] < rcfg.min_blob_fraction:
        return None
    return A.shell_colours[best], float(excess[best] / excess[excess > 0].sum())


def alone_posterior(log_ratio: float, shell_share: float, cfg=BIRD, rcfg=READING) -> float:
    """The posterior that the bird's blob holds the bird alone, not the bird and a shell touching it.

    A shell touching the bird may lie partly under it (seen from the camera, the bird's body covers
    its near side): the blob then gains only the seen fraction u of one shell's area, u uniform over
    (``rcfg.min_blob_fraction``, 1) (less than that of a shell is no part at all, as in
    :func:`~vision.strand_unter.shells.count_posterior`).

    Args:
        log_ratio: log (blob area / the calibration bird's area); shell_share: one shell's area
            over the calibration bird's.
    Returns:
        Posterior in (0, 1]: Student t (``alone_dof``) of the log ratio around ``alone_log_area``
        against the same around ``alone_log_area`` + log(1 + u · shell_share) averaged over u,
        priors 1 − ``touch_prior`` and ``touch_prior``.

    >>> cfg = BIRD.__class__(alone_log_area=0.0, alone_sigma=0.08, alone_dof=10.0, touch_prior=0.03)
    >>> alone_posterior(0.0, 0.5, cfg) > 0.99, alone_posterior(0.28, 0.5, cfg) < 0.5
    (True, True)
    """
    u = np.linspace(rcfg.min_blob_fraction, 1.0, _SEEN_STEPS)
    z0 = (log_ratio - cfg.alone_log_area) / cfg.alone_sigma
    z1 = (log_ratio - cfg.alone_log_area - np.log1p(u * shell_share)) / cfg.alone_sigma
    l0 = (1 - cfg.touch_prior) * np.exp(student_t_logpdf(np.float64(z0), cfg.alone_dof))
    l1 = cfg.touch_prior * float(np.mean(np.exp(student_t_logpdf(z1, cfg.alone_dof))))
    return float(l0 / max(l0 + l1, 1e-300))


_SEEN_STEPS = 41                     # the seen fraction's grid in :func:`alone_posterior`
