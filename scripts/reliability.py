#!/usr/bin/env python3
"""Reliability table of the scan confidence: is ``confidence`` a probability of being right?

    python scripts/reliability.py ../shared/samples-new-setups/strand-unter [FOLDER ...] \
        [--cmd .venv/bin/beachscore] [--evaluate ../shared/tools/evaluate.py]

Runs ``evaluate.py --json`` on every folder (each holds profile.json and setupN/ folders), then
prints, over all their scenes together and per set-up:

- a reliability table: confidence bins, scenes in each, how many were read right;
- the two figures the readers are held to: among readings at confidence >= 0.5 the share that is
  right (target >= 98%), and among right readings the share at confidence >= 0.5 (target >= 90%);
- silent wrong readings (wrong at >= 0.5) and refusals, named.

A refusal of a scene with a hand over the board counts as right (as in evaluate.py); a refusal of a
clean scene counts as a wrong answer at confidence 0; a right refusal as a sure one. This is a measurement, not a test: it prints.

    python scripts/reliability.py --from-json rows1.json rows2.json ...

reads rows that ``evaluate.py --json`` already wrote instead (each file's name, less ``.json``,
names its folder in the table).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BINS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98, 1.0001)
THRESHOLD = 0.5


def evaluate(folder: str, cmd: str, evaluate_py: str) -> list[dict]:
    """Rows of ``evaluate.py --json`` for one folder, each with its folder name added."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rows.json")
        subprocess.run([sys.executable, evaluate_py, folder, "--cmd", cmd, "--json", out],
                       check=False, stdout=subprocess.DEVNULL)
        if not os.path.exists(out):
            sys.exit(f"reliability: evaluate.py wrote nothing for {folder}")
        rows = json.load(open(out))
    for r in rows:
        r["folder"] = os.path.basename(os.path.normpath(folder))
    return rows


def _rows_of(path: str) -> list[dict]:
    """Rows of a file ``evaluate.py --json`` wrote, each with its folder named after the file."""
    rows = json.load(open(path))
    for r in rows:
        r["folder"] = os.path.splitext(os.path.basename(path))[0]
    return rows


def outcome(row: dict) -> tuple[bool, float]:
    """``(right, confidence)`` of one evaluated scene.

    A refusal of a scene with a hand over the board is right and sure (as evaluate.py's TRUSTED
    counts it); any other refusal or failure is a wrong answer the product did not trust (0).
    """
    if row.get("status") != "read":
        right = bool(row.get("occluded")) and row.get("status") == "refused"
        return right, 1.0 if right else 0.0
    return bool(row.get("exact")), float(row.get("confidence") or 0.0)


def table(rows: list[dict], title: str) -> None:
    """Print the reliability table and the two headline figures of ``rows``."""
    print(f"\n== {title}: {len(rows)} scenes")
    print(f"{'confidence':<14}{'scenes':>7}{'right':>7}{'share':>8}")
    pairs = [outcome(r) for r in rows]
    for lo, hi in zip(BINS, BINS[1:]):
        inbin = [ok for ok, c in pairs if lo <= c < hi]
        share = f"{100.0 * sum(inbin) / len(inbin):.0f}%" if inbin else "-"
        print(f"[{lo:.2f}, {min(hi, 1.0):.2f}{')' if hi < 1 else ']'}  {len(inbin):>7}{sum(inbin):>7}{share:>8}")
    trusted = [ok for ok, c in pairs if c >= THRESHOLD]
    right = [c for ok, c in pairs if ok]
    p_right = 100.0 * sum(trusted) / len(trusted) if trusted else float("nan")
    p_high = 100.0 * sum(c >= THRESHOLD for c in right) / len(right) if right else float("nan")
    print(f"readings at >= {THRESHOLD}: {len(trusted)}, right {sum(trusted)} ({p_right:.1f}%, target >= 98%)")
    print(f"right readings: {len(right)}, at >= {THRESHOLD}: {sum(c >= THRESHOLD for c in right)} "
          f"({p_high:.1f}%, target >= 90%)")
    for r in rows:
        ok, c = outcome(r)
        if not ok and c >= THRESHOLD:
            print(f"  SILENT WRONG {r['folder']}/{r['scene']} conf={c:.3f} {'; '.join(r.get('errors', []))}")
        elif r.get("status") != "read" and not ok:
            print(f"  refused (clean) {r['folder']}/{r['scene']} {r.get('reason', r.get('status'))}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--cmd", default=os.path.join(HERE, "..", ".venv", "bin", "beachscore"))
    ap.add_argument("--evaluate", default=os.path.join(HERE, "..", "..", "shared", "tools", "evaluate.py"))
    ap.add_argument("--per-setup", action="store_true", help="also print a table per set-up")
    ap.add_argument("--from-json", action="store_true",
                    help="the arguments are files evaluate.py --json wrote (named FOLDER.json), not folders to evaluate")
    a = ap.parse_args(argv)
    rows = []
    for folder in a.folders:
        got = _rows_of(folder) if a.from_json else evaluate(folder, a.cmd, a.evaluate)
        rows += got
        if a.per_setup:
            for setup in sorted({r["scene"].split(os.sep)[0] for r in got}):
                table([r for r in got if r["scene"].split(os.sep)[0] == setup],
                      f"{os.path.basename(os.path.normpath(folder))}/{setup}")
    table(rows, "all folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
