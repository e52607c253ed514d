"""A Seashells profile's towel: cells in mm, and a clear ``invalid-profile`` for one the reader cannot read."""

import copy

import pytest

from tests.synthetic.mats import SEASHELLS_PROFILE as PROFILE
from vision.errors import BadInputError
from vision.seashells.towel import towel_geometry


def test_the_boxed_towel_is_seven_by_seven_cells_on_the_board():
    boxes, rows, cols = towel_geometry(PROFILE)
    assert boxes.shape == (49, 4) and len(rows) == len(cols) == 7
    assert boxes[0].tolist() == [18, 18, 50, 50] and boxes[-1].tolist() == [210, 210, 242, 242]


@pytest.mark.parametrize("change, said", [
    (lambda p: p["towel"].update(cell_mm=2), "at least 12 mm"),
    (lambda p: p["towel"].update(cell_mm=3000), "runs off the 260×310 mm board"),
    (lambda p: p["towel"].update(origin_mm=[200, 18]), "runs off"),
    (lambda p: p["towel"].update(cols=["pink"] * 7), "its own name"),
    (lambda p: p.update(basket_mm=[[18, 250], [900, 250], [242, 295]]), "basket_mm runs off the board"),
    (lambda p: p["towel"].pop("rows"), "needs board_mm, towel"),
])
def test_a_towel_the_reader_cannot_read_is_an_invalid_profile(change, said):
    profile = copy.deepcopy(PROFILE)
    change(profile)
    with pytest.raises(BadInputError) as err:
        towel_geometry(profile)
    assert err.value.code == "invalid-profile" and said in err.value.message
