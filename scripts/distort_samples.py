#!/usr/bin/env python3
"""Write a copy of a samples folder as a lens with radial distortion would have shot it.

    .venv/bin/python scripts/distort_samples.py ../shared/samples/plazing /tmp/plazing-k1 --k1 -0.12
    python ../shared/tools/evaluate.py /tmp/plazing-k1 --cmd .venv/bin/beachscore

Every photo (``calib.jpg``, ``empty.jpg``, ``scene_*.jpg`` …) is remapped through the distortion
(OpenCV's radial model, ``f`` = image width, centre = image centre, the convention of
:mod:`vision.lens.model`): each output pixel takes the pinhole photo's colour where the undistorted ray
lands (bilinear, ``cv2.remap``). Each ``calibration.json``'s ``corners_px`` are mapped through the
same distortion (``cv2.projectPoints``), as a user clicking the corners in the distorted photo
would give them; everything else (profile, truth, setups) is copied unchanged. The output folder
is for measuring only (the shared photos are never copied into the project).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from vision.lens.model import Lens  # noqa: E402


def distort_photo(image: np.ndarray, lens: Lens) -> np.ndarray:
    """The pinhole photo (BGR uint8) as seen through ``lens`` (its ``scale`` must be 1)."""
    return lens.distort_image(image)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--k1", type=float, default=-0.12)
    ap.add_argument("--k2", type=float, default=0.0)
    ap.add_argument("--quality", type=int, default=95, help="JPEG quality of the written photos")
    a = ap.parse_args()
    if os.path.exists(a.dst):
        shutil.rmtree(a.dst)
    lenses: dict[tuple[int, int], Lens] = {}
    for root, _, files in os.walk(a.src):
        out_root = os.path.join(a.dst, os.path.relpath(root, a.src))
        os.makedirs(out_root, exist_ok=True)
        for name in sorted(files):
            src, dst = os.path.join(root, name), os.path.join(out_root, name)
            if name.lower().endswith((".jpg", ".jpeg", ".png")):
                img = cv2.imread(src, cv2.IMREAD_COLOR)
                size = (img.shape[1], img.shape[0])
                lens = lenses.setdefault(size, Lens(a.k1, a.k2, size=size, scale=1.0))
                params = [cv2.IMWRITE_JPEG_QUALITY, a.quality] if dst.lower().endswith((".jpg", ".jpeg")) else []
                cv2.imwrite(dst, distort_photo(img, lens), params)
            else:
                shutil.copyfile(src, dst)
    for path in glob.glob(os.path.join(a.dst, "**", "calibration.json"), recursive=True):
        doc = json.load(open(path))
        if doc.get("corners_px") is None:
            continue
        img = cv2.imread(os.path.join(os.path.dirname(path), doc["image"]), cv2.IMREAD_COLOR)
        size = (img.shape[1], img.shape[0])
        lens = lenses.setdefault(size, Lens(a.k1, a.k2, size=size, scale=1.0))
        doc["corners_px"] = np.round(lens.distort_points(np.array(doc["corners_px"], float), *size), 2).tolist()
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
    print(f"wrote {a.dst} (k1 {a.k1:+.3f}, k2 {a.k2:+.3f}; f = image width, centre = image centre)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
