"""``beachscore standings`` and ``beachscore seat`` on event files, as the contract's test kits drive them."""

import json
import subprocess
import sys

import pytest

from beachscore.cli import main

EVENT = {"event": "Club night", "game": "strand-unter",
         "players": [{"id": "p1", "name": "Ana", "club": "Sopot"}, {"id": "p2", "name": "Bo"},
                     {"id": "p3", "name": "Cy"}, {"id": "p4", "name": "Di"}],
         "rounds": [{"number": 1, "tables": [
             {"table": 1, "players": ["p1", "p2", "p3", "p4"],
              "result": {"game_points": {"p1": 30, "p2": 30, "p3": 12, "p4": 9},
                         "ranks": {"p1": 1, "p2": 1, "p3": 3, "p4": 4}}}]}]}


def run(tmp_path, doc, *args):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    out = subprocess.run([sys.executable, "-m", "beachscore", *args[:1], str(path), *args[1:]],
                         capture_output=True, text=True, timeout=60)
    return out


def test_standings_json_splits_shared_places(tmp_path, capsys):
    path = tmp_path / "e.json"
    path.write_text(json.dumps(EVENT))
    assert main(["standings", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rounds_played"] == 1
    rows = {r["player"]: r for r in out["standings"]}
    assert rows["p1"]["tournament_points"] == 3 and rows["p2"]["tournament_points"] == 3  # (4 + 2) / 2
    assert rows["p3"]["tournament_points"] == 1 and rows["p4"]["tournament_points"] == 0
    assert [r["rank"] for r in out["standings"]] == [1, 1, 3, 4]
    assert rows["p1"]["wins"] == 1 and rows["p2"]["wins"] == 1
    assert rows["p3"]["opponents"] == pytest.approx((3 + 3 + 0) / 3)
    assert set(out["standings"][0]) >= {"rank", "player", "name", "tournament_points", "game_points", "wins",
                                       "opponents", "played"}


def test_fractional_points_and_configured_tiebreakers(tmp_path, capsys):
    doc = dict(EVENT, scoring={"placement_points": {"4": [5, 3, 2, 0]}, "tiebreakers": ["head_to_head"]})
    doc["rounds"] = [{"number": 1, "tables": [{"table": 1, "players": ["p1", "p2", "p3", "p4"],
                      "result": {"game_points": {"p1": 1, "p2": 1, "p3": 1, "p4": 0},
                                 "ranks": {"p1": 1, "p2": 1, "p3": 1, "p4": 4}}}]}]
    path = tmp_path / "e.json"
    path.write_text(json.dumps(doc))
    assert main(["standings", str(path), "--json"]) == 0
    rows = {r["player"]: r for r in json.loads(capsys.readouterr().out)["standings"]}
    assert rows["p1"]["tournament_points"] == pytest.approx(10 / 3)


def test_seat_json_seats_everyone_and_is_repeatable(tmp_path, capsys):
    doc = {"event": "E", "game": "plazing", "players": [{"id": f"p{i}", "name": f"P{i}"} for i in range(11)]}
    path = tmp_path / "e.json"
    path.write_text(json.dumps(doc))
    assert main(["seat", str(path), "--seed", "4", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["seat", str(path), "--seed", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert first["round"] == 1 and [len(t["players"]) for t in first["tables"]] == [4, 4, 3]
    assert sorted(p for t in first["tables"] for p in t["players"]) == sorted(f"p{i}" for i in range(11))


def test_seat_after_a_round_puts_the_leader_at_table_one(tmp_path, capsys):
    path = tmp_path / "e.json"
    doc = dict(EVENT, players=EVENT["players"] + [{"id": f"x{i}", "name": f"X{i}"} for i in range(4)])
    doc["rounds"] = [{"number": 1, "tables": [EVENT["rounds"][0]["tables"][0], {
        "table": 2, "players": ["x0", "x1", "x2", "x3"],
        "result": {"game_points": {"x0": 50, "x1": 1, "x2": 2, "x3": 3}}}]}]
    path.write_text(json.dumps(doc))
    assert main(["seat", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["round"] == 2 and out["tables"][0]["players"][0] == "x0"
    # nobody sits with the whole of their round-1 table again
    assert all(len(set(t["players"]) & {"p1", "p2", "p3", "p4"}) == 2 for t in out["tables"])


@pytest.mark.parametrize("doc, words", [
    ("{not json", "invalid JSON"),
    ({"game": "chess", "players": []}, "unknown game"),
    (dict(EVENT, rounds=[{"number": 1, "tables": [{"table": 1, "players": ["p1", "p1"]}]}]), "seated twice"),
    (dict(EVENT, rounds=[{"number": 1, "tables": [{"table": 1, "players": ["p1", "zz"]}]}]), "unknown player"),
    (dict(EVENT, scoring={"tiebreakers": ["coin_toss"]}), "unknown tiebreaker"),
    (dict(EVENT, rounds=[{"number": 1, "tables": [{"table": 1, "players": ["p1", "p2"],
                                                   "result": {"game_points": {"p1": 1}}}]}]), "no value for 'p2'"),
])
def test_invalid_event_files_exit_2_with_one_line(tmp_path, doc, words):
    for command in ("standings", "seat"):
        out = run(tmp_path, doc, command, "--json")
        assert out.returncode == 2, out.stderr
        assert words in json.loads(out.stdout)["error"]["message"]
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def _half_played(status=None):
    doc = dict(EVENT, players=EVENT["players"] + [{"id": f"x{i}", "name": f"X{i}"} for i in range(4)])
    doc["rounds"] = [{"number": 1, "tables": [EVENT["rounds"][0]["tables"][0],
                                              {"table": 2, "players": ["x0", "x1", "x2", "x3"]}]}]
    if status:
        doc["rounds"][0]["status"] = status
    return doc


def test_seat_while_a_round_is_being_played_names_it_and_exits_2(tmp_path):
    """The next round is seated by final standings: while a table of the last round has no result (or
    the hall's export marks the round open) ``seat`` refuses in one line naming the round, as the hall does."""
    for args in (("seat", "--json"), ("seat",)):
        out = run(tmp_path, _half_played(), *args)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert "round 1 is still being played (table 2 has no result yet)" in out.stderr
        assert "then seat round 2" in out.stderr
    assert json.loads(run(tmp_path, _half_played(), "seat", "--json").stdout)["error"]["code"] == "round-open"
    doc = dict(EVENT, rounds=[dict(EVENT["rounds"][0], status="open")])  # every result in, not closed
    out = run(tmp_path, doc, "seat")
    assert out.returncode == 2 and "round 1 is still open" in out.stderr
    # standings still print what has been played
    assert run(tmp_path, _half_played(), "standings").returncode == 0


def test_seat_after_a_round_closed_with_a_table_unplayed(tmp_path, capsys):
    path = tmp_path / "e.json"
    path.write_text(json.dumps(_half_played("closed")))
    assert main(["seat", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["round"] == 2
    path.write_text(json.dumps(_half_played("paused")))
    assert main(["seat", str(path), "--json"]) == 2
    assert "rounds[0].status" in json.loads(capsys.readouterr().out)["error"]["message"]
