#!/usr/bin/env python3
"""Fit the Plażing reader's statistical constants on development set-ups (and only those).

    .venv/bin/python scripts/fit_plazing.py FOLDER [FOLDER ...] [--setups setup0,setup1] \
        [--seeds 7,8,9] [--write vision/plazing/fitted.json [--scene-map]]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders (the samples' layout, with truth). It
prints the maximum-likelihood values of

1. the token model's ``t_dof`` and ``scene_spread`` (:class:`vision.plazing.config.TokenConfig`):
   the log-likelihood of every free cell's true class (bare sand or a token) under the reader's
   posterior, on a grid;
2. per kind of decision (a cell's cover, a token, a split into pieces, a facing, …), the slope that
   turns its posterior's log-odds into a probability of being right (``ConfidenceConfig.slopes``:
   Platt scaling without intercept, each decision checked against the truth; log-normal prior
   log b ~ N(0, 1) so that a kind never wrong on these set-ups is not made infinitely sure). The
   token decisions also count each calibration's own tokens and bare cells read in held-out ways
   (``TokenModel.held_out``: turned, scaled, shadowed, tinted as no prototype shows them), the
   negative evidence the scenes of development set-ups, all read right, cannot give;
3. with those slopes, the confidence map ``intercept`` and ``slope``
   (:class:`vision.plazing.config.ConfidenceConfig`): Platt scaling of each read scene's log-odds
   (the product of the calibrated posteriors) against whether the scene was read exactly, with a
   weak Gaussian prior (intercept ~ N(0, 2²), slope ~ N(1, 1²)).

With ``--write`` the fitted ``t_dof``, ``scene_spread`` and ``slopes`` are written into
``vision/plazing/fitted.json`` (which :mod:`vision.plazing.config` reads), with the folders and
set-ups they were fitted on and the synthetic seeds (``--seeds``: those the synthetic folders
were made with by ``scripts/synthetic_plazing_setups.py``); with ``--slopes-only`` the slopes alone
(fitted on the readings the config's ``t_dof`` and ``scene_spread`` give, which are kept). The confidence map's ``intercept``
and ``slope`` are written too with ``--scene-map`` (only printed without it: the config then
keeps the identity map; ``docs/tuning.md``). Never pass held-out set-ups: what is fitted on them is no
longer a measurement of transfer.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import importlib
import itertools
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from calibration import store  # noqa: E402
from tests.sample_truth import plazing_exact as exact  # noqa: E402
from vision.plazing.config import CONFIDENCE, TOKENS  # noqa: E402
from vision.plazing.tokens import EMPTY, token_distances, token_posteriors  # noqa: E402




def _truth_tokens(st: dict) -> dict:
    out = {tuple(m["cell"]): f"meeple/{m['player']}" for m in st["meeples"]}
    out.update({tuple(m["cell"]): f"resource/{m['kind']}" for m in st["resources"]})
    out.update({tuple(c): "neutral" for c in st["neutral"]})
    return out


def calibrated_setups(folder: str, setups=None, prefix: str = "plazing-cal-"):
    """``(set-up folder, loaded calibration)`` of every set-up of ``folder`` (only those named in
    ``setups`` when given) in order; a set-up whose calibration is refused is named on stderr and
    skipped. The calibration runs when the generator reaches its set-up."""
    for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
        if setups and os.path.basename(setup) not in setups:
            continue
        try:
            cal = store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"),
                                                tempfile.mkdtemp(prefix=prefix)).folder)
        except (UnreadableBoardError, BadInputError) as e:
            print(f"  {setup}: calibration refused ({e})", file=sys.stderr)
            continue
        yield setup, cal


def cache_name(folder: str) -> str:
    """The cache file's name of a folder: its last two path parts joined by ``+``."""
    return "+".join(os.path.normpath(folder).split(os.sep)[-2:]) + ".json"


def cached_folder(folder: str, cache: str, read):
    """``read(folder)``'s JSON data, kept in ``cache`` (:func:`cache_name`) and read from there
    when a file of that name is already in it (read back either way, so both give the same types)."""
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, cache_name(folder))
    if not os.path.exists(path):
        print(f"reading {folder}", file=sys.stderr)
        data = read(folder)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def truth_scenes(setup: str):
    """``(truth path, truth, setup file or None)`` of every scene of a set-up folder, in order."""
    for tpath in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
        sp = tpath.replace(".truth.json", ".setup.json")
        with open(tpath) as f:
            truth = json.load(f)
        yield tpath, truth, (json.load(open(sp)) if os.path.exists(sp) else None)


