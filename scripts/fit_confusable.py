#!/usr/bin/env python3
"""Fit the error bound above which ``calibrate`` calls a pair of classes confusable, per game.

    .venv/bin/python scripts/fit_confusable.py [--dev FOLDER ...] [--good FOLDER ...] \
        [--lights "2400,0.3,0.3;2400,0.2,0.5"] [--write calibration/confusable.json] [--cache rows.json]

For every set-up of every folder (``profile.json`` + ``setupN/`` with truths, the layout of
``../shared/tools/evaluate.py``) it calibrates, measures every colour pair's Bhattacharyya error
bound on the calibration shot (:mod:`calibration.light_check`), scans every scene without a hand
over the board and counts, per pair, the scenes whose reading mixed up those two classes:

- Plażing: a cell whose token (resource kind, neutral marker, meeple's player, or bare sand)
  or whose piece's player (or bare sand) differs between truth and reading;
- Strand unter: per groove, shells of one colour missing where another colour is in excess
  (or missing / in excess with no counterpart: that colour against the sand), castles of one
  player missing where another player's are in excess (or alone: against the sand).

The development tables are the rendered ones (``--dev``, seeds in the folder names) as shot, and
the same tables set up under each of ``--lights`` (``kelvin,exposure,flare``: every photo,
calibration too, relit by ``scripts/relight_tables.py``: warm, dim and hazy lights, the kind
that defeats the readers). The light is a property of the table, so a pair is *confused* at a
set-up when at least half of its scenes read mixed it up (a pair mixed up in one scene of
several has another cause: a piece's position, a bump). Per game with development tables, the
threshold is the error bound that misplaces fewest of its pairs (flagged but not confused, or
confused but not flagged), never below the largest bound on that game's good tables (``--good``:
tables every reader reads right, where ``calibrate`` must say nothing), in the middle of the gap
between the bounds on either side (a tie goes to the higher gap: it warns less). Games measured
the same way (discs on the shot) without development tables of their own take the largest of
the disc-measured games' thresholds (``default``). It prints the table and with ``--write``
writes the thresholds with the folders, set-ups, seeds and lights they were fitted on.

``--seashells-columns CACHE`` fits instead the Seashells column threshold (``column_doubt``): on
every set-up of ``--seashells-dev`` (rendered development tables, as shot and through a wide lens)
and ``--seashells-good``, it measures each colour column's bare towel doubt on the calibration shot
(:mod:`vision.seashells.column_light`) and scans every scene (``scripts/seashells_column_light.py``,
its records kept in ``CACHE``). A column is *hard* at a set-up when at least half of the scenes read
were read wrong or doubted (not right with confidence ≥ 0.5) with a wrong or hard-to-read cell in
that column; the threshold is chosen as above (fewest hard columns missed plus columns flagged that
were not hard, never below the good tables' largest doubt, in the middle of its gap). It prints every
set-up (its worst column, flagged, scans right / trusted) and the same fit with each seed held out.
``--write`` then updates only ``column_doubt`` and ``column_fitted_on`` (and the main fit keeps them).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from calibration import store  # noqa: E402
from relight_tables import relit_table  # noqa: E402

DEV = sorted(glob.glob("/work/renders/dev/*-1000[1-5]"))
#: Lights the development tables are also set up under: (kelvin, exposure, flare).
LIGHTS = "3000,0.6,0.1;2400,0.3,0.3"
#: Seashells development tables (rendered, as shot and through a wide lens) and its good table.
SEASHELLS_DEV = [f"/work/renders/judge/seashells-{res}-{seed}{lens}" for res, seed in
                 (("720", 20214), ("720", 20235), ("1080", 20236), ("720", 20237), ("720", 20243), ("1080", 20244))
                 for lens in ("", "-wide")] + ["/work/renders/dev/seashells-720-20223"]
SEASHELLS_GOOD = ["../shared/samples/seashells"]
GOOD = ["../shared/samples/plazing", "../shared/samples/strand-unter", "../shared/samples/seashells",
        "../shared/samples/sand-castles", "../shared/samples-new-setups/plazing",
        "../shared/samples-new-setups/strand-unter"]


def plazing_confusions(truth: dict, state: dict) -> set[tuple[str, str]]:
    """Pairs of Plażing colour classes mixed up between a truth state and a reading."""
    def tokens(st):
        out = {tuple(x["cell"]): f"resource/{x['kind']}" for x in st.get("resources", [])}
        out.update({tuple(c): "neutral" for c in st.get("neutral", [])})
        out.update({tuple(x["cell"]): f"meeple/{x['player']}" for x in st.get("meeples", [])})
        return out

    def owners(st):
        return {tuple(c): f"piece/{p['player']}" for p in st.get("pieces", []) for c in p.get("cells", [])}

    pairs = set()
    for want, got in ((tokens(truth), tokens(state)), (owners(truth), owners(state))):
        for cell in set(want) | set(got):
            a, b = want.get(cell, "sand"), got.get(cell, "sand")
            if a != b:
                pairs.add(tuple(sorted((a, b))))
    return pairs


def _match(missing: Counter, extra: Counter, prefix: str) -> set[tuple[str, str]]:
    """Pairs from what is missing and what is in excess: each missing one against an excess one
    while both last, the rest against the sand."""
    pairs = set()
    miss, more = list(missing.elements()), list(extra.elements())
    for i in range(max(len(miss), len(more))):
        a = f"{prefix}/{miss[i]}" if i < len(miss) else "sand"
        b = f"{prefix}/{more[i]}" if i < len(more) else "sand"
        pairs.add(tuple(sorted((a, b))))
    return pairs


def strand_confusions(truth: dict, state: dict) -> set[tuple[str, str]]:
    """Pairs of Strand unter colour classes mixed up between a truth state and a reading."""
    got = {g.get("number"): g for g in state.get("grooves", []) if isinstance(g, dict)}
    pairs = set()
    for g in truth["grooves"]:
        mine = got.get(g["number"], {})
        have = Counter({c: n for c, n in (mine.get("shells") or {}).items() if n})
        want = Counter({c: n for c, n in g["shells"].items() if n})
        pairs |= _match(want - have, have - want, "shell")
        tc = Counter(c["player"] for c in g["castles"])
        gc = Counter(c.get("player") for c in mine.get("castles", []))
        pairs |= _match(tc - gc, gc - tc, "castle")
    return pairs


CONFUSIONS = {"plazing": plazing_confusions, "strand-unter": strand_confusions}


def measure_folder(folder: str) -> list[dict]:
    """One row per (set-up, pair): the pair's error bound and in how many scenes it was mixed up."""
    game = json.load(open(os.path.join(folder, "profile.json")))["game"]
    rows = []
    for setup in sorted(glob.glob(os.path.join(folder, "setup*"))):
        if not os.path.isfile(os.path.join(setup, "calibration.json")):
            continue
        out = tempfile.mkdtemp(prefix="fit-confusable-")
        try:
            cal = store.load(pipeline.calibrate(os.path.join(setup, "calibration.json"), out).folder)
        except (UnreadableBoardError, BadInputError) as err:
            print(f"  {folder} {os.path.basename(setup)}: calibration refused: {err}", flush=True)
            continue
        mixed, scenes = Counter(), 0
        for tpath in sorted(glob.glob(os.path.join(setup, "scene_*.truth.json"))):
            truth = json.load(open(tpath))
            if truth.get("occluded") or game not in CONFUSIONS:
                continue
            sp = tpath.replace(".truth.json", ".setup.json")
            setup_doc = json.load(open(sp)) if os.path.exists(sp) else None
            try:
                res = pipeline.scan_file(tpath.replace(".truth.json", ".jpg"), cal, setup_doc)
            except (UnreadableBoardError, BadInputError):
                continue
            scenes += 1
            for pair in CONFUSIONS[game](truth["state"], res.state):
                mixed[pair] += 1
        for p in cal.extra["separability"]["pairs"]:
            key = tuple(sorted(p["classes"]))
            rows.append({"folder": folder, "setup": os.path.basename(setup), "game": game, "pair": list(key),
                         "error_bound": p["error_bound"], "distance": p["distance"], "mixed": mixed.get(key, 0),
                         "scenes": scenes})
        print(f"  {folder} {os.path.basename(setup)}: {scenes} scenes read, mixed up: "
              f"{dict((' ~ '.join(k), v) for k, v in mixed.items()) or 'nothing'}", flush=True)
    return rows


