"""Edge cases of shared/contracts/tournament.md found by trying the commands as a test kit would."""

import json

import pytest

from beachscore.cli import main
from tournament import Event, InvalidEventError, standings_json


def players(ids):
    return [{"id": i, "name": i.upper()} for i in ids]


def test_co_operative_wins_are_the_tables_ranked_first():
    """Sand Castles: a team's players get the team's rank among the round's tables; only rank 1 is a win."""
    ev = Event.from_json({"game": "sand-castles", "players": players("abcdefgh"), "rounds": [{"number": 1, "tables": [
        {"table": 1, "players": ["a", "b", "c"], "result": {"points": 6}},
        {"table": 2, "players": ["d", "e", "f"], "result": {"points": 9}},
        {"table": 3, "players": ["g", "h"], "result": {"points": 6}}]}]})
    rows = {r["player"]: r for r in standings_json(ev)["standings"]}
    assert {p: rows[p]["tournament_points"] for p in "adg"} == {"a": 0.5, "d": 3, "g": 0.5}  # (1 + 0) / 2
    assert {p: rows[p]["wins"] for p in rows} == {"a": 0, "b": 0, "c": 0, "d": 1, "e": 1, "f": 1, "g": 0, "h": 0}


def test_co_operative_wins_with_ranks_from_the_file():
    ev = Event.from_json({"game": "sand-castles", "players": players("abcd"), "rounds": [{"number": 1, "tables": [
        {"table": 1, "players": ["a", "b"], "result": {"points": 4, "rank": 2}},
        {"table": 2, "players": ["c", "d"], "result": {"points": 4, "rank": 1}}]}]})
    rows = {r["player"]: r for r in standings_json(ev)["standings"]}
    assert [rows[p]["wins"] for p in "abcd"] == [0, 0, 1, 1]


@pytest.mark.parametrize("scoring, result", [
    ({"placement_points": {"2": [1e308, 0]}}, {"game_points": {"a": 2, "b": 1}}),
    ({"bye_points": 1e308}, {"game_points": {"a": 2, "b": 1}}),
    (None, {"game_points": {"a": 1e300, "b": 1}}),
])
def test_points_too_large_to_add_up_are_bad_input(tmp_path, capsys, scoring, result):
    """Numbers whose sums leave the range of a float are refused (exit 2), not an internal error."""
    doc = {"game": "plazing", "players": players("abc"),
           "rounds": [{"number": n, "tables": [{"table": 1, "players": ["a", "b"], "result": result}], "byes": ["c"]}
                      for n in (1, 2)]}
    if scoring:
        doc["scoring"] = scoring
    with pytest.raises(InvalidEventError, match="at most"):
        Event.from_json(doc)
    path = tmp_path / "e.json"
    path.write_text(json.dumps(doc))
    for command in ("standings", "seat"):
        assert main([command, str(path), "--json"]) == 2
        assert json.loads(capsys.readouterr().out)["error"]["code"] == "invalid-event"
