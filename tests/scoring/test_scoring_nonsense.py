"""Nonsense states are refused with InvalidStateError listing the problem, never accepted or crashed on.

One test per hole a tester found: non-string ``game``, Strand unter without (all of) its grooves,
counts no box holds, Seashells player names, values ``repr`` cannot print.
"""

from __future__ import annotations

import pytest

import scoring
from scoring import InvalidStateError, UnknownGameError
from scoring.seashells_mats import merge_mats

HUGE = 10**5000  # repr() raises ValueError for ints this long


def problems_of(state, setup=None):
    """validate's problems, checked to be what ``scoring.problems`` returns."""
    with pytest.raises(InvalidStateError) as err:
        scoring.validate(state, setup)
    assert scoring.problems(state, setup) == err.value.problems
    return "\n".join(err.value.problems)


# -- 1. the game name and other lookups keyed by user data ---------------------------------------

@pytest.mark.parametrize("game", [["strand-unter"], {"a": 1}, 5, 1.5, True, HUGE, {"strand-unter"}],
                         ids=["list", "dict", "int", "float", "bool", "huge", "set"])
def test_a_game_that_is_not_a_string_is_an_unknown_game(game):
    for fn in (scoring.validate, scoring.score, scoring.explain):
        with pytest.raises(UnknownGameError) as err:
            fn({"game": game})
        assert err.value.problems[0].startswith("game: expected a string")
    assert scoring.problems({"game": game})[0].startswith("game: expected a string")


def test_merge_mats_refuses_unhashable_or_non_string_names_and_non_object_mats():
    mat = {"game": "seashells", "players": [{"player": ["ana"], "shells": []}]}
    merged = merge_mats([mat, mat])  # no TypeError: validation names the bad player
    assert "players[0].player: expected a player name" in problems_of(merged)
    for setup in ({"players": [5]}, {"players": [""]}, {"players": "ana"}):
        with pytest.raises(InvalidStateError, match="setup.players"):
            merge_mats([{"game": "seashells", "players": [{"player": "mat"}]}], setup)
    with pytest.raises(InvalidStateError, match="players\\[0\\]: expected an object"):
        merge_mats([{"game": "seashells", "players": [5]}])
    with pytest.raises(InvalidStateError, match="players: expected a list"):
        merge_mats([{"game": "seashells", "players": 5}])
    with pytest.raises(InvalidStateError, match="setup: expected an object"):
        merge_mats([{"game": "seashells", "players": []}], [1])  # type: ignore[arg-type]


# -- 2. Strand unter grooves ----------------------------------------------------------------------

def strand(sea_front=4, numbers=(1, 2, 3), **extra):
    return {"game": "strand-unter", "sea_front": sea_front,
            "grooves": [{"number": n, "castles": []} for n in numbers], **extra}


def test_strand_grooves_are_required():
    state = strand()
    del state["grooves"]
    assert "grooves: missing" in problems_of(state)
    scoring.validate(strand(sea_front=1, numbers=()))  # nothing visible: an empty list is right


def test_strand_every_visible_groove_is_listed_once_in_order_and_none_under_the_sea():
    assert "grooves: groove 2 missing" in problems_of(strand(numbers=(1, 3)))
    assert "grooves: grooves 1, 2, 3 missing" in problems_of(strand(numbers=()))
    assert "grooves[3].number: groove 2 listed twice" in problems_of(strand(numbers=(1, 2, 3, 2)))
    assert "grooves: listed in the order [1, 3, 2]" in problems_of(strand(numbers=(1, 3, 2)))
    text = problems_of(strand(numbers=(1, 2, 3, 4, 5)))
    assert "grooves[3]: groove 4 is under the sea (sea_front 4)" in text
    assert "grooves[4]: groove 5 is under the sea" in text
    # castles in a groove that is not listed are no longer silently dropped
    state = strand(numbers=(1,))
    state["grooves"][0]["castles"] = [{"player": "red", "value": 1}]
    assert "grooves 2, 3 missing" in problems_of(state)


# -- 3. counts bounded by the box -----------------------------------------------------------------

def test_strand_shell_counts_are_bounded_by_the_box():
    state = strand()
    state["grooves"][0]["shells"] = {"white": 10**30}
    assert "grooves[0].shells.white: expected an integer 0..20, got 1000000000000000000000000000000" in problems_of(state)
    state = strand(players={"red": {"bucket": {"gray": 8}, "open_cards": []}})
    for g in state["grooves"]:
        g["shells"] = {"gray": 5}
    assert "shells: 23 gray counted in the grooves and buckets; the game has 20 of each colour" in problems_of(state)
    state["players"]["red"]["bucket"]["gray"] = 5
    scoring.validate(state)  # 15 + 5 = 20: fine


