#!/usr/bin/env python3
"""Write synthetic Plażing set-ups in the samples' layout, for ``evaluate.py`` and ``reliability.py``.

    .venv/bin/python scripts/synthetic_plazing_setups.py OUT_DIR [--seed 7] [--scenes 6]

OUT_DIR gets ``profile.json`` and one ``setupN/`` folder per camera/light set-up below, each with
its calibration shot (``calib.jpg``, ``calibration.json``, ``calib.setup.json``) and scenes
(``scene_XX.jpg`` + ``.setup.json`` + ``.truth.json``; the truth's areas come from the rules
engine, ``occluded`` / ``bumped`` say which scenes have a hand over the board or a bumped board).
Every position is dealt at random (:func:`tests.synthetic.plazing.random_layout`); the set-ups:

- ``setup0`` the camera 30 % higher than the samples' (cells fewer pixels wide);
- ``setup1`` calibrated in neutral light, scenes under a warm lamp to one side with a hot spot (the
  camera's exposure a little shorter, as auto-exposure would set it);
- ``setup2`` a tilted camera (keystone) with a vignette, a cool light in the scenes;
- ``setup3`` a 12 MP camera (4000 × 3000 px).

The scenes' light also drifts a little from shot to shot. These are unseen set-ups for the
reader: nothing in it is tuned on them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import scoring  # noqa: E402
from tests.synthetic.plazing import (COOL, NEUTRAL, WARM, calibration_layout, calibration_samples,  # noqa: E402
                                      draw_top, photograph, plazing_profile, random_layout, state_of)

PLAYERS = ["red", "yellow", "green", "blue"]
SAMPLE_PX_PER_MM = 2.7  #: the samples' board in their 1920 px photos
SETUPS = [
    {"size_px": (1920, 1080), "board_px_per_mm": SAMPLE_PX_PER_MM / 1.3, "calib": {}, "scene": {}},
    {"size_px": (1920, 1080), "board_px_per_mm": SAMPLE_PX_PER_MM, "calib": {},
     "scene": {"gain": tuple(0.85 * g for g in WARM), "light_ramp": (0.75, 1.05), "lamp": (0.7, 0.3, 0.25, 0.35)}},
    {"size_px": (1920, 1080), "board_px_per_mm": SAMPLE_PX_PER_MM * 0.95, "keystone": 0.08,
     "calib": {"vignette": 0.25}, "scene": {"vignette": 0.35, "gain": COOL}},
    {"size_px": (4000, 3000), "board_px_per_mm": SAMPLE_PX_PER_MM * 4000 / 1920 * 0.9, "calib": {}, "scene": {},
     "blur_sigma": 1.2},
]


def _truth_areas(state: dict, setup: dict) -> list:
    return [{"cells": a["cells"], "closed": a["closed"], "owner": a["owner"]}
            for a in scoring.score(state, setup)["areas"]]


def _write_jpeg(path: str, image: np.ndarray) -> None:
    cv2.imwrite(path, image, [cv2.IMWRITE_JPEG_QUALITY, 90])


def write_setup(out: str, k: int, cam: dict, rng: np.random.Generator, n_scenes: int, profile: dict) -> None:
    folder = os.path.join(out, f"setup{k}")
    os.makedirs(folder, exist_ok=True)
    base = {"size_px": cam["size_px"], "board_px_per_mm": cam["board_px_per_mm"], "keystone": cam.get("keystone", 0.03),
            "blur_sigma": cam.get("blur_sigma", 0.6)}
    lay = calibration_layout(profile, rng, PLAYERS)
    top = draw_top(profile, lay["pieces"], lay["tokens"], lay["terrain"], lay["spots"], marks=lay["marks"],
                   seed=int(rng.integers(1 << 30)))
    image, corners = photograph(top, 6.0, profile["board_mm"], seed=int(rng.integers(1 << 30)), **base, **cam["calib"])
    _write_jpeg(os.path.join(folder, "calib.jpg"), image)
    doc = {"game": "plazing", "profile": "../profile.json", "image": "calib.jpg", "corners_px": corners.tolist(),
           "samples": calibration_samples(profile, lay["pieces"], lay["tokens"], sand=lay["sand"])}
    json.dump(doc, open(os.path.join(folder, "calibration.json"), "w"), indent=1)
    json.dump({"terrain": lay["terrain"]}, open(os.path.join(folder, "calib.setup.json"), "w"), indent=1)
    for i in range(n_scenes):
        players = PLAYERS[:int(rng.integers(2, 5))]
        lay = random_layout(profile, rng, players)
        bumped = i == n_scenes - 2
        occluded = i == n_scenes - 1
        light = dict(cam["scene"])
        drift = rng.uniform(0.93, 1.07)
        light["gain"] = tuple(np.asarray(light.get("gain", NEUTRAL)) * drift * rng.uniform(0.97, 1.03, 3))
        photo = dict(base, **light)
        if bumped:
            photo["shift_mm"] = tuple(rng.uniform(-10, 10, 2))
            photo["rotation_deg"] = float(rng.uniform(-1.0, 1.0))
        hand = None
        if occluded:
            w, h = profile["board_mm"]
            hand = ((float(rng.uniform(0.3, 0.7) * w), float(rng.uniform(0.35, 0.65) * h)), (110.0, 75.0),
                    float(rng.uniform(0, 180)))
        top = draw_top(profile, lay["pieces"], lay["tokens"], lay["terrain"], lay["spots"], marks=lay["marks"],
                       hand=hand, seed=int(rng.integers(1 << 30)))
        image, corners = photograph(top, 6.0, profile["board_mm"], seed=int(rng.integers(1 << 30)), **photo)
        stem = os.path.join(folder, f"scene_{i:02d}")
        _write_jpeg(stem + ".jpg", image)
        setup = {"terrain": lay["terrain"], "players": players,
                 "weather": ["sun", "rain", "wind-N", "wind-S", "wind-E", "wind-W"][int(rng.integers(6))]}
        json.dump(setup, open(stem + ".setup.json", "w"), indent=1)
        state = state_of(profile, lay["pieces"], lay["tokens"])
        truth = {"state": state, "areas": _truth_areas(state, setup), "corners_px": corners.tolist(),
                 "bumped": bumped, "occluded": occluded}
        json.dump(truth, open(stem + ".truth.json", "w"), indent=1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--scenes", type=int, default=6)
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    profile = plazing_profile(rows=12, cols=20)
    json.dump(profile, open(os.path.join(a.out, "profile.json"), "w"), indent=1)
    rng = np.random.default_rng(a.seed)
    for k, cam in enumerate(SETUPS):
        write_setup(a.out, k, cam, rng, a.scenes, profile)
    print(f"wrote {len(SETUPS)} set-ups of {a.scenes} scenes to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
