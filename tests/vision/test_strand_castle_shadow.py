"""Castles and their shadows (no photo needed): the contrast share that tells a castle from a
shadow or a hand of a player's colour, and the fitted model in ``vision/strand_unter/fitted.json``
that reads it."""

import json

import numpy as np
import pytest

from vision.strand_unter import castle_values, config
from vision.strand_unter.castle_cues import contrast_share

SAND = np.array([150.0, 190.0, 218.0])            # BGR
YELLOW = np.array([40.0, 200.0, 225.0])


def _pixels(bgr, n=50, seed=0):
    rng = np.random.default_rng(seed)
    return np.clip(np.asarray(bgr) + rng.normal(0, 2, (n, 3)), 0, 255).astype(np.uint8)


def test_a_shadow_on_the_sand_shows_none_of_the_players_colour_and_a_castle_all_of_it():
    empty = _pixels(SAND)
    shadow = _pixels(SAND * 0.7, seed=1)           # the same sand under less light
    castle = _pixels(YELLOW, seed=2)
    assert abs(contrast_share(shadow, empty, YELLOW, SAND)) < 0.1
    assert contrast_share(castle, empty, YELLOW, SAND) == pytest.approx(1.0, abs=0.1)
    # under a dimmer light the castle's share stays (the share is a ratio of chromaticities)
    assert contrast_share(_pixels(YELLOW * 0.6, seed=3), empty, YELLOW, SAND) == pytest.approx(1.0, abs=0.15)


def test_a_warm_shadow_is_still_mostly_not_the_players_colour():
    """A shadow a little warmer than the sand (lit by the sky less than by the lamp) shows a small
    share: far below the palest castle's."""
    warm = _pixels(SAND * np.array([0.6, 0.68, 0.72]), seed=4)
    assert contrast_share(warm, _pixels(SAND), YELLOW, SAND) < 0.3


def test_the_fitted_piece_model_leaves_shadows_out_and_keeps_castles():
    doc = json.loads(config.FITTED_FILE.read_text(encoding="utf-8"))["castle_contrast"]
    assert doc["fitted_on"] and config.CASTLES.contrast_castle == tuple(doc["castle"])
    assert config.CASTLES.contrast_other == tuple(doc["other"])
    post = [castle_values.castle_posterior(s) for s in np.linspace(-0.5, 1.5, 41)]
    assert all(b >= a for a, b in zip(post, post[1:]))               # more colour, more castle-like
    assert castle_values.castle_posterior(0.2) < 0.5                 # shadows on these tables: 0.10-0.27
    assert castle_values.castle_posterior(0.4) > 0.9                 # the palest castles: 0.385 and up


def test_without_a_fitted_model_every_candidate_is_a_piece():
    cfg = config.CASTLES.__class__(contrast_castle=None, contrast_other=None, contrast_other_prior=0.0)
    assert castle_values.castle_posterior(0.0, cfg) == 1.0
