#!/usr/bin/env python3
"""Fit the Strand unter reader's statistical constants on rendered development tables (and only those).

    .venv/bin/python scripts/fit_strand.py FOLDER [FOLDER ...] [--write vision/strand_unter/fitted.json]
        [--only-no-sandpiper | --only-tower-exponent | --only-castle-value | --only-shell-count]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders with ``calibration.json`` and
``scene_XX.jpg`` + ``scene_XX.truth.json`` (the layout of ``../shared/render`` output, e.g.
``/work/renders/dev/strand-dev-10002``; the seed is the folder's last number). Every set-up is
calibrated and every scene read; from the reading and the truth it fits, by maximum likelihood,

1. the shell area model (:class:`vision.strand_unter.config.ShellConfig` ``area_sigma``,
   ``area_dof``; ``partial_share`` kept): the likelihood of the areas (in shells of the photo) of every part whose
   number of shells the truth settles (a groove's only part of a colour holds all its shells of that colour; a groove
   with as many parts of a colour as shells has one shell per part), on a grid;
2. the castle value slope (:class:`~vision.strand_unter.config.ConfidenceConfig` ``slopes``):
   the slope turning a castle's value posterior's log-odds into the probability that the value is
   right (Platt scaling through the origin, each castle whose player the truth has in its groove
   checked against the truth; log-normal prior log b ~ N(0, 1), so that a kind never wrong on
   these tables is not made infinitely sure), never above 1 (a stage is not made surer than its model).
   ``--only-castle-value`` fits only this one (and prints the posteriors' reliability table) and keeps
   the file's other values;
3. the count prior (``count_prior``): how often one part holds n shells (shells touching) on
   these tables, with one pseudo-count per n; a part where the truth has more shells than parts
   is tallied as clumps of two. ``--only-shell-count`` fits only 1 and 3 and keeps the file's
   other values;
4. the sandpiper's blob area (:class:`~vision.strand_unter.config.BirdConfig` ``alone_log_area``,
   ``alone_sigma``, ``touch_prior``): log (blob area / the calibration bird's), Student t by
   maximum likelihood; a shell touching the bird gets one pseudo-count among the blobs. Printed
   only: ``scripts/fit_strand_touch.py`` fits and writes ``sandpiper_area`` with the truth's
   touched birds labelled.

5. the "no sandpiper" slope (:class:`~vision.strand_unter.config.ConfidenceConfig` ``slopes``): Platt
   scaling, as the castle value's, of the posterior of "no bird on the board" in the photos where a
   candidate blob was turned down, against the truth. ``--only-no-sandpiper`` fits only this one and
   keeps the file's other values (fitted on other tables).

6. the tower count's weight in a castle's value evidence (:class:`~vision.strand_unter.config.CastleConfig`
   ``tower_exponent``, the power of its likelihood, and ``tower_reliability_prior``, the Beta prior
   of a player's counts being read right, :func:`~vision.strand_unter.castle_values.tower_reliability`):
   the pair that maximises the likelihood that the castles' value posteriors are right (log p when
   the value is right, log (1 − p) when not), on a grid; every folder is read again per pair.
   ``--only-tower-exponent`` fits only these and keeps the file's other values.

It also prints (and does not write) the tower-count evidence: how many castles showed a count
more likely under another value, and the maximum-likelihood ``CastleConfig.tower_pool_weight``
(``docs/tuning.md``: kept at 1, the fit would make the tower count surer still).

With ``--write`` the values go to ``vision/strand_unter/fitted.json`` (read by
:mod:`vision.strand_unter.config`) with the folders they were fitted on; only the keys the run
fitted are written, the file's others (``tower_count``, the ``castle_contrast`` of
``scripts/fit_strand_shadow.py``, the ``sandpiper_area`` of ``scripts/fit_strand_touch.py``, other kinds' slopes) are kept. Never pass judging tables: what is
fitted on them is no longer a measurement of transfer.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from strand_scenes import calibrated_scenes  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
import vision.strand_unter.castles as castles_stage  # noqa: E402
import vision.strand_unter.reading as reading  # noqa: E402
from vision.strand_unter.castle_values import student_t_logpdf  # noqa: E402
from vision.strand_unter.castle_values import tower_likelihood  # noqa: E402
from vision.strand_unter.config import BIRD, CASTLES, READING, SHELLS  # noqa: E402

SIGMAS = np.round(np.arange(0.04, 0.301, 0.01), 3)
PARTIAL = (SHELLS.partial_share,)  # kept: one look at a pale shell in a shadow is too few to fit it on
DOFS = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 10.0, 30.0, 1e6)
# the grid of ``--only-tower-exponent``: on the 10-folder grid (docs/tuning.md) exponent 0.25 scored −29
# to −31 against −22.4 at best, and priors (2, 1), (4, 1) always lay between (1, 1) and none
EXPONENTS = (0.5, 0.625, 0.75, 1.0)
RELIABILITY_PRIORS = (None, (1.0, 1.0), (1.0, 0.5))


def _capture():
    """Wrap the reader's shell and castle stages so that their outputs can be looked at."""
    seen = {}
    read_shells, enter_castles, find_bird = reading.read_shells, reading._enter_castles, reading.find_bird

    def shells(*a, **k):
        seen["parts"] = read_shells(*a, **k)
        return seen["parts"]

    def castles(*a, **k):
        out = enter_castles(*a, **k)
        seen["castles"], seen["castle_model"] = out[0], a[2].model["castle_model"]
        return out
    def bird(blobs, owned, image, A, *a, **k):
        out = find_bird(blobs, owned, image, A, *a, **k)
        if out.mask is not None:
            seen["bird"] = float(np.log(out.mask.sum()) - A.model["sandpiper"]["features"][4])
        elif out.posterior < 1.0:
            seen["no_bird"] = out.posterior
        return out
    reading.read_shells, reading._enter_castles, reading.find_bird = shells, castles, bird
    return seen


