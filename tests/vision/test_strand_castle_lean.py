"""A Strand unter castle far from the camera's nadir looks larger (the camera sees its walls and
towers' sides): its value is read from radii expected that much larger, so a value-2 castle at the
board's far corner is not read as a 3 with confidence."""

import json

import numpy as np

from vision.strand_unter import config
from vision.strand_unter.castle_values import calibration_view_tan, value_loglik, view_tan


def _model() -> dict:
    """A castle model of four values 0–3 (radii as a 1 px/mm calibration learns them) and a camera
    600 mm above a nadir at (200, 200) px, the calibration castles 100 mm from it."""
    vals = [0, 1, 2, 3]
    cm = {"values": vals,
          "platform_px": {"0": 6.7, "1": 7.8, "2": 8.9, "3": 9.9},
          "platform_scale": {"red": 1.0},
          "footprint_px": {"0": 8.6, "1": 10.0, "2": 11.4, "3": 12.6},
          "sigma_log": {"platform": 0.035, "footprint": 0.06},
          "towers_p": {str(v): [0.125] * 8 for v in vals}}
    castles = {"red": {str(v): {"centre_px": [300.0, 200.0], "offset_px": [0.0, 0.0]} for v in vals}}
    return {"ppm": 1.0, "castle_model": cm, "castles": castles,
            "parallax": {"camera_mm": 600.0, "nadir_px": [200.0, 200.0]}}


def test_view_tan_is_the_castles_view_angle_less_the_calibrations():
    m = _model()
    assert abs(calibration_view_tan(m) - 100.0 / 600.0) < 1e-9
    assert abs(view_tan(200.0, 500.0, (200.0, 200.0), m) - (300.0 - 100.0) / 600.0) < 1e-9
    assert view_tan(200.0, 500.0, None, m) == 0.0


def test_a_value_two_castle_far_from_the_nadir_is_not_read_as_a_three():
    """Its platform (9.45 px) and footprint (12 px) lie between the model's value-2 and value-3
    radii, a little nearer 3's; at a view tangent 0.25 above the calibration's (the 20281 red
    castle in groove 1 stood at 0.19) the lean makes them a 2's."""
    m = _model()
    cm = m["castle_model"]
    cfg = config.CASTLES
    assert cfg.lean_platform > 0.1 and cfg.lean_footprint >= 0.0
    t = 0.25
    f = {"platform_px": 9.45, "platform_se_px": 0.1, "footprint_px": 12.0, "footprint_se_px": 0.5, "towers": 3}
    flat = config.CastleConfig(lean_platform=0.0, lean_footprint=0.0)
    assert int(np.argmax(value_loglik(f, cm, "red", flat))) == 3
    assert int(np.argmax(value_loglik({**f, "view_tan": t}, cm, "red", cfg))) == 2
    assert int(np.argmax(value_loglik({**f, "view_tan": 0.0}, cm, "red", cfg))) == 3


def test_the_lean_is_fitted_and_names_its_tables():
    doc = json.loads(config.FITTED_FILE.read_text(encoding="utf-8"))["castle_lean"]
    assert (config.CASTLES.lean_platform, config.CASTLES.lean_footprint) == (doc["platform"], doc["footprint"])
    assert doc["script"] == "scripts/fit_strand_lean.py"
    held_out = ("20253", "20255", "20257", "20273", "20274", "20281", "20282", "20285")
    assert doc["fitted_on"] and not any(s in name for name in doc["fitted_on"] for s in held_out)
