#!/usr/bin/env python3
"""Per Strand unter scan: the foreground's noise sample and the thresholds it sets.

    .venv/bin/python scripts/strand_fg_noise.py FOLDER [FOLDER ...]

Each FOLDER holds ``setupN/`` folders with ``calibration.json`` and ``scene_XX.jpg`` +
``scene_XX.truth.json`` (rendered development tables). Every scene is read; one line per scene
gives the reading's outcome, the size of the sample whose change sets the foreground's noise (the
grooves beyond the cloth's stick band, every 4th pixel as :func:`vision.strand_unter.blobs.foreground`
takes it), the percentiles 10/25/50/75/90 of its chroma change, both noise figures (lower quartile
/ 0.319) and the brightness and chroma thresholds they give (``fg_noise_k`` × noise, at least
``fg_brightness`` / ``fg_chroma``). The lower quartile is bare sand only while pieces and their blur
cover less than about half of the sample: a sample of one crowded groove (the sea cloth far forward)
raises the thresholds and pale shells fall below them (docs/tuning.md, "Blind batch 25's wrongs").
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from vision.strand_unter import colour, reading, stats  # noqa: E402
from vision.strand_unter.config import READING  # noqa: E402


def noise_figures(abs_p: np.ndarray, chroma: np.ndarray, sample: np.ndarray, cfg=READING) -> dict:
    """The foreground's noise figures as :func:`vision.strand_unter.blobs.foreground` computes them.

    Args:
        abs_p, chroma: the change magnitudes (:func:`vision.strand_unter.colour.change_magnitudes`), (H, W).
        sample: bool (H, W), the pixels whose change sets the noise level.
    Returns:
        ``{"n": sampled pixels, "chroma_pct": [p10, p25, p50, p75, p90], "noise_p", "noise_c", "t_p",
        "t_c"}`` (the thresholds before the whole-grey-level floor the comparison takes).
    """
    v = sample[::4, ::4]
    sub_p, sub_c = abs_p[::4, ::4][v], chroma[::4, ::4][v]
    noise_p = stats.percentile(sub_p, 25) / 0.319 if sub_p.size else 0.0
    noise_c = stats.percentile(sub_c, 25) / 0.319 if sub_c.size else 0.0
    pct = [float(np.percentile(sub_c, q)) for q in (10, 25, 50, 75, 90)] if sub_c.size else []
    return {"n": int(sub_c.size), "chroma_pct": pct, "noise_p": float(noise_p), "noise_c": float(noise_c),
            "t_p": max(cfg.fg_brightness, cfg.fg_noise_k * noise_p),
            "t_c": max(cfg.fg_chroma, cfg.fg_noise_k * noise_c)}


def _capture() -> dict:
    """Wrap the reader's foreground to record its noise figures at each scan."""
    seen: dict = {}
    foreground = reading.foreground

    def fg(now, empty, basis, *, valid=None, sample=None, cfg=READING):
        abs_p, chroma = colour.change_magnitudes(now, empty, basis)
        seen["fig"] = noise_figures(abs_p, chroma, valid if sample is None else sample, cfg)
        return foreground(now, empty, basis, valid=valid, sample=sample, cfg=cfg)

    reading.foreground = fg
    return seen


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    args = ap.parse_args(argv)
    from strand_scenes import scan_outcomes     # (beside this script: imported when run, not when tested)
    seen = _capture()
    for img, hand, outcome in scan_outcomes(args.folders, seen):
        f = seen.get("fig")
        name = os.path.relpath(img, os.path.dirname(os.path.dirname(os.path.dirname(img))))
        if f is None:
            print(f"{name} {outcome} (no foreground)")
            continue
        pct = "/".join(f"{x:.0f}" for x in f["chroma_pct"])
        print(f"{name} {outcome}{' hand' if hand else ''} sample {f['n']} chroma pct {pct} noise "
              f"{f['noise_p']:.2f}/{f['noise_c']:.2f} thresholds {f['t_p']:.1f}/{f['t_c']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
