#!/usr/bin/env python3
"""Write synthetic Strand unter set-ups (tests/synthetic/strand_setups.py) in the samples' layout.

    python scripts/synth_strand_setups.py OUT_FOLDER [--setups 4] [--first-seed 100] [--scenes 6]

Each set-up has its own camera (height 520–900 mm, tilt up to 14°), white balance and calibration
light; its scenes change the colour temperature (3000–5600 K), exposure, sometimes add a lamp;
the first scene of each has a hand over the grooves, the second a bumped board. Measure them with
``python ../shared/tools/evaluate.py OUT_FOLDER --cmd .venv/bin/beachscore`` or
``scripts/reliability.py``. Seeds used for tests and tuning should differ from those measured as unseen.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tests.synthetic.strand_setups import write_setup  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--setups", type=int, default=4)
    ap.add_argument("--first-seed", type=int, default=100)
    ap.add_argument("--scenes", type=int, default=6)
    a = ap.parse_args(argv)
    for k in range(a.setups):
        seed = a.first_seed + k
        write_setup(os.path.join(a.out, f"setup{k}"), seed, n_scenes=a.scenes)
        print(f"{a.out}/setup{k}: seed {seed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