def scanned_scenes(folder: str, seen: dict):
    """Every scene of ``folder``'s set-ups read, each set-up calibrated in a temporary folder: yields
    (scene photo path, its true state) after the scan, ``seen`` cleared before it (what the
    capturing stages recorded of that scan); scenes the reader refuses are skipped."""
    for img, state, cal in calibrated_scenes(folder):
        seen.clear()
        try:
            pipeline.scan_file(img, cal)
        except (UnreadableBoardError, BadInputError):
            continue
        yield img, state


def collect(folder: str, seen: dict) -> tuple[list, list, list, list, list]:
    """([(shells in this photo's units, true count)], [(value posterior, right?)], [log (bird blob's
    area / the calibration bird's)], [tower looks], [("no sandpiper" posterior, right?)]) of one folder."""
    counts, values, birds, towers, no_birds = [], [], [], [], []
    for _, state in scanned_scenes(folder, seen):
        truth = {g["number"]: g for g in state["grooves"]}
        counts += _settled_counts(seen["parts"].parts, truth)
        values += _castle_values(seen["castles"], truth)
        towers += _tower_looks(seen["castles"], seen["castle_model"], truth)
        if "bird" in seen:
            birds.append(seen["bird"])
        if "no_bird" in seen:
            no_birds.append((seen["no_bird"], state["sandpiper"] is None))
    return counts, values, birds, towers, no_birds


def _tower_looks(castles: list, cm: dict, truth: dict) -> list:
    """[(tower count seen, castle model, player, index of the true value)] of the castles whose
    player has one castle in that groove (its value then known)."""
    out = []
    for c in castles:
        if c.groove not in truth or c.value is None or not c.cues:
            continue
        mine = [t["value"] for t in truth[c.groove]["castles"] if t["player"] == c.player]
        if len(mine) == 1 and mine[0] in cm["values"]:
            out.append((c.cues["towers"], cm, c.player, cm["values"].index(mine[0])))
    return out


def fit_tower_weight(towers: list) -> float:
    """``CastleConfig.tower_pool_weight``: how much the pooled tower-count frequencies weigh against
    what the very castle showed at calibration (:func:`vision.strand_unter.castle_values.tower_likelihood`),
    by maximum likelihood of the tower counts seen under the true values, on a grid."""
    best = (1.0, -np.inf)
    for w in (0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0):
        cfg = CASTLES.__class__(**{**CASTLES.__dict__, "tower_pool_weight": w})
        ll = sum(np.log(tower_likelihood(k, cm, p, cfg)[v]) for k, cm, p, v in towers)
        if ll > best[1]:
            best = (float(w), ll)
    return best[0]


def _settled_counts(parts: list, truth: dict) -> list:
    groups = {}
    for p in parts:
        if p.colour is not None and p.groove in truth:
            groups.setdefault((p.groove, p.colour), []).append(p)
    out = []
    for (g, c), ps in groups.items():
        t = truth[g]["shells"][c]
        if len(ps) == 1 and t > 0:       # (a part where truth has none is no shell: not the count's error)
            out.append((ps[0].shells, t))
        elif t == len(ps):
            out += [(p.shells, 1) for p in ps]
        elif t > len(ps):
            # unsettled: some parts hold more than one shell; tallied (for the prior only) as
            # t − parts clumps of two and singles
            out += [(None, 2)] * (t - len(ps)) + [(None, 1)] * (2 * len(ps) - t)
    return out


