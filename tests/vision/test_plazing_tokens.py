"""Plażing tokens: a lamp's shadow in the calibration's variants, the held-out test of the token
model (the negative evidence its confidence is fitted with), and the "unlike everything" check."""

from __future__ import annotations

import numpy as np

from vision.plazing.augment import augmented_boards
from vision.plazing.cells import Grid
from vision.plazing.config import AUGMENT, HELD_OUT, TOKENS
from vision.plazing.tokens import (HELD_OUT_BINS, TokenModel, _sq_distances, held_out_counts, held_out_decisions,
                                   learn_tokens, odd_cells, token_distances)

PPM = 1.5


def _board_with_a_token():
    """A 1 × 3 grid of 30 px sand cells, a dark round token in the middle of the first."""
    grid = Grid((0.0, 0.0), 20.0, 1, 3)
    board = np.full((30, 90, 3), (150, 200, 230), np.uint8)
    yy, xx = np.mgrid[0:30, 0:30]
    disc = (yy - 14.5) ** 2 + (xx - 14.5) ** 2 <= 6 ** 2
    board[:30, :30][disc] = (60, 60, 60)
    return grid, board, disc


def test_shadowed_variants_darken_the_sand_beside_the_token_not_the_token():
    grid, board, disc = _board_with_a_token()
    boxes = grid.boxes_px(PPM, 1.0)
    cut = [(("resource/pebble", 0), board[:30, :30].copy(), disc)]
    cells = []
    for out, filled in augmented_boards(board, boxes, cut, [(0, 1)], PPM, AUGMENT):
        for _, (r, c) in filled:
            u0, v0, u1, v1 = boxes[r, c]
            cells.append(out[v0:v1, u0:u1])
    n_plain = len(AUGMENT.angles_deg) * len(AUGMENT.scales) * 5
    assert len(cells) == n_plain + 2 * len(AUGMENT.shadow_mm) * len(AUGMENT.shadow_light)
    shadowed = cells[n_plain]  # the first shadow: the shortest, cast along the rows
    plain = cells[AUGMENT.scales.index(1.0) * 5]  # upright, its own size, centred
    shift = int(round(AUGMENT.shadow_mm[0] * PPM))
    beside = np.zeros_like(disc)
    beside[:, shift:] = disc[:, :-shift]
    beside &= ~disc
    sand = plain[beside].astype(float).mean(axis=0)
    dark = shadowed[beside].astype(float).mean(axis=0)
    assert np.all(dark < sand * (AUGMENT.shadow_light[0] + 0.15))
    assert np.allclose(shadowed[disc].astype(float).mean(axis=0), plain[disc].astype(float).mean(axis=0), atol=2)
    far = np.zeros_like(disc)
    far[:, :5] = True
    assert np.allclose(shadowed[far], plain[far], atol=1)


def test_held_out_ways_lie_between_the_prototypes_ways():
    """The test shows each token between the angles, sizes, shifts and shadows its prototypes were
    made with: it measures how finely the model covers what it claims to, not a harsher world."""
    assert min(AUGMENT.scales) < min(HELD_OUT.scales) and max(HELD_OUT.scales) < max(AUGMENT.scales)
    assert HELD_OUT.shift_share < AUGMENT.shift_share
    assert all(a not in AUGMENT.angles_deg for a in HELD_OUT.angles_deg)
    assert min(AUGMENT.shadow_mm) < min(HELD_OUT.shadow_mm) <= max(HELD_OUT.shadow_mm) < max(AUGMENT.shadow_mm)
    assert all(abs(b - 1.0) <= TOKENS.brightness_drift for b in TOKENS.test_brightness)


def _features(rng, centre, n, sd=1.0):
    return rng.normal(centre, sd, (n, len(centre)))


def test_a_model_is_tested_on_looks_it_was_not_built_from_and_counts_its_mistakes():
    rng = np.random.default_rng(3)
    F = 6
    sand, shell, pebble = np.full(F, 100.0), np.full(F, 104.0), np.full(F, 60.0)
    feats = np.zeros((2, 4, F))
    feats[0, 0], feats[0, 1] = shell, shell + 0.5
    feats[0, 2], feats[0, 3] = pebble, pebble - 0.5
    feats[1] = _features(rng, sand, 4)
    samples = [("resource/shell", (0, 0)), ("resource/shell", (0, 1)), ("resource/pebble", (0, 2)),
               ("resource/pebble", (0, 3))]
    empty = [(1, c) for c in range(4)]
    composites = [(lab, feats[rc] + rng.normal(0, 0.5, F), i) for i, (lab, rc) in enumerate(samples) for _ in range(5)]
    tests = ([("resource/pebble", x) for x in _features(rng, pebble, 30)]
             + [("resource/shell", x) for x in _features(rng, (shell + sand) / 2, 30)]  # a shell as faint as sand
             + [("sand", x) for x in _features(rng, sand, 30)])
    model = learn_tokens(feats, samples, empty, composites, tests)
    p, right = held_out_decisions(model, tests)
    assert len(p) == 90 and np.all((p >= 0.0) & (p <= 1.0))
    assert right[:30].all()  # a pebble is no shell
    assert not right[30:60].all()  # a faint shell is sometimes taken for sand: negative evidence
    h = model.held_out
    assert sum(h["right"]) + sum(h["wrong"]) == 90 and sum(h["wrong"]) == int((~right).sum())
    assert all(HELD_OUT_BINS[0] <= x <= HELD_OUT_BINS[-1] + 0.5 for x in h["logit"])
    again = TokenModel.from_json(model.to_json())
    assert again.held_out == h


def test_held_out_counts_bin_by_log_odds():
    h = held_out_counts(np.array([0.5, 0.6, 0.99, 0.99, 1.0]), np.array([True, False, True, False, True]))
    assert sum(h["right"]) == 3 and sum(h["wrong"]) == 2
    assert h["logit"][0] == 0.25 and h["logit"][-1] == HELD_OUT_BINS[-1] + 0.25


def test_odd_cells_measures_the_strict_metric_only_where_it_can_matter():
    rng = np.random.default_rng(5)
    F = 14
    strict = np.diag(rng.uniform(0.5, 2.0, F))
    drift = np.zeros((F, F))
    drift[0, 0] = drift[F - 3, F - 3] = 4.0
    model = TokenModel(["a", "b"], rng.normal(0, 1, (60, F)), rng.normal(0, 1, (90, F)),
                       np.sort(rng.integers(0, 2, 90)), np.linalg.inv(np.linalg.inv(strict) + drift), 1.0, 1.0,
                       strict, 10.0)
    x = rng.normal(0, 1.6, (400, F))
    keep = {}
    de, dk = token_distances(x, model, keep=keep)
    W = np.linalg.cholesky(model.precision)
    assert np.allclose(dk[:, 1], _sq_distances(x, model.protos[model.proto_class == 1], W).min(axis=1))
    Ws = np.linalg.cholesky(strict)
    full = np.sqrt(_sq_distances(x, np.vstack([model.empties, model.protos]), Ws).min(axis=1)) > 6.0
    got = odd_cells(x, model, 6.0, keep)
    assert 0 < full.sum() < len(x)
    assert np.array_equal(got, full)
    assert np.array_equal(odd_cells(x, model, 6.0), full)
