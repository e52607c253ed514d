"""Plażing calibration: a labelled token lying on the only free cell of a printed mark is learned
as the token. It is no witness of the mark's ink: were it taken for the print, it would be
painted over with sand and its class learned as bare sand (a neutral marker then reads as the
nearest pale token, a shell)."""

import json

import cv2
import numpy as np

from beachscore import pipeline
from calibration import store
from tests.synthetic.plazing import Piece, calibration_samples, plazing_profile, scene
from vision.plazing.model import ReaderModel

PROFILE = plazing_profile()
P = Piece
PIECES = [P("red", "screen", [(0, 0), (0, 1), (0, 2)], "N"), P("yellow", "blanket", [(0, 5), (0, 6), (1, 5), (1, 6)]),
          P("yellow", "screen", [(1, 9), (2, 9), (3, 9)], "E"), P("red", "screen", [(2, 0), (3, 0), (4, 0)], "W"),
          P("red", "blanket", [(2, 2), (2, 3), (3, 2), (3, 3)]), P("yellow", "gear", [(3, 6)]),
          P("red", "gear", [(4, 4), (4, 5)]), P("yellow", "screen", [(5, 3), (5, 4), (5, 5)], "S")]
TOKENS = [("meeple/red", 1, 3), ("neutral", 1, 8), ("resource/amber", 4, 2), ("resource/shell", 4, 8),
          ("resource/pebble", 5, 0), ("meeple/yellow", 5, 8)]


def test_a_token_on_the_only_free_mark_cell_is_learned_as_the_token(tmp_path):
    terrain = ["." * PROFILE["grid"]["cols"] for _ in range(PROFILE["grid"]["rows"])]
    terrain[1] = terrain[1][:8] + "-" + terrain[1][9:]  # under the neutral marker, the only '-' cell
    sc = scene(PROFILE, PIECES, TOKENS, terrain=terrain, seed=1)
    cv2.imwrite(str(tmp_path / "calib.jpg"), sc.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (tmp_path / "calib.setup.json").write_text(json.dumps({"terrain": terrain}))
    (tmp_path / "profile.json").write_text(json.dumps(PROFILE))
    doc = {"game": "plazing", "profile": "profile.json", "image": "calib.jpg", "corners_px": sc.corners_px.tolist(),
           "samples": calibration_samples(PROFILE, PIECES, TOKENS, sand=[(2, 5)])}
    (tmp_path / "calibration.json").write_text(json.dumps(doc))
    pipeline.calibrate(str(tmp_path / "calibration.json"), str(tmp_path / "cal"))
    model = ReaderModel.of(store.load(str(tmp_path / "cal")))
    tokens = model.tokens
    assert "-" not in model.mark_inks
    neutral = tokens.protos[tokens.proto_class == tokens.classes.index("neutral")]
    sand = np.median(tokens.empties, axis=0)
    # the marker's own look (first prototype: the labelled sample) stands out of the sand by far
    # more than the bare cells' spread: in the base metric, as the reader measures
    d = neutral[0] - sand
    assert float(d @ tokens.precision @ d) > 25.0