def fit_prior(counts: list, max_count: int) -> list:
    """Prior weight of n = 0 … max_count shells in one part relative to one shell: the share of
    parts holding n (n ≥ 1) with one pseudo-count per n (Dirichlet(1)); a speck weighs as one."""
    tally = Counter(min(n, max_count) for _, n in counts)
    share = [(tally[n] + 1.0) for n in range(1, max_count + 1)]
    return [1.0] + [round(c / share[0], 5) for c in share]


def _castle_values(castles: list, truth: dict) -> list:
    out = []
    left = {g: Counter((c["player"], c["value"]) for c in t["castles"]) for g, t in truth.items()}
    for c in castles:
        if c.groove not in truth or c.value is None:
            continue
        players = {p for p, _ in left[c.groove]}
        if left[c.groove][(c.player, c.value)] > 0:
            left[c.groove][(c.player, c.value)] -= 1
            out.append((float(c.p_value), True))
        elif c.player in players:
            out.append((float(c.p_value), False))
    return out


def fit_count(counts: list) -> tuple[float, float, float, float]:
    """(area_sigma, area_dof, partial_share, mean log density) maximising the likelihood of the
    settled parts' areas: Student t around n with ``area_sigma``·√n (n ≥ 1), or with probability
    ``partial_share`` part of the last shell unseen (:func:`vision.strand_unter.shells.count_posterior`)."""
    x = np.array([a for a, _ in counts], np.float64)
    n = np.array([max(k, 1) for _, k in counts], np.float64)
    lo = n - 1 + READING.min_blob_fraction
    partial = ((x > lo) & (x < n)) / (1 - READING.min_blob_fraction)
    best = None
    for s in SIGMAS:
        sig = s * np.sqrt(n)
        z = (x - n) / sig
        for d in DOFS:
            pdf = np.exp(student_t_logpdf(z, d)) / sig
            for ps in PARTIAL:
                ll = float(np.sum(np.log((1 - ps) * pdf + ps * partial + 1e-300)))
                if best is None or ll > best[3]:
                    best = (float(s), float(d), ps, ll)
    return best[0], best[1], best[2], best[3] / max(len(counts), 1)


def fit_bird_area(log_ratios: list) -> tuple[float, float, float]:
    """(mu, sigma, touch_prior) of the bird's blob area (:class:`~vision.strand_unter.config.BirdConfig`):
    the Student t (``alone_dof``) of the log ratios by maximum likelihood on a grid (robust to the
    few blobs a shell or a shadow joined), and one pseudo-count for a shell touching the bird."""
    r = np.asarray(log_ratios, np.float64)
    best = None
    for mu in np.round(np.arange(-0.3, 0.301, 0.01), 3):
        for sig in np.round(np.arange(0.03, 0.301, 0.01), 3):
            ll = float(np.sum(student_t_logpdf((r - mu) / sig, BIRD.alone_dof) - np.log(sig)))
            if best is None or ll > best[2]:
                best = (float(mu), float(sig), ll)
    return best[0], best[1], round(1.0 / (len(r) + 2), 4)


def fit_slope(values: list) -> float:
    """The slope b maximising Σ log P(right | b · logit p) + log N(log b; 0, 1)."""
    p = np.clip(np.array([v for v, _ in values]), 1e-6, 1 - 1e-6)
    y = np.array([r for _, r in values], float)
    z = np.log(p / (1 - p))
    best = (1.0, -np.inf)
    for b in np.exp(np.linspace(-3, 0, 301)):     # a stage is never made surer than its own model
        q = np.clip(1 / (1 + np.exp(-b * z)), 1e-12, 1 - 1e-12)
        ll = np.sum(y * np.log(q) + (1 - y) * np.log(1 - q)) - 0.5 * np.log(b) ** 2
        if ll > best[1]:
            best = (float(b), ll)
    return round(best[0], 3)


def value_loglik_of(values: list) -> float:
    """Σ log P(the value as read is right): log p of the castles read right, log (1 − p) of the others."""
    p = np.clip(np.array([v for v, _ in values], np.float64), 1e-6, 1 - 1e-6)
    y = np.array([r for _, r in values], bool)
    return float(np.sum(np.where(y, np.log(p), np.log1p(-p))))