def confused(row: dict) -> bool:
    """Whether a set-up's reader mixed the pair up in at least half of the scenes it read."""
    return row["scenes"] > 0 and 2 * row["mixed"] >= row["scenes"]


def choose_threshold(dev: list[dict], good: list[dict]) -> tuple[float, int, int]:
    """The error bound that misplaces fewest dev pairs (flagged but not confused, or confused but
    not flagged), at least the good tables' largest, in the middle of its gap.
    Returns (threshold, false flags, misses)."""
    floor = max((r["error_bound"] for r in good), default=0.0)
    values = sorted({floor} | {r["error_bound"] for r in dev if r["error_bound"] >= floor})
    best = None
    for i, t in enumerate(values):
        false = sum(1 for r in dev if r["error_bound"] > t and not confused(r))
        miss = sum(1 for r in dev if r["error_bound"] <= t and confused(r))
        if best is None or false + miss <= best[1] + best[2]:
            top = values[i + 1] if i + 1 < len(values) else min(2 * t, 0.5) if t > 0 else 0.5
            best = (round(0.5 * (t + top), 4), false, miss)
    return best


def seeds_of(folders: list[str]) -> list[int]:
    """The render seeds named in the folders' names (``…-10001``, ``…-20243-wide``)."""
    found = [re.search(r"-(\d{4,})(?:-[a-z]+)?$", os.path.normpath(f)) for f in folders]
    return sorted({int(m.group(1)) for m in found if m})


