#!/usr/bin/env python3
"""How well a game's own registration tells its calibrated board from every other game's.

    .venv/bin/python scripts/registration_match_stats.py ../shared/samples ../shared/samples-new-setups

For Strand unter and Plażing (the games whose registration matches the board's fixed parts, and
so answers ``registration_matches_board``), each set-up's calibration registers every photo of its
own folder (right boards), of the same game's other set-ups (as if the camera had moved since
calibration) and of the other games' set-ups (other boards); prints
the registration score's range on each side and how many of each the game's hook calls a match.
A measurement, not a test: it prints.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from vision.board import stage as board_stage  # noqa: E402

GAMES = ("plazing", "sand-castles", "seashells", "strand-unter")
HOOKED = ("plazing", "strand-unter")


def _photos(roots, game):
    return sorted(p for r in roots for p in glob.glob(os.path.join(r, game, "setup*", "scene_*.jpg")))


def _register(photo, cal, module):
    image = pipeline.at_reader_scale(pipeline.read_image(photo, reduce=module.decode_reduce), cal, module)
    if cal.lens is not None:
        image = cal.lens.undistort_image(image)
    try:
        return board_stage.register(image, cal, module)
    except Exception:  # noqa: BLE001 - a refused photo gets the board check on that path
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("roots", nargs="+", help="folders holding <game>/setupN/ (e.g. ../shared/samples)")
    a = ap.parse_args()
    for game in HOOKED:
        module = pipeline.reader(game)
        own, moved, other = [], [], []      # (score, matched): right boards / cameras moved / other games
        setups = sorted(s for r in a.roots for s in glob.glob(os.path.join(r, game, "setup*")))
        for setup in setups:
            cal = pipeline.calibrate(os.path.join(setup, "calibration.json"), tempfile.mkdtemp(prefix="match-"))
            elsewhere = [p for s in setups if s != setup for p in sorted(glob.glob(os.path.join(s, "scene_*.jpg")))]
            for photos, out in ((sorted(glob.glob(os.path.join(setup, "scene_*.jpg"))), own), (elsewhere, moved),
                                ([p for g in GAMES if g != game for p in _photos(a.roots, g)], other)):
                for photo in photos:
                    reg = _register(photo, cal, module)
                    if reg is not None:
                        out.append((float(reg.score), bool(module.registration_matches_board(reg, cal))))
        for name, rows in (("right boards", own), ("the same game from another set-up's camera", moved),
                           ("other games' boards", other)):
            if not rows:
                print(f"{game}: {name}: none registered")
                continue
            scores = sorted(s for s, _ in rows)
            print(f"{game}: {name}: {len(rows)} registered, score min {scores[0]:.3f} median "
                  f"{scores[len(scores) // 2]:.3f} max {scores[-1]:.3f}; called a match: {sum(m for _, m in rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
