#!/usr/bin/env python3
"""Write a copy of a table folder as if the whole table stood in another light, calibration too.

    .venv/bin/python scripts/relight_tables.py ../shared/samples/plazing /tmp/plazing-warm-dim \
        --kelvin 2400 --exposure 0.3 --flare 0.3

Unlike ``relight_samples.py`` (scenes in another light than the calibration), every photo of
every set-up (``calib.*``, ``empty.*``, ``scene_*``) is relit the same way: a user who set the
table up under this light and calibrated there. In linear light (sRGB decoded, changed, encoded
again): the gains of a Planckian light of ``--kelvin`` against ``--reference-kelvin``
(``relight_samples.gains_bgr``), the exposure times ``--exposure``, and a veiling flare that
lifts every pixel by ``--flare`` times the frame's mean (stray light in the lens, a lamp's
haze: less contrast). Used by ``scripts/fit_confusable.py`` (development tables under lights
that defeat the readers) and by the light check's tests.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from relight_samples import _to_linear, _to_srgb, gains_bgr  # noqa: E402


def relit(img: np.ndarray, kelvin: float | None, exposure: float, flare: float,
          reference_kelvin: float = 3900.0) -> np.ndarray:
    """``img`` (BGR uint8) under another light: colour gains, exposure, veiling flare (BGR uint8)."""
    lin = _to_linear(img)
    if kelvin:
        lin = lin * gains_bgr(kelvin, reference_kelvin)
    lin = lin * np.float32(exposure)
    if flare:
        lin = lin * np.float32(1.0 - flare) + np.float32(flare) * lin.reshape(-1, 3).mean(axis=0)
    return _to_srgb(lin)


def relit_table(src: str, dst: str, kelvin: float | None, exposure: float, flare: float, quality: int = 95) -> str:
    """Copy the folder ``src`` to ``dst`` with every photo relit (:func:`relit`); returns ``dst``."""
    if os.path.exists(dst):
        shutil.rmtree(dst)
    for root, _, files in os.walk(src):
        out_root = os.path.join(dst, os.path.relpath(root, src))
        os.makedirs(out_root, exist_ok=True)
        for name in sorted(files):
            s, d = os.path.join(root, name), os.path.join(out_root, name)
            if name.lower().endswith((".jpg", ".jpeg", ".png")):
                img = relit(cv2.imread(s, cv2.IMREAD_COLOR), kelvin, exposure, flare)
                cv2.imwrite(d, img, [cv2.IMWRITE_JPEG_QUALITY, quality] if d.lower().endswith((".jpg", ".jpeg")) else [])
            else:
                shutil.copyfile(s, d)
    return dst


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--kelvin", type=float, default=None)
    ap.add_argument("--exposure", type=float, default=1.0)
    ap.add_argument("--flare", type=float, default=0.0)
    a = ap.parse_args()
    relit_table(a.src, a.dst, a.kelvin, a.exposure, a.flare)
    print(f"wrote {a.dst} (light {a.kelvin or 'unchanged'} K, exposure {a.exposure:g}, flare {a.flare:g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
