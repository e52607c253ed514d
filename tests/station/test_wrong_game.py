"""A photo of another game's board: the command line and the station give the same reason
(``board-not-found``, exit 3), in words a player understands (no fit scores, no command to type on a
phone), and neither calls it a reading. Every pair "photo of game A, calibration of game B" of the
four games' shared samples, on both paths: the file decoded at the reader's scale (command line)
and the full-size camera frame shrunk to it (station)."""

import glob
import os
import re

import pytest

from beachscore.cli import main
from beachscore.station import Station
from beachscore.station.store import Store
from calibration import store as cal_store
from hardware.file_camera import FileCamera

SHARED = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "samples"))
GAMES = ("plazing", "sand-castles", "seashells", "strand-unter")
OTHERS = sorted(glob.glob(os.path.join(SHARED, "plazing", "setup0", "scene_0[0-2].jpg")) +
                glob.glob(os.path.join(SHARED, "seashells", "setup0", "scene_00.jpg")))
JARGON = re.compile(r"\b(ECC|fit|correlation|share|strips?)\b\s*[-0-9.]|\d\.\d\d", re.IGNORECASE)
MESSAGE = "does not show the board this calibration was made for"


def _scenes(game):
    return sorted(glob.glob(os.path.join(SHARED, game, "setup0", "scene_*.jpg")))


@pytest.fixture(scope="module")
def sample_cals(tmp_path_factory):
    """One calibration folder per game, learned from its shared sample set-up."""
    out = {}
    for game in GAMES:
        folder = str(tmp_path_factory.mktemp(f"cal-{game}"))
        assert main(["calibrate", os.path.join(SHARED, game, "setup0", "calibration.json"), "--out", folder]) == 0
        out[game] = folder
    return out


def _cli_error(capsys, photo, cal):
    code = main(["scan", photo, "--calibration", cal])
    err = capsys.readouterr().err.strip()
    assert code == 3 and err.startswith("beachscore: error: "), (photo, code, err)
    return err


def _station_errors(tmp_path, photos, cal):
    """The error of each photo scanned by a station whose camera replays them in order."""
    folder = tmp_path / "camera"
    folder.mkdir()
    for i, p in enumerate(photos):
        os.symlink(p, folder / f"{i:02d}.jpg")
    station = Station(Store(str(tmp_path / "data")), camera=FileCamera(str(folder)), calibration=cal_store.load(cal))
    errors = []
    try:
        for _ in photos:
            assert station.request_scan("web").accepted and station.wait_idle(120)
            errors.append(station.store.latest_scan()["error"])
    finally:
        station.close()
    return errors


def _plain(message):
    return not JARGON.search(message) and "beachscore calibrate" not in message


@pytest.mark.skipif(not OTHERS, reason="../shared/samples is absent")
@pytest.mark.parametrize("photo", OTHERS, ids=[os.path.relpath(p, SHARED) for p in OTHERS])
def test_wrong_game_photo_same_reason_on_both_paths(tmp_path, strand_cal, capsys, photo):
    cli = _cli_error(capsys, photo, strand_cal)
    error, = _station_errors(tmp_path, [photo], strand_cal)
    assert error is not None  # never read as a Strand unter beach
    assert error["code"] == "board-not-found" and cli.endswith("[board-not-found]")
    assert MESSAGE in cli and MESSAGE in error["message"]
    for message in (cli, error["message"]):
        assert _plain(message)


@pytest.mark.skipif(not os.path.isdir(SHARED), reason="../shared/samples is absent")
@pytest.mark.parametrize("photo_game,cal_game", [(a, b) for a in GAMES for b in GAMES if a != b],
                         ids=[f"{a}-photo-{b}-calibration" for a in GAMES for b in GAMES if a != b])
def test_every_cross_pair_is_refused_as_another_board(tmp_path, sample_cals, capsys, photo_game, cal_game):
    """Every scene of one game's samples under another game's calibration: ``board-not-found`` on the
    command line and on the station, never a reading, never another game's reason."""
    photos = _scenes(photo_game)
    assert photos
    cli = [_cli_error(capsys, p, sample_cals[cal_game]) for p in photos]
    station = _station_errors(tmp_path, photos, sample_cals[cal_game])
    for photo, line, error in zip(photos, cli, station):
        name = os.path.basename(photo)
        assert line.endswith("[board-not-found]"), (name, line)
        assert error is not None and error["code"] == "board-not-found", (name, error)
        assert _plain(line) and _plain(error["message"]), (name, line, error)


@pytest.mark.skipif(not os.path.isdir(SHARED), reason="../shared/samples is absent")
@pytest.mark.parametrize("game", GAMES)
def test_the_right_board_passes_the_check_on_both_paths(tmp_path, sample_cals, capsys, game):
    """The check refuses none of the four games' own sample scenes (command line and station)."""
    from beachscore.pipeline import scan_file
    from calibration.store import load

    cal = load(sample_cals[game])
    for photo in _scenes(game):
        try:
            scan_file(photo, cal)
        except Exception as err:  # noqa: BLE001 - another refusal is the reader's business, not this check's
            assert getattr(err, "code", None) != "board-not-found", (photo, err)
    errors = _station_errors(tmp_path, _scenes(game), sample_cals[game])
    assert not [e for e in errors if e and e["code"] == "board-not-found"], errors
