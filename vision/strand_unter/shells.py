"""Shells of Strand unter: the foreground that castles and the sandpiper left, read as shells.

Input: the foreground mask minus what castles and the bird explain, the pixel classes, the
corrected board, the calibration's :class:`~vision.strand_unter.assets.Assets` and the scan's
colour error (:attr:`~vision.strand_unter.lighting.Lit.residual_ab`).
Output: :class:`ShellParts`: per connected part its colour, count, centre and groove with their
posteriors; parts that are no shells (their colour is off every shell class, or they are many
shells thick: a hand, a card, a phone) with their size, for the occlusion check.

Models (all learned at calibration except the documented statistical constants in
:class:`~vision.strand_unter.config.ShellConfig`):

- colour: the mean Lab of the part's core (one pixel inside its outline, as the classes were
  learned: the rim mixes in the sand's colour, the more the softer the photo) against each shell
  class, a Gaussian with the class's pixel covariance widened by the scan's colour error, against
  an *unknown* outlier density uniform over the Lab cube (prior ``unknown_prior``): a part of a
  colour no shell has is not forced into a class. A part whose pixels split between shell
  colours (two shells touching) is read colour by colour.
- count: area / the area one shell of that colour covers in this photo (the learned area × the
  median ratio of this photo's clear single shells of that colour, when there are two), Student-t
  around n with a relative spread ``area_sigma``·√n, or partly seen, under a prior of how often
  shells touch (:func:`count_posterior`; fitted by ``scripts/fit_strand.py``); the posterior over
  n = 0 (a speck) … 8. Against the learned area, the spread also holds how far that area is from
  sure: its calibration samples' scatter beyond one shell's (:func:`reference_var`);
- groove: the centre's y with ``centre_sigma_mm`` (:func:`vision.strand_unter.castles.groove_posterior`);
- shadow: how much of its colour's contrast with the sand the part shows against the empty board
  (:func:`~vision.strand_unter.castle_cues.contrast_share`; a shadow's edge or sand the light
  correction brightened shows none), a posterior per colour (:func:`shell_posterior`, fitted by
  ``scripts/fit_strand_shell_shadow.py``); a part below ½ is not counted (``why`` "shadow").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.strand_unter import stats
from vision.strand_unter.blobs import components
from vision.strand_unter.castle_cues import contrast_share
from vision.strand_unter.castle_values import piece_posterior, student_t_logpdf
from vision.strand_unter.castles import groove_posterior
from vision.strand_unter.config import READING, SHELLS

LOG_UNIFORM_LAB = -3.0 * np.log(256.0)     # log density of a colour uniform over the 8-bit Lab cube


@dataclass
class Part:
    """One connected part of the left-over foreground (work px)."""

    x: float
    y: float
    area: int
    colour: str | None = None        # None: not a shell
    count: int = 0
    groove: int = 0
    p_colour: float = 1.0
    p_count: float = 1.0
    p_groove: float = 1.0
    ratio: float = 0.0
    shells: float = 0.0              # area in shells of this photo (the ratio over the photo's own shell area)
    thickness: float = 1.0
    colour_distance: float = 0.0
    why: str = ""                    # why a part is no shell ("colour", "thick", "ring", "cloth", "shadow")
    contrast_share: float = 1.0      # the share of its colour's contrast it shows against the empty board
    p_shell: float = 1.0             # the posterior that it is shells, not sand in a shadow (:func:`shell_posterior`)
    shadow_of: str = ""              # a part read as a shadow: the shell colour it looked like
    size_cm: tuple = (0.0, 0.0)


@dataclass
class ShellParts:
    """Every part read (see the module docstring)."""

    parts: list = field(default_factory=list)
    doubts: list = field(default_factory=list)
    unexplained: np.ndarray | None = None      # bool (H, W): the parts that are no shells
    specks: np.ndarray | None = None           # bool (H, W): parts too small to read at all


def colour_posterior(lab: np.ndarray, A, residual_ab: float, cfg=SHELLS) -> tuple[np.ndarray, np.ndarray]:
    """Posterior over (shell colours…, unknown) of mean Lab colours, and their Mahalanobis distances.

    Args:
        lab: float (n, 3) mean Lab of n parts.
        residual_ab: the scan's colour error (Lab units), added to each class's a, b variance.
    Returns:
        (posterior float (n, n_colours + 1), distance float (n, n_colours)).
    """
    n = len(lab)
    k = len(A.shell_colours)
    logp = np.empty((n, k + 1))
    dist = np.empty((n, k))
    extra = np.diag([0.0, residual_ab ** 2, residual_ab ** 2])
    for j, c in enumerate(A.shell_colours):
        cov = np.asarray(A.model["classes"][f"shell/{c}"]["cov"], np.float64) + extra
        d = lab - np.asarray(A.model["classes"][f"shell/{c}"]["mean"], np.float64)
        d2 = np.einsum("ni,ij,nj->n", d, np.linalg.inv(cov), d)
        dist[:, j] = np.sqrt(np.maximum(d2, 0))
        logp[:, j] = -0.5 * d2 - 0.5 * np.linalg.slogdet(cov)[1] - 1.5 * np.log(2 * np.pi) + np.log(
            (1 - cfg.unknown_prior) / k)
    logp[:, k] = LOG_UNIFORM_LAB + np.log(cfg.unknown_prior)
    logp -= logp.max(axis=1, keepdims=True)
    p = np.exp(logp)
    return p / p.sum(axis=1, keepdims=True), dist


def count_posterior(ratio: float, cfg=SHELLS, ref_var: float = 0.0) -> np.ndarray:
    """Posterior float (cfg.max_count + 1,) of the number of shells in a part of ``ratio`` × one shell's area.

    n ≥ 1 shells: the area is Student-t (``area_dof``) around n with ``area_sigma``·√n, except with probability
    ``partial_share`` where part of the last shell did not stand out from the sand (low contrast
    under a lamp, a shadow): then uniform over (n − 1 + ``min_blob_fraction``, n); n = 0 (a speck,
    dust, a base's rim) is Gaussian around 0 with ``speck_sigma``. Prior over n: ``count_prior``
    (how often shells touch, fitted on development tables). ``ref_var``: the variance of the log of
    the one-shell area the ratio was taken against (:func:`reference_var`), which scales all n shells
    together: the spread becomes √(``area_sigma``² n + ``ref_var`` n²).
    """
    n = np.arange(cfg.max_count + 1, dtype=np.float64)
    sigma = np.where(n > 0, np.sqrt(cfg.area_sigma ** 2 * np.maximum(n, 1) + ref_var * n * n), cfg.speck_sigma)
    z = (ratio - n) / sigma
    pdf = np.where(n > 0, np.exp(student_t_logpdf(z, cfg.area_dof)), np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)) / sigma
    lo = n - 1 + READING.min_blob_fraction
    partial = ((ratio > lo) & (ratio < n) & (n > 0)) / (1 - READING.min_blob_fraction)
    p = np.where(n > 0, (1 - cfg.partial_share) * pdf + cfg.partial_share * partial, pdf)
    p = p * np.asarray(cfg.count_prior, np.float64)[:len(n)]
    return p / max(p.sum(), 1e-300)


def shell_posterior(share: float, colour: str, cfg=SHELLS) -> float:
    """The posterior that a part read as ``colour``'s shells is shells rather than sand in a shadow's
    edge (or sand the light correction brightened), from its contrast share
    (:func:`vision.strand_unter.castle_cues.contrast_share`).

    Each kind's share is Gaussian (``cfg.contrast_shell[colour]``, ``cfg.contrast_other``: mean, std)
    and the other kind's prior is ``cfg.contrast_other_prior``. Below the other kind's mean the
    posterior is held at its value there (as :func:`~vision.strand_unter.castle_values.castle_posterior`),
    above the colour's mean at its value there (a part more contrasted than the colour's shells
    usually are is no more shadow-like, though a narrower Gaussian falls faster than the other's).
    1 when the model is not fitted for that colour.

    >>> cfg = SHELLS.__class__(contrast_shell={"white": (0.85, 0.15)}, contrast_other=(0.1, 0.1), contrast_other_prior=0.01)
    >>> shell_posterior(0.8, "white", cfg) > 0.99, shell_posterior(0.05, "white", cfg) < 0.01, shell_posterior(0.5, "grey", cfg)
    (True, True, 1.0)
    """
    if colour not in cfg.contrast_shell or cfg.contrast_other is None or not cfg.contrast_other_prior:
        return 1.0
    m1, m0 = cfg.contrast_shell[colour][0], cfg.contrast_other[0]
    x = min(max(float(share), m0), max(m1, m0))
    return piece_posterior(x, cfg.contrast_shell[colour], cfg.contrast_other, cfg.contrast_other_prior)


def reference_var(areas_px2, cfg=SHELLS) -> float:
    """The variance of the log of a colour's calibrated one-shell area (their median), from its
    calibration samples' areas (px², a list): what their scatter shows beyond one shell's own
    ``area_sigma`` (a pale shell that stood out over part of its area at one sample), over their
    number; 0 with fewer than two samples."""
    if areas_px2 is None or len(areas_px2) < 2:
        return 0.0
    s2 = float(np.var(np.log(np.asarray(areas_px2, np.float64)), ddof=1))
    return max(s2 - cfg.area_sigma ** 2, 0.0) / len(areas_px2)


def thickness(mask: np.ndarray, shell_area_px2: float) -> float:
    """How many shells thick a part is: the radius of the largest disc inside it (its distance
    transform's maximum) over one learned shell's radius. Shells side by side, however many, stay
    about one shell thick (samples 0.74–1.04); a hand, a card or a phone is many shells thick."""
    crop = np.pad(mask.astype(np.uint8), 1)
    return float(cv2.distanceTransform(crop, cv2.DIST_L2, 5).max()) / max(np.sqrt(shell_area_px2 / np.pi), 1.0)


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """A bool (H, W) mask with every hole filled (its outer contours drawn filled)."""
    m = mask.astype(np.uint8)
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(m)
    cv2.drawContours(out, contours, -1, 1, -1)
    return out > 0


def convex_hull(mask: np.ndarray) -> np.ndarray:
    """The convex hull of a bool (H, W) mask's pixels, filled, bool (H, W)."""
    pts = cv2.findNonZero(mask.astype(np.uint8))
    out = np.zeros(mask.shape, np.uint8)
    if pts is not None:
        cv2.fillConvexPoly(out, cv2.convexHull(pts), 1)
    return out > 0


def read_shells(rest: np.ndarray, cls: np.ndarray, image: np.ndarray, A, residual_ab: float,
                cfg=SHELLS, rcfg=READING) -> ShellParts:
    """Read every connected part of ``rest`` (bool (H, W)) as shells or as something else."""
    out = ShellParts(unexplained=np.zeros(rest.shape, bool), specks=np.zeros(rest.shape, bool))
    areas = A.model["shell_area_px2"]
    min_area = rcfg.min_blob_fraction * min(areas.values())
    n, lab_img, st, ce = components(rest)
    if n <= 1:
        return out
    _mark_specks(out, n, lab_img, st, min_area)
    sel = np.flatnonzero(rest)                # the parts' pixels (raster order, those of a label > 0), gathered once
    lab_ = lab_img.reshape(-1)[sel]
    cl = np.minimum(cls.reshape(-1)[sel], A.K).astype(np.int32)
    counts = np.bincount(lab_ * (A.K + 1) + cl, minlength=n * (A.K + 1)).reshape(n, A.K + 1)
    means = _core_mean_lab(rest, lab_img, sel, lab_, image, n)
    post, dist = colour_posterior(means, A, residual_ab, cfg)
    model = {"base_sigma_mm": cfg.centre_sigma_mm}
    one = stats.median(np.array(list(areas.values())))        # one shell's area (any colour)
    todo, leftovers = _sort_parts(out, n, lab_img, st, ce, counts, post, dist, cls, image, A, residual_ab, min_area,
                                  cfg, rcfg)
    for left, origin in leftovers:
        _mark_unexplained(out, left, origin)
    for cx, cy, area, p, d, mask, size, shell_like, origin in todo:
        part = _judge_part(out, cx, cy, area, p, d, mask, size, shell_like, origin, A, areas, one, cfg)
        if part.colour is not None:
            part.contrast_share = _contrast_share(image, A, part.colour, mask, origin)
            part.p_shell = shell_posterior(part.contrast_share, part.colour, cfg)
            if part.p_shell < 0.5:          # sand in a shadow's edge, not shells: not counted
                part.shadow_of, part.colour, part.why = part.colour, None, "shadow"
        out.parts.append(part)
    _count_shells(out, A, model, cfg)
    return out


def _contrast_share(image: np.ndarray, A, colour: str, mask: np.ndarray, origin) -> float:
    """:func:`~vision.strand_unter.castle_cues.contrast_share` of a part (bool ``mask`` of its box at
    ``origin`` (x, y), work px) read as ``colour``'s shells: its pixels in the corrected board ``image``
    (BGR uint8 (H, W, 3)) against the empty board's, along the shell colour's contrast with the sand."""
    ox, oy = origin
    h, w = mask.shape
    return contrast_share(image[oy:oy + h, ox:ox + w][mask], A.empty[oy:oy + h, ox:ox + w][mask],
                          A.shell_bgr[colour], A.model["sand_bgr"])


def _mark_specks(out: ShellParts, n: int, lab_img: np.ndarray, st: np.ndarray, min_area: float) -> None:
    """Mark the parts smaller than ``min_area`` in ``out.specks``."""
    small = np.nonzero(st[1:, cv2.CC_STAT_AREA] < min_area)[0] + 1
    if len(small) > 64:
        is_small = np.zeros(n, bool)
        is_small[small] = True
        out.specks = is_small[lab_img]
    else:
        for j in small:
            x, y, w, h, _ = st[j]
            out.specks[y:y + h, x:x + w] |= lab_img[y:y + h, x:x + w] == j


def _sort_parts(out: ShellParts, n: int, lab_img, st, ce, counts, post, dist, cls, image, A, residual_ab: float,
                min_area: float, cfg, rcfg) -> tuple[list, list]:
    """The parts to judge: cloth-coloured ones go to ``out.parts`` at once, two shells of different
    colours touching are read colour by colour.

    Returns:
        ([(x, y, area, colour posterior, colour distances, mask in its box, size in cm, shell-like?,
        box origin (x, y))], [(what no colour's shells explain in a split part, box origin)]).
    """
    todo, leftovers = [], []
    for j in range(1, n):
        area = int(st[j, cv2.CC_STAT_AREA])
        if area < min_area:
            continue
        sc = counts[j, A.shell_k]
        x, y, w, h, _ = st[j]
        size = (w / A.ppm / 10, h / A.ppm / 10)
        purity = float(sc.max() / max(sc.sum(), 1))
        if counts[j, A.sea] >= cfg.cloth_share * area:
            # cloth-coloured: a fold or a corner of the sea cloth, not a piece and no foreign thing
            out.parts.append(Part(x=float(ce[j][0]), y=float(ce[j][1]), area=area, size_cm=size, why="cloth",
                                  groove=A.groove_at(ce[j][0], ce[j][1])))
            continue
        # pixels of no learned class or of a player's colour speak against shells; sand- and
        # wood-coloured ones (a shell's rim, a brown shell's grain) do not
        foreign = int(counts[j, list(A.player_k.values())].sum() + counts[j, A.K])
        shell_like = foreign <= rcfg.max_unknown_fraction * area and sc.sum() > 0
        if shell_like and sc.sum() >= (1 - rcfg.max_unknown_fraction) * area and purity < cfg.min_purity:
            # two shells of different colours touching: read each colour's pixels on their own
            box = lab_img[y:y + h, x:x + w] == j
            left = box.copy()                 # what no colour's shells explain
            for kk in np.nonzero(sc >= cfg.min_purity_part * sc.sum())[0]:
                m = box & (cls[y:y + h, x:x + w] == A.shell_k[kk])
                m = cv2.morphologyEx(m.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)) > 0
                m &= box
                ys, xs = np.nonzero(m)
                if len(xs) < min_area:
                    continue
                left &= ~m
                mean = _mean_of(image[y:y + h, x:x + w][m])
                p1, d1 = colour_posterior(mean[None], A, residual_ab, cfg)
                todo.append((float(xs.mean() + x), float(ys.mean() + y), int(m.sum()), p1[0], d1[0], m, size,
                             True, (x, y)))
            leftovers.append((left, (x, y)))
            continue
        todo.append((float(ce[j][0]), float(ce[j][1]), area, post[j], dist[j], (lab_img[y:y + h, x:x + w] == j),
                     size, shell_like, (x, y)))
    return todo, leftovers


def _mark_unexplained(out: ShellParts, m: np.ndarray, origin) -> None:
    """Mark the mask ``m`` of a part's box at ``origin`` (x, y) in ``out.unexplained``."""
    ox, oy = origin
    out.unexplained[oy:oy + m.shape[0], ox:ox + m.shape[1]] |= m


def _judge_part(out: ShellParts, cx, cy, area, p, d, mask, size, shell_like, origin, A, areas: dict, one: float,
                cfg) -> Part:
    """One part read as shells of one colour, or as something else (``why``: ring, colour, thick; its
    pixels then marked unexplained)."""
    part = Part(x=cx, y=cy, area=area, size_cm=size)
    k = int(np.argmax(p[:-1]))
    c = A.shell_colours[k]
    part.colour_distance = float(d[k])
    part.groove = A.groove_at(cx, cy)
    big = area >= cfg.ring_check_shells * one    # a part of about one shell holds no hole or arc worth a look
    filled = fill_holes(mask) if big else mask
    part.thickness = thickness(filled, one) if big or not shell_like else 1.0
    hull = convex_hull(mask) if area >= cfg.hull_check_shells * one else filled
    if big and (filled.sum() - area > cfg.max_hole * one or area < cfg.min_solidity * hull.sum()):
        # a ring or an arc around something unlike the empty board's sand only at its rim (a
        # hand's shaded edge around its lit top): shells lie in compact clumps; what the part
        # encloses or spans counts as part of it
        region = filled | hull
        part.area = int(region.sum())
        part.thickness = thickness(region, one)
        part.why = "ring"
        _mark_unexplained(out, region, origin)
        return part
    if not shell_like or p[-1] > p[k]:
        part.why = "colour"
        _mark_unexplained(out, mask, origin)
        return part
    ratio = area / areas[c]
    part.ratio = ratio
    if part.thickness > cfg.max_thickness or ratio > cfg.max_count + 0.5:
        part.why = "thick"                  # (or more shells in one clump than a groove holds)
        _mark_unexplained(out, mask, origin)
        return part
    part.colour = c
    part.p_colour = float(p[k])
    return part


def _count_shells(out: ShellParts, A, model: dict, cfg) -> None:
    """How many shells each coloured part holds, and its groove's posterior. The area one shell of each
    colour covers in *this* photo: a colour close to the sand's under this light stands out over less
    of its area (the median of the clear singles, when two or more)."""
    scale, ref = {}, {}
    samples = A.model.get("shell_areas_px2") or {}
    for c in A.shell_colours:
        lo, hi = cfg.single_ratio
        singles = [q.ratio for q in out.parts if q.colour == c and lo <= q.ratio <= hi]
        own = len(singles) >= cfg.min_singles
        scale[c] = float(np.clip(stats.median(np.array(singles)), *cfg.area_scale_range)) if own else 1.0
        ref[c] = 0.0 if own else reference_var(samples.get(c), cfg)
    for part in out.parts:
        if part.colour is None:
            continue
        part.shells = part.ratio / scale[part.colour]
        pc = count_posterior(part.shells, cfg, ref[part.colour])
        part.count = int(np.argmax(pc))
        part.p_count = float(pc[part.count])
        if part.count > 0:
            part.p_groove = groove_posterior((part.y + 0.5) / A.ppm, part.groove, A, model)


def _core_mean_lab(rest: np.ndarray, lab_img: np.ndarray, sel: np.ndarray, lab_: np.ndarray,
                   image: np.ndarray, n: int) -> np.ndarray:
    """Mean Lab float (n, 3) of every part's core: its pixels one pixel inside its outline.

    A part's outer ring of pixels mixes the piece's colour with the sand's, the more the softer
    the photo (a lens, the undistortion's interpolation, JPEG): a black shell's whole-part mean
    moves by a quarter of the way to the sand between a sharp and a softened photo. The shell
    classes are learned from the calibration's blobs eroded by one pixel
    (:func:`vision.strand_unter.calibrate.learn`), so the scan measures the same core; a part
    with no core (thinner than 3 px) keeps the mean of all its pixels.

    Args:
        rest: bool (H, W), the parts; lab_img: int (H, W) their labels (0: none);
        sel: flat indices of the parts' pixels; lab_: their labels; image: BGR uint8 (H, W, 3).
    """
    flat = np.ascontiguousarray(image).reshape(-1, 3)
    # (a pixel whose 8 neighbours are all in ``rest`` has them all in its own 8-connected part)
    core = cv2.erode(rest.astype(np.uint8), np.ones((3, 3), np.uint8), borderValue=0).reshape(-1)[sel] > 0
    whole = _mean_lab(lab_, flat[sel], n)
    inner = _mean_lab(lab_[core], flat[sel[core]], n)
    has_core = np.bincount(lab_[core], minlength=n) > 0
    return np.where(has_core[:, None], inner, whole)


def _mean_lab(lab_: np.ndarray, pixels_bgr: np.ndarray, n: int) -> np.ndarray:
    """Mean Lab float (n, 3) of every label's pixels (the mean taken in BGR, then converted).

    Args:
        lab_: int (N,) the label of each pixel; pixels_bgr: uint8 (N, 3) their colours; n: labels.
    """
    area = np.maximum(np.bincount(lab_, minlength=n), 1)
    mean = np.stack([np.bincount(lab_, weights=pixels_bgr[:, ch], minlength=n) / area for ch in range(3)], -1)
    return cv2.cvtColor(np.clip(np.round(mean), 0, 255).astype(np.uint8)[None], cv2.COLOR_BGR2Lab).reshape(
        -1, 3).astype(np.float64)


def _mean_of(pixels_bgr: np.ndarray) -> np.ndarray:
    """Mean Lab (3,) of BGR pixels (N, 3)."""
    mean = np.clip(np.round(pixels_bgr.reshape(-1, 3).mean(axis=0)), 0, 255).astype(np.uint8)
    return cv2.cvtColor(mean.reshape(1, 1, 3), cv2.COLOR_BGR2Lab).reshape(3).astype(np.float64)
