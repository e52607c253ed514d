"""A photo of another game's board: the command line and the station give the same reason, in words
a player understands (no fit scores, no command to type on a phone), and neither calls it a reading."""

import glob
import os
import re

import pytest

from beachscore.station import Station
from beachscore.store import Store
from calibration import store as cal_store
from hardware.file_camera import FileCamera

SHARED = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "samples"))
OTHERS = sorted(glob.glob(os.path.join(SHARED, "plazing", "setup0", "scene_0[0-2].jpg")) +
                glob.glob(os.path.join(SHARED, "seashells", "setup0", "scene_00.jpg")))
JARGON = re.compile(r"\b(ECC|fit|correlation)\b\s*[-0-9.]", re.IGNORECASE)


@pytest.mark.skipif(not OTHERS, reason="../shared/samples is absent")
@pytest.mark.parametrize("photo", OTHERS, ids=[os.path.relpath(p, SHARED) for p in OTHERS])
def test_wrong_game_photo_same_reason_on_both_paths(tmp_path, strand_cal, capsys, photo):
    from beachscore.cli import main

    code = main(["scan", photo, "--calibration", strand_cal])
    cli = capsys.readouterr().err.strip()
    assert code in (2, 3) and cli.startswith("beachscore: error: ")
    station = Station(Store(str(tmp_path / "data")), camera=FileCamera(photo), calibration=cal_store.load(strand_cal))
    try:
        assert station.request_scan("web").accepted and station.wait_idle(120)
        error = station.store.latest_scan()["error"]
    finally:
        station.close()
    assert error is not None  # never read as a Strand unter beach
    # the same reason (the code); the wording may differ in detail where the file is decoded at the
    # reader's scale and the camera frame shrunk to it (not the same pixels on every OpenCV)
    assert cli.endswith(f"[{error['code']}]")
    for message in (cli, error["message"]):
        assert not JARGON.search(message) and "beachscore calibrate" not in message
