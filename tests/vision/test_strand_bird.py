"""The sandpiper's candidates: the bird with a shell touching it, and the bird beside a castle."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from vision.strand_unter.bird import Bird, features, find_bird, touching_shell_colour
from vision.strand_unter.blobs import find_blobs

SAND, GRAY, WHITE, BLACK = 0, 1, 2, 3          # pixel classes of the scene
K = 4
BGR = {SAND: (150, 190, 218), GRAY: (95, 95, 95), WHITE: (235, 235, 235), BLACK: (35, 35, 35)}


def _draw(img, cls, what, x, y):
    """Draw a bird (a gray body, a white head) or a black shell centred at (x, y) px."""
    parts = [(BLACK, (x, y), (8, 8))] if what == "shell" else [(GRAY, (x, y), (13, 8)), (WHITE, (x + 5, y), (5, 4))]
    for c, centre, axes in parts:
        m = np.zeros(cls.shape, np.uint8)
        cv2.ellipse(m, centre, axes, 0, 0, 360, 1, -1)
        img[m > 0], cls[m > 0] = BGR[c], c


def _lab(c):
    return cv2.cvtColor(np.uint8([[BGR[c]]]), cv2.COLOR_BGR2Lab).reshape(3).astype(float).tolist()


def _assets(bird_px):
    """An Assets stand-in: the calibration's bird is ``bird_px`` (features, composition)."""
    img, cls = bird_px
    blob = cls != SAND
    hist = np.bincount(cls[blob], minlength=K + 1) / blob.sum()
    classes = {f"shell/{c}": {"mean": _lab(k), "cov": np.diag([20.0, 4.0, 4.0]).tolist()}
               for c, k in (("gray", GRAY), ("white", WHITE), ("black", BLACK))}
    model = {"sandpiper": {"features": features(img[blob]).tolist(), "composition": hist.tolist(),
                           "offset_px": [0.0, 0.0]},
             "shell_area_px2": {"gray": 200.0, "white": 200.0, "black": 200.0}, "classes": classes,
             "shell_l_std": {"gray": 1.0, "white": 1.0, "black": 1.0}}
    return SimpleNamespace(model=model, shell_colours=["gray", "white", "black"], shell_k=[GRAY, WHITE, BLACK],
                           where=lambda x, y: f"{x:.0f}, {y:.0f}",
                           K=K, ppm=1.0, extent={}, groove_at=lambda x, y: 1 + int(y // 40), one_shell_px2=200.0)


def _scene(*pieces, h=120, w=200):
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = BGR[SAND]
    cls = np.full((h, w), SAND, np.uint8)
    for what, x, y in pieces:
        _draw(img, cls, what, x, y)
    return img, cls


def test_a_bird_with_a_black_shell_touching_it_is_the_bird_and_the_shell_is_left_to_the_shells():
    A = _assets(_scene(("bird", 60, 60)))
    img, cls = _scene(("bird", 80, 60), ("shell", 100, 60))
    blobs = find_blobs(cls != SAND, cls, K)
    assert blobs.n == 2                                   # one blob: the bird and the shell touch
    owned = np.zeros(cls.shape, bool)
    bird = find_bird(blobs, owned, img, A, 0.0, classes=cls)
    assert bird.groove == 2 and bird.posterior > 0.9
    assert not bird.mask[60, 102] and bird.mask[60, 80]   # the shell's pixels are not the bird's
    alone = find_bird(blobs, owned, img, A, 0.0)          # without the classes: the blob as one look
    assert alone.groove is None


def test_the_part_a_castle_leaves_of_its_blob_can_be_the_bird():
    A = _assets(_scene(("bird", 60, 60)))
    img, cls = _scene(("bird", 80, 60))
    img[50:71, 94:120], cls[50:71, 94:120] = (40, 40, 200), BLACK    # a castle touching the bird's head
    owned = np.zeros(cls.shape, bool)
    owned[50:71, 94:120] = True
    blobs = find_blobs(cls != SAND, cls, K)
    assert blobs.n == 2
    assert find_bird(blobs, owned, img, A, 0.0).groove is None
    bird = find_bird(blobs, owned, img, A, 0.0, classes=cls)
    assert bird.groove == 2 and not bird.mask[60, 100]


def test_the_shell_partly_under_the_bird_is_named_by_the_blobs_excess_pixels():
    """A black shell half under the bird: the blob holds more black pixels than the calibration's
    bird by about half a shell, and no other class beyond the bird's own share."""
    A = _assets(_scene(("bird", 60, 60)))
    img, cls = _scene(("shell", 96, 60), ("bird", 80, 60))
    colour, share = touching_shell_colour(Bird(2, mask=cls != SAND), cls, A)
    assert colour == "black" and share > 0.9
    _, alone = _scene(("bird", 80, 60))
    assert touching_shell_colour(Bird(2, mask=alone != SAND), alone, A) is None