def scanned_scenes(setup: str, cal, seen: list | None = None):
    """``(truth path, truth, setup file or None, ScanResult)`` of every scene of a set-up folder
    (:func:`truth_scenes`) scanned with ``cal``, the photos the reader refuses left out; ``seen``
    (a spy's list) is cleared before each scan."""
    for tpath, truth, setup_doc in truth_scenes(setup):
        if seen is not None:
            seen.clear()
        try:
            res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
        except (UnreadableBoardError, BadInputError):
            continue
        yield tpath, truth, setup_doc, res


def collect(folders, setups=None):
    """Per scene: (log p of the reading, read exactly?); the free cells' token distances; each
    calibration's held-out token decisions, (logit, right, wrong) per bin."""
    reader = importlib.import_module("vision.plazing.read_tokens")
    seen = []
    real_classify = reader.classify_tokens

    def spy(feats, model, *a, **k):  # keep the distances the reader computes, with the model
        seen.append((token_distances(feats, model), model, feats.shape[1]))
        return real_classify(feats, model, *a, **k)

    reader.classify_tokens = spy
    scenes, cells, held = [], [], []
    for folder in folders:
        for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
            if setups and os.path.basename(setup) not in setups:
                continue
            out = tempfile.mkdtemp(prefix="fit-cal-")
            cal = store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"), out).folder)
            h = cal.model["tokens"].get("held_out") or {}
            held += list(zip(h.get("logit", []), h.get("right", []), h.get("wrong", [])))
            for tpath, truth, setup_doc, res in scanned_scenes(setup, cal, seen):
                scenes.append((res.reading.details["ledger"], exact(truth, res.state),
                               os.path.relpath(tpath, folder), truth, setup_doc))
                if seen:
                    (de, dk), model, F = seen[0]
                    want = _truth_tokens(truth["state"])
                    covered = {tuple(c) for p in truth["state"]["pieces"] for c in p["cells"]}
                    free = [tuple(x) for x in np.argwhere(res.reading.details["free"]).tolist()]
                    labels = [None if c in covered else want.get(c, EMPTY) for c in free]
                    cells.append((de, dk, model, F, labels))
    reader.classify_tokens = real_classify
    return scenes, cells, held


def token_log_loss(cells, cfg) -> float:
    """−Σ log posterior of each free cell's true class (cells under a piece left out)."""
    total = 0.0
    for de, dk, model, F, labels in cells:
        post = token_posteriors(de, dk, model, F, cfg)
        for i, lab in enumerate(labels):
            if lab is not None and lab in post.names_all:
                total -= float(np.log(max(post.post[i, post.names_all.index(lab)], 1e-12)))
    return total


def decisions(ledger, truth: dict, setup: dict | None):
    """(kind, posterior, right?) of every decision of a reading, checked against the truth."""
    st = truth["state"]
    tokens = _truth_tokens(st)
    piece_at = {tuple(c): p for p in st["pieces"] for c in p["cells"]}
    pieces = {(p["kind"], tuple(sorted(map(tuple, p["cells"])))): p for p in st["pieces"]}
    terrain = (setup or {}).get("terrain")
    out = []
    for kind, cells, ps, claims in ledger.bulk:
        for cell, p, claim in zip(map(tuple, cells.tolist()), ps, claims):
            if kind == "cover":
                out.append((kind, float(p), bool(claim) == (cell in piece_at)))
            elif kind == "token":
                out.append((kind, float(p), cell not in piece_at and tokens.get(cell, EMPTY) == claim))
    for d in ledger.decisions:
        if d.claim is None:
            continue
        if d.kind == "token":
            cell, name = d.claim
            out.append((d.kind, d.p, cell not in piece_at and tokens.get(tuple(cell), EMPTY) == name))
        elif d.kind == "cover":
            cell, covered = d.claim
            out.append((d.kind, d.p, covered == (tuple(cell) in piece_at)))
        elif d.kind == "split":
            out.append((d.kind, d.p, all((k, tuple(map(tuple, cs))) in pieces for k, cs in d.claim)))
        elif d.kind == "facing":
            cells, facing = d.claim
            p = pieces.get(("screen", tuple(map(tuple, cells))))
            if p is not None:
                out.append((d.kind, d.p, p.get("facing") == facing))
        elif d.kind == "print":
            out.append((d.kind, d.p, True))
        elif d.kind == "terrain" and terrain is not None:
            cell, ch = d.claim
            out.append((d.kind, d.p, terrain[cell[0]][cell[1]] == ch))
    return out


