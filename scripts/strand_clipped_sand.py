#!/usr/bin/env python3
"""Per Strand unter scan: the sand's clipped channels and the light's gains with and without them.

    .venv/bin/python scripts/strand_clipped_sand.py FOLDER [FOLDER ...]

Each FOLDER holds ``setupN/`` folders with ``calibration.json`` and ``scene_XX.jpg`` (rendered
development tables). For every set-up it prints the share of the empty board's bare sand at the
clip level per channel (B, G, R); for every scene the table strip's gains, the sand's gains (the
clipped channels refined on the clipped sand, as before :mod:`vision.strand_unter.sand_top`),
the gains with the clipped channels following the light, the surround's colour error (Lab) under
each, and which the reader took (``vision.strand_unter.sand_top.refine``).
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beachscore import pipeline  # noqa: E402
from beachscore.errors import BadInputError, UnreadableBoardError  # noqa: E402
from strand_scenes import calibrated_scenes  # noqa: E402
import vision.strand_unter.lighting as lighting  # noqa: E402
from vision.strand_unter import sand_top  # noqa: E402
from vision.strand_unter.config import READING  # noqa: E402


def _capture() -> list:
    """Wrap ``refine`` (as the lighting calls it) to record its inputs' figures and its answer per call."""
    seen: list = []
    refine = sand_top.refine

    def wrapped(strip, now, ref, residual_of, cfg):
        g, top = refine(strip, now, ref, residual_of, cfg)
        clipped = (np.asarray(ref) >= cfg.clipped_level).mean(axis=0)
        fine, ctop = sand_top.fine_gains(now, ref, cfg.clipped_level, cfg.sand_top_max_fraction,
                                         strip if cfg.sand_top_brighter_only else None)
        ratio = np.asarray(ref, np.float64) / np.maximum(np.asarray(now, np.float64), 1)
        sand = np.asarray(strip) * np.median(ratio, axis=0)
        seen.append({"clipped": clipped, "strip": np.asarray(strip), "sand": sand, "light": np.asarray(strip) * fine,
                     "res_sand": residual_of(sand), "res_light": residual_of(np.asarray(strip) * fine) if ctop.any()
                     else None, "took": "light" if top.any() else "sand"})
        return g, top

    lighting.refine = wrapped
    return seen


def main() -> None:
    seen = _capture()
    fmt = lambda a: "(" + ", ".join(f"{v:.3f}" for v in a) + ")"  # noqa: E731
    for folder in sys.argv[1:]:
        last_setup = None
        for img, _state, cal in calibrated_scenes(folder):
            setup = os.path.basename(os.path.dirname(img))
            seen.clear()
            try:
                r = pipeline.scan_file(img, cal)
                conf = f"{r.confidence:.3f}"
            except (UnreadableBoardError, BadInputError) as e:
                conf = f"refused {getattr(e, 'reason', e)}"
            if not seen:
                print(f"{folder} {setup}/{os.path.basename(img)} {conf}: no bare sand")
                continue
            s = seen[-1]
            if setup != last_setup:
                print(f"{os.path.basename(folder)} {setup}: empty board's bare sand clipped (B, G, R) {fmt(s['clipped'])}")
                last_setup = setup
            res_light = "-" if s["res_light"] is None else f"{s['res_light']:.1f}"
            print(f"  {os.path.basename(img)} conf {conf} strip {fmt(s['strip'])} sand {fmt(s['sand'])} "
                  f"light {fmt(s['light'])} surround Lab {s['res_sand']:.1f} / {res_light} took {s['took']}")


if __name__ == "__main__":
    if READING.sand_top_max_fraction >= 1.0:
        print("(the clipped-sand refinement is off in ReadingConfig)")
    main()
