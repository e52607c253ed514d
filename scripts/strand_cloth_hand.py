#!/usr/bin/env python3
"""How thick and large the not-cloth-coloured patches inside the sea cloth's region are, per scene.

    .venv/bin/python scripts/strand_cloth_hand.py FOLDER [FOLDER ...]

Each FOLDER holds ``setupN/`` folders with ``calibration.json`` and ``scene_XX.jpg`` +
``scene_XX.truth.json`` (rendered development tables). Every scene is read; one line per scene
gives whether a hand lies over it (the truth's ``occluded``), the reading's outcome (``read`` or the
refusal's code) and the cloth check's figure (:func:`vision.strand_unter.occlusion.cloth_patch`):
the largest patch inside the cloth's region over the grooves, of no cloth class, where a disc of
the calibration's shell radius fits, as a multiple of the area that refuses
(``occluder_min_shells`` shells), with its thickness (shell radii) and centre (board mm), the
thickest not-cloth spot before the opening (shell radii: below 1 the check sees nothing), the
share of the patch classed as sand, and the sea front read.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from strand_scenes import print_scan_rows  # noqa: E402
import vision.strand_unter.occlusion as occlusion  # noqa: E402
import vision.strand_unter.reading as reading  # noqa: E402


def _capture() -> dict:
    """Wrap the sea finder and the unexplained-pixels stage so that the cloth figure is measured
    at each scan (before any refusal of the later stages)."""
    seen: dict = {}
    find_sea, judge = reading.find_sea, reading._judge_unexplained

    def sea(*a, **k):
        out = find_sea(*a, **k)
        seen["sea"] = out
        return out

    def unexplained(Bc, cls, gray, fg, owned, parts, beyond, A, *rest, **k):
        s = seen["sea"]
        fig = occlusion.cloth_patch(cls, s.mask, A)
        patch = occlusion.shell_thick(s.mask & A.on_grooves & (cls != A.sea), A)
        sand = float((cls[patch] == A.sand).mean()) if patch.any() else 0.0
        seen["fig"] = (fig[0], fig[1], *(v / A.ppm for v in (fig[2] or (0.0, 0.0))), fig[3], sand, s.front)
        return judge(Bc, cls, gray, fg, owned, parts, beyond, A, *rest, **k)

    reading.find_sea, reading._judge_unexplained = sea, unexplained
    return seen


def _figures(seen: dict) -> str:
    fig = seen.get("fig")
    return f"{fig[0]:.3f} {fig[1]:.2f} {fig[2]:.0f} {fig[3]:.0f} {fig[4]:.2f} {fig[5]:.2f} {fig[6]}" if fig else "- - - - - - -"


def main() -> None:
    print_scan_rows(__doc__.splitlines()[0], _capture,
                    "figure thickness_radii x_mm y_mm raw_thickness_radii sand_share sea_front", _figures)


if __name__ == "__main__":
    main()