def kind_slope(records, held_out=()) -> float:
    """MAP slope b of P(right) = σ(b·logit p) over one kind's decisions (log b ~ N(0, 1)), and
    ``held_out``: (logit, right count, wrong count) of decisions counted per bin."""
    p = np.clip(np.array([r[1] for r in records]), 1e-9, 1 - 1e-9)
    x = np.concatenate([np.log(p) - np.log1p(-p), [h[0] for h in held_out] * 2])
    y = np.concatenate([[float(r[2]) for r in records], [1.0] * len(held_out), [0.0] * len(held_out)])
    w = np.concatenate([np.ones(len(records)), [h[1] for h in held_out], [h[2] for h in held_out]])
    grid = np.exp(np.linspace(np.log(0.2), np.log(8.0), 400))
    best, val = 1.0, -np.inf
    for b in grid:
        z = b * x
        ll = float(np.sum(w * (y * -np.logaddexp(0, -z) + (1 - y) * -np.logaddexp(0, z)))) - 0.5 * np.log(b) ** 2
        if ll > val:
            best, val = float(b), ll
    return best


def platt(scenes, cfg) -> tuple[float, float]:
    """Maximum a posteriori (intercept, slope) of P(right) = σ(a + b·logit p) (Newton's method)."""
    lp = np.array([s[0].log_p(cfg) for s in scenes])
    p = np.clip(np.exp(lp), 1e-12, 1 - 1e-12)
    x = np.log(p) - np.log1p(-p)
    y = np.array([float(s[1]) for s in scenes])
    theta = np.array([0.0, 1.0])
    prior_mean, prior_prec = np.array([0.0, 1.0]), np.diag([1 / 4.0, 1.0])
    X = np.stack([np.ones_like(x), x], axis=1)
    for _ in range(50):
        q = 1 / (1 + np.exp(-(X @ theta)))
        grad = X.T @ (y - q) - prior_prec @ (theta - prior_mean)
        hess = -(X.T * (q * (1 - q))) @ X - prior_prec
        step = np.linalg.solve(hess, grad)
        theta = theta - step
        if np.abs(step).max() < 1e-9:
            break
    return float(theta[0]), float(theta[1])


def fitted_on(folders, setups, seeds) -> dict:
    """What a fit was made on, for ``fitted.json``: each folder (its last two path parts) with the
    set-ups used, and the synthetic seeds."""
    sets = []
    for folder in folders:
        names = sorted(os.path.basename(s) for s in glob.glob(os.path.join(folder, "setup*"))
                       if not setups or os.path.basename(s) in setups)
        sets.append(f"{'/'.join(os.path.normpath(folder).split(os.sep)[-2:])}: {', '.join(names)}")
    return {"sets": sets, "synthetic_seeds": list(seeds)}


def write_fitted(path: str, tokens: dict, token_sets: dict, slopes: dict, slope_sets: dict,
                 scene_map: tuple | None = None) -> None:
    """Write ``fitted.json``: the token model's ``t_dof`` and ``scene_spread``, the per-kind
    confidence ``slopes`` (in the order of the current file's kinds, new kinds after), the scene
    map ``(intercept, slope)`` when given, and what each was fitted on (:func:`fitted_on`); the
    constants other scripts fit (``flatness``: ``scripts/fit_plazing_flatness.py``) are kept."""
    order = list(CONFIDENCE.slopes)
    slopes = {k: slopes[k] for k in order if k in slopes} | {k: v for k, v in slopes.items() if k not in order}
    doc = {"script": "scripts/fit_plazing.py",
           "tokens": {"t_dof": float(tokens["t_dof"]), "scene_spread": float(tokens["scene_spread"]),
                      "fitted_on": token_sets},
           "confidence": {"slopes": {k: float(v) for k, v in slopes.items()}}}
    if scene_map is not None:
        doc["confidence"].update(intercept=float(scene_map[0]), slope=float(scene_map[1]))
    doc["confidence"]["fitted_on"] = slope_sets
    if os.path.exists(path):
        doc |= {k: v for k, v in json.loads(open(path, encoding="utf-8").read()).items() if k not in doc}
    dump_fitted(path, doc)


