"""Unit tests of the Strand unter stages on seeded synthetic scenes (tests/synthetic/strand_top.py)."""
from __future__ import annotations

import json
from dataclasses import replace
import os

import cv2
import numpy as np
import pytest

from beachscore.errors import UnreadableBoardError
from tests.synthetic import strand_top as synthetic
from vision.image import quality
from vision.strand_unter import colour as colour
from vision.strand_unter.geometry import groove_map, warp_board
from vision.board.geometry import homography_from_corners
from vision.strand_unter import castle_cues, castle_values
from vision.strand_unter.config import CASTLES

PROFILE = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "strand-unter", "profile.json")))
BOARD = PROFILE["board_mm"]


def _board(sc):
    H = homography_from_corners(sc.corners_px, BOARD)
    return warp_board(sc.image, H, BOARD, 1.0)


def _lut():
    """Class table (sand, sea, pieces) from Gaussians around the synthetic colours, as calibrate builds it."""
    names = ["sand", "sea", "white", "gray", "brown", "black", "red", "blue"]
    rng = np.random.default_rng(1)
    models = [colour.gaussian(np.float32(synthetic.DEFAULT_LAB[n]) + rng.normal(0, 3, (60, 3)), (10.0, 2.5, 2.5))
              for n in names]
    return names, colour.build_lut(models, 5, 12.0)


@pytest.mark.parametrize("front", [2, 6, 9, 12])
@pytest.mark.parametrize("light", [(1, 1, 1), (1.15, 1.0, 0.8), (0.7, 0.7, 0.7)])
def test_sea_front_under_lighting(front, light):
    sc = synthetic.scene(PROFILE, seed=front, sea_front=front, light_bgr=light, noise_sigma=3)
    B = _board(sc)
    # gains from the bare sand strip at the land side, as the reader does
    gains = colour.channel_gains(B[340:350, 40:400], synthetic._bgr(synthetic.DEFAULT_LAB["sand"]))
    names, lut = _lut()
    sea = colour.cloth_region(colour.classify(colour.apply_gains(B, gains), lut, 5) == names.index("sea"), 61)
    core = groove_map(PROFILE, 1.0, shrink_mm=4)
    covered = [n for n in range(1, 12) if sea[core == n].mean() > 0.5]
    assert (min(covered) if covered else 12) == front


def test_blue_piece_under_the_cloth_is_not_sea():
    sc = synthetic.scene(PROFILE, seed=3, sea_front=8, castles=[("blue", 2, 200, 175 + 15)])
    names, lut = _lut()
    sea = colour.cloth_region(colour.classify(_board(sc), lut, 5) == names.index("sea"), 61)
    assert not sea[185:195, 195:205].any()


@pytest.mark.parametrize("light", [(0.9, 1.0, 1.2), (1.3, 1.2, 1.0)])
def test_gains_undo_lighting_colour(light):
    ref = synthetic.scene(PROFILE, seed=5, noise_sigma=1)
    now = synthetic.scene(PROFILE, seed=5, noise_sigma=1, light_bgr=light)
    g = colour.channel_gains(_board(now)[300:360, 40:400], np.median(_board(ref)[300:360, 40:400].reshape(-1, 3), 0))
    assert np.allclose(g * np.asarray(light), 1.0, atol=0.04)


@pytest.mark.parametrize("light,noise,blur", [((1, 1, 1), 2, 0), ((1.15, 1.0, 0.85), 4, 0), ((0.8, 0.8, 0.8), 2, 0.8)])
def test_lut_classifies_pieces_under_light_noise_blur(light, noise, blur):
    sc = synthetic.scene(PROFILE, seed=7, light_bgr=light, noise_sigma=noise, blur_sigma=blur,
                         shells=[("white", 100, 310), ("black", 200, 310), ("brown", 300, 310)],
                         castles=[("red", 2, 150, 250)])
    ref = synthetic.scene(PROFILE, seed=7, noise_sigma=0)
    B = _board(sc)
    gains = colour.channel_gains(B[340:350, 40:400], np.median(_board(ref)[340:350, 40:400].reshape(-1, 3), 0))
    names, lut = _lut()
    cls = colour.classify(colour.apply_gains(B, gains), lut, 5)
    for name, (x, y) in [("white", (100, 310)), ("black", (200, 310)), ("brown", (300, 310)), ("sand", (250, 200))]:
        patch = cls[y - 2:y + 3, x - 2:x + 3].ravel()
        assert np.bincount(patch, minlength=256).argmax() == names.index(name), name


