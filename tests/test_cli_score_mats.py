"""``beachscore score`` with several Seashells mats: merged, then scored; one state unchanged."""
from __future__ import annotations

import json

import pytest

from beachscore.cli import main

SHAPES = ["scallop", "conch", "whelk", "cowrie", "oyster", "starfish", "shape7"]
COLOURS = ["yellow", "blue", "green", "orange", "pink", "white", "violet"]


def mat(player, shells, **counts):
    p = {"player": player, "shells": shells, "fossil_heads": 0, "fossil_tails": 0, "sand_dollars": 0, "bottles": 0}
    p.update(counts)
    return {"game": "seashells", "shapes": SHAPES, "colours": COLOURS, "players": [p]}


def write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def test_two_mats_are_merged_and_scored(tmp_path, capsys):
    ana = write(tmp_path, "ana.json", mat("ana", [["conch", "pink"], ["conch", "blue"]], sand_dollars=2))
    # a scan output (the contract's scan object) of an unnamed mat; the setup names it
    scan = {"game": "seashells", "state": mat("mat", [["whelk", "pink"]], fossil_heads=1, fossil_tails=1),
            "score": {}, "confidence": 0.98, "warnings": [], "timing_ms": {}}
    ben = write(tmp_path, "scan_ben.json", scan)
    setup = write(tmp_path, "setup.json", {"players": ["ben"], "scoring": "simple"})
    assert main(["score", ana, ben, "--setup", setup, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["player"] for p in out["state"]["players"]] == ["ana", "ben"]
    scored = {p["player"]: p for p in out["score"]["players"]}
    assert set(scored) == {"ana", "ben"}
    assert scored["ana"]["sand_dollar_points"] > 0 and scored["ben"]["fossil_pairs"] == 1
    assert sorted(sum(out["score"]["ranking"], [])) == ["ana", "ben"]


def test_one_state_scores_as_before(tmp_path, capsys):
    one = mat("ana", [["conch", "pink"]])
    assert main(["score", write(tmp_path, "one.json", one), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["state"] == one and [p["player"] for p in out["score"]["players"]] == ["ana"]


@pytest.mark.parametrize("second", [
    mat("ana", []),                                                   # the same player on two mats
    {"game": "sand-castles", "lanes": {}, "walls_left": None},        # not a Seashells mat
])
def test_mats_that_cannot_be_merged_are_bad_input(tmp_path, capsys, second):
    a = write(tmp_path, "a.json", mat("ana", []))
    b = write(tmp_path, "b.json", second)
    assert main(["score", a, b, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "invalid-state"


def test_missing_mat_file_is_bad_input(tmp_path, capsys):
    a = write(tmp_path, "a.json", mat("ana", []))
    assert main(["score", a, str(tmp_path / "nope.json")]) == 2
    assert "nope.json" in capsys.readouterr().err
