"""A hand lying on the sea cloth (``occlusion.cloth_patch`` / ``check_cloth``): a patch of no cloth
class inside the cloth's region, a whole shell thick and five shells large, is refused; a thin
fringe, a fold's shadow or a piece standing below the cloth's edge are not."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from vision.errors import UnreadableBoardError
from vision.strand_unter.config import READING
from vision.strand_unter.occlusion import check_cloth, cloth_patch

SEA, SAND, SKIN = 3, 1, 7          # class indices (any: only "is it the cloth's" matters)
H, W, EDGE = 300, 400, 150         # work px; the cloth covers rows < EDGE
R = 10.0                           # a shell's radius, px


def _assets():
    """A stand-in for the calibration's assets: every pixel on a groove, a shell of radius R."""
    return SimpleNamespace(one_shell_px2=np.pi * R * R, on_grooves=np.ones((H, W), bool), sea=SEA, ppm=2.0,
                           where=lambda x, y: f"({x:.0f}, {y:.0f})")


def _scene():
    """Classes: the cloth above EDGE, sand below; and the cloth's region."""
    cls = np.full((H, W), SAND, np.uint8)
    cls[:EDGE] = SEA
    cloth = np.zeros((H, W), bool)
    cloth[:EDGE] = True
    return cls, cloth


def test_a_thick_patch_on_the_cloth_is_measured_and_refused():
    """A 60 × 50 px skin patch on the cloth: 3000 px² ≥ 5 shells (1571 px²), 2.5 radii thick."""
    cls, cloth = _scene()
    cls[60:110, 100:160] = SKIN
    figure, thick, (x, y), raw = cloth_patch(cls, cloth, _assets())
    assert figure == pytest.approx(3000 / (5 * np.pi * R * R), rel=0.05)
    assert 2.3 < thick < 2.7 and 2.3 < raw < 2.7
    assert abs(x - 129.5) < 1 and abs(y - 84.5) < 1
    with pytest.raises(UnreadableBoardError) as err:
        check_cloth(cls, cloth, _assets())
    assert err.value.code == "occluded" and "cloth" in str(err.value)


def test_a_thin_band_on_the_cloth_is_no_hand():
    """A 300 × 15 px band (a fold's shadow, the fringe): 4500 px², but no shell fits under it."""
    cls, cloth = _scene()
    cls[120:135, 50:350] = SKIN
    figure, _thick, _centre, raw = cloth_patch(cls, cloth, _assets())
    assert figure == 0.0 and raw < 1.0
    assert check_cloth(cls, cloth, _assets()) == 0.0


def test_a_small_thick_patch_on_the_cloth_is_not_refused():
    """A 30 × 30 px patch (a fingertip: 900 px², under 5 shells' 1571 px²) is measured below 1 and read."""
    cls, cloth = _scene()
    cls[60:90, 100:130] = SKIN
    figure, _thick, _centre, _raw = cloth_patch(cls, cloth, _assets())
    assert 0.3 < figure < 1.0
    assert check_cloth(cls, cloth, _assets()) == figure


def test_a_piece_below_the_cloth_edge_is_not_looked_at():
    """The same thick patch just below the cloth's edge (a castle, the sandpiper) is not the cloth's
    business: the grooves' checks judge it."""
    cls, cloth = _scene()
    cls[EDGE:EDGE + 50, 100:160] = SKIN
    assert cloth_patch(cls, cloth, _assets())[0] == 0.0


def test_the_check_can_be_switched_off():
    cls, cloth = _scene()
    cls[60:110, 100:160] = SKIN
    figure = check_cloth(cls, cloth, _assets(), replace(READING, cloth_occluder=False))
    assert figure > 1.0