def test_foreground_finds_pieces_not_shading():
    from vision.strand_unter.blobs import find_blobs, foreground

    empty = _board(synthetic.scene(PROFILE, seed=8, noise_sigma=2))
    now = _board(synthetic.scene(PROFILE, seed=8, noise_sigma=2, shells=[("white", 100, 310), ("gray", 250, 250)]))
    basis = colour.change_basis(np.median(empty[300:360, 40:400].reshape(-1, 3), 0))
    fg, noise = foreground(now, empty, basis)
    b = find_blobs(fg, np.zeros(fg.shape, np.uint8), 1)
    assert b.n - 1 == 2 and noise < 10


def test_too_dark_is_refused():
    sc = synthetic.scene(PROFILE, seed=1, light_bgr=(0.1, 0.1, 0.1))
    with pytest.raises(UnreadableBoardError) as e:
        quality.check(_board(sc))
    assert e.value.code == "too-dark"


def test_heavy_blur_is_refused_light_blur_is_not():
    ref = synthetic.scene(PROFILE, seed=2, noise_sigma=0, shells=[("black", 100, 310), ("white", 200, 310)])
    sharp = _board(ref)
    quality.check(_board(synthetic.scene(PROFILE, seed=2, noise_sigma=0, blur_sigma=0.8,
                                         shells=[("black", 100, 310), ("white", 200, 310)])), reference=sharp)
    with pytest.raises(UnreadableBoardError) as e:
        quality.check(cv2.GaussianBlur(sharp, (0, 0), 8), reference=sharp)
    assert e.value.code == "too-blurred"


def test_glare_is_refused():
    B = _board(synthetic.scene(PROFILE, seed=4))
    B[100:200, 100:300] = 255
    with pytest.raises(UnreadableBoardError) as e:
        quality.check(B, reference=_board(synthetic.scene(PROFILE, seed=4)))
    assert e.value.code == "glare"


def test_big_unknown_blob_is_occlusion():
    m = np.zeros((380, 440), bool)
    quality.check_occlusion(m)
    m[200:380, 0:120] = True
    with pytest.raises(UnreadableBoardError) as e:
        quality.check_occlusion(m)
    assert e.value.code == "occluded"


def _castle_cues(v: int, player_scale: float = 1.0, towers: int | None = None) -> dict:
    """Cues of a castle of value v as the calibration would measure them (platform 7 + 1.1 v px,
    footprint 8.2 + 1.3 v px), towers v + 1."""
    return {"platform_px": player_scale * (7.0 + 1.1 * v), "platform_se_px": 0.15, "footprint_px": 8.2 + 1.3 * v,
            "footprint_se_px": 0.3, "towers": v + 1 if towers is None else towers, "core_px2": 150.0 + 60 * v,
            "spread_px": 5.0, "area_px2": 245.0 + 80 * v, "radius_px": 10.0, "offset_px": [0.0, 0.0]}


def _size_model(jitter: float = 0.01) -> dict:
    rng = np.random.default_rng(3)
    cs = {p: {str(v): {**_castle_cues(v, scale), "platform_px": _castle_cues(v, scale)["platform_px"]
                       * float(np.exp(rng.normal(0, jitter)))} for v in range(4)}
          for p, scale in (("red", 1.0), ("blue", 1.0), ("yellow", 0.92), ("green", 1.0))}
    return castle_values.castle_model(cs)


def test_size_model_learns_each_value_and_the_players_colour_scale():
    cm = _size_model()
    assert cm["platform_px"]["2"] == pytest.approx(9.2, rel=0.03)
    assert cm["footprint_px"]["3"] == pytest.approx(12.1, rel=0.01)
    assert cm["platform_scale"]["yellow"] / cm["platform_scale"]["red"] == pytest.approx(0.92, abs=0.02)
    assert 0.01 < cm["sigma_log"]["platform"] < 0.05
    assert cm["towers_p"]["1"][2] > 0.5 and sum(cm["towers_p"]["1"]) == pytest.approx(1.0)


@pytest.mark.parametrize("v", [0, 1, 2, 3])
def test_value_likelihood_picks_the_value_the_sizes_say(v):
    cm = _size_model()
    assert int(np.argmax(castle_values.value_loglik(_castle_cues(v), cm, "red"))) == v
    # a yellow platform looks smaller on the sand: its learned scale puts it back
    assert int(np.argmax(castle_values.value_loglik(_castle_cues(v, 0.92), cm, "yellow"))) == v


