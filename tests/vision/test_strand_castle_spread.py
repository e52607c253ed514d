"""The castle value model learnt from the calibration's castles: their radii taken at the calibration
castles' mean view angle before pooling (a player whose castles stood far from the camera's nadir
gets no larger scale), and the size cues' spread prior per cue when one is configured."""

import numpy as np

from vision.strand_unter import config
from vision.strand_unter.castle_values import castle_model, castle_view_tans, spread_with_prior

PLAYERS = ("red", "blue", "yellow", "green")


def _castles(lean: float, far: str = "yellow") -> tuple[dict, dict]:
    """Calibration castles of four players × values 0–3 on one mould (platform 7 + 1.1 v px,
    footprint 8.2 + 1.3 v px), seen by a camera 600 mm above the nadir (200, 200) px: every castle
    100 mm from it but the ``far`` player's, 250 mm, which look larger by exp(lean · Δtan)."""
    cs, tans = {}, {}
    for p in PLAYERS:
        d = 250.0 if p == far else 100.0
        cs[p] = {}
        for v in range(4):
            grow = float(np.exp(lean * d / 600.0))
            cs[p][str(v)] = {"platform_px": (7.0 + 1.1 * v) * grow, "platform_se_px": 0.15,
                             "footprint_px": 8.2 + 1.3 * v, "footprint_se_px": 0.3, "towers": v + 1,
                             "core_px2": 150.0 + 60 * v, "spread_px": 5.0, "area_px2": 245.0 + 80 * v,
                             "radius_px": 10.0, "offset_px": [0.0, 0.0], "centre_px": [200.0 + d, 200.0]}
    tans = castle_view_tans(cs, {"camera_mm": 600.0, "nadir_px": [200.0, 200.0]}, 1.0)
    return cs, tans


def test_castle_view_tans_are_each_castles_distance_over_the_camera_height():
    cs, tans = _castles(0.0)
    assert abs(tans["yellow"]["2"] - 250.0 / 600.0) < 1e-12 and abs(tans["red"]["0"] - 100.0 / 600.0) < 1e-12
    assert castle_view_tans(cs, {"nadir_px": [0.0, 0.0]}, 1.0) is None


def test_a_player_whose_calibration_castles_stood_far_from_the_nadir_gets_no_larger_scale():
    """The yellow castles stood 150 mm further out: their platforms look exp(0.2 · 0.25) = 5 % larger.
    Pooled as seen, yellow's scale takes that 5 % in (and a yellow castle near the nadir would be read
    a little small); with the lean taken out at the calibration castles' mean tangent, every player's
    scale is the same and the residuals vanish."""
    cfg = config.CastleConfig(lean_platform=0.2, lean_footprint=0.0)
    cs, tans = _castles(0.2)
    raw = castle_model(cs, cfg)
    fair = castle_model(cs, cfg, view_tans=tans)
    assert raw["platform_scale"]["yellow"] / raw["platform_scale"]["red"] > 1.04
    assert abs(fair["platform_scale"]["yellow"] / fair["platform_scale"]["red"] - 1.0) < 1e-3
    assert fair["spread_ss"]["platform"][0] < 1e-9
    # the model's radii hold at the calibration castles' mean tangent, (3 · 100 + 250) / 4 / 600
    t_mean = (3 * 100.0 + 250.0) / 4 / 600.0
    assert abs(fair["platform_px"]["0"] * fair["platform_scale"]["red"] - 7.0 * np.exp(0.2 * t_mean)) < 0.01


def test_the_spread_prior_is_per_cue_when_fitted():
    cs, tans = _castles(0.0)
    cfg = config.CastleConfig(lean_platform=0.0, lean_footprint=0.0,
                              value_spread_prior={"platform": (0.02, 4.0), "footprint": (0.06, 2.0)})
    cm = castle_model(cs, cfg, view_tans=tans)
    assert cm["sigma_log"]["platform"] == spread_with_prior(cm["spread_ss"]["platform"][0], cm["spread_ss"]["platform"][1], 0.02, 4.0)
    assert abs(cm["sigma_log"]["platform"] - 0.02 * np.sqrt(4.0 / (9 + 4.0))) < 1e-3
    assert abs(cm["sigma_log"]["footprint"] - 0.06 * np.sqrt(2.0 / (12 + 2.0))) < 1e-3
    default = castle_model(cs, config.CastleConfig(lean_platform=0.0, lean_footprint=0.0, value_spread_prior=None),
                           view_tans=tans)
    assert abs(default["sigma_log"]["platform"] - config.CASTLES.size_prior_sigma
               * np.sqrt(config.CASTLES.size_prior_n / (9 + config.CASTLES.size_prior_n))) < 1e-3
