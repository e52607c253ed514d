"""Plażing tokens: the scene's colour drift measured on its own sure tokens
(:func:`vision.plazing.drift.scene_drift`) moves the prototypes before the cells are read again,
and no class gains on one whose own drift the photo does not show (:func:`hold_unsure_odds`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.plazing.config import TOKENS
from vision.plazing.drift import COLOUR_FEATURES, drifted, hold_unsure_odds, scene_drift
from vision.plazing.tokens import TokenModel, classify_tokens

F = 14
#: The drift's rules as the tests state them (not the fitted values).
CFG = replace(TOKENS, drift_sure=0.99, drift_min_cells=2, drift_min_total=1, drift_share=1.0, drift_rounds=3)


def _model() -> TokenModel:
    """A neutral marker at 0 and a shell 16 feature units redder in two colour features (the
    core's and the centre's chromaticity r), bare sand far off in brightness; unit metric."""
    neutral, shell = np.zeros(F), np.zeros(F)
    shell[[2, F - 1]] = 16.0
    sand = np.zeros((3, F))
    sand[:, 0] = 200.0
    sand[:, 3] = [0.0, 1.0, 2.0]
    eye = np.eye(F)
    return TokenModel(["neutral", "resource/shell"], sand, np.vstack([neutral, shell]), np.array([0, 1]), eye,
                      1.0, 1.0, eye, 1e4)


def _scene():
    """Two markers drifted 6 units towards the shell, a third 10 (nearer the shell than the marker),
    two shells as calibrated."""
    x = np.zeros((5, F))
    x[:2, [2, F - 1]] = 6.0
    x[2, [2, F - 1]] = 9.0
    x[3:, [2, F - 1]] = 16.0
    return x


def test_a_token_pulled_off_its_class_by_the_light_is_read_again_with_its_sure_companions_drift():
    model, x = _model(), _scene()
    dists = {}
    first = classify_tokens(x, model, CFG, keep=dists)
    assert first.names == ["neutral", "neutral", "resource/shell", "resource/shell", "resource/shell"]
    assert first.p[0] >= CFG.drift_sure and first.p[1] >= CFG.drift_sure and first.p[2] < CFG.drift_sure
    shift = scene_drift(x, first, model, dists, CFG)
    cols = list(COLOUR_FEATURES(F))
    assert np.allclose(shift[0, [2, F - 1]], 6.0)  # the two sure markers' mean residual
    assert np.allclose(np.delete(shift, cols, axis=1), 0.0)  # colour features only
    again = classify_tokens(x, drifted(model, shift), CFG)
    assert again.names == ["neutral", "neutral", "neutral", "resource/shell", "resource/shell"]
    assert np.array_equal(model.protos[0], np.zeros(F))  # the calibration's model is left as it was


def test_no_drift_without_sure_tokens_or_share():
    model, x = _model(), _scene()
    dists = {}
    first = classify_tokens(x, model, CFG, keep=dists)
    assert scene_drift(x, first, model, dists, replace(CFG, drift_share=0.0)) is None
    assert scene_drift(x, first, model, dists, replace(CFG, drift_sure=1.1)) is None


def test_a_class_with_too_few_sure_cells_borrows_every_sure_tokens_drift():
    model, x = _model(), _scene()
    x = x[[0, 3, 4]]  # one sure marker, two sure shells
    dists = {}
    first = classify_tokens(x, model, CFG, keep=dists)
    shift = scene_drift(x, first, model, dists, CFG)
    assert np.allclose(shift[1], 0.0)  # the shells' own (none)
    assert np.allclose(shift[0, [2, F - 1]], 2.0)  # the marker borrows (6 + 0 + 0) / 3


def _three_classes() -> TokenModel:
    """A neutral marker at 0, a shell 16 units redder (features 2 and F − 1) and a yellow meeple
    16 units darker (features 0 and F − 3), bare sand far off; unit metric."""
    protos = np.zeros((3, F))
    protos[1, [2, F - 1]] = 16.0
    protos[2, [0, F - 3]] = -16.0
    sand = np.zeros((3, F))
    sand[:, 0] = 200.0
    sand[:, 3] = [0.0, 1.0, 2.0]
    eye = np.eye(F)
    return TokenModel(["neutral", "resource/shell", "meeple/yellow"], sand, protos, np.array([0, 1, 2]), eye,
                      1.0, 1.0, eye, 1e4)


def _darker_markers_and_a_meeple():
    """Three markers darkened 6 units, two shells as calibrated, and a meeple a little nearer its class than the
    markers (a coin flip between the two), the meeple class with no sure cell."""
    x = np.zeros((6, F))
    x[:3, [0, F - 3]] = -6.0
    x[3:5, [2, F - 1]] = 16.0
    x[5, [0, F - 3]] = -9.0
    return x


def _second_reading(model, x, cfg):
    dists, drift = {}, {}
    first = classify_tokens(x, model, cfg, keep=dists)
    shift = scene_drift(x, first, model, dists, cfg, keep=drift)
    again = classify_tokens(x, drifted(model, shift), cfg).post
    return first.post, again, drift["own"]


def test_scene_drift_says_which_classes_drifted_by_their_own_sure_cells():
    first, _, own = _second_reading(_three_classes(), _darker_markers_and_a_meeple(), CFG)
    assert first[5, 3] > first[5, 1]  # the meeple first read as a meeple
    assert own.tolist() == [True, True, False]


def test_a_class_drifting_by_its_own_sure_cells_does_not_take_a_cell_from_a_class_without_any():
    model, x = _three_classes(), _darker_markers_and_a_meeple()
    first, again, own = _second_reading(model, x, CFG)
    assert again[5].argmax() == 1  # unguarded: the darkened markers take the meeple
    held = hold_unsure_odds(again, first, own)
    assert held[5].argmax() == 3
    assert np.isclose(held[5, 1] / held[5, 3], first[5, 1] / first[5, 3])  # the first reading's odds
    assert np.allclose(held.sum(axis=1), 1.0)
    assert np.array_equal(held[:5].argmax(axis=1), again[:5].argmax(axis=1))  # the sure cells as read again


def test_the_guard_leaves_a_class_without_sure_cells_free_to_gain():
    first = np.array([[0.0, 0.9, 0.1, 0.0], [0.5, 0.3, 0.2, 0.0]])
    again = np.array([[0.0, 0.4, 0.6, 0.0], [0.2, 0.6, 0.2, 0.0]])
    held = hold_unsure_odds(again, first, np.array([True, False]))
    assert np.allclose(held[0], again[0])  # the unsure class gains on the sure one: kept
    assert np.isclose(held[1, 1] / held[1, 2], 0.3 / 0.2)  # the sure class's gain on it: held back
    assert np.isclose(held[1, 1] / held[1, 0], 0.6 / 0.2)  # bare sand against the sure class: read again
    assert np.allclose(hold_unsure_odds(again, first, np.array([True, True])), again)


def test_a_sure_class_that_also_wins_over_bare_sand_keeps_that_when_an_unsure_class_fades():
    first = np.array([[0.5, 0.49, 0.01, 0.0]])
    again = np.array([[0.05, 0.949, 0.001, 0.0]])
    held = hold_unsure_odds(again, first, np.array([True, False]))
    assert held[0].argmax() == 1 and held[0, 1] > 0.9
    assert np.isclose(held[0, 1] / held[0, 2], 49.0)


def test_a_row_where_no_sure_class_was_possible_is_left_as_read_again():
    first = np.array([[1.0, 0.0, 0.0, 0.0]])
    again = np.array([[0.1, 0.9, 0.0, 0.0]])
    assert np.allclose(hold_unsure_odds(again, first, np.array([True, False])), again)


def test_a_row_whose_unsure_class_faded_to_nothing_gets_the_first_readings_odds_back():
    first = np.array([[0.0, 0.4, 0.6, 0.0]])
    again = np.array([[0.0, 1.0, 0.0, 0.0]])
    held = hold_unsure_odds(again, first, np.array([True, False]))
    assert np.allclose(held, first)
