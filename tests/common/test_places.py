"""The labelled-place classifier on synthetic boards with changed lighting."""

import cv2
import numpy as np
import pytest

from vision.places import PlaceModel, classify_places, learn_places

PPM = 3
PITCH = 20.0
CLASSES = {"empty": None, "red": (40, 40, 200), "white": (235, 235, 240), "dark": (60, 50, 50)}


def _board(layout, gain=(1.0, 1.0, 1.0), offset_mm=(0.0, 0.0), noise=4, seed=0):
    rows, cols = len(layout), len(layout[0])
    img = np.full((int(rows * PITCH * PPM), int(cols * PITCH * PPM), 3), (150, 190, 215), np.float32)
    for r, row in enumerate(layout):
        for c, cls in enumerate(row):
            colour = CLASSES[cls]
            if colour:
                centre = (int(((c + 0.5) * PITCH + offset_mm[0]) * PPM), int(((r + 0.5) * PITCH + offset_mm[1]) * PPM))
                cv2.circle(img, centre, int(6 * PPM), colour, -1, cv2.LINE_AA)
    img *= np.array(gain, np.float32)
    img += np.random.default_rng(seed).normal(0, noise, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _centres(rows, cols):
    return [((c + 0.5) * PITCH, (r + 0.5) * PITCH) for r in range(rows) for c in range(cols)]


LAYOUT = [["empty", "red", "white", "dark", "empty"],
          ["white", "empty", "red", "empty", "dark"],
          ["dark", "white", "empty", "red", "empty"]]


def _learn():
    samples = [(cls, xy) for cls, xy in zip([c for row in LAYOUT for c in row], _centres(3, 5))]
    return learn_places(_board(LAYOUT), samples, PPM, patch_mm=16)


@pytest.mark.parametrize("gain", [(1, 1, 1), (0.7, 0.7, 0.7), (0.8, 0.95, 1.15)])
def test_places_read_right_under_other_lighting(gain):
    model = _learn()
    game = [list(reversed(row)) for row in LAYOUT]
    labels, conf, _ = classify_places(_board(game, gain=gain, seed=1), _centres(3, 5), model)
    assert labels == [c for row in game for c in row]
    assert conf.min() > 0.9


def test_tokens_a_few_mm_off_the_grid_are_still_read():
    model = _learn()
    labels, _, _ = classify_places(_board(LAYOUT, offset_mm=(2.5, -2.0), seed=2), _centres(3, 5), model)
    assert labels == [c for row in LAYOUT for c in row]


def test_unknown_appearance_is_far_from_every_class():
    model = _learn()
    odd = _board([["empty"]], seed=3)
    cv2.circle(odd, (30, 30), 18, (200, 60, 20), -1)  # a blue token never seen at calibration
    _, _, dist = classify_places(odd, _centres(1, 1), model)
    _, _, dist_ok = classify_places(_board([["red"]], seed=3), _centres(1, 1), model)
    assert dist[0] > 3 * dist_ok[0]


def test_model_round_trips_through_json():
    model = _learn()
    again = PlaceModel.from_json(model.to_json())
    a = classify_places(_board(LAYOUT, seed=4), _centres(3, 5), model)
    b = classify_places(_board(LAYOUT, seed=4), _centres(3, 5), again)
    assert a[0] == b[0]
    assert np.allclose(a[1], b[1], atol=1e-3)
