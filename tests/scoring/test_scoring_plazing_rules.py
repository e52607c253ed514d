"""Plażing: the worked examples and decided points of shared/rules/plazing.md."""

from __future__ import annotations

import pytest

from scoring import InvalidStateError, explain, score, validate
from scoring.plazing_points import resource_points
from scoring.ranking import split_prizes


def piece(player, kind, *cells, facing=None):
    out = {"player": player, "kind": kind, "cells": [list(c) for c in cells]}
    if facing:
        out["facing"] = facing
    return out


def state(rows, cols, *pieces, **extra):
    return {"game": "plazing", "rows": rows, "cols": cols, "pieces": list(pieces), "meeples": [], "neutral": [],
            "resources": [], "trash": [], "surprises": [], **extra}


def closed_areas(out):
    return [a for a in out["areas"] if a["closed"]]


def player(out, name):
    return next(p for p in out["players"] if p["player"] == name)


# -- rulebook examples ----------------------------------------------------------------------

def test_rulebook_resource_example_scores_15():
    assert resource_points({"amber": 3, "pebble": 2, "shell": 1}) == 15


def test_resource_points_of_a_player_come_from_the_setup():
    out = score(state(3, 3), {"players": ["red"], "collected": {"red": {"amber": 3, "pebble": 2, "shell": 1}}})
    assert player(out, "red")["resource_points"] == 15


ICE_CREAM = ["...##++.",
             "...##++.",
             "........",
             "........",
             "++......",
             "++......"]


def test_rulebook_running_example_four_covered_and_ice_cream_stand_area():
    # green covers four +1 squares; blue closes an area against the ice-cream stand,
    # covering two +1 squares and enclosing two more, and gets 1 for closing it.
    s = state(6, 8,
              piece("green", "blanket", (4, 0), (4, 1), (5, 0), (5, 1)),
              piece("blue", "screen", (0, 6), (1, 6), (2, 6), facing="E"),
              piece("blue", "gear", (2, 5)))
    out = score(s, {"terrain": ICE_CREAM, "players": ["green", "blue"], "closings": {"green": 0, "blue": 1}})
    [area] = closed_areas(out)
    assert area["cells"] == [[0, 5], [1, 5]] and area["owner"] == "blue" and area["fields"] == 2
    assert player(out, "green")["field_points"] == 4
    blue = player(out, "blue")
    assert blue["field_points"] + blue["closing_points"] == 5


def test_tie_split_examples_from_the_rulebook():
    assert split_prizes({"a": 4, "b": 4, "c": 1}, (12, 6, 3)) == {"a": 9, "b": 9, "c": 3}
    assert split_prizes({"a": 4, "b": 4, "c": 4, "d": 1}, (12, 6, 3)) == {"a": 7, "b": 7, "c": 7, "d": 0}
    assert split_prizes({"a": 4, "b": 2, "c": 2}, (12, 6)) == {"a": 12, "b": 3, "c": 3}


# -- areas ----------------------------------------------------------------------------------

def test_pieces_touching_only_at_a_corner_are_not_in_the_ring():
    # the rulebook's two crossed-out gear pieces: blue's diagonal gears do not count
    s = state(4, 7,
              piece("red", "gear", (0, 2)), piece("red", "gear", (0, 4)), piece("blue", "gear", (1, 3)),
              piece("blue", "gear", (1, 2)), piece("blue", "gear", (1, 4)))
    [area] = closed_areas(score(s))
    assert area["cells"] == [[0, 3]]
    assert area["ring"] == [0, 1, 2] and area["counts"] == {"red": 2, "blue": 1} and area["owner"] == "red"


BAY = ["#.....#",
       "#.....#",
       "#.....#",
       "#######",
       "......."]


def test_a_piece_lying_inside_an_area_is_not_part_of_its_ring():
    s = state(5, 7, piece("red", "gear", (0, 1)), piece("blue", "gear", (1, 3)))
    [area] = closed_areas(score(s, {"terrain": BAY}))
    assert area["ring"] == [0] and area["owner"] == "red" and area["size"] == 1


def test_a_terrain_and_sea_pocket_with_no_piece_is_not_an_area():
    out = score(state(5, 7), {"terrain": BAY})
    assert closed_areas(out) == []
    assert [len(a["cells"]) for a in out["areas"]] == [7]  # only the open strip at the dunes


