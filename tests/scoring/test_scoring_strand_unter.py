"""Strand unter: the rulebook's final-score example, unfit shells, tie-break, house rule, checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import InvalidStateError, explain, score, validate
from scoring.strand_unter import unfit_shells

SAMPLES = Path(__file__).parents[2] / "../shared/samples"


def beach(sea_front, castles, players=None, sandpiper=None):
    """State from {groove: [(player, value), ...]}; every visible groove listed."""
    grooves = [{"number": n, "shells": {"white": 0, "gray": 0, "brown": 0, "black": 0},
                "castles": [{"player": p, "value": v} for p, v in castles.get(n, [])]}
               for n in range(1, sea_front)]
    out = {"game": "strand-unter", "sea_front": sea_front, "sandpiper": sandpiper, "grooves": grooves}
    if players is not None:
        out["players"] = players
    return out


# The rulebook's example of a final score, reconstructed: groove 6 is the highest visible
# groove; Wilma's third castle was flooded; Carl's two castles are his 2 and 3.
RULEBOOK = beach(7, {
    6: [("wilma", 3), ("carl", 3), ("hannah", 1), ("hannah", 2)],
    5: [("steven", 3)],
    4: [("wilma", 1), ("carl", 2), ("steven", 1), ("steven", 2)],
    3: [("hannah", 3)],
    2: [("steven", 0)],
}, players={
    "wilma": {"bucket": {"brown": 1}, "open_cards": [{"value": 0, "needs": {"brown": 2, "any": 1}}]},
    "carl": {"bucket": {"black": 2}, "open_cards": [{"value": 1, "needs": {"white": 2, "gray": 1}}]},
    "hannah": {"bucket": {"gray": 2}, "open_cards": [{"value": 0, "needs": {"gray": 1, "white": 2}}]},
    "steven": {"bucket": {"white": 1}, "open_cards": []},
})


def test_rulebook_final_score_example():
    out = score(RULEBOOK)
    rows = {p["player"]: p for p in out["players"]}
    assert {p: (r["castle_points"], r["unfit_shells"], r["total"]) for p, r in rows.items()} == {
        "wilma": (14, 0, 14), "carl": (15, 2, 13), "hannah": (21, 1, 20), "steven": (21, 1, 20)}
    assert out["ranking"] == [["hannah"], ["steven"], ["wilma"], ["carl"]]
    assert out["winners"] == ["hannah"]
    assert out["tie_break"] == "groove 6: hannah 15, steven 0"
    assert out["ranked_by"] == "total"
    assert rows["wilma"]["castles"] == [{"groove": 6, "value": 3, "points": 9}, {"groove": 4, "value": 1, "points": 5}]


def test_rulebook_example_explained():
    text = explain(RULEBOOK)
    assert ("wilma: value-3 castle in groove 6 (6 + 3 = 9), value-1 castle in groove 4 (4 + 1 = 5) → castle points 14; "
            "unfit shells 0 → 14 beach points") in text
    assert "Tie-break (castle points groove by groove from the sea): groove 6: hannah 15, steven 0" in text
    assert text.splitlines()[0].startswith("Sea front: ")
    assert "Ranking (by beach points): 1. hannah; 2. steven; 3. wilma; 4. carl" in text


def test_explanation_states_the_sea_front_the_sandpiper_and_unknowns():
    grooves = [{"number": n, "castles": [{"player": "red", "value": 2}] if n == 1 else []} for n in range(1, 8)]
    text = explain({"game": "strand-unter", "sea_front": 8, "sandpiper": 7, "grooves": grooves})
    assert text.splitlines()[0] == ("Sea front: groove 8 (the sea covers grooves 8–11; 1–7 on the beach); "
                                    "sandpiper in groove 7.")
    assert "red: value-2 castle in groove 1 (1 + 2 = 3) → castle points 3; unfit shells unknown" in text
    assert "beach points unknown" in text and "Ranking (by castle points)" in text
    text = explain({"game": "strand-unter", "sea_front": 8, "sandpiper": None, "grooves": grooves,
                    "house_rules": {"multiply": True}})
    assert "no sandpiper on the board" in text and "(1 × 2 = 2)" in text


@pytest.mark.parametrize("bucket, cards, unfit", [
    ({"white": 2}, [{"white": 2}], 0),                               # every shell has a space
    ({"white": 3}, [{"white": 2}], 1),                               # one shell too many
    ({"white": 3}, [{"white": 2, "any": 1}], 0),                     # the wildcard takes the extra
    ({"white": 2, "black": 2}, [{"white": 1, "any": 1}], 2),         # one wildcard, two leftovers
    ({"gray": 1, "brown": 1}, [{"gray": 1}, {"brown": 1}], 0),       # spaces on two cards
    ({"black": 3}, [], 3),                                           # no face-up card: all unfit
    ({}, [{"any": 1}], 0),                                           # empty bucket
])
def test_unfit_shells_by_optimal_fit(bucket, cards, unfit):
    assert unfit_shells(bucket, cards) == unfit


def test_unknown_bucket_or_cards_make_unfit_and_total_null_but_keep_castle_points():
    s = beach(5, {3: [("red", 2)], 1: [("blue", 0)]}, players={"red": {"bucket": {"white": 1}}})
    out = score(s)
    rows = {p["player"]: p for p in out["players"]}
    assert rows["red"]["castle_points"] == 5 and rows["red"]["unfit_shells"] is None and rows["red"]["total"] is None
    assert rows["blue"]["castle_points"] == 1 and rows["blue"]["total"] is None
    assert out["ranked_by"] == "castle_points" and out["ranking"] == [["red"], ["blue"]]


def test_setup_fills_the_off_board_facts_and_the_state_wins():
    s = beach(5, {3: [("red", 2)]}, players={"red": {"bucket": {"white": 2}}})
    setup = {"players": {"red": {"bucket": {"white": 9}, "open_cards": [{"value": 3, "needs": {"white": 1}}]}}}
    [row] = score(s, setup)["players"]
    assert row["unfit_shells"] == 1 and row["total"] == 4


def test_multiplication_only_as_a_recorded_house_rule():
    s = beach(8, {6: [("red", 3)], 2: [("red", 0)]})
    assert score(s)["players"][0]["castle_points"] == 9 + 2
    out = score(s, {"house_rules": {"multiply": True}})
    assert out["players"][0]["castle_points"] == 18 and out["house_rules"] == {"multiply": True}
    assert any("house rule" in r for r in out["rules"])


def test_tie_goes_landwards_until_a_groove_differs():
    s = beach(9, {8: [("a", 1), ("b", 1)], 5: [("a", 2)], 4: [("b", 3)]})
    out = score(s)
    assert out["ranking"] == [["a"], ["b"]] and out["tie_break"] == "groove 5: a 7, b 0"


def test_still_tied_after_groove_one_is_a_shared_win():
    s = beach(9, {6: [("a", 2), ("b", 2)], 3: [("c", 0)]})
    out = score(s)
    assert out["ranking"] == [["a", "b"], ["c"]] and out["winners"] == ["a", "b"]
    assert "still tied" in out["tie_break"]


def test_every_named_player_is_ranked_even_without_castles():
    s = beach(4, {1: [("red", 1)]}, players={"blue": {"bucket": {}, "open_cards": []},
                                              "red": {"bucket": {}, "open_cards": []}})
    out = score(s)
    assert out["ranking"] == [["red"], ["blue"]]
    assert [p["player"] for p in out["players"]] == ["blue", "red"]


def test_validation_lists_every_problem():
    s = {"game": "strand-unter", "sea_front": 5, "sandpiper": 6, "grooves": [
        {"number": 1, "shells": {"white": -1, "pink": 2}, "castles": [{"player": "red", "value": 4}]},
        {"number": 2, "castles": [{"player": "red", "value": 1}, {"player": "red", "value": 1}]},
        {"number": 2, "castles": []},
        {"number": 12, "castles": []}],
        "players": {"red": {"bucket": {"white": 1}, "open_cards": [{"value": 1, "needs": {"any": 1}}]}}}
    with pytest.raises(InvalidStateError) as err:
        validate(s)
    text = "\n".join(err.value.problems)
    for needle in ("sandpiper: groove 6 is under the sea (sea_front 5)",
                   "grooves[0].shells: unknown key 'pink'", "grooves[0].shells.white: expected an integer 0..20, got -1",
                   "grooves[0].castles[0].value: expected an integer 0..3, got 4",
                   "grooves[1].castles[1]: red has only one castle of value 1",
                   "grooves[2].number: groove 2 listed twice",
                   "grooves[3].number: expected an integer 1..11, got 12",
                   "players.red.open_cards[0]: card 1 is face up but red's castle 1 stands in groove 2",
                   "grooves: grooves 3, 4 missing"):
        assert needle in text
    assert len(err.value.problems) == 9


@pytest.mark.parametrize("path", sorted((SAMPLES / "strand-unter").glob("setup*/scene_*.truth.json")),
                         ids=lambda p: p.name)
def test_sample_states_score_castle_points_as_the_evaluator_does(path):
    truth = json.loads(path.read_text())
    out = score(truth["state"])
    want = {}
    for g in truth["state"]["grooves"]:
        for c in g["castles"]:
            want[c["player"]] = want.get(c["player"], 0) + g["number"] + c["value"]
    assert {p["player"]: p["castle_points"] for p in out["players"]} == want
    assert json.loads(json.dumps(out)) == out