def test_strand_card_needs_and_castles_are_bounded():
    state = strand(players={"red": {"bucket": {}, "open_cards": [{"value": 3, "needs": {"white": 5, "any": 3}}]}})
    assert "open_cards[0].needs: 8 shells; a card needs at most 7" in problems_of(state)
    state = strand()
    state["grooves"][0]["castles"] = [{"player": "red", "value": 2}]
    state["grooves"][2]["castles"] = [{"player": "red", "value": 2}, {"player": "red", "value": 4}]
    text = problems_of(state)
    assert "red has only one castle of value 2; it already stands in groove 1" in text
    assert "castles[1].value: expected an integer 0..3, got 4" in text


def seashells(*mats, **extra):
    return {"game": "seashells", "players": list(mats), **extra}


def test_seashells_counts_are_bounded_by_the_box():
    a = {"player": "a", "shells": [], "sand_dollars": 10**30}
    assert "players[0].sand_dollars: expected an integer 0..5" in problems_of(seashells(a))
    assert "shapes: expected 1..7 names" in problems_of(seashells({"player": "a"}, shapes=[f"s{i}" for i in range(8)]))
    assert "beach.rows: expected an integer 1..8, got 9" in problems_of(seashells({"player": "a"}, beach={"rows": 9, "bucket": [0, 0]}))
    shell = {"item": "shell", "shape": "conch", "colour": "blue"}
    twice = {"rows": 8, "cols": 8, "bucket": [0, 0], "items": [{**shell, "cell": [0, 1]}, {**shell, "cell": [0, 2]}]}
    assert "beach.items[1]: the blue conch at [0, 2] is already collected" in problems_of(seashells({"player": "a"}, beach=twice))
    ring = {"items": [{"item": "bottle"}] * 65}
    assert "stroll.items: 65 items; the box has 64" in problems_of(seashells({"player": "a"}, stroll=ring))
    assert "fossil_heads: 4 counted in all, the box has 3" in problems_of(
        seashells({"player": "a", "fossil_heads": 2}, {"player": "b", "fossil_heads": 2}))


def test_seashells_secret_cards_are_bounded():
    three = {"player": "a", "secret": {"shapes": ["conch", "whelk", "oyster"], "colours": ["blue", "blue"]}}
    text = problems_of(seashells(three))
    assert "players[0].secret.shapes: 3 secret cards; a player has at most 2" in text
    assert "players[0].secret.colours: the same secret card twice" in text
    both = seashells({"player": "a", "secret": {"shapes": ["conch"]}}, {"player": "b", "secret": {"shapes": ["conch"]}})
    assert "players[1].secret: there is one conch shape card; a holds it already" in problems_of(both)


def test_seashells_scoring_mode_is_not_guessed_from_falsy_values():
    for bad in (0, "", [], False):
        assert "scoring:" in problems_of(seashells({"player": "a"}, scoring=bad))


def test_plazing_expansions_are_not_guessed_from_falsy_values():
    for bad in (0, [], ""):
        assert problems_of(plazing([], expansions=bad)) == f"expansions: expected an object, got {bad!r}"


def plazing(pieces, **extra):
    return {"game": "plazing", "rows": 12, "cols": 20, "pieces": pieces, **extra}


def test_plazing_piece_counts_are_bounded_per_player():
    screens = [{"player": "red", "kind": "screen", "cells": [[r, 0], [r, 1], [r, 2]]} for r in range(9)]
    assert "pieces: red has 9 screens on the board; a player has 8" in problems_of(plazing(screens))
    scoring.validate(plazing(screens[:8]))
    blankets = [{"player": "blue", "kind": "blanket", "cells": [[r, c], [r, c + 1], [r + 1, c], [r + 1, c + 1]]}
                for r, c in ((0, 0), (0, 3), (0, 6), (0, 9), (0, 12), (0, 15))]
    assert "pieces: blue has 6 blankets on the board; a player has 5" in problems_of(plazing(blankets))


