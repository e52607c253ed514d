"""``beachscore game`` and ``scan --previous`` against the contract (shared/contracts/README.md §One game):
per-photo lines with ``changes`` and ``impossible``, the final line, one-line errors for bad previous readings."""
from __future__ import annotations

import copy
import json
import os
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from beachscore.cli import main
from beachscore.commands.game import final_text
from beachscore.follow import FollowedGame

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "strand-unter")
PHOTO = os.path.join(EXAMPLE, "scene_05.jpg")


def _scan_line(strand_cal, capsys) -> dict:
    assert main(["scan", PHOTO, "--calibration", strand_cal, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _lines(capsys) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_scan_previous_same_photo_changes_nothing(strand_cal, tmp_path, capsys):
    line = _scan_line(strand_cal, capsys)
    prev = tmp_path / "prev.json"
    prev.write_text(json.dumps(line))
    assert main(["scan", PHOTO, "--calibration", strand_cal, "--previous", str(prev), "--json"]) == 0
    (out,) = _lines(capsys)
    assert {"game", "state", "score", "confidence", "warnings", "timing_ms", "changes", "impossible"} <= set(out)
    assert out["changes"] == [] and out["impossible"] == []
    assert out["state"]["grooves"] == line["state"]["grooves"]


def test_scan_previous_bare_state_reports_a_forbidden_change(strand_cal, tmp_path, capsys):
    state = copy.deepcopy(_scan_line(strand_cal, capsys)["state"])
    groove = state["grooves"][0]
    standing = {(c["player"], c["value"]) for g in state["grooves"] for c in g["castles"]}
    ghost = next({"player": p, "value": v} for p in ("red", "blue", "green", "yellow") for v in range(4)
                 if (p, v) not in standing)
    groove["castles"].append(ghost)
    prev = tmp_path / "state.json"
    prev.write_text(json.dumps(state))
    assert main(["scan", PHOTO, "--calibration", strand_cal, "--previous", str(prev), "--json"]) == 0
    (out,) = _lines(capsys)
    gone = [c for c in out["impossible"] if c["kind"] == "removed"]
    assert gone and gone[0]["player"] == ghost["player"] and gone[0]["groove"] == groove["number"]
    assert all(isinstance(c["text"], str) and c["text"] for c in out["impossible"])
    assert out["accepted"] is False


def test_scan_previous_game_final_line_is_accepted(strand_cal, tmp_path, capsys):
    assert main(["game", PHOTO, "--calibration", strand_cal, "--json"]) == 0
    out = capsys.readouterr().out
    prev = tmp_path / "game.jsonl"
    prev.write_text(out)
    assert main(["scan", PHOTO, "--calibration", strand_cal, "--previous", str(prev), "--json"]) == 0
    (line,) = _lines(capsys)
    assert line["impossible"] == [] and line["changes"] == []


@pytest.mark.parametrize("content, code", [
    (json.dumps({"game": "plazing", "rows": 2, "cols": 2, "pieces": []}), "previous-game"),
    ('{"game": "strand-unter", "state": {"game": "strand-unter", "sea_fr', "invalid-json"),
    (json.dumps({"error": {"code": "occluded", "message": "a hand"}}), "invalid-previous"),
    (json.dumps([1, 2]), "invalid-previous"),
    (json.dumps({"game": "strand-unter", "sea_front": 99}), "invalid-previous"),
    ('{"state": {"game": "strand-unter", "sea_front": 12, "grooves": []}}\n{"trunc', "invalid-json"),
])
def test_scan_previous_bad_input_is_one_line_exit_2(strand_cal, tmp_path, capsys, content, code):
    prev = tmp_path / "prev.json"
    prev.write_text(content)
    assert main(["scan", PHOTO, "--calibration", strand_cal, "--previous", str(prev), "--json"]) == 2
    captured = capsys.readouterr()
    (doc,) = [json.loads(line) for line in captured.out.splitlines()]
    assert doc["error"]["code"] == code and doc["error"]["message"]
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err


@pytest.mark.parametrize("content, words", [
    (json.dumps({"game": "strand-unter", "state": {"game": "strand-unter"}, "accepted": False}), "not accepted"),
    (json.dumps({"game": "plazing", "state": {"game": "strand-unter"}}), "the line says 'plazing'"),
])
def test_scan_previous_refuses_a_reading_that_was_not_the_games(strand_cal, tmp_path, capsys, content, words):
    prev = tmp_path / "prev.json"
    prev.write_text(content)
    assert main(["scan", PHOTO, "--calibration", strand_cal, "--previous", str(prev), "--json"]) == 2
    (doc,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert doc["error"]["code"] == "invalid-previous" and words in doc["error"]["message"]


def test_a_games_output_as_previous_takes_its_last_accepted_line(strand_cal, tmp_path, capsys):
    assert main(["scan", PHOTO, "--calibration", strand_cal, "--json"]) == 0
    accepted = json.loads(capsys.readouterr().out)
    refused = dict(accepted, accepted=False, state={"game": "strand-unter"})
    prev = tmp_path / "game.jsonl"
    prev.write_text(json.dumps(dict(accepted, accepted=True)) + "\n" + json.dumps(refused) + "\n")
    assert main(["scan", PHOTO, "--calibration", strand_cal, "--previous", str(prev), "--json"]) == 0
    (line,) = _lines(capsys)
    assert line["impossible"] == [] and line["changes"] == []


def test_scan_previous_missing_file(strand_cal, tmp_path, capsys):
    rc = main(["scan", PHOTO, "--calibration", strand_cal, "--previous", str(tmp_path / "nope.json")])
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("beachscore: error:")


def test_game_lines_final_and_skipped_unreadable_photo(strand_cal, tmp_path, capsys):
    photo = cv2.imread(PHOTO)
    blank = tmp_path / "dark.jpg"
    cv2.imwrite(str(blank), (photo * 0.05).astype(np.uint8))  # far too dark: exit 3
    rc = main(["game", PHOTO, str(blank), PHOTO, "--calibration", strand_cal, "--json"])
    lines = _lines(capsys)
    assert len(lines) == 4
    first, refused, again, final = lines
    assert rc == 3 and refused["error"]["code"] and "state" not in refused
    assert refused["image"] == str(blank)  # the refused photo is named
    for line in (first, again):
        assert isinstance(line["changes"], list) and line["impossible"] == []
    assert again["changes"] == []
    assert [c["kind"] for c in first["changes"]].count("built") == sum(
        len(g["castles"]) for g in first["state"]["grooves"])
    assert final["final"] is True and final["game"] == "strand-unter"
    assert {"built", "washed", "taken"} <= set(final["timeline"]) and final["timeline"]["readings"] == 2
    assert {p["player"] for p in final["score"]["players"]} >= {c["player"] for c in final["timeline"]["built"]}


def test_game_text_output(strand_cal, capsys):
    assert main(["game", PHOTO, "--calibration", strand_cal]) == 0
    out = capsys.readouterr().out
    assert "game: strand-unter, 1 photo(s) accepted" in out and "changed: " in out


def test_game_needs_images(strand_cal, capsys):
    assert main(["game", "--calibration", strand_cal, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "usage"


def test_game_with_a_bad_setup_is_one_error_and_no_result(strand_cal, tmp_path, capsys):
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"players": {"purple": {"bucket": -3}}}))
    assert main(["game", PHOTO, PHOTO, "--calibration", strand_cal, "--setup", str(setup), "--json"]) == 2
    captured = capsys.readouterr()
    (doc,) = [json.loads(line) for line in captured.out.splitlines()]
    assert doc["error"]["code"] == "invalid-setup"
    assert len(captured.err.strip().splitlines()) == 1


@pytest.mark.parametrize("value", ["N5-N7", "=red", "N5-N7=red=blue", "N5-N7=red,yellow", "N5-N7 = red", "N5=\x1b[31mred"])
def test_game_with_a_malformed_closer_is_one_error_before_any_photo(strand_cal, capsys, value):
    assert main(["game", PHOTO, "--calibration", strand_cal, "--closer", value, "--json"]) == 2
    captured = capsys.readouterr()
    (doc,) = [json.loads(line) for line in captured.out.splitlines()]
    assert doc["error"]["code"] == "invalid-closer" and "PLACE=PLAYER" in doc["error"]["message"]
    assert len(captured.err.strip().splitlines()) == 1


def test_a_closer_told_for_a_game_without_areas_is_a_final_warning(strand_cal, capsys):
    assert main(["game", PHOTO, "--calibration", strand_cal, "--closer", "N5=red", "--json"]) == 0
    final = _lines(capsys)[-1]
    assert final["final"] and any("only Plażing games have areas to close" in w for w in final["warnings"])


def test_the_final_block_says_none_for_an_empty_fact_and_the_json_keeps_it():
    game = FollowedGame(SimpleNamespace(game="plazing"))  # no players in the setup: no one's closings yet
    text = final_text(game)
    assert "  closings: none" in text.splitlines()
    assert "{}" not in text and "[]" not in text
    assert game.final_json()["timeline"]["closings"] == {}  # the contract's field, unchanged


def test_an_unaccepted_photos_differences_are_not_called_changes():
    from types import SimpleNamespace

    from beachscore.commands.game import photo_text
    from beachscore.follow import GamePhoto

    result = SimpleNamespace(game="plazing", confidence=0.14, warnings=["this photo is unsure … not accepted"],
                             score=None, state=None)
    step = SimpleNamespace(changes=[{"kind": "placed", "text": "green placed a gear on E1"}], impossible=[])
    shown = {a: photo_text("p.jpg", GamePhoto(result=result, step=step, accepted=a, timeline={})) for a in (True, False)}
    assert "  changed: green placed a gear on E1" in shown[True]
    assert "  differs (not accepted): green placed a gear on E1" in shown[False] and "changed:" not in shown[False]
