"""Render a short Sand Castles or Seashells game, photo by photo, with Blender (the shared renderer).

    python scripts/render_small_game.py GAME OUT_DIR [--seed N] [--samples 16] [--resolution 1280x720]

GAME: sand-castles | seashells. Writes what ``../shared/render/make_small_sets.py`` writes for one
set-up (profile.json, setup0/calibration.json, calib.jpg, scene_NN.jpg + .truth.json), but the
scenes are one game in play order, each state a rules-abiding change of the one before
(``scoring.timeline``): Sand Castles waves move forward, break on a wall and start again, castle
pieces are added; a Seashells mat's collection grows. The states are fixed below (one sensible
game each); the table, camera and light come from ``--seed``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RENDER = os.path.join(HERE, "..", "..", "shared", "render")

#: One Sand Castles game: per photo, (wave, wall, castle pieces) of the top, middle and bottom lanes.
SAND_CASTLES = [
    [(1, False, 0), (1, False, 0), (1, False, 0)],
    [(2, True, 1), (2, False, 1), (1, False, 1)],
    [(3, True, 2), (4, False, 2), (2, False, 3)],
    [(1, False, 3), (5, False, 3), (3, False, 4)],
]
#: One Seashells mat: per photo, how many of the game's shells are collected, and the extras.
SEASHELLS = [
    (2, {}),
    (4, {"sand_dollar": 1}),
    (6, {"sand_dollar": 1, "fossil/head": 1}),
    (8, {"sand_dollar": 2, "fossil/head": 1, "fossil/tail": 1}),
]
#: Where the basket's items lie (mm along the mat's basket strip, as the calibration shot lays them).
BASKET_X_MM = (40.0, 90.0, 140.0, 195.0)
EXTRA_KEYS = {"fossil/head": "fossil_heads", "fossil/tail": "fossil_tails", "sand_dollar": "sand_dollars",
              "bottle": "bottles"}


def sand_castles_states(sets) -> list[tuple[dict, dict]]:
    """(render spec part, truth state) per photo."""
    out = []
    for lanes in SAND_CASTLES:
        spec = [{"length": sets.LENGTH, "wave": w, "wall": wall, "castle_pieces": n, "flooded": False}
                for w, wall, n in lanes]
        out.append(({"lanes": spec}, {"game": "sand-castles", "lanes": dict(zip(sets.LANES, spec)),
                                      "walls_left": None}))
    return out


def seashells_states(sets, rnd: random.Random) -> list[tuple[dict, dict]]:
    """(render spec part, truth state) per photo: the collection grows along one drawn order."""
    order = rnd.sample([[s, c] for s in sets.SHAPES for c in sets.COLOURS], max(n for n, _ in SEASHELLS))
    out = []
    for n, extras in SEASHELLS:
        kinds = [kind for kind, count in sorted(extras.items()) for _ in range(count)]
        basket = [{"kind": kind, "x_mm": x, "y_mm": 272.0} for kind, x in zip(kinds, BASKET_X_MM)]
        player = {"player": "mat", "shells": sorted(order[:n])}
        player.update({EXTRA_KEYS[k]: extras.get(k, 0) for k in EXTRA_KEYS})
        out.append(({"shells": order[:n], "basket": basket}, {"game": "seashells", "players": [player]}))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("game", choices=["sand-castles", "seashells"])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--resolution", default="1280x720")
    a = ap.parse_args()
    sys.path.insert(0, RENDER)
    import make_small_sets as sets  # the shared renderer (not part of the product)
    from make_strand_set import camera_finish, jitter_light, setup_spec

    res = [int(v) for v in a.resolution.split("x")]
    rnd = random.Random(a.seed)
    sc = a.game == "sand-castles"
    script = "sandcastles_scene.py" if sc else "seashells_scene.py"
    d = os.path.join(a.out, "setup0")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(a.out, "profile.json"), "w") as f:
        json.dump(sets.sc_profile() if sc else sets.sh_profile(), f, indent=1)
    # the calibration shot and its samples: the shared sample set's (the same renderer, seed and layout)
    sample_cal = os.path.join(RENDER, "..", "samples", a.game, "setup0", "calibration.json")
    st = setup_spec(rnd, 0)
    st["camera"]["loc"][2] = rnd.uniform(0.46, 0.52) if sc else rnd.uniform(0.52, 0.58)
    base = {"camera": st["camera"], "light": st["light"]}
    with open(sample_cal) as f:
        cal = json.load(f)
    calib_spec = _calibration_spec(sets, cal)
    corners = sets.render(script, dict(base, seed=rnd.randint(0, 10 ** 6), **calib_spec),
                          os.path.join(d, "calib.png"), a.samples, res)
    camera_finish(os.path.join(d, "calib.png"), os.path.join(d, "calib.jpg"), rnd, quality=92)
    with open(os.path.join(d, "calibration.json"), "w") as f:
        json.dump(dict(cal, profile="../profile.json", image="calib.jpg", corners_px=corners), f, indent=1)
    states = sand_castles_states(sets) if sc else seashells_states(sets, rnd)
    for i, (part, state) in enumerate(states):
        spec = dict(base, light=jitter_light(rnd, st["light"]), seed=rnd.randint(0, 10 ** 6), **part)
        name = f"scene_{i:02d}"
        c = sets.render(script, spec, os.path.join(d, name + ".png"), a.samples, res)
        camera_finish(os.path.join(d, name + ".png"), os.path.join(d, name + ".jpg"), rnd)
        with open(os.path.join(d, name + ".truth.json"), "w") as f:
            json.dump({"state": state, "corners_px": c, "bumped": False, "occluded": False}, f, indent=1)
        print(d, name, "done", flush=True)
    for fn in os.listdir(d):
        if fn.endswith((".spec.json", ".corners.json", ".png")):
            os.remove(os.path.join(d, fn))


def _calibration_spec(sets, cal: dict) -> dict:
    """The calibration shot's scene, as make_small_sets.py lays it (its samples say where things are)."""
    if cal["game"] == "sand-castles":
        lanes = [{"length": sets.LENGTH, "wave": 2, "wall": True, "castle_pieces": 2, "flooded": False},
                 {"length": sets.LENGTH, "wave": 4, "wall": False, "castle_pieces": 1, "flooded": False},
                 {"length": sets.LENGTH, "wave": 1, "wall": False, "castle_pieces": 3, "flooded": False}]
        return {"lanes": lanes}
    cells = [[sets.SHAPES[i], sets.COLOURS[(i * 3) % 7]] for i in range(7)]
    basket = [{"kind": "fossil/head", "x_mm": 40, "y_mm": 272}, {"kind": "fossil/tail", "x_mm": 90, "y_mm": 272},
              {"kind": "sand_dollar", "x_mm": 140, "y_mm": 272}, {"kind": "bottle", "x_mm": 195, "y_mm": 272}]
    return {"shells": cells, "basket": basket}


if __name__ == "__main__":
    main()