def test_the_sea_closes_but_left_right_and_dunes_do_not():
    sea = state(3, 5, piece("red", "gear", (0, 1)), piece("red", "gear", (1, 2)), piece("red", "gear", (0, 3)))
    assert [a["cells"] for a in closed_areas(score(sea))] == [[[0, 2]]]
    left = state(3, 5, piece("red", "gear", (0, 1)), piece("red", "gear", (1, 0)))
    assert closed_areas(score(left)) == []
    assert score(left)["areas"][0]["edges"] == ["left"]
    dunes = state(2, 5, piece("red", "gear", (1, 1)), piece("red", "gear", (0, 2)), piece("red", "gear", (1, 3)))
    assert [(a["cells"], a["closed"], a["edges"]) for a in score(dunes)["areas"]][-1] == ([[1, 2]], False, ["dunes"])


def test_a_tie_for_most_ring_pieces_makes_the_area_neutral():
    s = state(3, 5, piece("red", "gear", (0, 1)), piece("blue", "gear", (1, 2)), piece("green", "gear", (0, 3)))
    [area] = closed_areas(score(s))
    assert area["owner"] == "neutral" and area["counts"] == {"red": 1, "blue": 1, "green": 1}


def test_every_piece_counts_one_whatever_its_size():
    s = state(4, 6, piece("red", "blanket", (0, 0), (0, 1), (1, 0), (1, 1)),
              piece("blue", "gear", (0, 3)), piece("blue", "gear", (1, 2)))
    [area] = closed_areas(score(s))
    assert area["cells"] == [[0, 2]] and area["owner"] == "blue"


# -- markers and disputes -------------------------------------------------------------------

NOOK = (piece("red", "gear", (0, 1)), piece("red", "gear", (1, 2)), piece("blue", "gear", (0, 3)))


def test_marker_agreeing_with_the_owner_is_no_dispute():
    [area] = closed_areas(score(state(3, 5, *NOOK, meeples=[{"player": "red", "cell": [0, 2]}])))
    assert area["marked"] == "red" and area["dispute"] is None


def test_meeple_of_another_colour_is_a_dispute():
    [area] = closed_areas(score(state(3, 5, *NOOK, meeples=[{"player": "blue", "cell": [0, 2]}])))
    assert area["marked"] == "blue" and area["dispute"] == "marked blue, rules give red"


def test_neutral_marker_in_an_owned_area_is_a_dispute():
    [area] = closed_areas(score(state(3, 5, *NOOK, neutral=[[0, 2]])))
    assert area["marked"] == "neutral" and area["dispute"] == "marked neutral, rules give red"


def test_meeple_in_an_open_area_is_a_dispute():
    out = score(state(3, 5, *NOOK, meeples=[{"player": "red", "cell": [2, 2]}]))
    open_area = next(a for a in out["areas"] if not a["closed"])
    assert open_area["marked"] == "red" and "open" in open_area["dispute"]


def test_a_closed_area_holding_trash_is_a_dispute():
    out = score(state(3, 5, *NOOK, trash=[[0, 2]]), {"expansions": {"clean_beach": True}})
    [area] = closed_areas(out)
    assert area["trash"] == [[0, 2]] and "trash" in area["dispute"]


def test_areas_held_follow_the_ring_verdict_not_the_meeples():
    out = score(state(3, 5, *NOOK, meeples=[{"player": "blue", "cell": [0, 2]}]))
    assert player(out, "red")["areas"] == 1 and player(out, "blue")["areas"] == 0


# -- points ---------------------------------------------------------------------------------

WEATHER_PIECES = (piece("red", "blanket", (3, 0), (3, 1), (4, 0), (4, 1)),
                  piece("red", "gear", (0, 5)), piece("red", "gear", (2, 5), (2, 6)),
                  piece("red", "screen", (0, 0), (0, 1), (0, 2), facing="N"),
                  piece("red", "screen", (2, 2), (3, 2), (4, 2), facing="E"))


@pytest.mark.parametrize("weather, points", [("sun", 2), ("rain", -2), ("wind-N", 2), ("wind-E", 2),
                                             ("wind-S", 0), ("wind-W", 0)])
def test_weather_points(weather, points):
    out = score(state(5, 8, *WEATHER_PIECES), {"weather": weather})
    assert player(out, "red")["weather_points"] == points


def test_wind_with_an_unknown_screen_facing_is_null():
    s = state(3, 5, piece("red", "screen", (0, 0), (0, 1), (0, 2)))
    assert player(score(s, {"weather": "wind-N"}), "red")["weather_points"] is None
    assert player(score(s, {"weather": "sun"}), "red")["weather_points"] == 0


def test_missing_off_board_facts_give_null_never_zero():
    out = score(state(3, 5, *NOOK))
    red = player(out, "red")
    for key in ("weather_points", "field_points", "resource_points", "closing_points", "track", "total"):
        assert red[key] is None, key
    assert set(out["missing"]) == {"terrain", "weather", "collected", "closings", "track"}