def test_tower_count_breaks_a_size_tie():
    # sizes halfway between values 2 and 3: the three tower shadows decide
    cm = _size_model()
    f = {k: (np.sqrt(a * b) if k in ("platform_px", "footprint_px") else a)
         for (k, a), b in zip(_castle_cues(2).items(), _castle_cues(3).values())}
    for towers, value in ((3, 2), (4, 3)):
        assert int(np.argmax(castle_values.value_loglik({**f, "towers": towers}, cm, "red"))) == value


def _miscounted_yellow(cm: dict) -> dict:
    """The size model with yellow's calibration castles showing 2, 2, 3, 4 towers (values 0 … 3)
    where every other colour showed 1, 2, 3, 4: its towers' shadows merge and split in this light."""
    return {**cm, "towers_seen": {**cm["towers_seen"], "yellow": {"0": 2, "1": 2, "2": 3, "3": 4}}}


def test_tower_reliability_is_the_share_of_calibration_counts_like_the_others():
    cm = _miscounted_yellow(_size_model())
    cfg = replace(CASTLES, tower_reliability_prior=(1.0, 0.5))
    assert castle_values.tower_reliability(cm, "red", cfg) == pytest.approx(5.0 / 5.5)
    assert castle_values.tower_reliability(cm, "yellow", cfg) == pytest.approx(4.0 / 5.5)
    assert castle_values.tower_reliability(cm, "yellow", replace(cfg, tower_reliability_prior=None)) == 1.0


def test_the_tower_count_of_a_miscounting_colour_is_weaker_evidence():
    cm = _miscounted_yellow(_size_model())
    cfg = replace(CASTLES, tower_reliability_prior=(1.0, 0.5))

    def log_odds(player):   # three towers: value 2 (three at calibration) against value 1 (two)
        L = castle_values.tower_likelihood(3, cm, player, cfg)
        return float(np.log(L[2] / L[1]))
    assert 0.0 < log_odds("yellow") < log_odds("red") - 0.5


def test_an_unreliable_tower_count_does_not_overrule_the_sizes():
    """Sizes a little nearer value 1 than 2 and a count of 3 (value 2's at calibration): for red,
    whose counts were right at calibration, the count decides; for the miscounting yellow the sizes do."""
    cm = _miscounted_yellow(_size_model())
    cfg = replace(CASTLES, tower_reliability_prior=(1.0, 0.5), tower_exponent=0.75)
    f = {k: (a ** 0.6 * b ** 0.4 if k in ("platform_px", "footprint_px") else a)
         for (k, a), b in zip(_castle_cues(1).items(), _castle_cues(2).values())}
    assert int(np.argmax(castle_values.value_loglik({**f, "towers": 3}, cm, "red", cfg))) == 2
    yellow = {**f, "platform_px": 0.92 * f["platform_px"], "towers": 3}
    assert int(np.argmax(castle_values.value_loglik(yellow, cm, "yellow", cfg))) == 1


def test_a_piece_without_a_base_is_likelier_a_shell_than_a_castle():
    cm = _size_model()
    shape = castle_values.shell_shape([(c, {"platform_px": 7.3, "platform_se_px": 0.1, "footprint_px": 7.6,
                                      "footprint_se_px": 0.2}, 1) for c in ("brown", "brown", "white", "white")])
    shell_like = {**_castle_cues(0), "platform_px": 7.1, "footprint_px": 7.4}
    assert castle_values.shell_loglik(shell_like, shape, "brown") > castle_values.value_loglik(shell_like, cm, "red").max()
    castle = _castle_cues(0)
    assert castle_values.shell_loglik(castle, shape, "brown") < castle_values.value_loglik(castle, cm, "red").max()


