"""Seashells: simple and advanced scoring, secrets, fossils, Sun tie-break, beach moves, checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import InvalidStateError, explain, score, validate

SAMPLES = Path(__file__).parents[2] / "../shared/samples"


def mat(name, *shells, **extra):
    return {"player": name, "shells": [list(s) for s in shells], "fossil_heads": 0, "fossil_tails": 0,
            "sand_dollars": 0, "bottles": 0, **extra}


def game(*players, scoring="simple", **extra):
    return {"game": "seashells", "scoring": scoring, "players": list(players), **extra}


def rows(out):
    return {p["player"]: p for p in out["players"]}


def test_simple_scoring_gives_3_to_every_player_tied_for_most():
    out = score(game(mat("a", ("conch", "blue")), mat("b", ("conch", "pink")), mat("c")))
    assert rows(out)["a"]["categories"] == {"shape:conch": 3, "colour:blue": 3}
    assert rows(out)["b"]["categories"] == {"shape:conch": 3, "colour:pink": 3}
    assert rows(out)["c"]["categories"] == {}


def test_advanced_scoring_single_leader_3_and_second_place_1():
    out = score(game(mat("a", ("conch", "blue"), ("conch", "pink")), mat("b", ("conch", "white")),
                     mat("c", ("conch", "green")), mat("d"), scoring="advanced"))
    r = rows(out)
    assert [r[p]["categories"].get("shape:conch", 0) for p in "abcd"] == [3, 1, 1, 0]


def test_advanced_scoring_tie_for_most_gives_1_each_and_no_second():
    out = score(game(mat("a", ("conch", "blue")), mat("b", ("conch", "pink")),
                     mat("c", ("whelk", "green")), scoring="advanced"))
    r = rows(out)
    assert r["a"]["categories"]["shape:conch"] == 1 and r["b"]["categories"]["shape:conch"] == 1
    assert "shape:conch" not in r["c"]["categories"]


def test_secret_cards_count_as_one_more():
    # rulebook: a Scallop card and three Scallops make four Scallops
    a = mat("a", ("scallop", "blue"), ("scallop", "pink"), ("scallop", "white"), secret={"shapes": ["scallop"], "colours": []})
    b = mat("b", ("scallop", "green"), ("scallop", "yellow"), ("scallop", "orange"), ("scallop", "violet"))
    out = score(game(a, b))
    assert rows(out)["a"]["categories"]["shape:scallop"] == 3 and rows(out)["b"]["categories"]["shape:scallop"] == 3
    out = score(game(a, b, scoring="advanced"))
    assert rows(out)["a"]["categories"]["shape:scallop"] == 1


def test_zero_ruling_a_category_nobody_holds_or_a_holder_of_none_earns_nothing():
    out = score(game(mat("a", ("conch", "blue")), mat("b"), scoring="advanced"))
    r = rows(out)
    assert r["a"]["categories"] == {"shape:conch": 3, "colour:blue": 3}  # b's 0 is no second place
    assert r["b"]["categories"] == {} and r["b"]["total"] == 0


def test_fossil_pairs_and_sand_dollars():
    out = score(game(mat("a", fossil_heads=2, fossil_tails=1, sand_dollars=3)))
    r = rows(out)["a"]
    assert (r["fossil_pairs"], r["fossil_points"], r["sand_dollar_points"], r["total"]) == (1, 3, 3, 6)


def test_sun_shell_breaks_a_tie_shape_plus_colour():
    # rulebook: Sun shell a Pink Starfish → count Starfish plus Pink
    a = mat("a", ("starfish", "blue"), ("conch", "white"))
    b = mat("b", ("whelk", "pink"), ("oyster", "pink"), secret={"shapes": ["scallop"], "colours": ["pink"]})
    out = score(game(a, b, sun={"shape": "starfish", "colour": "pink"}))
    assert rows(out)["a"]["total"] == rows(out)["b"]["total"] == 12
    assert rows(out)["a"]["sun_matches"] == 1 and rows(out)["b"]["sun_matches"] == 3
    assert out["ranking"] == [["b"], ["a"]] and out["winners"] == ["b"]
    assert out["tie_break"] == "Sun shell matches: b 3, a 1"


def test_still_tied_after_the_sun_shell_is_a_shared_win():
    out = score(game(mat("a", ("conch", "blue")), mat("b", ("whelk", "blue")), sun={"shape": "oyster", "colour": "white"}))
    assert out["ranking"] == [["a", "b"]] and out["winners"] == ["a", "b"]


def test_setup_names_the_single_mat_and_gives_secret_and_sun():
    s = {"game": "seashells", "players": [mat("mat", ("conch", "pink"))]}
    out = score(s, {"player": "ana", "secret": {"shapes": ["conch"], "colours": ["blue"]},
                    "sun": {"shape": "conch", "colour": "white"}})
    [r] = out["players"]
    assert r["player"] == "ana" and r["sun_matches"] == 2 and r["secrets_known"] is True
    assert r["categories"] == {"shape:conch": 3, "colour:blue": 3, "colour:pink": 3}


def test_beach_legal_moves_and_game_over():
    items = [{"cell": [0, 3], "item": "shell", "shape": "oyster", "colour": "green"},
             {"cell": [4, 7], "item": "bottle"}, {"cell": [5, 5], "item": "sand_dollar"}]
    out = score(game(mat("a"), beach={"rows": 8, "cols": 8, "items": items, "bucket": [4, 3]}))
    assert out["game_over"] is False and out["legal_moves"] == [[0, 3], [4, 7]]
    out = score(game(mat("a"), beach={"rows": 8, "cols": 8, "items": items[2:], "bucket": [4, 3]}))
    assert out["game_over"] is True and out["legal_moves"] == []
    assert score(game(mat("a")))["game_over"] is None


def test_stroll_mode_moves_up_to_four_and_counts_laps():
    ring = {"items": [{"item": "bottle"}, {"item": "sand_dollar"}, {"item": "shell", "shape": "conch", "colour": "blue"},
                      {"item": "fossil_head"}, {"item": "fossil_tail"}], "shovels_at": 2, "shovels": 1}
    out = score(game(mat("a"), stroll=ring))["stroll"]
    assert [(m["steps"], m["passes_shovels"], m["ends_game"]) for m in out["moves"]] == [
        (1, False, False), (2, False, False), (3, True, True), (4, True, True)]
    assert score(game(mat("a"), stroll={**ring, "shovels": 0}))["game_over"] is True


def test_validation_lists_every_problem():
    s = game(mat("a", ("conch", "teal"), ("conch", "pink"), sand_dollars=4),
             mat("b", ("conch", "pink"), ("starfish", "pink"), sand_dollars=2, fossil_heads=-1),
             scoring="hard", sun={"shape": "starfish", "colour": "pink"},
             beach={"rows": 8, "cols": 8, "items": [{"cell": [9, 0], "item": "bottle"}], "bucket": [0, 0]})
    with pytest.raises(InvalidStateError) as err:
        validate(s)
    text = "\n".join(err.value.problems)
    for needle in ("scoring: unknown value 'hard'", "players[0].shells[0] colour: unknown value 'teal'",
                   "players[1].shells[0]: there is one pink conch; a holds it already",
                   "players[1].shells[1]: the pink starfish lies on the Sun tile",
                   "players[1].fossil_heads: expected an integer 0..3, got -1",
                   "sand_dollars: 6 counted in all, the box has 5", "beach.items[0].cell: cell [9, 0] is off the 8x8 grid"):
        assert needle in text


def test_explanation_lists_categories_and_ranking():
    text = explain(game(mat("a", ("conch", "blue")), mat("b")))
    assert "conch: a 1, b 0 → a +3" in text and "Ranking: 1. a; 2. b" in text


@pytest.mark.parametrize("path", sorted((SAMPLES / "seashells").glob("setup*/scene_*.truth.json")), ids=lambda p: p.name)
def test_sample_mats_score(path):
    state = json.loads(path.read_text())["state"]
    out = score(state)
    [r] = out["players"]
    held = state["players"][0]
    # one player alone wins every category they hold (simple scoring)
    cats = {f"shape:{s}" for s, _ in held["shells"]} | {f"colour:{c}" for _, c in held["shells"]}
    assert r["total"] == 3 * len(cats) + 3 * min(held["fossil_heads"], held["fossil_tails"]) + held["sand_dollars"]
