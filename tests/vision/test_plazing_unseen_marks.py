"""A Plażing calibration whose shot shows none of a printed mark bare cannot read that mark: the
terrain model says which (``TerrainModel.unseen``) and calibration names it with what to do."""

from __future__ import annotations

import numpy as np

from calibration.shot_notes import shot_notes, unseen_marks_advice
from vision.plazing.terrain import TerrainModel

TERRAIN = np.array([list("..-+"), list("#.-x")])


def _learn(owner: np.ndarray, known: bool = True) -> TerrainModel:
    feats = np.random.default_rng(0).normal(size=TERRAIN.shape + (12,))
    return TerrainModel.learn(feats, TERRAIN, owner, known=known)


def test_marks_all_under_pieces_are_unseen_and_said_so():
    owner = -np.ones(TERRAIN.shape, int)
    owner[0, 2] = owner[1, 2] = 0                  # both '-' squares covered by a piece
    model = _learn(owner)
    assert model.unseen == "-"
    d = model.to_json()
    assert d["unseen"] == "-" and TerrainModel.from_json(d).unseen == "-"
    assert shot_notes({"terrain": d}) == [unseen_marks_advice("-")] and "'-'" in unseen_marks_advice("-")


def test_a_mark_seen_bare_once_is_known_and_the_model_unchanged():
    owner = -np.ones(TERRAIN.shape, int)
    owner[0, 2] = 0                                # one '-' square covered, the other bare
    model = _learn(owner)
    assert model.unseen == "" and "unseen" not in model.to_json() and shot_notes({"terrain": model.to_json()}) == []


def test_a_terrain_not_given_names_no_mark():
    owner = -np.ones(TERRAIN.shape, int)
    owner[0, 2] = owner[1, 2] = 0
    assert _learn(owner, known=False).unseen == ""