@pytest.mark.parametrize("gain", [1.0, 0.6])
def test_radial_sizes_find_the_platform_and_the_base_under_any_contrast(gain):
    """A drawn castle (a sand-coloured base of 11 px radius around a red platform of 8.5 px): the
    half-way edges come back within a fifth of a pixel, also when the photo's colours are weaker."""
    sand = np.array([150, 190, 215], np.float32)                  # BGR
    red = np.array([70, 80, 200], np.float32)
    n = 8                                                          # drawn 8× finer, then shrunk (anti-aliased)
    big = np.tile(sand, (60 * n, 60 * n, 1))
    cv2.circle(big, (30 * n, 30 * n), 11 * n, (140, 180, 205), -1)
    cv2.circle(big, (30 * n, 30 * n), int(8.5 * n), tuple(float(c) for c in red), -1)
    img = cv2.resize(big, (60, 60), interpolation=cv2.INTER_AREA)
    img = (sand + gain * (img - sand)).clip(0, 255).astype(np.uint8)
    fg = np.zeros((60, 60), bool)
    yy, xx = np.mgrid[0:60, 0:60]
    fg[(xx - 29.5) ** 2 + (yy - 29.5) ** 2 <= 11.0 ** 2] = True
    lab = lambda bgr: cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2Lab).reshape(3).astype(float)  # noqa: E731
    f = castle_cues.radial_sizes(img, fg, 29.5, 29.5, 8.0, lab(sand), lab(red))
    assert f["platform_px"] == pytest.approx(8.5, abs=0.2)
    assert f["footprint_px"] == pytest.approx(11.0, abs=0.3)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_count_towers_on_drawn_castle(n):
    img = np.full((40, 40), 150, np.uint8)
    cv2.circle(img, (20, 20), 12, 120, -1)                       # the platform
    for k in range(n):
        a = 2 * np.pi * k / n
        c = (int(20 + 6 * np.cos(a) * (n > 1)), int(20 + 6 * np.sin(a) * (n > 1)))
        cv2.circle(img, c, 3, 60, -1)                             # a tower's shadow
    core = np.zeros(img.shape, bool)
    core[8:33, 8:33] = True
    assert castle_cues.count_towers(img, core) == n


def test_castle_model_pools_values_and_scales_players():
    shape = lambda core, area, towers: {"core_px2": core, "spread_px": core ** 0.5 / 2.5, "area_px2": area,  # noqa: E731
                                        "towers": towers, "radius_px": 10.0, "offset_px": [0.0, 0.0]}
    cs = {"red": {str(v): shape(150.0 + 60 * v, 245.0 + 80 * v, v + 1) for v in range(4)},
          "blue": {str(v): shape(0.9 * (150.0 + 60 * v), 245.0 + 80 * v, v + 1) for v in range(4)}}
    cm = castle_values.castle_model(cs)
    assert cm["towers"] == {"0": 1.0, "1": 2.0, "2": 3.0, "3": 4.0}
    assert cm["scale"]["blue"]["core_px2"] / cm["scale"]["red"]["core_px2"] == pytest.approx(0.9, abs=0.01)


@pytest.mark.parametrize("shift,rot", [((3.0, -2.0), 0.0), ((0.0, 0.0), 0.8)])
def test_synthetic_bump_moves_corners(shift, rot):
    a = synthetic.scene(PROFILE, seed=9)
    b = synthetic.scene(PROFILE, seed=9, shift_mm=shift, rotation_deg=rot)
    moved = np.abs(b.corners_px - a.corners_px).max()
    assert moved > 1.0
    assert b.state == a.state


@pytest.mark.parametrize("tilt_deg,camera", [(25.0, (200.0, 600.0, 650.0)), (10.0, (260.0, 250.0, 500.0))])
def test_camera_nadir_from_the_homography(tilt_deg, camera):
    """A camera at a known place over the board: its nadir and height come back from H alone."""
    from vision.strand_unter.geometry import camera_nadir

    f, size = 1400.0, (1920, 1080)
    K = np.array([[f, 0, (size[0] - 1) / 2], [0, f, (size[1] - 1) / 2], [0, 0, 1]])
    C = np.array([camera[0], camera[1], -camera[2]])            # board z points away from the camera
    t = np.radians(tilt_deg)
    R = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])   # world → camera
    T = -R @ C
    H = K @ np.column_stack([R[:, 0], R[:, 1], T])
    nadir, height = camera_nadir(H, size)
    assert np.allclose(nadir, camera[:2], atol=0.5) and height == pytest.approx(camera[2], rel=0.01)


def test_camera_nadir_straight_down_is_under_the_image_centre():
    from vision.strand_unter.geometry import camera_nadir

    H = np.array([[2.4, 0, 432.0], [0, 2.4, 84.0], [0, 0, 1]])    # a top view: no focal length to see
    nadir, height = camera_nadir(H, (1920, 1080))
    assert height is None and np.allclose(nadir, [(959.5 - 432) / 2.4, (539.5 - 84) / 2.4])