def dump_fitted(path: str, doc: dict) -> None:
    """Write ``doc`` to ``path`` as the fitted files are kept (one-space indent, UTF-8, a final newline)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--setups", help="only these set-up folders (comma-separated names)")
    ap.add_argument("--seeds", default="", help="synthetic seeds the synthetic folders were made with (comma-separated)")
    ap.add_argument("--write", help="write the fitted values here (vision/plazing/fitted.json)")
    ap.add_argument("--scene-map", action="store_true", help="also write the fitted scene map (intercept, slope)")
    ap.add_argument("--slopes-only", action="store_true",
                    help="write only the slopes (fitted on the readings as the config's t_dof and scene_spread "
                         "make them); keep t_dof, scene_spread and what they were fitted on")
    a = ap.parse_args(argv)
    setups = set(a.setups.split(",")) if a.setups else None
    scenes, cells, held = collect(a.folders, setups)
    print(f"{len(scenes)} scenes read, {sum(not s[1] for s in scenes)} of them wrong; "
          f"{sum(len(c[4]) for c in cells)} free cells")
    best = None
    for nu, spread in itertools.product([4, 6, 8, 11, 16], [2, 4, 6, 8, 11, 16]):
        ll = token_log_loss(cells, dataclasses.replace(TOKENS, t_dof=float(nu), scene_spread=float(spread)))
        if best is None or ll < best[0]:
            best = (ll, nu, spread)
    now = token_log_loss(cells, TOKENS)
    print(f"tokens: t_dof {best[1]}, scene_spread {best[2]} (log loss {best[0]:.2f}; with the config's "
          f"t_dof {TOKENS.t_dof:g}, scene_spread {TOKENS.scene_spread:g}: {now:.2f})")
    records = [r for led, _, _, truth, setup_doc in scenes for r in decisions(led, truth, setup_doc)]
    slopes = {}
    for kind in sorted({r[0] for r in records}):
        mine = [r for r in records if r[0] == kind]
        extra = held if kind == "token" else []
        slopes[kind] = round(kind_slope(mine, extra), 2)
        also = (f" (and {sum(h[1] + h[2] for h in extra)} held-out calibration tokens and bare cells, "
                f"{sum(h[2] for h in extra)} wrong)") if extra else ""
        print(f"  {kind}: {len(mine)} decisions, {sum(not r[2] for r in mine)} wrong{also}; slope {slopes[kind]}")
    cfg = dataclasses.replace(CONFIDENCE, intercept=0.0, slope=1.0, slopes=slopes)
    a0, b0 = platt(scenes, cfg)
    print(f"confidence: slopes {slopes}, intercept {a0:.3f}, slope {b0:.3f} "
          f"(config: {CONFIDENCE.slopes}, {CONFIDENCE.intercept}, {CONFIDENCE.slope})")
    for label, final in (("with the slopes and the scene map", dataclasses.replace(cfg, intercept=a0, slope=b0)),
                         ("with the slopes alone", cfg), ("as the config is", CONFIDENCE)):
        conf = sorted((led.confidence(final), ok, name) for led, ok, name, _, _ in scenes)
        right = [c for c, ok, _ in conf if ok]
        print(f"  {label}: right readings at >= 0.5: {sum(c >= 0.5 for c in right)}/{len(right)}; wrong readings: "
              + ", ".join(f"{name} at {c:.3f}" for c, ok, name in conf if not ok))
    if a.write:
        made_on = fitted_on(a.folders, setups, [int(x) for x in a.seeds.split(",") if x])
        tokens, token_sets = {"t_dof": best[1], "scene_spread": best[2]}, made_on
        if a.slopes_only:
            kept = json.loads(open(a.write, encoding="utf-8").read())["tokens"]
            tokens, token_sets = {"t_dof": TOKENS.t_dof, "scene_spread": TOKENS.scene_spread}, kept["fitted_on"]
        write_fitted(a.write, tokens, token_sets, slopes, made_on,
                     (round(a0, 3), round(b0, 3)) if a.scene_map else None)
        print(f"wrote {a.write}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
