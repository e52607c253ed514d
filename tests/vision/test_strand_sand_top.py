"""The sand's fine light gains when a channel of the sand is clipped (``vision/strand_unter/sand_top.py``)."""
from __future__ import annotations

import numpy as np

from vision.strand_unter.sand_top import fine_gains, keep_top, refine

RNG = np.random.default_rng(7)


def _sand(n: int, bgr, light, noise: float = 2.0):
    """An empty board's sand (n, 3) float32 of colour ``bgr`` and the same sand under ``light`` (3,)
    per-channel factors, both clipped at 255 (the scan's noise after the light, as a sensor's)."""
    true = np.asarray(bgr, np.float32)[None, :] * (1 + 0.03 * RNG.standard_normal((n, 1))).astype(np.float32)
    ref = np.clip(true + noise * RNG.standard_normal((n, 3)), 0, 255).astype(np.float32)
    now = np.clip(true * np.asarray(light, np.float32) + noise * RNG.standard_normal((n, 3)), 0, 255)
    return now.astype(np.float32), ref


def test_unclipped_sand_gives_the_sands_ratio_per_channel():
    now, ref = _sand(4000, (150, 180, 200), (1.1, 1.05, 0.95))
    f, top = fine_gains(now, ref, 250)
    assert not top.any()
    assert np.allclose(f, (1 / 1.1, 1 / 1.05, 1 / 0.95), atol=0.01)


def test_clipped_channels_take_the_unclipped_channels_light_when_the_scan_is_brighter():
    # pale sand: green and red at the top in both photos; the scan 8 % brighter in every channel
    now, ref = _sand(4000, (205, 270, 280), (1.08, 1.08, 1.08))
    f, top = fine_gains(now, ref, 250, gains=np.ones(3))
    assert list(top) == [False, True, True]
    assert np.allclose(f, 1 / 1.08, atol=0.01)            # not 1: the clipped sand's ratio
    # without the module the clipped channels would keep their gain at ~1
    assert abs(float(np.median(ref[:, 1] / now[:, 1])) - 1.0) < 0.01


def test_a_darker_scan_keeps_the_sands_ratio():
    now, ref = _sand(4000, (205, 270, 280), (0.9, 0.9, 0.9))
    f, top = fine_gains(now, ref, 250, gains=np.ones(3))
    assert not top.any()
    assert np.allclose(f[1:], np.median(ref[:, 1:] / now[:, 1:], axis=0), atol=1e-6)
    f2, top2 = fine_gains(now, ref, 250)                    # (no gains given: the light is not checked)
    assert list(top2) == [False, True, True] and np.allclose(f2, 1 / 0.9, atol=0.01)


def test_every_channel_clipped_gives_ones():
    now, ref = _sand(1000, (300, 300, 300), (1.1, 1.1, 1.1))
    f, top = fine_gains(now, ref, 250)
    assert top.all() and np.allclose(f, 1.0)


def test_keep_top_maps_the_clipped_sand_onto_the_top_and_leaves_darker_pixels_to_the_gain():
    raw = np.array([[[200, 252, 100], [200, 120, 100]]], np.uint8)       # clipped sand; a dark piece
    gain = 0.9
    corrected = np.clip(raw * gain, 0, 255).astype(np.uint8)
    out = keep_top(raw, corrected, np.array([False, True, False]), 225)
    assert out[0, 0, 1] >= 248                                            # the top stays at the top
    assert out[0, 1, 1] == corrected[0, 1, 1]                             # below the level: the gain
    assert out[0, 0, 0] == corrected[0, 0, 0] and out[0, 0, 2] == corrected[0, 0, 2]   # untreated channels
    # continuous and increasing over the range
    ramp = np.arange(256, dtype=np.uint8).reshape(1, -1, 1).repeat(3, axis=2)
    mapped = keep_top(ramp, np.clip(ramp * gain, 0, 255).astype(np.uint8), np.array([True, True, True]), 225)
    d = np.diff(mapped[0, :, 0].astype(int))
    assert (d >= 0).all() and d.max() <= 3
    assert keep_top(raw, corrected, np.zeros(3, bool), 225) is corrected


def test_keep_top_leaves_a_gain_above_one_alone():
    raw = np.full((2, 2, 3), 240, np.uint8)
    corrected = np.full((2, 2, 3), 255, np.uint8)                         # gain 1.1, saturated
    assert (keep_top(raw, corrected, np.ones(3, bool), 225) == 255).all()


class _Cfg:
    clipped_level = 250
    sand_top_max_fraction = 0.1
    sand_top_brighter_only = True
    sand_top_min_residual_ab = 8.0


def test_refine_keeps_the_sands_gains_while_the_surround_agrees():
    now, ref = _sand(3000, (205, 270, 280), (1.08, 1.08, 1.08))
    g, top = refine(np.ones(3), now, ref, lambda g: 2.0, _Cfg())
    assert not top.any() and abs(g[1] - 1.0) < 0.01           # the clipped sand's ratio, as before


def test_refine_lets_the_clipped_channels_follow_the_light_when_the_surround_says_so():
    now, ref = _sand(3000, (205, 270, 280), (1.08, 1.08, 1.08))
    # the surround: off by 20 × how far the green and red gains are from the light's (1 / 1.08)
    surround = lambda g: 200.0 * float(np.abs(np.asarray(g)[1:] * 1.08 - 1).max())  # noqa: E731
    g, top = refine(np.ones(3), now, ref, surround, _Cfg())
    assert list(top) == [False, True, True] and np.allclose(g, 1 / 1.08, atol=0.01)
    # a surround the new gains do not improve keeps the sand's
    g2, top2 = refine(np.ones(3), now, ref, lambda g: 12.0, _Cfg())
    assert not top2.any() and abs(g2[1] - 1.0) < 0.01


def test_refine_off_is_the_sands_ratio():
    now, ref = _sand(3000, (205, 270, 280), (1.08, 1.08, 1.08))
    cfg = _Cfg()
    cfg.sand_top_max_fraction = 1.0
    g, top = refine(np.ones(3), now, ref, lambda g: 99.0, cfg)
    assert not top.any() and np.allclose(g, np.median(ref / np.maximum(now, 1), axis=0), atol=1e-6)