FULL_SETUP = {"terrain": [".....", ".....", "-...."], "weather": "sun", "players": ["red", "blue"],
              "collected": {"red": {"amber": 1}, "blue": {}}, "closings": {"red": 1, "blue": 0}}


def test_total_without_track_is_start_closings_fields_and_final_scoring():
    out = score(state(3, 5, *NOOK), FULL_SETUP)
    red, blue = player(out, "red"), player(out, "blue")
    assert red["start"] == 10  # −1 squares are in play
    # red: 10 start + 1 closing + 0 fields + 0 sun + 1 amber + 12 most areas + 12 largest
    assert red["total"] == 10 + 1 + 0 + 0 + 1 + 12 + 12
    assert blue["total"] == 10 + 0 + 0 + 0 + 0 + 0 + 0
    assert out["missing"] == ["track"]


def test_total_with_track_adds_the_final_scoring_to_the_track():
    out = score(state(3, 5, *NOOK), {**FULL_SETUP, "track": {"red": 20, "blue": 7}})
    assert player(out, "red")["total"] == 20 + 0 + 1 + 12 + 12
    assert player(out, "blue")["total"] == 7


@pytest.mark.parametrize("colours, owner, red_fields", [
    (("red", "red", "blue"), "red", 1),
    (("red", "blue", "blue"), "blue", 0),
    (("red", "blue", "green"), "neutral", 0),
])
def test_plus_squares_inside_an_area_score_for_its_owner_only(colours, owner, red_fields):
    s = state(3, 5, *(piece(c, "gear", cell) for c, cell in zip(colours, [(0, 1), (1, 2), (0, 3)])))
    out = score(s, {"terrain": ["..+..", ".....", "....."]})
    assert closed_areas(out)[0]["owner"] == owner
    assert player(out, "red")["field_points"] == red_fields
    assert sum(p["field_points"] for p in out["players"]) == (0 if owner == "neutral" else 1)


def test_three_players_get_no_third_place_four_players_do():
    # four single-square areas at the sea: red owns 2, blue 1, green 1 → red 12; blue, green share 6+3 or 6
    pieces = [piece("red", "gear", (0, 0)), piece("red", "gear", (1, 1)), piece("red", "gear", (0, 2)),
              piece("red", "gear", (1, 3)), piece("blue", "gear", (0, 4)), piece("blue", "gear", (1, 5)),
              piece("green", "gear", (0, 6)), piece("green", "gear", (1, 7)), piece("green", "gear", (0, 8))]
    # areas: (0,1) red 3; (0,3) red 2 blue 1; (0,5) blue 2 ... check the verdicts first
    three = score(state(3, 9, *pieces), {"players": ["red", "blue", "green"]})
    owners = [a["owner"] for a in closed_areas(three)]
    assert owners == ["red", "red", "blue", "green"]
    assert [player(three, p)["most_areas_points"] for p in ("red", "blue", "green")] == [12, 3, 3]
    four = score(state(3, 9, *pieces), {"players": ["red", "blue", "green", "pink"]})
    assert [player(four, p)["most_areas_points"] for p in ("red", "blue", "green", "pink")] == [12, 4, 4, 0]


def test_clean_beach_trash_points_and_bonus_only_for_a_single_leader():
    setup = {"players": ["red", "blue"], "expansions": {"clean_beach": True},
             "collected": {"red": {"trash": 2}, "blue": {"trash": 1}}}
    out = score(state(3, 5), setup)
    assert player(out, "red")["trash_points"] == 7 and player(out, "blue")["trash_points"] == 1
    setup["collected"]["blue"]["trash"] = 2
    out = score(state(3, 5), setup)
    assert player(out, "red")["trash_points"] == 2 and player(out, "blue")["trash_points"] == 2


def test_without_the_clean_beach_expansion_trash_points_are_not_applicable():
    out = score(state(3, 5, *NOOK), {**FULL_SETUP, "track": {"red": 1, "blue": 1}})
    assert player(out, "red")["trash_points"] is None and player(out, "red")["total"] is not None


def test_state_facts_win_over_the_setup():
    out = score(state(3, 5, *NOOK, weather="rain"), {"weather": "sun"})
    assert player(out, "red")["weather_points"] == -2


# -- validation -----------------------------------------------------------------------------

