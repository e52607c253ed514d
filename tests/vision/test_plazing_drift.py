"""Plażing tokens: the scene's colour drift measured on its own sure tokens
(:func:`vision.plazing.tokens.scene_drift`) moves the prototypes before the cells are read again."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.plazing.config import TOKENS
from vision.plazing.tokens import COLOUR_FEATURES, TokenModel, classify_tokens, drifted, scene_drift

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
