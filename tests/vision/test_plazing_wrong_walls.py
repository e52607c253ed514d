"""The Plażing terrain check (``checks.wrong_walls``): a setup's closing objects are judged whole
(``terrain.placeable_objects``), and a terrain is refused only when all its objects look placeable
or the photo shows closing terrain where it says sand (``checks.wrong_terrain``)."""

from __future__ import annotations

import numpy as np

from vision.plazing.checks import wrong_terrain
from vision.plazing.config import TERRAIN
from vision.plazing.terrain import TerrainModel, placeable_objects, wall_objects

CAL = np.array([list("##.."), list("##.."), list("...."), list("....")])


def _model() -> TerrainModel:
    """Closing cells look like 0 (with a little spread), sand like 10 (12 features)."""
    rng = np.random.default_rng(1)
    feats = np.where((CAL == "#")[..., None], 0.0, 10.0) + rng.normal(0, 0.3, CAL.shape + (12,))
    return TerrainModel.learn(feats, CAL, -np.ones(CAL.shape, int))


def test_wall_objects_are_four_connected_in_argwhere_order():
    walls = np.array([[1, 1, 0, 1], [0, 0, 0, 1], [1, 0, 0, 0]], bool)
    objs = wall_objects(walls)
    cells = np.argwhere(walls).tolist()
    assert sorted(sorted(map(tuple, (cells[i] for i in o))) for o in objs) == [
        [(0, 0), (0, 1)], [(0, 3), (1, 3)], [(2, 0)]]


def test_an_object_is_judged_on_its_mean_not_cell_by_cell():
    walls = np.array([[1, 1, 1]], bool)
    # one print of a 1×3 stick looks like sand, the stick as a whole does not
    odd = placeable_objects(walls, np.array([0.3, 0.02, 0.02]), np.array([0.05, 0.5, 0.5]), own=0.01)
    assert not odd.any()
    odd = placeable_objects(walls, np.array([0.3, 0.3, 0.2]), np.array([0.05, 0.04, 0.05]), own=0.01)
    assert odd.all()
    # farther from the closing prints than they are from each other: required too
    assert not placeable_objects(walls, np.array([0.3, 0.3, 0.2]), np.array([0.05, 0.04, 0.05]), own=0.5).any()


def test_placeable_walls_flags_the_objects_on_sand():
    model = _model()
    looks = np.where((CAL == "#")[..., None], 0.0, 10.0) + np.zeros(CAL.shape + (12,))
    walls = np.zeros(CAL.shape, bool)
    walls[0:2, 0:2] = True          # the right 2×2 object
    walls[3, 0:3] = True            # a 1×3 object put on sand
    odd = model.placeable_walls(looks, walls)
    assert odd[3, 0:3].all() and not odd[0:2, 0:2].any()


def test_wrong_terrain_needs_all_objects_or_objects_seen_elsewhere():
    n = TERRAIN.wrong_wall_cells
    assert not wrong_terrain(n - 1, n - 1, 99)              # fewer than a stand's cells: never
    assert wrong_terrain(15, 15, 0)                         # every closing object looks placeable
    # one big object odd (a dim corner, a hand over it) but the photo's objects are where the setup says
    assert not wrong_terrain(11, 15, n - 1)
    assert wrong_terrain(6, 15, n)                          # objects read where the setup says sand
