"""A blob of unexplained Plażing cells in a lamp's hot spot (every channel at the sensor's top beside
it) is refused as ``glare`` with advice about the light, not as a hand (``checks.in_hot_spot``)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from vision.errors import UnreadableBoardError
from vision.plazing.checks import in_hot_spot, light_named
from vision.plazing.config import QUALITY


def test_a_blob_beside_white_pixels_is_glare_and_one_far_from_them_is_not():
    white = np.zeros((6, 10), np.float32)
    white[2, 5] = 2 * QUALITY.white_share                # the lamp's spot whitens the sand at F3
    near = [(3, 5), (4, 5), (3, 6), (4, 6), (5, 6)]      # touching it
    far = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]
    assert in_hot_spot(near, white) and not in_hot_spot(far, white)
    assert not in_hot_spot(near, None)
    err = light_named(UnreadableBoardError("occluded", "something covers …"), SimpleNamespace(white=white), near)
    assert err.code == "glare" and "light" in err.message
    white[2, 5] = 0.5 * QUALITY.white_share               # a few white pixels: a pale token's glint
    assert not in_hot_spot(near, white)

