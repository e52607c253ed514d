#!/usr/bin/env python3
"""Write a copy of a samples folder whose scenes were shot under another light than the calibration.

    .venv/bin/python scripts/relight_samples.py ../shared/samples/strand-unter /tmp/su-3000k --kelvin 3000
    .venv/bin/python scripts/relight_samples.py ../shared/samples/strand-unter /tmp/su-vig --vignette 0.35
    .venv/bin/python scripts/relight_samples.py ../shared/samples/strand-unter /tmp/su-soft --blur 0.5
    python ../shared/tools/evaluate.py /tmp/su-3000k --cmd .venv/bin/beachscore

Only the scenes (``scene_*.jpg``) change; the calibration and empty-board shots keep the light the
user calibrated under, as at a table where the room light changes later. Each scene is taken to
linear light (sRGB as a 2.2 power), multiplied per channel by the colour of a blackbody at
``--kelvin`` against one at ``--white-balance`` (the camera's fixed white balance; the blackbody
fit of :func:`vision.synthetic_strand.kelvin_rgb`), by ``--exposure``, and by a vignette
``1 − v·r²`` (r = distance from the photo's centre over the half diagonal), then written back
(JPEG quality ``--quality``). ``--blur`` softens *every* photo, the calibration's too, by a Gaussian
of that σ (px): a softer lens or focus, the same for all shots of one camera. Everything else (profile, calibration, truth) is copied unchanged.
The output folder is for measuring only (the shared photos are never copied into the project).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from vision.synthetic_strand import kelvin_rgb  # noqa: E402


def relight(image: np.ndarray, kelvin: float, white_balance: float, exposure: float, vignette: float) -> np.ndarray:
    """The BGR uint8 (H, W, 3) photo under another light (see the module docstring), BGR uint8."""
    h, w = image.shape[:2]
    lin = (image.astype(np.float32) / 255.0) ** 2.2
    gain = (kelvin_rgb(kelvin) / kelvin_rgb(white_balance))[::-1].astype(np.float32) * np.float32(exposure)
    yy, xx = np.ogrid[0:h, 0:w]
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2).astype(np.float32) / np.float32((w / 2) ** 2 + (h / 2) ** 2)
    out = lin * gain[None, None, :] * (1.0 - np.float32(vignette) * r2)[..., None]
    return np.clip(255.0 * np.clip(out, 0, 1) ** (1 / 2.2) + 0.5, 0, 255).astype(np.uint8)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--kelvin", type=float, default=4500.0, help="colour temperature of the scenes' light")
    ap.add_argument("--white-balance", type=float, default=4500.0, help="the camera's fixed white balance (K)")
    ap.add_argument("--exposure", type=float, default=1.0)
    ap.add_argument("--vignette", type=float, default=0.0, help="darkening at the corners (0 none, 0.5 strong)")
    ap.add_argument("--blur", type=float, default=0.0, help="Gaussian σ (px) softening every photo, calibration too")
    ap.add_argument("--quality", type=int, default=95, help="JPEG quality of the written photos")
    a = ap.parse_args()
    if os.path.exists(a.dst):
        shutil.rmtree(a.dst)
    for root, _, files in os.walk(a.src):
        out_root = os.path.join(a.dst, os.path.relpath(root, a.src))
        os.makedirs(out_root, exist_ok=True)
        for name in sorted(files):
            src, dst = os.path.join(root, name), os.path.join(out_root, name)
            scene = name.startswith("scene_")
            if name.lower().endswith((".jpg", ".jpeg", ".png")) and (scene or a.blur > 0):
                img = cv2.imread(src, cv2.IMREAD_COLOR)
                if a.blur > 0:
                    img = cv2.GaussianBlur(img, (0, 0), a.blur)
                if scene:
                    img = relight(img, a.kelvin, a.white_balance, a.exposure, a.vignette)
                params = [cv2.IMWRITE_JPEG_QUALITY, a.quality] if dst.lower().endswith((".jpg", ".jpeg")) else []
                cv2.imwrite(dst, img, params)
            else:
                shutil.copyfile(src, dst)
    print(f"wrote {a.dst} (scenes at {a.kelvin:g} K against {a.white_balance:g} K, exposure {a.exposure:g}, "
          f"vignette {a.vignette:g}; every photo blurred by σ {a.blur:g} px)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
