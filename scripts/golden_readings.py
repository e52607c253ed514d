#!/usr/bin/env python3
"""Record every reading of every table folder, or compare against a recording.

    python scripts/golden_readings.py --out golden.json [FOLDER ...]
    python scripts/golden_readings.py --compare golden.json [FOLDER ...]

A folder holds ``profile.json`` and ``setupN/`` folders (the layout of ``../shared/tools/
evaluate.py``). For each set-up the script runs ``beachscore calibrate --json`` and then
``beachscore scan --json`` on every ``scene_XX.jpg`` (with ``scene_XX.setup.json`` when present)
and keeps exit code, the JSON without ``timing_ms`` and the error line. ``--compare`` prints
every scene whose record differs and exits 1 if any does. Without folders it walks
``../shared/{samples,samples-new-setups,pool,real}``.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def shared_folder() -> str:
    """``shared/`` beside the repository (or beside the folder of its worktrees)."""
    for up in ("..", os.path.join("..", "..")):
        candidate = os.path.normpath(os.path.join(REPO, up, "shared"))
        if os.path.isdir(candidate):
            return candidate
    raise SystemExit("no shared/ folder found beside the repository")


SHARED = shared_folder()
DEFAULT_ROOTS = ("samples", "samples-new-setups", "pool", "real")


def table_folders(roots: list[str]) -> list[str]:
    """Folders under ``roots`` that hold a ``profile.json`` (each one game's tables)."""
    found = []
    for root in roots:
        if os.path.isfile(os.path.join(root, "profile.json")):
            found.append(root)
            continue
        found += sorted(os.path.dirname(p) for p in glob.glob(os.path.join(root, "*", "profile.json")))
    return found


def strip_timing(value):
    """The JSON with every ``timing_ms`` removed (wall time differs between runs)."""
    if isinstance(value, dict):
        return {k: strip_timing(v) for k, v in value.items() if k != "timing_ms"}
    if isinstance(value, list):
        return [strip_timing(v) for v in value]
    return value


def run(cmd: list[str], tmp: str) -> dict:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    stdout = p.stdout.replace(tmp, "<CAL>")
    try:
        out = strip_timing(json.loads(stdout)) if stdout.strip() else None
    except json.JSONDecodeError:
        out = stdout
    stderr = p.stderr.replace(tmp, "<CAL>").strip().splitlines()
    return {"exit": p.returncode, "json": out, "stderr": (stderr or [""])[-1]}


def record_setup(cmd: list[str], setup: str, tmp: str) -> dict[str, dict]:
    cal = os.path.join(tmp, os.path.relpath(setup, SHARED).replace(os.sep, "_"))
    records = {setup + "/calibrate": run(cmd + ["calibrate", os.path.join(setup, "calibration.json"),
                                                 "--out", cal, "--json"], tmp)}
    for img in sorted(glob.glob(os.path.join(setup, "scene_*.jpg"))):
        extra = []
        scene_setup = img[:-len(".jpg")] + ".setup.json"
        if os.path.exists(scene_setup):
            extra = ["--setup", scene_setup]
        records[img] = run(cmd + ["scan", img, "--calibration", cal, "--json"] + extra, tmp)
    return records


def record(cmd: list[str], folders: list[str], jobs: int) -> dict[str, dict]:
    setups = [s for f in folders for s in sorted(glob.glob(os.path.join(f, "setup*"))) if os.path.isdir(s)]
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp, ThreadPoolExecutor(jobs) as pool:
        parts = list(pool.map(lambda s: record_setup(cmd, s, tmp), setups))
    merged: dict[str, dict] = {}
    for part in parts:
        merged.update(part)
    return {os.path.relpath(k, SHARED): v for k, v in merged.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*")
    ap.add_argument("--cmd", default=os.path.join(REPO, ".venv", "bin", "beachscore"))
    ap.add_argument("--out", help="write the recording here")
    ap.add_argument("--compare", help="compare with this recording")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    roots = a.folders or [os.path.join(SHARED, r) for r in DEFAULT_ROOTS]
    now = record(shlex.split(a.cmd), table_folders(roots), a.jobs)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(now, f, indent=1, sort_keys=True)
    print(f"{len(now)} records")
    if not a.compare:
        return 0
    with open(a.compare, encoding="utf-8") as f:
        before = json.load(f)
    differ = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
    grown = [k for k in differ if without_new_fields(now.get(k), before.get(k)) == before.get(k)]
    for k in differ:
        if k not in grown:
            print(f"DIFFERS {k}: before {json.dumps(before.get(k))[:300]} now {json.dumps(now.get(k))[:300]}")
    if grown:
        added = sorted({f for k in grown for f in new_fields(now[k], before[k])})
        print(f"{len(grown)} records only gained fields the contract allows adding: {', '.join(added)}")
    print(f"{len(differ) - len(grown)} of {len(set(before) | set(now))} records differ")
    return 1 if len(differ) > len(grown) else 0


def new_fields(now, before, path: str = "") -> list[str]:
    """Dotted names of the object fields ``now`` has and ``before`` lacks (recursing into shared objects)."""
    if not isinstance(now, dict) or not isinstance(before, dict):
        return []
    out = [path + k for k in now if k not in before]
    for k in now:
        if k in before:
            out += new_fields(now[k], before[k], f"{path}{k}.")
    return out


def without_new_fields(now, before):
    """``now`` with the object fields ``before`` lacks taken out (the contract lets fields be added, never dropped)."""
    if not isinstance(now, dict) or not isinstance(before, dict):
        return now
    return {k: without_new_fields(v, before[k]) for k, v in now.items() if k in before}


if __name__ == "__main__":
    sys.exit(main())
