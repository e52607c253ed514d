"""Sand Castles reader on synthetic boards: waves, walls, pieces, flooding, errors."""

import pytest

from beachscore.errors import BadInputError
from vision import sand_castles
from vision.synthetic_boards import SAND_CASTLES_PROFILE as PROFILE, sand_castles_board

from .mats_helpers import photo, shot

CAL = {"top": {"wave": 2, "wall": True, "castle_pieces": 2}, "middle": {"wave": 4, "wall": False, "castle_pieces": 1},
       "bottom": {"wave": 1, "wall": False, "castle_pieces": 3}}
SAMPLES = [("wave", (95, 60)), ("space", (245, 60)), ("wall", (345, 60)), ("castle_piece", (382.5, 40)),
           ("castle_piece", (407.5, 40)), ("slot", (382.5, 60)), ("slot", (407.5, 60)), ("slot", (382.5, 80)),
           ("wave", (195, 140)), ("space", (245, 140)), ("castle_piece", (395, 120)), ("slot", (395, 140)),
           ("wave", (45, 220)), ("space", (245, 220)), ("castle_piece", (382.5, 205)), ("slot", (407.5, 235))]


@pytest.fixture(scope="module")
def model():
    return sand_castles.learn(shot("sand-castles", PROFILE, sand_castles_board(CAL, seed=1), SAMPLES))


@pytest.mark.parametrize("lanes", [
    {"top": {"wave": 7, "wall": False, "castle_pieces": 4}, "middle": {"wave": 1, "wall": True, "castle_pieces": 3},
     "bottom": {"wave": 8, "wall": False, "castle_pieces": 0}},
    {"top": {"wave": 5, "wall": True, "castle_pieces": 5}, "middle": {"wave": 8, "wall": False, "castle_pieces": 0},
     "bottom": {"wave": 3, "wall": True, "castle_pieces": 1}},
])
def test_reads_lanes(model, lanes):
    r = sand_castles.read(photo("sand-castles", PROFILE, model, sand_castles_board(lanes, seed=7), {"walls_left": 2}))
    for name, want in lanes.items():
        got = r.state["lanes"][name]
        assert (got["wave"], got["wall"], got["castle_pieces"]) == (want["wave"], want["wall"], want["castle_pieces"])
        assert got["flooded"] == (want["wave"] == 8)
    assert r.state["walls_left"] == 2
    assert r.confidence > 0.5


def test_second_wave_in_a_lane_lowers_confidence(model):
    img = sand_castles_board(CAL, seed=3)
    img2 = sand_castles_board({**CAL, "top": {"wave": 5, "wall": True, "castle_pieces": 2}}, seed=3)
    img[: img.shape[0] // 3, 200 * 3:300 * 3] = img2[: img.shape[0] // 3, 200 * 3:300 * 3]  # paste a second top wave
    r = sand_castles.read(photo("sand-castles", PROFILE, model, img))
    assert r.confidence < 0.5 and any("top lane" in w for w in r.warnings)


def test_unknown_label_is_bad_input():
    with pytest.raises(BadInputError) as e:
        sand_castles.learn(shot("sand-castles", PROFILE, sand_castles_board(CAL), SAMPLES + [("tower", (95, 60))]))
    assert e.value.code == "unknown-label"


def test_missing_class_is_bad_input():
    with pytest.raises(BadInputError) as e:
        sand_castles.learn(shot("sand-castles", PROFILE, sand_castles_board(CAL),
                                [s for s in SAMPLES if s[0] != "slot"]))
    assert e.value.code == "missing-label"