def print_table(dev: list[dict], good: list[dict]) -> None:
    """The dev pairs from the lowest mixed-up bound up, then the good tables' worst pairs."""
    low = min((r["error_bound"] for r in dev if r["mixed"]), default=0.0)
    print(f"\n{'set-up':<52} {'pair':<30} {'bound':>7} {'mixed':>7} confused")
    for r in sorted(dev, key=lambda r: -r["error_bound"]):
        if r["error_bound"] >= low:
            where = f"{os.path.basename(r['folder'])}/{r['setup']}"
            print(f"{where:<52} {' ~ '.join(r['pair']):<30} {r['error_bound']:7.4f} {r['mixed']:>3}/{r['scenes']:<3} "
                  f"{'yes' if confused(r) else ''}")
    print("\ngood tables, worst pair per set-up:")
    by = {}
    for r in good:
        k = (r["folder"], r["setup"])
        if k not in by or r["error_bound"] > by[k]["error_bound"]:
            by[k] = r
    for (f, s), r in sorted(by.items()):
        print(f"  {'/'.join(os.path.normpath(f).split(os.sep)[-2:])}/{s:<8} {' ~ '.join(r['pair']):<30} "
              f"{r['error_bound']:7.4f} mixed {r['mixed']}/{r['scenes']}")


def relit_folders(folders: list[str], lights: list[tuple], root: str) -> list[str]:
    """Copies of ``folders`` under each light (``relight_tables.relit_table``), in ``root``."""
    out = []
    for k, e, f in lights:
        for folder in folders:
            name = f"{os.path.basename(os.path.normpath(folder))}@{k or 'same'}K-x{e:g}-flare{f:g}"
            out.append(relit_table(folder, os.path.join(root, name), k, e, f))
    return out


def fitted_on(folders: list[str], rows: list[dict]) -> list[str]:
    """Each folder (its last two path parts) with its set-ups."""
    out = []
    for f in folders:
        setups = sorted({r["setup"] for r in rows if r["folder"] == f})
        out.append(f"{'/'.join(os.path.normpath(f).split(os.sep)[-2:])}: {', '.join(setups)}")
    return out


def parse_lights(text: str) -> list[tuple]:
    """``"2400,0.3,0.3;…"`` → [(kelvin or None, exposure, flare)]."""
    out = []
    for part in filter(None, text.split(";")):
        k, e, f = part.split(",")
        out.append((float(k) if k.strip() not in ("", "0", "-") else None, float(e), float(f)))
    return out


def fit_games(dev: list[dict], good: list[dict]) -> dict:
    """Per game with development rows: (threshold, false flags, misses, pairs, confused pairs)."""
    out = {}
    for game in sorted({r["game"] for r in dev}):
        d = [r for r in dev if r["game"] == game]
        t, false, miss = choose_threshold(d, [r for r in good if r["game"] == game])
        out[game] = (t, false, miss, len(d), sum(1 for r in d if confused(r)))
    return out


def write_keys(path: str, doc: dict) -> None:
    """Write ``doc``'s keys into the JSON file ``path``, keeping its other keys."""
    old = json.load(open(path, encoding="utf-8")) if os.path.exists(path) else {}
    with open(path, "w", encoding="utf-8") as f:
        json.dump({**old, **doc}, f, indent=1, ensure_ascii=False)
        f.write("\n")


