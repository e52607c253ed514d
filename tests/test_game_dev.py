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
    for line, truth in zip(lines, truths):
        if "error" in line:
            assert json.load(open(truth))["occluded"]
        else:
            assert line["impossible"] == []
    final = lines[-1]
    last = json.load(open(truths[-1]))
    timeline, want = final["timeline"], last["timeline"]
    assert timeline["collected"] == want["collected"]
    for key in ("closings", "track"):  # exact for every player whose closings are sure
        assert timeline[key] == {p: v for p, v in want[key].items() if p in timeline[key]}, key
    totals = {p["player"]: p["total"] for p in final["score"]["players"]}
    if not timeline["doubted_closings"]:
        assert totals == last["final_total"] and final["warnings"] == []
        return
    # an area whose closer the photos cannot tell: doubted, and the truth within what is said
    assert final["confidence"] <= 0.4 and final["warnings"]
    unsure = {p for d in timeline["doubted_closings"] for p in d["candidates"]}
    may = {p: sum(p in d["candidates"] for d in timeline["doubted_closings"]) for p in want["closings"]}
    for p, n in want["closings"].items():
        assert timeline["closings_at_least"][p] <= n <= timeline["closings_at_least"][p] + may[p], p
        if p in unsure:
            assert totals[p] is None and p not in timeline["closings"]
        low, high = final["totals_range"][p]
        assert low <= last["final_total"][p] <= high, p


def _not_a_start(lines: list[dict]) -> bool:
    """True when the game's first photo was doubted and so not taken as its start (then checked:
    the next photo starts the game, nothing called impossible)."""
    if "error" in lines[0] or lines[0]["accepted"] or lines[0]["confidence"] >= 0.5:
        return False
    assert any("not taken as the game's start" in w for w in lines[0]["warnings"])
    return True


def test_dev_game_out_of_order_is_caught(game, capsys):
    cal, images, truths = game
    readable = [i for i, t in enumerate(truths) if not json.load(open(t))["occluded"]]
    earlier = readable[len(readable) // 2]
    for later in reversed(readable[len(readable) // 2 + 1:]):  # the last photo the game takes as its start
        _, lines = _run(capsys, cal, [images[later], images[earlier]], truths[0].replace(".truth.json", ".setup.json"))
        if not _not_a_start(lines):
            break
        assert lines[1]["accepted"] and lines[1]["impossible"] == []
    else:
        pytest.skip("no later photo of this game is trusted read alone")
    assert lines[1]["impossible"] and lines[1]["accepted"] is False
    assert {c["kind"] for c in lines[1]["impossible"]} & {"removed", "moved"}


def test_dev_game_out_of_order_past_a_refused_photo_is_caught(game, capsys):
    cal, images, truths = game
    occluded = [json.load(open(t))["occluded"] for t in truths]
    refused = [i for i in range(2, len(truths) - 1) if occluded[i] and not occluded[i + 1]]
    for k in reversed(refused):  # the last such photo whose clear neighbour the game takes as its start
        earlier = next(i for i in range(k // 2, -1, -1) if not occluded[i])
        _, lines = _run(capsys, cal, [images[k + 1], images[k], images[earlier]],
                        truths[0].replace(".truth.json", ".setup.json"))
        if not _not_a_start(lines):
            break
    else:
        pytest.skip("no photo with a hand over the board and a clear one after it (trusted read alone) in this game")
    if "error" not in lines[1]:
        pytest.skip(f"{os.path.basename(images[k])} has a hand over the board but was read, not refused")
    assert lines[2]["impossible"] and lines[2]["accepted"] is False  # the refused photo skipped, its neighbours compared
