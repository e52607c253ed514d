#!/usr/bin/env python3
"""Write a copy of a samples folder whose scenes were shot in another light than the calibration.

    .venv/bin/python scripts/relight_samples.py ../shared/samples/plazing /tmp/plazing-3000k --kelvin 3000
    .venv/bin/python scripts/relight_samples.py ../shared/samples/plazing /tmp/plazing-vignette --vignette 0.35
    python ../shared/tools/evaluate.py /tmp/plazing-3000k --cmd .venv/bin/beachscore

Every ``scene_*`` photo is relit in linear light (sRGB decoded, multiplied, encoded again); the
calibration shots (``calib.*``, ``empty.*``) are copied unchanged, as a user who calibrated once
and plays on in another light would have them. The changes, each optional:

- ``--kelvin T``: per-channel gains of a Planckian light of ``T`` K against one of
  ``--reference-kelvin`` (default 3900 K, the mired midpoint of 3000 K and 5600 K, so a tungsten
  lamp and daylight are shifts of the same size either way), with the camera's white balance left
  where the calibration had it. The chromaticity of the light comes from Kim et al.'s cubic
  spline of the Planckian locus (CIE xy), through XYZ to linear sRGB; the gains are normalised
  to keep green (≈ the brightness) unchanged, as auto-exposure would;
- ``--vignette V``: a lens's fall-off ``1 − V·r²`` (r = 1 at the photo's corners);
- ``--gain G`` (or ``--exposure G``): the exposure times ``G``;
- ``--blur S``: *every* photo, the calibration's too, softened by a Gaussian of σ = ``S`` px (a
  softer lens or focus, the same for all shots of one camera).

The output folder is for measuring only: the shared photos are never copied into the project.
"""
from __future__ import annotations

import argparse
import os
import shutil

import cv2
import numpy as np

#: XYZ → linear sRGB (IEC 61966-2-1), rows R, G, B.
XYZ_TO_RGB = np.array([[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]])


def planckian_xy(kelvin: float) -> tuple[float, float]:
    """CIE 1931 xy of a black body at ``kelvin`` (1667–25000 K; Kim et al. 2002, US patent 7024034)."""
    t = float(kelvin)
    if t <= 4000:
        x = -0.2661239e9 / t ** 3 - 0.2343589e6 / t ** 2 + 0.8776956e3 / t + 0.179910
    else:
        x = -3.0258469e9 / t ** 3 + 2.1070379e6 / t ** 2 + 0.2226347e3 / t + 0.240390
    if t <= 2222:
        y = -1.1063814 * x ** 3 - 1.34811020 * x ** 2 + 2.18555832 * x - 0.20219683
    elif t <= 4000:
        y = -0.9549476 * x ** 3 - 1.37418593 * x ** 2 + 2.09137015 * x - 0.16748867
    else:
        y = 3.0817580 * x ** 3 - 5.87338670 * x ** 2 + 3.75112997 * x - 0.37001483
    return x, y


def light_rgb(kelvin: float) -> np.ndarray:
    """Linear sRGB (R, G, B) of a black body's light at ``kelvin``, luminance Y = 1."""
    x, y = planckian_xy(kelvin)
    xyz = np.array([x / y, 1.0, (1.0 - x - y) / y])
    return XYZ_TO_RGB @ xyz


def gains_bgr(kelvin: float, reference: float) -> np.ndarray:
    """Per-channel gains (B, G, R) of light ``kelvin`` against ``reference``, green kept at 1."""
    rgb = light_rgb(kelvin) / light_rgb(reference)
    rgb = rgb / rgb[1]
    return rgb[::-1].astype(np.float32)


def _to_linear(img: np.ndarray) -> np.ndarray:
    c = img.astype(np.float32) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _to_srgb(lin: np.ndarray) -> np.ndarray:
    lin = np.clip(lin, 0.0, 1.0)
    c = np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)
    return np.clip(np.round(c * 255.0), 0, 255).astype(np.uint8)


def relight(img: np.ndarray, gains: np.ndarray, vignette: float) -> np.ndarray:
    """``img`` (BGR uint8) in linear light times ``gains`` (B, G, R) and the fall-off ``1 − vignette·r²``."""
    lin = _to_linear(img) * gains
    if vignette:
        h, w = img.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - (w - 1) / 2) / (w / 2)) ** 2 + ((yy - (h - 1) / 2) / (h / 2)) ** 2
        lin *= (1.0 - vignette * r2 / 2.0)[..., None]  # r = 1 at the corners: r² = 2 there in these units
    return _to_srgb(lin)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--kelvin", type=float, default=None)
    ap.add_argument("--reference-kelvin", type=float, default=3900.0)
    ap.add_argument("--vignette", type=float, default=0.0)
    ap.add_argument("--gain", "--exposure", type=float, default=1.0)
    ap.add_argument("--blur", type=float, default=0.0, help="Gaussian σ (px) softening every photo, calibration too")
    ap.add_argument("--quality", type=int, default=95, help="JPEG quality of the written photos")
    a = ap.parse_args()
    gains = gains_bgr(a.kelvin, a.reference_kelvin) if a.kelvin else np.ones(3, np.float32)
    gains = gains * np.float32(a.gain)
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
                    img = relight(img, gains, a.vignette)
                params = [cv2.IMWRITE_JPEG_QUALITY, a.quality] if dst.lower().endswith((".jpg", ".jpeg")) else []
                cv2.imwrite(dst, img, params)
            else:
                shutil.copyfile(src, dst)
    print(f"wrote {a.dst} (gains B {gains[0]:.3f} G {gains[1]:.3f} R {gains[2]:.3f}, vignette {a.vignette:g}, "
          f"every photo blurred by σ {a.blur:g} px)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