def test_validation_lists_every_problem_with_its_cell():
    s = state(4, 5,
              piece("red", "gear", (0, 0)),
              piece("blue", "gear", (0, 0), (0, 1)),           # overlaps piece 0
              piece("red", "gear", (1, 0)),                    # on '#'
              piece("red", "screen", (3, 3), (3, 4), (3, 5)),  # off the grid
              piece("red", "blanket", (2, 0), (2, 1), (2, 2)),  # not a blanket
              piece("pink", "gear", (2, 4)))                   # unknown player
    with pytest.raises(InvalidStateError) as err:
        validate(s, {"terrain": [".....", "#....", ".....", "....."], "players": ["red", "blue"]})
    problems = err.value.problems
    assert any("overlaps pieces[0] at [0, 0]" in p for p in problems)
    assert any("pieces[2] covers closing terrain '#' at [1, 0]" in p for p in problems)
    assert any("pieces[3].cells[2]" in p and "[3, 5] is off the 4x5 grid" in p for p in problems)
    assert any("pieces[4]" in p and "not a blanket shape" in p for p in problems)
    assert any("pieces[5].player: unknown player 'pink'" in p for p in problems)
    assert len(problems) == 5


def test_validation_checks_markers_tokens_and_facts():
    s = state(3, 3, piece("red", "gear", (0, 0)),
              meeples=[{"player": "red", "cell": [0, 0]}], neutral=[[5, 5]],
              resources=[{"kind": "gold", "cell": [1, 1]}, {"kind": "amber", "cell": [2, 2]}], trash=[[2, 2]])
    with pytest.raises(InvalidStateError) as err:
        validate(s, {"weather": "snow", "collected": {"red": {"amber": -1}}})
    text = "\n".join(err.value.problems)
    for needle in ("meeples[0].cell: cell [0, 0] is covered by pieces[0]", "neutral[0]: cell [5, 5] is off",
                   "resources[0].kind: unknown value 'gold'", "trash[0]: cell [2, 2] already holds",
                   "weather: unknown value 'snow'", "collected.red.amber: expected an integer >= 0, got -1"):
        assert needle in text


def test_a_screen_facing_along_its_length_is_invalid():
    with pytest.raises(InvalidStateError, match="points along the screen"):
        validate(state(3, 5, piece("red", "screen", (0, 0), (0, 1), (0, 2), facing="E")))


def test_catalogue_from_the_setup_replaces_the_default_and_allows_rotations():
    setup = {"pieces": {"gear": [[[0, 0], [1, 0], [1, 1]]]}}
    validate(state(4, 4, piece("red", "gear", (0, 1), (0, 2), (1, 1))), setup)  # a rotated L
    with pytest.raises(InvalidStateError, match="not a gear shape"):
        validate(state(4, 4, piece("red", "gear", (0, 0), (0, 1), (0, 2))), setup)
    with pytest.raises(InvalidStateError, match="unknown value 'screen'"):
        validate(state(4, 4, piece("red", "screen", (0, 0), (0, 1), (0, 2))), setup)


# -- explanation ----------------------------------------------------------------------------

def test_explanation_names_the_ring_pieces_per_colour_and_the_verdict():
    text = explain(state(3, 5, *NOOK, meeples=[{"player": "blue", "cell": [0, 2]}]))
    assert "a: closed, 1 square (C1); closed by 3 pieces: red 2 (gear B1, gear C2), blue 1 (gear D1) → red" in text
    assert "DISPUTE: marked blue, rules give red" in text
    assert " 1  . R a B ." in text  # the map row at the sea, area lettered


def test_a_count_beyond_what_the_box_holds_is_refused():
    """10**12 amber collected: every token lies on a square at the start, so no count exceeds the
    board's squares, for one player or for all together."""
    state = {"game": "plazing", "rows": 12, "cols": 20}
    with pytest.raises(InvalidStateError, match=r"collected\.red\.amber: 1000000000000 is more than the board"):
        validate(state, {"players": ["red", "yellow"], "collected": {"red": {"amber": 10 ** 12}}})
    with pytest.raises(InvalidStateError, match=r"collected\.\*\.shell: 300 in all players"):
        validate(state, {"players": ["red", "yellow"], "collected": {"red": {"shell": 150}, "yellow": {"shell": 150}}})
    with pytest.raises(InvalidStateError, match=r"closings\.red: 241 is more"):
        validate(state, {"players": ["red"], "closings": {"red": 241}})
    validate(state, {"players": ["red", "yellow"], "collected": {"red": {"amber": 12}}, "closings": {"red": 3}})


def test_an_empty_players_list_is_refused():
    with pytest.raises(InvalidStateError, match="players: an empty list"):
        validate({"game": "plazing", "rows": 12, "cols": 20}, {"players": []})
