"""Render a short Strand unter game, photo by photo, with Blender (the shared renderer).

    python scripts/render_strand_game.py OUT_DIR [--seed N] [--samples 16] [--resolution 1280x720]

Writes what ``../shared/render/make_strand_set.py`` writes for one set-up, but the scenes are one
game at low tide in play order, each a rules-abiding change of the one before
(``scoring.timeline.strand_unter``): the sea front moves one groove a round and the sandpiper with
it, castles are built on the beach and stay where they are, shells are taken from the grooves (a
groove the sea uncovers shows new ones). Every piece keeps its spot from photo to photo.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RENDER = os.path.join(HERE, "..", "..", "shared", "render")

#: Per photo: the sea front, the castles standing (player, value, groove) and shells per groove.
ROUNDS = [
    (4, [("red", 0, 1), ("blue", 1, 2)], {3: 5}),
    (5, [("red", 0, 1), ("blue", 1, 2), ("red", 2, 3)], {3: 3, 4: 4}),
    (6, [("red", 0, 1), ("blue", 1, 2), ("red", 2, 3), ("blue", 0, 4)], {3: 3, 4: 2, 5: 3}),
]
CASTLE_RADIUS_MM = (10.0, 11.5, 13.0, 14.5)


def game_states(strand, rnd: random.Random) -> list[tuple[dict, dict]]:
    """(render spec part, truth state) per photo; spots drawn once so that nothing moves."""
    placer = strand.Placer(rnd)
    castles, shells, birds = {}, {}, {}
    for front, standing, per_groove in ROUNDS:
        birds.setdefault(front - 1, placer.spot(front - 1, 10.0))
        for player, value, groove in standing:
            if (player, value) not in castles:
                x, y = placer.spot(groove, CASTLE_RADIUS_MM[value])
                castles[(player, value)] = {"groove": groove, "player": player, "value": value, "x_mm": x, "y_mm": y}
        for groove, n in per_groove.items():
            have = shells.setdefault(groove, [])
            while len(have) < n:
                sc = rnd.uniform(0.9, 1.1)
                x, y = placer.spot(groove, 9.0 * sc)
                have.append({"groove": groove, "colour": rnd.choice(strand.COLOURS), "x_mm": x, "y_mm": y,
                             "rot": rnd.uniform(0, 6.283), "scale": sc})
    out = []
    for front, standing, per_groove in ROUNDS:
        bx, by = birds[front - 1]
        game = {"sea_front": front, "sandpiper": {"groove": front - 1, "x_mm": bx, "y_mm": by},
                "castles": [castles[(p, v)] for p, v, _ in standing],
                "shells": [s for g, n in per_groove.items() for s in shells[g][:n]],
                "players": ["red", "blue"]}
        out.append((game, strand.truth_state(game)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--resolution", default="1280x720")
    a = ap.parse_args()
    sys.path.insert(0, RENDER)
    import make_strand_set as strand  # the shared renderer (not part of the product)

    res = [int(v) for v in a.resolution.split("x")]
    rnd = random.Random(a.seed)
    d = os.path.join(a.out, "setup0")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(a.out, "profile.json"), "w") as f:
        json.dump(strand.profile(), f, indent=1)
    st = strand.setup_spec(rnd, 0)
    calib, samples = strand.calibration_game(rnd)
    base = {"camera": st["camera"], "light": st["light"], "seed": rnd.randint(0, 10 ** 6)}
    corners = strand.render(dict(base, **calib), os.path.join(d, "calib.png"), a.samples, res)
    strand.camera_finish(os.path.join(d, "calib.png"), os.path.join(d, "calib.jpg"), rnd, quality=92)
    empty = {"sea_front": 12, "sandpiper": None, "castles": [], "shells": []}
    strand.render(dict(base, **empty), os.path.join(d, "empty.png"), a.samples, res)
    strand.camera_finish(os.path.join(d, "empty.png"), os.path.join(d, "empty.jpg"), rnd, quality=92)
    with open(os.path.join(d, "calibration.json"), "w") as f:
        json.dump({"game": "strand-unter", "profile": "../profile.json", "image": "calib.jpg",
                   "empty_image": "empty.jpg", "corners_px": corners, "samples": samples}, f, indent=1)
    for i, (game, state) in enumerate(game_states(strand, rnd)):
        spec = dict(base, light=strand.jitter_light(rnd, st["light"]), seed=rnd.randint(0, 10 ** 6), **game)
        name = f"scene_{i:02d}"
        c = strand.render(spec, os.path.join(d, name + ".png"), a.samples, res)
        strand.camera_finish(os.path.join(d, name + ".png"), os.path.join(d, name + ".jpg"), rnd)
        with open(os.path.join(d, name + ".truth.json"), "w") as f:
            json.dump({"state": state, "corners_px": c, "bumped": False, "occluded": False,
                       "players": game["players"]}, f, indent=1)
        print(d, name, "done", flush=True)
    for fn in os.listdir(d):
        if fn.endswith((".spec.json", ".corners.json", ".png")):
            os.remove(os.path.join(d, fn))


if __name__ == "__main__":
    main()
