"""Sand Castles: variant points, outcome, danger notes, needs overrides, checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import InvalidStateError, explain, score, validate

SAMPLES = Path(__file__).parents[2] / "../shared/samples"


def lane(wave, pieces=0, wall=False, length=8, **extra):
    return {"length": length, "wave": wave, "wall": wall, "castle_pieces": pieces, "flooded": wave == length, **extra}


def game(top, middle, bottom, **extra):
    return {"game": "sand-castles", "lanes": {"top": top, "middle": middle, "bottom": bottom}, **extra}


def test_all_castles_complete_is_the_maximum_15_and_won():
    out = score(game(lane(3, 5), lane(2, 3), lane(1, 4)))
    assert (out["points"], out["max_points"], out["outcome"]) == (15, 15, "won")
    assert out["completed"] == ["top", "middle", "bottom"]


def test_contract_example_lost_castle():
    out = score(game(lane(3, 2, length=7), lane(5, 3, wall=True, length=7), lane(7, 0, length=7)))
    assert (out["pieces"], out["completed"], out["points"], out["outcome"]) == (5, ["middle"], 6, "lost-castle")
    assert out["lanes"]["top"]["needed"] == 5 and out["lanes"]["top"]["missing"] == 3
    assert out["lanes"]["top"]["danger"] == "wave 3 moves from the wall space, no wall"
    assert out["lanes"]["bottom"]["danger"] == "castle space flooded"


def test_playing_with_a_wave_on_the_wall_space():
    out = score(game(lane(7, 4), lane(1, 3, wall=True), lane(2, 0, wall=True)))
    assert out["outcome"] == "playing" and out["points"] == 8
    assert out["lanes"]["top"]["danger"].startswith("wave on the wall space, no wall")
    assert out["lanes"]["middle"]["danger"] == "wave 6 moves from the wall space, wall standing"


def test_needs_can_be_overridden_by_setup_or_lane():
    s = game(lane(1, 2), lane(1, 2), lane(1, 2, castle_needs=2))
    out = score(s, {"needs": {"top": 2, "middle": 3}})
    assert out["completed"] == ["top", "bottom"] and out["max_points"] == 3 + 4 + 3


def test_walls_left_from_state_else_setup_else_null():
    s = game(lane(1), lane(1), lane(1))
    assert score(s)["walls_left"] is None
    assert score(s, {"walls_left": 3})["walls_left"] == 3
    assert score({**s, "walls_left": 2}, {"walls_left": 3})["walls_left"] == 2


def test_validation_lists_every_problem():
    s = game(lane(9, 1), {"length": 8, "wave": 8, "wall": False, "castle_pieces": 2, "flooded": False},
             lane(7, 6, wall=True), walls_left=7)
    s["lanes"]["beach"] = lane(1)
    with pytest.raises(InvalidStateError) as err:
        validate(s)
    text = "\n".join(err.value.problems)
    for needle in ("lanes.top.wave: expected an integer 1..8, got 9",
                   "lanes.middle: flooded is false but the wave is on space 8 of 8",
                   "lanes.bottom.castle_pieces: expected an integer 0..4, got 6",
                   "lanes.beach: unknown lane 'beach'", "walls_left: expected an integer 0..6, got 7"):
        assert needle in text


def test_explanation():
    text = explain(game(lane(3, 5), lane(8, 0), lane(1, 1)))
    assert "top: 5/5 pieces (complete)" in text and "middle: 0/3 pieces (washed away); castle space flooded" in text
    assert "Points: 6 pieces + 1 completed castle = 7 of 15; outcome: lost-castle" in text


@pytest.mark.parametrize("path", sorted((SAMPLES / "sand-castles").glob("setup*/scene_*.truth.json")), ids=lambda p: p.name)
def test_sample_states_score_as_the_evaluator_does(path):
    state = json.loads(path.read_text())["state"]
    need = {"top": 5, "middle": 3, "bottom": 4}
    lanes = state["lanes"]
    want = sum(x["castle_pieces"] for x in lanes.values()) + sum(
        1 for n, x in lanes.items() if x["castle_pieces"] >= need[n] and not x["flooded"])
    assert score(state)["points"] == want
