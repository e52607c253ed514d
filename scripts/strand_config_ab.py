#!/usr/bin/env python3
"""A/B of Strand unter constants: every scene read with main's constants and with some changed.

    .venv/bin/python scripts/strand_config_ab.py FOLDER [FOLDER ...] --set READING.fg_noise_k=0
        [--set CASTLES.tower_pool_weight=2 ...] [--rows rows.jsonl]

Each FOLDER holds ``setupN/`` folders with ``calibration.json`` and ``scene_XX.jpg`` +
``scene_XX.truth.json``. Each set-up is calibrated once (with main's constants) and each scene
read twice: as configured (A) and with the ``--set`` constants (B: attributes of the shared config
objects of :mod:`vision.strand_unter.config`, set for the read and restored after it). The states
are compared with the judges' ``evaluate.py`` (``compare_strand``). Printed: RIGHT / TRUSTED / silent
wrong / clean refused per folder that changes and over all (a scene is RIGHT when read right, or
refused with a hand over the board; TRUSTED when right at confidence ≥ 0.5 or so refused), and
every scene whose rightness changes. ``--rows`` writes one JSON line per scene.

Only constants read at scan time take effect (a constant used at calibration is not re-applied).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from contextlib import contextmanager

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from vision.strand_unter import config  # noqa: E402
from strand_scenes import calibrated_truths, compare_strand  # noqa: E402

TRUST = 0.5


def parse_set(text: str) -> tuple[str, str, object]:
    """``"READING.fg_noise_k=0"`` → ("READING", "fg_noise_k", 0.0): the config object's name in
    :mod:`vision.strand_unter.config`, the field, and the value (JSON, else the text).

    Raises:
        ValueError: no such config object or field.
    """
    name, _, value = text.partition("=")
    obj, _, field = name.strip().partition(".")
    target = getattr(config, obj, None)
    if target is None or not field or not hasattr(target, field):
        raise ValueError(f"no such constant: {name!r}")
    try:
        val = json.loads(value)
    except json.JSONDecodeError:
        val = value
    old = getattr(target, field)
    if isinstance(old, float) and isinstance(val, int) and not isinstance(val, bool):
        val = float(val)
    if isinstance(old, tuple) and isinstance(val, list):
        val = tuple(val)
    return obj, field, val


@contextmanager
def constants_set(changes: list[tuple[str, str, object]]):
    """Set the (config object, field, value) ``changes`` on the shared (frozen) config objects for
    the ``with`` block; the old values are put back after it, also on an exception."""
    old = []
    try:
        for obj, field, val in changes:
            target = getattr(config, obj)
            old.append((target, field, getattr(target, field)))
            object.__setattr__(target, field, val)
        yield
    finally:
        for target, field, val in reversed(old):
            object.__setattr__(target, field, val)


def outcome_kind(occluded: bool, outcome: str, right: bool | None, conf: float | None) -> Counter:
    """The judge's tallies of one scene: ``right``, ``trusted``, ``silent`` (read wrong at confidence
    ≥ 0.5), ``clean_refused`` (refused without a hand over the board), each 0 or 1, and ``n`` = 1."""
    if outcome == "read":
        ok = bool(right)
        return Counter(n=1, right=int(ok), trusted=int(ok and conf >= TRUST),
                       silent=int(not ok and conf >= TRUST), clean_refused=0)
    return Counter(n=1, right=int(occluded), trusted=int(occluded), silent=0, clean_refused=int(not occluded))


def tally_line(c: Counter) -> str:
    """"RIGHT/n TRUSTED silent clean-refused" of a tally."""
    return f"{c['right']}/{c['n']} {c['trusted']} {c['silent']} {c['clean_refused']}"


def _read(img: str, cal, truth: dict, compare) -> list:
    try:
        res = pipeline.scan_file(img, cal)
    except (UnreadableBoardError, BadInputError) as err:
        return [getattr(err, "code", type(err).__name__), None, None]
    errs, _ = compare(truth, res.state)
    return ["read", not errs, round(float(res.confidence), 3)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--set", action="append", default=[], dest="sets", help="OBJECT.field=value (B arm)")
    ap.add_argument("--rows", help="write one JSON line per scene here")
    args = ap.parse_args(argv)
    changes = [parse_set(s) for s in args.sets]
    compare = compare_strand()
    rows = []
    for folder in args.folders:
        for img, truth, cal in calibrated_truths(folder, skip_refused=True):
            row = {"folder": os.path.basename(os.path.normpath(folder)), "scene": os.path.relpath(img, folder),
                   "occluded": bool(truth.get("occluded")), "a": _read(img, cal, truth, compare)}
            with constants_set(changes):
                row["b"] = _read(img, cal, truth, compare)
            rows.append(row)
    if args.rows:
        with open(args.rows, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    total = {"a": Counter(), "b": Counter()}
    per: dict = {}
    for r in rows:
        for arm in ("a", "b"):
            k = outcome_kind(r["occluded"], *r[arm])
            total[arm].update(k)
            per.setdefault(r["folder"], {"a": Counter(), "b": Counter()})[arm].update(k)
    for folder, t in per.items():
        if tally_line(t["a"]) != tally_line(t["b"]):
            print(f"{folder}: {tally_line(t['a'])} -> {tally_line(t['b'])}")
    print(f"all: {tally_line(total['a'])} -> {tally_line(total['b'])} (RIGHT/n TRUSTED silent clean-refused)")
    for r in rows:
        ka, kb = outcome_kind(r["occluded"], *r["a"]), outcome_kind(r["occluded"], *r["b"])
        if ka != kb:
            print(f"  {r['folder']} {r['scene']}{' hand' if r['occluded'] else ''}: {r['a']} -> {r['b']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