def fit_seashells_columns(dev: list[str], good: list[str], cache: str, write: str | None) -> float:
    """Fit, print and (``write``) store the Seashells column threshold (see the module's doc)."""
    from seashells_column_light import collect, column_rows, setup_table

    rows = {f: column_rows(collect([f], cache)) for f in dev + good}
    dev_rows = [r for f in dev for r in rows[f]]
    good_rows = [r for f in good for r in rows[f]]
    t, false, miss = choose_threshold(dev_rows, good_rows)
    print("\n".join(setup_table(dev_rows + good_rows, t)))
    hard = sum(1 for r in dev_rows if confused(r))
    print(f"\nseashells column doubt > {t:.4f} is named; dev columns {len(dev_rows)}, hard {hard}, "
          f"flagged not hard {false}, hard not flagged {miss}; good tables' largest "
          f"{max((r['error_bound'] for r in good_rows), default=0):.4f}")
    for seed in seeds_of(dev):
        held = [f for f in dev if seeds_of([f]) == [seed]]
        t_out = choose_threshold([r for f in dev if f not in held for r in rows[f]], good_rows)[0]
        test = [r for f in held for r in rows[f]]
        print(f"  seed {seed} held out: threshold {t_out:.4f}; on it flagged not hard "
              f"{sum(1 for r in test if r['error_bound'] > t_out and not confused(r))}, hard not flagged "
              f"{sum(1 for r in test if r['error_bound'] <= t_out and confused(r))} of {sum(map(confused, test))}")
    if write:
        write_keys(write, {"column_doubt": {"seashells": t}, "column_fitted_on": {
            "script": "scripts/fit_confusable.py --seashells-columns", "dev": fitted_on(dev, dev_rows),
            "dev_seeds": seeds_of(dev), "good_tables": fitted_on(good, good_rows),
            "figures": {"seashells": {"columns": len(dev_rows), "hard": hard, "false_flags": false, "missed": miss}}}})
    return t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", nargs="*", default=DEV, help="development folders (default: /work/renders/dev/*)")
    ap.add_argument("--good", nargs="*", default=GOOD, help="tables that must give no warning")
    ap.add_argument("--lights", default=LIGHTS, help="kelvin,exposure,flare;… the dev tables are also set up under")
    ap.add_argument("--write", help="write the thresholds here (calibration/confusable.json)")
    ap.add_argument("--cache", help="keep the measured rows in this JSON (reused when it exists)")
    ap.add_argument("--seashells-columns", metavar="CACHE", help="fit the Seashells column threshold instead, "
                    "keeping each set-up's record in this folder (reused when there)")
    ap.add_argument("--seashells-dev", nargs="*", default=SEASHELLS_DEV)
    ap.add_argument("--seashells-good", nargs="*", default=SEASHELLS_GOOD)
    a = ap.parse_args(argv)
    if a.seashells_columns:
        fit_seashells_columns([os.path.abspath(f) for f in a.seashells_dev],
                              [os.path.abspath(f) for f in a.seashells_good], a.seashells_columns, a.write)
        return 0
    lights = parse_lights(a.lights)
    if a.cache and os.path.exists(a.cache):
        dev, good = json.load(open(a.cache)).values()
    else:
        with tempfile.TemporaryDirectory(prefix="fit-confusable-lit-") as tmp:
            folders = list(a.dev) + relit_folders(a.dev, lights, tmp)
            dev = [r for f in folders for r in measure_folder(f)]
        good = [r for f in a.good for r in measure_folder(f)]
        if a.cache:
            json.dump({"dev": dev, "good": good}, open(a.cache, "w"), indent=1)
    print_table(dev, good)
    fits = fit_games(dev, good)
    disc_games = [g for g in fits if g != "strand-unter"]
    bounds = {g: v[0] for g, v in fits.items()}
    bounds["default"] = max((bounds[g] for g in disc_games), default=0.5)
    print()
    for game, (t, false, miss, n, n_conf) in fits.items():
        print(f"{game}: error bound > {t:.4f} is confusable; on its dev set-ups {false} pairs flagged but not "
              f"confused, {miss} of {n_conf} confused pairs not flagged ({n} pairs in all)")
    flagged = [r for r in good if r["error_bound"] > bounds.get(r["game"], bounds["default"])]
    print(f"default (games without development tables): {bounds['default']:.4f}; good tables flagged: {len(flagged)}")
    if a.write:
        doc = {"script": "scripts/fit_confusable.py", "error_bound": bounds,
               "fitted_on": {"dev": fitted_on(a.dev, dev), "dev_seeds": seeds_of(a.dev),
                             "lights_kelvin_exposure_flare": [list(x) for x in lights],
                             "good_tables": fitted_on(a.good, good)},
               "figures": {g: {"pairs": v[3], "confused": v[4], "false_flags": v[1], "missed": v[2]}
                           for g, v in fits.items()}}
        write_keys(a.write, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