def test_plazing_players_are_bounded():
    gear = [{"player": f"p{i}", "kind": "gear", "cells": [[0, i]]} for i in range(5)]
    assert "the game is for at most 4" in problems_of(plazing(gear))
    assert "the game is for at most 4" in problems_of(plazing([], players=["a", "b", "c", "d", "e"]))
    assert "players[0]: a player name has at most 40 characters" in problems_of(plazing([], players=["x" * 41]))
    assert "collected[5]" not in problems_of(plazing([], collected={"": {"amber": 1}}))
    assert "collected['']: expected a player name" in problems_of(plazing([], collected={"": {"amber": 1}}))


def sand(lanes, **extra):
    return {"game": "sand-castles", "lanes": lanes, **extra}


def lane(length=8, wave=1, pieces=0, **extra):
    return {"length": length, "wave": wave, "castle_pieces": pieces, "wall": False, "flooded": False, **extra}


def test_sand_castles_lengths_pieces_and_walls_are_bounded():
    assert "lanes.top.length: expected an integer 2..30, got 1000000000000000000000000000000" in problems_of(
        sand({"top": lane(length=10**30)}))
    assert "lanes.top.length: expected an integer 2..30, got 31" in problems_of(sand({"top": lane(length=31)}))
    assert "lanes.top.castle_needs: expected an integer 1..12, got 13" in problems_of(sand({"top": lane(castle_needs=13)}))
    assert "setup.needs.top: expected an integer 1..12" in problems_of(sand({"top": lane()}), {"needs": {"top": 10**30}})
    many = {"top": lane(pieces=5), "middle": lane(pieces=3), "bottom": lane(pieces=4)}
    scoring.validate(sand(many))
    big = {"top": lane(pieces=5), "middle": lane(pieces=3), "bottom": lane(pieces=4), "left": lane(pieces=2, castle_needs=2)}
    text = problems_of(sand(big))
    assert "lanes: 4 lanes; the board has 3" in text and "lanes: 14 castle pieces in all; the box has 12" in text
    walls = {"top": lane(wall=True), "middle": lane(wall=True)}
    assert "walls_left: 5 left and 2 standing; the box has 6 walls" in problems_of(sand(walls, walls_left=5))
    scoring.validate(sand(walls, walls_left=4))


# -- 4. Seashells player names --------------------------------------------------------------------

@pytest.mark.parametrize("name", [5, "", "   ", "x" * 41, ["ana"], None], ids=repr)
def test_seashells_setup_player_must_be_a_name(name):
    state = seashells({"player": "mat", "shells": [["conch", "blue"]]})
    assert "setup.player:" in problems_of(state, {"player": name})


def test_seashells_setup_player_names_the_single_mat():
    out = scoring.score(seashells({"player": "mat", "shells": [["conch", "blue"]]}), {"player": "ana"})
    assert [r["player"] for r in out["players"]] == ["ana"]


@pytest.mark.parametrize("name", [5, "", "x" * 41, ["ana"]], ids=repr)
def test_seashells_mat_player_must_be_a_name(name):
    assert "players[0].player: " in problems_of(seashells({"player": name}))


# -- 5. values repr() cannot print, floats, NaN ---------------------------------------------------

@pytest.mark.parametrize("value", [HUGE, [HUGE], {"a": HUGE}, float("nan"), 1e308, float("inf")],
                         ids=["huge", "huge-in-list", "huge-in-dict", "nan", "1e308", "inf"])
def test_any_value_in_any_top_level_field_is_an_invalid_state(value):
    fields = {"strand-unter": ["sea_front", "sandpiper", "grooves", "players", "house_rules"],
              "plazing": ["rows", "cols", "pieces", "meeples", "terrain", "weather", "players", "collected", "track"],
              "seashells": ["players", "scoring", "shapes", "sun", "beach", "stroll"],
              "sand-castles": ["lanes", "walls_left"],
              "grid": ["rows", "cols", "cells", "confidence"]}
    for game, keys in fields.items():
        for key in keys:
            with pytest.raises(InvalidStateError):
                scoring.validate({"game": game, key: value})
            assert scoring.problems({"game": game, key: value})


def test_a_huge_cell_is_off_any_board():
    state = {"game": "plazing", "rows": 2, "cols": 2, "pieces": [{"player": "r", "kind": "gear", "cells": [[HUGE, 0]]}]}
    assert "pieces[0].cells[0]: cell [<an integer of about 5000 digits>, 0] is off any board" in problems_of(state)
    catalogue = {"pieces": {"gear": [[[HUGE, 0]]]}}
    assert "off any board" in problems_of({"game": "plazing", "rows": 2, "cols": 2}, catalogue)
