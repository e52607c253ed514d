#!/usr/bin/env python3
"""Every decision of the Plażing reader on development set-ups, checked against the truth and kept
on disk, so that the confidence can be refitted and replayed without reading the photos again.

    .venv/bin/python scripts/plazing_decisions.py FOLDER [FOLDER ...] --cache DIR [--setups setup0,…]

Each FOLDER holds ``profile.json`` and ``setupN/`` folders (the samples' layout, with truth). Per
folder, ``DIR/<folder's last two path parts>.json`` holds one row per read scene:

- ``name``: the scene's path inside the folder; ``right``: read exactly (the judge's rule);
- ``px_per_mm``: the photo's scale, px per board mm as read (:func:`vision.plazing.rectify.photo_px_per_mm`);
- ``p``: per kind of decision, every posterior of the reading below ``SURE`` (what its confidence
  multiplies), and ``sure``: per kind, how many were at ``SURE`` or above (taken as 1);
- ``checked``: ``[kind, posterior, right]`` of every decision the truth can check
  (:func:`fit_plazing.decisions`), and ``sure_right``: per kind, how many of them were right at
  ``SURE`` or above (left out of ``checked``);
- ``confidence``: the scan's; ``log_p``: the ledger's log-probability (:meth:`Ledger.log_p`) and
  ``read_log_p``: that of the reading scored (another when the rules rejected the first, a
  conditional one: :mod:`vision.plazing.revisit`); a confidence below ``read_log_p``'s is a cap
  (the pipeline's doubts: an unmarked closed area, a board not recognised);
- ``alternatives``: when the rules rejected the reading and the scan scored another, the
  alternatives tried up to that one, each as its changed decisions (:func:`rule_forced`), so that
  its conditional confidence can be replayed under other slopes;

and ``held``: each calibration's held-out token decisions ``[logit, right count, wrong count,
px_per_mm]`` (the scale of that set-up's scenes). A folder already in ``DIR`` is not read again.
Photos refused by the reader are left out (as ``fit_plazing.py`` does).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from fit_plazing import cached_folder, calibrated_setups, decisions, truth_scenes  # noqa: E402
from vision.plazing.config import REVISIT  # noqa: E402
from vision.plazing.revisit import conditional_log_p  # noqa: E402
from tests.sample_truth import plazing_exact as exact  # noqa: E402

#: A posterior this close to 1 adds nothing a slope could change to a reading's log-probability.
SURE = 1.0 - 1e-9


def scene_row(res, right: bool, name: str, truth: dict, setup_doc) -> dict:
    """One read scene (a :class:`beachscore.pipeline.ScanResult`) as data (see the module docstring)."""
    ledger = res.reading.details["ledger"]
    p: dict = {}
    sure: dict = {}
    for kind, ps in [(d.kind, [d.p]) for d in ledger.decisions] + [(k, ps) for k, _, ps, _ in ledger.bulk]:
        p.setdefault(kind, []).extend(float(v) for v in ps if v < SURE)
        sure[kind] = sure.get(kind, 0) + sum(1 for v in ps if v >= SURE)
    checked, sure_right = [], {}
    for k, q, ok in decisions(ledger, truth, setup_doc):
        if q >= SURE and ok:
            sure_right[k] = sure_right.get(k, 0) + 1
        else:
            checked.append([k, float(q), bool(ok)])
    return {"name": name, "right": bool(right), "px_per_mm": float(ledger.px_per_mm), "p": p, "sure": sure,
            "checked": checked, "sure_right": sure_right, "confidence": float(res.confidence),
            "log_p": ledger.log_p(), "read_log_p": float(res.reading.details["log_p"])}


def rule_forced(res, first) -> list:
    """When the rules rejected the first reading (``first``) and the scan scored an alternative:
    the alternatives up to the one scored, each as its changed decisions ``[kind, posterior,
    runner-up's posterior, alt_log_ratio or None]``, most probable first (as
    :func:`vision.plazing.revisit.alternatives` orders them); else ``[]``."""
    ledger = first.details["ledger"]
    if res.reading is first:
        return []
    combos = []
    for k in (1, 2):
        for combo in itertools.combinations(ledger.least_certain(REVISIT.decisions), k):
            cells = [set(map(tuple, d.cells)) for d in combo]
            if k == 2 and cells[0] & cells[1]:
                continue
            st = first.state
            try:
                for d in combo:
                    st = d.apply_alt(st)
            except (KeyError, ValueError):
                continue
            combos.append((ledger.log_p() + sum(d.log_ratio(ledger.cfg) for d in combo), combo))
    combos.sort(key=lambda x: -x[0])
    combos = combos[:REVISIT.most]
    cond = conditional_log_p([lp for lp, _ in combos], ledger.log_p())
    i = min(range(len(cond)), key=lambda j: abs(cond[j] - res.reading.details["log_p"]))
    return [[[d.kind, d.p, d.alt_p, d.alt_log_ratio] for d in combo] for _, combo in combos[:i + 1]]


def read_folder(folder: str, setups=None) -> dict:
    """Calibrate every set-up of ``folder``, read its scenes; the rows and held-out decisions."""
    rows, held, first = [], [], []
    real = pipeline._score_lawful

    def spy(reading, setup_doc):  # keep the first reading, before the rules chose among the readings
        first.append(reading)
        return real(reading, setup_doc)

    pipeline._score_lawful = spy
    for setup, cal in calibrated_setups(folder, setups, "fit-cal-"):
        mine = []
        for tpath, truth, setup_doc in truth_scenes(setup):
            first.clear()
            try:
                res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
            except (UnreadableBoardError, BadInputError):
                continue
            row = scene_row(res, exact(truth, res.state), os.path.relpath(tpath, folder).replace(".truth.json", ""),
                            truth, setup_doc)
            mine.append(dict(row, alternatives=rule_forced(res, first[0])))
        rows += mine
        scale = mine[0]["px_per_mm"] if mine else 0.0
        h = cal.model["tokens"].get("held_out") or {}
        held += [[float(a), int(b), int(c), scale] for a, b, c in zip(h.get("logit", []), h.get("right", []),
                                                                       h.get("wrong", []))]
        print(f"  {setup}: {len(mine)} scenes read, {sum(not r['right'] for r in mine)} wrong", file=sys.stderr)
    pipeline._score_lawful = real
    return {"folder": folder, "setups": sorted(setups) if setups else None, "rows": rows, "held": held}


def load(folders, cache: str, setups=None) -> list:
    """Per folder its data (:func:`read_folder`), from ``cache`` when there, else read and kept."""
    return [cached_folder(folder, cache, lambda f: read_folder(f, setups)) for folder in folders]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cache", required=True, help="folder of the cached decisions")
    ap.add_argument("--setups", help="only these set-up folders (comma-separated names)")
    a = ap.parse_args(argv)
    for data in load(a.folders, a.cache, set(a.setups.split(",")) if a.setups else None):
        rows = data["rows"]
        print(f"{data['folder']}: {len(rows)} scenes, {sum(not r['right'] for r in rows)} wrong, "
              f"scale {min((r['px_per_mm'] for r in rows), default=0):.3f}–"
              f"{max((r['px_per_mm'] for r in rows), default=0):.3f} px/mm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
