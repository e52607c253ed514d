#!/usr/bin/env python3
"""How many Plażing closings the photos can decide: games played by ``make_plazing_game.py``'s rules
(no rendering), their true states fed to the timeline one photo after another.

    python scripts/closer_decidability.py --seeds 30001-30200 --moves 2-5
    python scripts/closer_decidability.py --seeds 30001-30200 --moves 1-1

The player whose piece closed an area earns its point; when pieces of several players placed
between two photos may each have been the last one, no reading (however exact) can tell who it
was. This measures that ceiling with perfect readings: ``--moves LO-HI`` turns are played between
two photos (the generator's games take 2-5; a station scanning when the board settles after each
turn takes 1). A game whose state breaks a single-photo rule is skipped (counted). Prints, per cadence, the closings, how many the timeline decided (and how many of
those wrongly: must be 0), how many it left doubted, the rest (closings neither decided nor doubted), and the games whose every closing was decided.
"""
from __future__ import annotations

import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from scoring.errors import InvalidStateError  # noqa: E402
from scoring.timeline import Timeline  # noqa: E402
from scoring.timeline.plazing import sure_closings  # noqa: E402

#: Photos a game may take at most (a game played one turn a photo ends well before).
MOST_PHOTOS = 400


def _generator(render_dir: str):
    sys.path.insert(0, render_dir)
    import make_plazing_game  # noqa: PLC0415 (the shared generators live outside the project)
    import make_plazing_set  # noqa: PLC0415
    return make_plazing_game, make_plazing_set


def play_game(seed: int, moves: tuple[int, int], game_mod, set_mod) -> dict:
    """One game of ``seed``, photographed every ``moves`` turns; returns the tallies of its closings."""
    rnd = random.Random(seed)
    terrain, _objects, spots = set_mod.make_terrain(rnd)
    players = set_mod.PLAYERS[:rnd.randint(2, 4)]
    play = game_mod.Play(rnd, terrain, spots, players)
    timeline = Timeline("plazing", {"terrain": terrain, "players": players, "weather": "sun"})
    for i in range(MOST_PHOTOS):
        if i > 0:
            if play.g.over():
                break
            for _ in range(rnd.randint(*moves)):
                if not play.g.over():
                    play.move()
        state = play.state()
        try:
            step = timeline.propose(state)
        except InvalidStateError:  # the generator broke a single-photo rule (e.g. a piece on a meeple)
            return {"games skipped": 1}
        if step.impossible:
            raise AssertionError(f"seed {seed} photo {i}: a rules-abiding change called impossible: {step.impossible}")
        timeline.accept(state, step)
    facts = timeline.facts
    sure = sure_closings(facts)
    doubted = len(facts.get("doubted_closings") or [])
    truth = play.closings
    total = sum(truth.values())
    wrong = sum(max(0, sure.get(p, 0) - truth[p]) for p in players)
    decided = sum(sure.get(p, 0) for p in players)
    return {"closings": total, "decided": decided, "doubted": doubted, "wrong": wrong,
            "unaccounted": total - decided - doubted, "game right": int(doubted == 0 and all(sure.get(p, 0) == truth[p] for p in players))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="30001-30200", help="first-last seed (one game each)")
    ap.add_argument("--moves", default="2-5", help="turns between two photos, LO-HI")
    ap.add_argument("--render-dir", default=os.path.join(HERE, "..", "..", "shared", "render"))
    a = ap.parse_args()
    lo, hi = (int(v) for v in a.seeds.split("-"))
    moves = tuple(int(v) for v in a.moves.split("-"))
    game_mod, set_mod = _generator(os.path.abspath(a.render_dir))
    rows = {"games": 0, "games skipped": 0, "closings": 0, "decided": 0, "wrong": 0, "doubted": 0, "unaccounted": 0, "game right": 0}
    for seed in range(lo, hi + 1):
        got = play_game(seed, moves, game_mod, set_mod)
        rows["games"] += 1
        for k, v in got.items():
            rows[k] += v
    print(f"seeds {lo}-{hi}, {moves[0]}-{moves[1]} turns between photos: " + ", ".join(f"{k} {v}" for k, v in rows.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
