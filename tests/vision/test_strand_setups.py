"""Strand unter on set-ups nobody tuned on, drawn by tests/synthetic/strand_setups.py.

A pinhole camera hangs higher or lower and tilted; the calibration is taken in one light, the
scans in another (3000–5600 K, a lamp, a vignette); a hand reaches over the grooves or beside the
board; the board is bumped; it is filled with pieces under a fixed camera; markers are declared.
The product's rule everywhere: right (and trusted when nothing is in doubt), or refused with the
right code, or unsure (< 0.5) — never a confident wrong reading.
"""

from __future__ import annotations

import numpy as np
import pytest

from beachscore.errors import UnreadableBoardError
from beachscore.pipeline import calibrate, scan_image
from tests.synthetic import strand_setups as ss

P = ss.Piece
#: a game position: castles of three players (one near the far edge, where parallax is largest),
#: shells, two of them touching, the sandpiper; sea front 10
PIECES = [P("castle/red/3", 120, 280), P("castle/red/1", 300, 250), P("castle/yellow/2", 200, 190),
          P("castle/yellow/0", 390, 100), P("castle/green/3", 60, 130), P("castle/green/1", 250, 310),
          P("shell/white", 90, 340), P("shell/black", 104.5, 340), P("shell/gray", 340, 310),
          P("shell/brown", 160, 220), P("shell/white", 300, 160), P("sandpiper", 230, 100)]
CAL_LIGHT = ss.Light(kelvin=5200.0, vignette=0.2)
SETUPS = {
    "high, tilted towards the players": ss.Setup(ss.Camera(height_mm=860.0, tilt_deg=12.0, pan_deg=-3.0),
                                                 white_balance_k=4500.0),
    "low, tilted towards the sea": ss.Setup(ss.Camera(height_mm=540.0, tilt_deg=-10.0, pan_deg=4.0,
                                                      board_fill=0.9), white_balance_k=4500.0),
}
MARKERS = [(1, -26.0, 200.0, 24.0), (2, -26.0, 330.0, 24.0), (3, 442.0, 200.0, 24.0), (4, 442.0, 330.0, 24.0)]


@pytest.fixture(scope="module")
def cals(tmp_path_factory):
    """``{name: calibration}`` of each set-up (and one with markers), learned once."""
    out = {}
    for k, (name, setup) in enumerate(SETUPS.items()):
        d = tmp_path_factory.mktemp(f"setup{k}")
        out[name] = calibrate(ss.write_calibration(str(d / "setup"), setup, CAL_LIGHT, seed=k), str(d / "cal"))
    d = tmp_path_factory.mktemp("markers")
    out["markers"] = calibrate(ss.write_calibration(str(d / "setup"), SETUPS["low, tilted towards the sea"],
                                                    CAL_LIGHT, seed=7, markers=MARKERS), str(d / "cal"))
    return out


def _scan(cal, shot: ss.Shot, setup: ss.Setup, seed: int = 11):
    """(result or the refusal, the state the photo shows)."""
    img, _ = ss.render(setup, shot, cal.profile, seed=seed)
    try:
        return scan_image(img, cal), ss.state_of(shot)
    except UnreadableBoardError as err:
        return err, ss.state_of(shot)


def _norm(state: dict) -> dict:
    return {**state, "grooves": [{**g, "castles": sorted(g["castles"], key=lambda c: (c["player"], c["value"]))}
                                 for g in state["grooves"]]}


@pytest.mark.parametrize("name", list(SETUPS))
@pytest.mark.parametrize("light", [ss.Light(kelvin=3000.0, exposure=0.85, vignette=0.1),
                                   ss.Light(kelvin=5600.0, exposure=1.1, vignette=0.35)], ids=["3000 K", "5600 K"])
def test_other_camera_and_light_read_right_and_trusted(cals, name, light):
    r, truth = _scan(cals[name], ss.Shot(PIECES, sea_front=10, light=light), SETUPS[name])
    assert not isinstance(r, Exception), r
    assert _norm(r.state) == _norm(truth)
    assert r.confidence >= 0.5, (r.confidence, r.warnings)
    assert r.registration.source == "corners" and not r.registration.warnings


