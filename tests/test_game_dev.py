"""One rendered development game read as a game (skipped when the renders are absent): the timeline
and final totals of ``../shared/render/make_plazing_game.py``'s truth, nothing called impossible,
and the game told out of order caught. Renders: $BEACHSCORE_DEV_GAMES (default
/work/renders/dev/plazing-games-dev-10003, seed 10003), set-up 0."""
from __future__ import annotations

import glob
import json
import os

import pytest

from beachscore.cli import main

GAMES = os.environ.get("BEACHSCORE_DEV_GAMES", "/work/renders/dev/plazing-games-dev-10003")
SETUP = os.path.join(GAMES, "setup0")


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    if not os.path.exists(os.path.join(SETUP, "calibration.json")):
        pytest.skip("development game renders not present")
    cal = str(tmp_path_factory.mktemp("dev-game-cal"))
    assert main(["calibrate", os.path.join(SETUP, "calibration.json"), "--out", cal]) == 0
    truths = sorted(glob.glob(os.path.join(SETUP, "scene_*.truth.json")))
    return cal, [t.replace(".truth.json", ".jpg") for t in truths], truths


def _run(capsys, cal, images, setup):
    rc = main(["game", *images, "--calibration", cal, "--setup", setup, "--json"])
    return rc, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_dev_game_timeline_and_totals(game, capsys):
    cal, images, truths = game
    rc, lines = _run(capsys, cal, images, truths[0].replace(".truth.json", ".setup.json"))
    assert rc in (0, 3) and len(lines) == len(images) + 1
    final = lines[-1]
    last = json.load(open(truths[-1]))
    for key in ("closings", "collected", "track"):
        assert final["timeline"][key] == last["timeline"][key], key
    assert {p["player"]: p["total"] for p in final["score"]["players"]} == last["final_total"]
    for line, truth in zip(lines, truths):
        if "error" in line:
            assert json.load(open(truth))["occluded"]
        else:
            assert line["impossible"] == []


def test_dev_game_out_of_order_is_caught(game, capsys):
    cal, images, truths = game
    readable = [i for i, t in enumerate(truths) if not json.load(open(t))["occluded"]]
    later, earlier = readable[-1], readable[len(readable) // 2]
    _, lines = _run(capsys, cal, [images[later], images[earlier]], truths[0].replace(".truth.json", ".setup.json"))
    assert lines[1]["impossible"] and lines[1]["accepted"] is False
    assert {c["kind"] for c in lines[1]["impossible"]} & {"removed", "moved"}