def fit_tower_exponent(folders: list, seen: dict) -> tuple[tuple, list]:
    """((exponent, reliability prior), [(exponent, prior, Σ log P(right), castles, wrong)]): every
    folder read once per pair of :data:`EXPONENTS` and :data:`RELIABILITY_PRIORS`
    (``CastleConfig.tower_exponent``, ``tower_reliability_prior``), the pair whose castle value
    posteriors are likeliest (:func:`value_loglik_of`) kept."""
    original = castles_stage.value_loglik, castles_stage.shell_loglik
    rows = []
    try:
        for e in EXPONENTS:
            for prior in RELIABILITY_PRIORS:
                def value(f, cm, player, cfg=CASTLES, e=e, prior=prior):
                    return original[0](f, cm, player, dataclasses.replace(
                        cfg, tower_exponent=e, tower_reliability_prior=prior))

                def shell(f, shape, colours, cfg=CASTLES, e=e):
                    return original[1](f, shape, colours, dataclasses.replace(cfg, tower_exponent=e))
                castles_stage.value_loglik, castles_stage.shell_loglik = value, shell
                values = [v for folder in folders for v in collect(folder, seen)[1]]
                rows.append((e, prior, round(value_loglik_of(values), 2), len(values), sum(not r for _, r in values)))
                print(f"tower exponent {e}, reliability prior {prior}: log P(right) {rows[-1][2]} over "
                      f"{rows[-1][3]} castles, {rows[-1][4]} wrong", flush=True)
    finally:
        castles_stage.value_loglik, castles_stage.shell_loglik = original
    best = max(rows, key=lambda r: r[2])
    return (best[0], best[1]), rows


RELIABILITY_BINS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1.0)


def reliability_table(values: list) -> list:
    """[(low, high, castles, wrong the posteriors expected, wrong)] of the castle value posteriors
    binned by :data:`RELIABILITY_BINS`: a bin whose castles are wrong less often than expected is
    under-confident (a slope below 1 would make it more so)."""
    p = np.array([v for v, _ in values], np.float64).reshape(-1)
    y = np.array([r for _, r in values], bool).reshape(-1)
    rows = []
    for lo, hi in zip(RELIABILITY_BINS[:-1], RELIABILITY_BINS[1:]):
        m = (p >= lo) & ((p < hi) if hi < 1.0 else (p <= hi))
        rows.append((lo, hi, int(m.sum()), round(float((1 - p[m]).sum()), 2), int((~y[m]).sum())))
    return rows