@pytest.mark.parametrize("lamp", [(40.0, 260.0, 520.0, 0.6), (420.0, 60.0, 650.0, 0.8)], ids=["left", "back right"])
def test_a_lamp_is_read_right_or_unsure(cals, lamp):
    name = "high, tilted towards the players"
    r, truth = _scan(cals[name], ss.Shot(PIECES, sea_front=10, light=ss.Light(kelvin=4200.0, lamp=lamp)),
                     SETUPS[name])
    if isinstance(r, UnreadableBoardError):
        assert r.code == "uneven-light", r
        return
    assert _norm(r.state) == _norm(truth) or r.confidence < 0.5, (r.state, r.confidence)


def test_a_hand_over_the_grooves_is_occluded_and_placed(cals):
    name = "low, tilted towards the sea"
    shot = ss.Shot(PIECES, sea_front=10, light=ss.Light(kelvin=3800.0), hand=(180.0, 250.0, 100.0, 50.0, 35.0, 60.0))
    r, _ = _scan(cals[name], shot, SETUPS[name])
    assert isinstance(r, UnreadableBoardError) and r.code == "occluded", r
    assert "groove" in str(r) and "cm" in str(r), str(r)


def test_a_hand_beside_the_board_is_no_refusal(cals):
    """Off the grooves (on the table beyond the right rail) a hand hides nothing: the board is read."""
    name = "low, tilted towards the sea"
    shot = ss.Shot(PIECES, sea_front=10, light=ss.Light(kelvin=3800.0), hand=(510.0, 250.0, 100.0, 50.0, 80.0, 60.0))
    r, truth = _scan(cals[name], shot, SETUPS[name])
    assert not isinstance(r, Exception), r
    assert _norm(r.state) == _norm(truth)


@pytest.mark.parametrize("name", list(SETUPS))
def test_a_bumped_board_is_found_and_its_castles_keep_their_grooves(cals, name):
    """Pushed 6 mm and turned 1.2°: the motion is found from the rails and edges, and the camera's
    nadir moves with the board (the castle at the far edge keeps groove 9)."""
    shot = ss.Shot(PIECES, sea_front=10, light=ss.Light(kelvin=4800.0), shift_mm=(6.0, -4.0), turn_deg=1.2)
    r, truth = _scan(cals[name], shot, SETUPS[name])
    assert not isinstance(r, Exception), r
    assert r.registration.source == "refined" and any("moved" in w for w in r.warnings)
    assert abs(r.registration.rotation_deg - 1.2) < 0.3
    assert _norm(r.state) == _norm(truth)


def test_a_board_full_of_new_pieces_under_a_fixed_camera_is_not_moved(cals):
    """Every castle and 20 shells more than the calibration shot: nothing moved, nothing said."""
    name = "high, tilted towards the players"
    rng = np.random.default_rng(4)
    pieces = [P(f"castle/{pl}/{v}", 60 + 90 * v + 10 * i, 340 - 30 * (2 * i + 1)) for i, pl in enumerate(ss.PLAYERS)
              for v in range(4)]
    pieces += [P(f"shell/{ss.COLOURS[k % 4]}", 40 + 17 * k, 340 - 60 * (k % 2) - 30 * (k % 3 == 0) * 0)
               for k in range(20)]
    pieces = [p for p in pieces if 30 < p.x < 410]
    shot = ss.Shot(pieces, sea_front=12, light=ss.Light(kelvin=float(rng.uniform(4000, 5200))))
    r, truth = _scan(cals[name], shot, SETUPS[name])
    assert not isinstance(r, Exception), r
    assert r.registration.source == "corners"
    assert not any("moved" in w for w in r.warnings), r.warnings


def test_declared_markers_win(cals):
    """A board with markers pushed 14 mm and turned 3°: the markers place it."""
    shot = ss.Shot(PIECES, sea_front=10, light=ss.Light(kelvin=4500.0), shift_mm=(14.0, 5.0), turn_deg=3.0,
                   markers=MARKERS)
    r, truth = _scan(cals["markers"], shot, SETUPS["low, tilted towards the sea"])
    assert not isinstance(r, Exception), r
    assert r.registration.source == "markers"
    assert _norm(r.state) == _norm(truth)
