"""``beachscore game`` on short games of the other games, rendered photo by photo in play order
(``scripts/render_small_game.py``, data in tests/data/games/<game>/setup0): every photo read as
its truth and accepted, nothing called impossible, the changes and the timeline's facts the
truth's, and the game told out of order caught."""
from __future__ import annotations

import glob
import json
import os

import pytest

from beachscore.cli import main

HERE = os.path.dirname(os.path.abspath(__file__))
GAMES = os.path.join(HERE, "data", "games")


def _game(name: str, tmp_path) -> tuple[str, list[str], list[dict]]:
    setup = os.path.join(GAMES, name, "setup0")
    cal = str(tmp_path / "cal")
    assert main(["calibrate", os.path.join(setup, "calibration.json"), "--out", cal]) == 0
    truths = sorted(glob.glob(os.path.join(setup, "scene_*.truth.json")))
    return cal, [t.replace(".truth.json", ".jpg") for t in truths], [json.load(open(t))["state"] for t in truths]


def _lines(capsys, images, cal) -> tuple[int, list[dict]]:
    capsys.readouterr()  # what calibrate printed
    rc = main(["game", *images, "--calibration", cal, "--json"])
    return rc, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_sand_castles_game_in_play_order(tmp_path, capsys):
    cal, images, truths = _game("sand-castles", tmp_path)
    rc, lines = _lines(capsys, images, cal)
    assert rc == 0 and len(lines) == len(images) + 1
    for line, truth in zip(lines, truths):
        assert line["accepted"] and line["impossible"] == []
        for lane, want in truth["lanes"].items():
            got = line["state"]["lanes"][lane]
            assert {k: got[k] for k in ("wave", "wall", "castle_pieces", "flooded")} == \
                {k: want[k] for k in ("wave", "wall", "castle_pieces", "flooded")}, lane
    kinds = [c["kind"] for c in lines[3]["changes"]]
    assert "broke" in " ".join(c["text"] for c in lines[3]["changes"]) and kinds  # the top wave broke on its wall
    final = lines[-1]
    added = sum(t["castle_pieces"] for t in truths[-1]["lanes"].values())
    assert final["timeline"]["bought"]["castle_pieces"] == added and final["timeline"]["bought"]["walls"] == 1
    assert final["timeline"]["readings"] == len(images) and final["warnings"] == []


def test_strand_unter_game_in_play_order(tmp_path, capsys):
    cal, images, truths = _game("strand-unter", tmp_path)
    rc, lines = _lines(capsys, images, cal)
    assert rc == 0 and len(lines) == len(images) + 1
    for line, truth in zip(lines, truths):
        assert line["accepted"] and line["impossible"] == []
        got = line["state"]
        assert (got["sea_front"], got["sandpiper"]) == (truth["sea_front"], truth["sandpiper"])
        for g, want in zip(got["grooves"], truth["grooves"]):
            assert g["shells"] == want["shells"] and g["castles"] == want["castles"], g["number"]
    built = [c for line in lines[:-1] for c in line["changes"] if c["kind"] == "built"]
    assert len(built) == sum(len(g["castles"]) for g in truths[-1]["grooves"])
    timeline = lines[-1]["timeline"]
    assert timeline["washed"] == [] and len(timeline["built"]) == len(built) and lines[-1]["warnings"] == []


def test_seashells_game_in_play_order(tmp_path, capsys):
    cal, images, truths = _game("seashells", tmp_path)
    rc, lines = _lines(capsys, images, cal)
    assert rc == 0 and len(lines) == len(images) + 1
    for line, truth in zip(lines, truths):
        assert line["accepted"] and line["impossible"] == []
        got, want = line["state"]["players"][0], truth["players"][0]
        assert sorted(map(list, got["shells"])) == sorted(map(list, want["shells"]))
        for key in ("fossil_heads", "fossil_tails", "sand_dollars", "bottles"):
            assert got[key] == want[key], key
    keys = ("shells", "fossil_heads", "fossil_tails", "sand_dollars", "bottles")
    grew = [sum(b["players"][0][k] != a["players"][0][k] for k in keys)
            for a, b in zip(truths, truths[1:])]  # one "collected" change per category that grew
    assert [sum(c["kind"] == "collected" for c in line["changes"]) for line in lines[1:-1]] == grew
    assert lines[-1]["timeline"]["readings"] == len(images) and lines[-1]["warnings"] == []


@pytest.mark.parametrize("game, later, earlier", [("sand-castles", 2, 1), ("strand-unter", -1, 0),
                                                  ("seashells", -1, 0)])
def test_game_told_out_of_order_is_caught(game, later, earlier, tmp_path, capsys):
    cal, images, _ = _game(game, tmp_path)
    _, lines = _lines(capsys, [images[later], images[earlier]], cal)
    assert lines[1]["impossible"] and lines[1]["accepted"] is False