def fit_castle_value(folders: list, seen: dict, names: list, write: str | None) -> float:
    """Fit the castle value slope alone (:func:`fit_slope`) on every castle of ``folders`` whose player
    the truth has in its groove, print the reliability table (:func:`reliability_table`) and, given
    ``write``, put the slope and its tally into that fitted file, keeping the rest."""
    values = []
    for folder in folders:
        v = collect(folder, seen)[1]
        print(f"{folder}: {len(v)} castle values ({sum(not r for _, r in v)} wrong)", flush=True)
        values += v
    slope = fit_slope(values)
    table = reliability_table(values)
    for lo, hi, n, expected, wrong in table:
        print(f"  posterior {lo:.3f}-{hi:.3f}: {n} castles, {expected} wrong expected, {wrong} wrong")
    print(f"castle value slope {slope} ({len(values)} castles, {sum(not r for _, r in values)} wrong)")
    if write:
        write_fitted(write, {"castle_value": {
            "castles": len(values), "wrong": sum(not r for _, r in values), "fitted_on": names,
            "reliability": [f"{lo}-{hi}: {n} castles, {e} wrong expected, {w} wrong" for lo, hi, n, e, w in table]}},
            slopes={"castle value": slope}, castles=len(values))
    return slope


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--write", help="write the fitted values to this JSON file")
    ap.add_argument("--only-no-sandpiper", action="store_true",
                    help="with --write: fit only the \"no sandpiper\" slope and keep the file's other values")
    ap.add_argument("--only-tower-exponent", action="store_true",
                    help="with --write: fit only the tower count's exponent and keep the file's other values")
    ap.add_argument("--only-castle-value", action="store_true",
                    help="with --write: fit only the castle value slope and keep the file's other values")
    ap.add_argument("--only-shell-count", action="store_true",
                    help="with --write: fit only the shell count's area model and prior and keep the file's other values")
    args = ap.parse_args()
    seen = _capture()
    names = [os.path.basename(os.path.normpath(f)) for f in args.folders]
    if args.only_castle_value:
        fit_castle_value(args.folders, seen, names, args.write)
        return
    if args.only_tower_exponent:
        (exponent, prior), rows = fit_tower_exponent(args.folders, seen)
        print(f"tower exponent {exponent}, reliability prior {prior}")
        if args.write:
            part = {"exponent": exponent, "castles": rows[0][3], "fitted_on": names,
                    "grid": [f"exponent {e}, prior {p}: log P(right) {ll}, {wrong} wrong" for e, p, ll, _, wrong in rows]}
            if prior is not None:
                part["reliability_prior"] = list(prior)
            _write_part(args.write, "tower_count", part)
        return
    counts, values, birds, towers, no_birds = [], [], [], [], []
    for folder in args.folders:
        c, v, b, t, nb = collect(folder, seen)
        towers += t
        no_birds += nb
        print(f"{folder}: {len(c)} settled shell parts, {len(v)} castle values ({sum(not r for _, r in v)} wrong), "
              f"{len(b)} sandpipers, {len(nb)} photos read without one beside a candidate "
              f"({sum(not r for _, r in nb)} wrong)")
        counts += c
        values += v
        birds += b
    no_bird_slope = fit_slope(no_birds)
    print(f"\"no sandpiper\" slope {no_bird_slope} ({len(no_birds)} photos)")
    if args.only_no_sandpiper:
        if args.write:
            _write_no_bird(args.write, no_bird_slope, no_birds, names)
        return
    prior = fit_prior(counts, SHELLS.max_count)
    counts_known = [(x, n) for x, n in counts if x is not None]
    sigma, dof, partial, mean_ll = fit_count(counts_known)
    for x, n in sorted(counts_known, key=lambda t: -abs(t[0] - t[1]))[:8]:
        print(f"  farthest: {x:.2f} shells' area, truly {n}")
    print(f"shell count prior (relative to one shell, n = 0 … {SHELLS.max_count}): {prior}")
    print(f"shell count: area_sigma {sigma}, area_dof {dof:g}, partial_share {partial} (mean log density {mean_ll:.4f}, "
          f"{len(counts)} parts)")
    shell_count = {"area_sigma": sigma, "area_dof": dof, "count_prior": prior, "parts": len(counts), "fitted_on": names}
    if args.only_shell_count:
        if args.write:
            _write_part(args.write, "shell_count", shell_count)
        return
    slope = fit_slope(values)
    mu, sig, touch = fit_bird_area(birds)
    weight = fit_tower_weight(towers)
    odd = sum(int(np.argmax(tower_likelihood(k, cm, p)) != v) for k, cm, p, v in towers)
    print(f"tower counts: {odd} of {len(towers)} castles showed a count more likely under another value; "
          f"tower_pool_weight {weight}")
    print(f"sandpiper blob log area over calibration: mu {mu}, sigma {sig}; touch_prior {touch} ({len(birds)} blobs)")
    print(f"castle value slope {slope} ({len(values)} castles)")
    if args.write:
        write_fitted(args.write, {"shell_count": shell_count},
                     slopes={"castle value": slope}, castles=len(values))
        _write_no_bird(args.write, no_bird_slope, no_birds, names)


def write_fitted(path: str, parts: dict, slopes: dict | None = None, castles: int | None = None) -> None:
    """Set the keys this script fitted (``parts``, and the confidence ``slopes`` it fitted) in the
    fitted file at ``path`` and keep every other key: ``tower_count``, the ``castle_contrast`` of
    ``scripts/fit_strand_shadow.py`` and the slopes of other kinds stay as they were. A missing file
    is started with ``script``."""
    data = {"script": "scripts/fit_strand.py"}
    if os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
    data.update(parts)
    confidence = data.setdefault("confidence", {})
    confidence.setdefault("slopes", {}).update(slopes or {})
    if castles is not None:
        confidence["castles"] = castles
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


def _write_no_bird(path: str, slope: float, no_birds: list, names: list) -> None:
    """Put the \"no sandpiper\" slope (Platt, :func:`fit_slope`: the posterior of "no bird" when a
    candidate was turned down, against the truth) into the fitted file at ``path``, keeping the rest."""
    _write_part(path, "no_sandpiper", {"photos": len(no_birds), "wrong": sum(not r for _, r in no_birds),
                                       "fitted_on": names}, slope=("no sandpiper", slope))


def _write_part(path: str, key: str, part: dict, slope: tuple | None = None) -> None:
    """Set ``key`` (and, given ``(kind, value)``, that confidence slope) in the fitted file at ``path``,
    keeping the rest."""
    write_fitted(path, {key: part}, slopes=dict([slope]) if slope is not None else None)


if __name__ == "__main__":
    main()
