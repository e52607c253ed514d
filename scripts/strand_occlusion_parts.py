#!/usr/bin/env python3
"""How large each scene's occlusion patch is, from the foreground and from the weak colour change.

    .venv/bin/python scripts/strand_occlusion_parts.py FOLDER [FOLDER ...]

Each FOLDER holds ``setupN/`` folders with ``calibration.json`` and ``scene_XX.jpg`` +
``scene_XX.truth.json`` (rendered development tables). Every scene is read; one line per scene
gives whether a hand lies over it (the truth's ``occluded``), the reading's outcome (``read`` or the
refusal's code) and the largest patch of the occlusion check as a multiple of the area that
refuses (``occluder_min_shells`` shells after the erosion): all of it, its foreground part, its
weak-change part, and the weak-change part kept where a whole shell fits (``shell_thick``).
"""

from __future__ import annotations

import os
import sys


sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from strand_scenes import print_scan_rows  # noqa: E402
import vision.strand_unter.occlusion as occlusion  # noqa: E402
import vision.strand_unter.reading as reading  # noqa: E402


def _capture() -> dict:
    """Wrap the foreground and the patch check so that the patch's parts are measured at each scan."""
    seen: dict = {}
    foreground, check_patch = reading.foreground, reading.check_patch

    def fg(*a, **k):
        out = foreground(*a, **k)
        seen["fg"] = out[0]
        return out

    def patch(unexplained, gray, A, light, cfg=reading.READING):
        one = A.one_shell_px2
        refuse = cfg.occluder_min_shells * one / A.board_px
        weak = unexplained & ~seen["fg"]
        seen["sizes"] = [occlusion.occluder_fraction(m, A, cfg)[0] / refuse
                         for m in (unexplained, unexplained & seen["fg"], weak, occlusion.shell_thick(weak, A))]
        return check_patch(unexplained, gray, A, light, cfg)

    reading.foreground, reading.check_patch = fg, patch
    return seen


def main() -> None:
    print_scan_rows(__doc__.splitlines()[0], _capture, "all foreground weak weak_shell_thick",
                    lambda seen: " ".join(f"{v:.2f}" for v in seen.get("sizes", [])) or "- - - -")


if __name__ == "__main__":
    main()
