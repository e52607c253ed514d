"""The prior (beachscore.follow.FollowedGame) on synthetic Plażing readings: which reading is taken,
its confidence, what is called impossible, what is accepted."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from beachscore.follow import IMPOSSIBLE_CONFIDENCE, FollowedGame, Previous, previous_from, restore_unsure
from beachscore.commands.game import final_text
from beachscore.errors import BadInputError
from beachscore.pipeline import ScanResult
from vision.types import Reading, Registration

SETUP = {"terrain": ["......", "......", "......", "......"], "players": ["red", "blue"]}
SCREEN = {"player": "red", "kind": "screen", "cells": [[2, 1], [2, 2], [2, 3]], "facing": "S"}
GEAR = {"player": "blue", "kind": "gear", "cells": [[3, 5]]}
AMBER = {"kind": "amber", "cell": [0, 2]}


def state(pieces, resources=(), meeples=(), doubtful=()):
    return {"game": "plazing", "rows": 4, "cols": 6, "pieces": [dict(p) for p in pieces], "meeples": list(meeples),
            "neutral": [], "resources": list(resources), "trash": [], "surprises": [],
            "cell_confidence": {"min": 0.5, "mean": 0.9, "doubtful": [list(c) for c in doubtful]}}


def scan(reading: Reading) -> ScanResult:
    reg = Registration(H_px_from_mm=np.eye(3), source="corners")
    return ScanResult(game="plazing", state=reading.state, score={}, confidence=reading.confidence,
                      warnings=list(reading.warnings), timing_ms={}, registration=reg, photo=None, reading=reading)


def game_after(previous: dict) -> FollowedGame:
    return FollowedGame(SimpleNamespace(game="plazing"), SETUP, Previous(previous))


def test_the_first_allowed_alternative_is_taken_and_its_confidence_rises():
    previous = state([SCREEN], [AMBER])
    meeple = state([SCREEN], meeples=[{"player": "red", "cell": [0, 2]}])
    alt = Reading(state=state([SCREEN, GEAR], [AMBER]), confidence=0.5,
                  warnings=["read with an amber on C1 instead of a red meeple on C1: the more likely reading breaks "
                            "the game's rules; check it"])
    primary = Reading(state=meeple, confidence=0.6, alternatives=[alt])
    photo = game_after(previous).follow(scan(primary))
    assert photo.accepted and photo.step.impossible == []
    assert photo.result.state["resources"] == [AMBER]
    assert photo.result.confidence == pytest.approx(0.2 / (1 - 0.6))  # p(alt) = 0.5 * 0.4, the primary ruled out
    assert any("previous reading stands" in w and "amber on C1" in w for w in photo.result.warnings)
    assert [c["kind"] for c in photo.step.changes] == ["placed"]


def test_ruling_out_alternatives_raises_the_readings_confidence():
    previous = state([SCREEN], [AMBER])
    alt = Reading(state=state([SCREEN]), confidence=0.5)  # the amber gone from an open area: forbidden
    photo = game_after(previous).follow(scan(Reading(state=state([SCREEN], [AMBER]), confidence=0.6,
                                                     alternatives=[alt])))
    assert photo.accepted and photo.result.confidence == pytest.approx(0.6 / 0.8)


def test_a_sure_reading_that_breaks_the_rules_is_reported_doubted_and_not_accepted():
    previous = state([SCREEN, GEAR])
    game = game_after(previous)
    photo = game.follow(scan(Reading(state=state([GEAR]), confidence=0.95)))
    assert [c["kind"] for c in photo.step.impossible] == ["removed"]
    assert not photo.accepted and photo.result.confidence <= IMPOSSIBLE_CONFIDENCE
    assert game.timeline.last == previous
    assert photo.to_json()["impossible"] == photo.step.impossible


def test_an_unsure_reading_that_breaks_the_rules_names_it_in_warnings_only():
    previous = state([SCREEN, GEAR])
    game = game_after(previous)
    photo = game.follow(scan(Reading(state=state([GEAR]), confidence=0.3)))
    assert photo.step.impossible == [] and not photo.accepted and photo.result.confidence == 0.3
    assert any("unsure" in w and "screen" in w for w in photo.result.warnings)
    assert game.timeline.last == previous


def test_a_piece_lost_where_the_photo_is_unsure_stands():
    previous = state([SCREEN, GEAR])
    split = {"player": "red", "kind": "gear", "cells": [[2, 1], [2, 2]]}
    reading = state([split, GEAR], doubtful=[(2, 2)])
    photo = game_after(previous).follow(scan(Reading(state=reading, confidence=0.7)))
    assert photo.accepted and photo.step.impossible == []
    assert sorted(map(tuple, photo.result.state["pieces"][-1]["cells"])) == [(2, 1), (2, 2), (2, 3)]
    assert any("previous reading stands" in w for w in photo.result.warnings)
    restored, places = restore_unsure(previous, state([GEAR]), [{"kind": "removed", "piece": "screen",
                                                                   "cells": SCREEN["cells"]}])
    assert places == [] and restored["pieces"] == [GEAR]  # no doubtful cell there: nothing restored


def test_previous_of_another_game_or_without_a_reading_is_refused():
    with pytest.raises(BadInputError) as err:
        previous_from({"game": "strand-unter", "state": {"game": "strand-unter"}}, "plazing", "x")
    assert err.value.code == "previous-game" and err.value.exit_code == 2
    with pytest.raises(BadInputError) as err:
        previous_from({"error": {"code": "occluded"}}, "plazing", "x")
    assert err.value.code == "invalid-previous"
    prev = previous_from({"state": state([SCREEN]), "timeline": {"closings": {"red": 1}, "readings": 3}}, "plazing", "x")
    assert prev.facts == {"closings": {"red": 1}}


def test_a_game_without_rules_to_follow_is_bad_input():
    with pytest.raises(BadInputError) as err:
        FollowedGame(SimpleNamespace(game="grid"))
    assert err.value.code == "unknown-game"


def test_a_first_reading_that_breaks_the_rules_is_not_accepted():
    game = FollowedGame(SimpleNamespace(game="plazing"), SETUP)
    outside = state([SCREEN], meeples=[{"player": "red", "cell": [0, 2]}])
    photo = game.follow(scan(Reading(state=outside, confidence=0.9)))
    assert [c["kind"] for c in photo.step.impossible] == ["marked"]
    assert not photo.accepted and photo.result.confidence <= IMPOSSIBLE_CONFIDENCE and game.timeline.last is None


def test_previous_with_a_piece_of_someone_not_playing_is_refused():
    purple = dict(SCREEN, player="purple")
    with pytest.raises(BadInputError) as err:
        previous_from({"state": state([purple, GEAR])}, "plazing", "x", ["red", "blue"])
    assert err.value.code == "invalid-previous" and "pieces[0].player 'purple'" in err.value.message
    assert previous_from({"state": state([SCREEN, GEAR])}, "plazing", "x", ["red", "blue"]).state


def test_the_game_players_come_from_the_setup_else_from_the_calibration():
    from beachscore.checks import game_players

    cal = SimpleNamespace(model={"players": ["red", "yellow"]})
    assert game_players({"players": ["red", "blue"]}, cal) == ["red", "blue"]
    assert game_players({"players": {"red": {}}}, cal) == ["red"]
    assert game_players(None, cal) == ["red", "yellow"]
    assert game_players({}, SimpleNamespace(model={})) is None


def test_a_closing_the_photos_cannot_tell_makes_the_final_line_doubted():
    left = {"player": "red", "kind": "gear", "cells": [[0, 0], [1, 0]]}
    right = {"player": "blue", "kind": "gear", "cells": [[0, 4], [1, 4]]}
    game = FollowedGame(SimpleNamespace(game="plazing"), dict(SETUP, weather="sun", players=["red", "blue", "green"]),
                        Previous(state([SCREEN])))
    photo = game.follow(scan(Reading(state=state([SCREEN, left, right]), confidence=0.95)))
    assert photo.accepted and photo.result.confidence == pytest.approx(0.95)
    assert any("cannot tell who placed" in w for w in photo.result.warnings)
    final = game.final_json()
    assert final["confidence"] <= IMPOSSIBLE_CONFIDENCE
    assert final["warnings"] and "blue or red" in final["warnings"][0]
    assert {p["player"]: p["total"] for p in final["score"]["players"]} == {"red": None, "blue": None, "green": 0}
    assert final["timeline"]["doubted_closings"][0]["candidates"] == ["blue", "red"]
    low, high = final["totals_range"]["red"]
    assert high == low + 1 and final["totals_range"]["green"] == [0, 0]


def _doubted_game() -> FollowedGame:
    """red's and blue's gears both laid between two photos: either one closed the area B1–D2."""
    left = {"player": "red", "kind": "gear", "cells": [[0, 0], [1, 0]]}
    right = {"player": "blue", "kind": "gear", "cells": [[0, 4], [1, 4]]}
    game = FollowedGame(SimpleNamespace(game="plazing"), dict(SETUP, weather="sun"), Previous(state([SCREEN])))
    game.follow(scan(Reading(state=state([SCREEN, left, right]), confidence=0.95)))
    return game


def test_the_players_word_on_who_closed_an_area_settles_the_final_line():
    game = _doubted_game()
    span = game.final_json()["totals_range"]  # {player: [without the area's point, with it]}
    game.settle_closers({"B1-D2": "blue"})
    final = game.final_json()
    totals = {p["player"]: p["total"] for p in final["score"]["players"]}
    assert totals == {"red": span["red"][0], "blue": span["blue"][1]} and span["blue"][1] == span["blue"][0] + 1
    assert final["warnings"] == [] and "totals_range" not in final and final["confidence"] == pytest.approx(0.95)
    assert final["timeline"]["closings"] == {"red": 0, "blue": 1} and final["timeline"]["doubted_closings"] == []
    assert final["timeline"]["notes"][-1] == "the players said blue closed the area at B1–D2"
    assert not any("cannot tell who" in n for n in final["timeline"]["notes"])


@pytest.mark.parametrize("told, words", [({"B1-D2": "green"}, "green is not among who may have closed it"),
                                         ({"F4": "red"}, "F4: no area there")])
def test_a_closer_the_timeline_cannot_take_is_a_warning_and_the_doubt_stays(told, words):
    game = _doubted_game()
    game.settle_closers(told)
    final = game.final_json()
    assert any(words in w and w.endswith("ignored") for w in final["warnings"])
    assert final["confidence"] <= IMPOSSIBLE_CONFIDENCE and final["timeline"]["doubted_closings"]
    assert {p["player"]: p["total"] for p in final["score"]["players"]} == {"red": None, "blue": None}


def test_a_game_with_nothing_doubted_keeps_its_last_confidence():
    game = game_after(state([SCREEN]))
    game.follow(scan(Reading(state=state([SCREEN, GEAR]), confidence=0.9)))
    final = game.final_json()
    assert final["confidence"] == pytest.approx(0.9) and final["warnings"] == [] and "totals_range" not in final


def test_a_doubted_first_reading_is_not_the_games_start():
    game = FollowedGame(SimpleNamespace(game="plazing"), SETUP)
    hand = state([GEAR])  # a bad read of the empty beach: a gear where a hand lay
    photo = game.follow(scan(Reading(state=hand, confidence=0.3)))
    assert not photo.accepted and game.timeline.last is None and game.last_confidence is None
    line = photo.to_json()
    assert line["accepted"] is False and line["state"]["pieces"] == [GEAR] and line["confidence"] == 0.3
    assert line["changes"] == [] and line["impossible"] == [] and line["timeline"]["readings"] == 0
    assert any("not taken as the game's start" in w for w in line["warnings"])
    nothing = game.final_json()
    assert nothing["score"] is None and nothing["state"] is None and nothing["confidence"] is None
    assert nothing["warnings"] and "no photo started the game (1 read" in nothing["warnings"][0]
    # the next trusted photo starts the game: compared with nothing, the gear's absence is no removal
    start = state([SCREEN], [AMBER])
    photo = game.follow(scan(Reading(state=start, confidence=0.9)))
    assert photo.accepted and photo.step.impossible == [] and game.timeline.last == start
    assert [c["text"] for c in photo.step.changes] == ["red placed a screen on B3–D3"]
    assert game.final_json()["confidence"] == pytest.approx(0.9) and game.final_json()["warnings"] == []


def test_a_doubted_first_reading_that_breaks_the_rules_names_them_in_its_warning():
    game = FollowedGame(SimpleNamespace(game="plazing"), SETUP)
    outside = state([SCREEN], meeples=[{"player": "red", "cell": [0, 2]}])
    photo = game.follow(scan(Reading(state=outside, confidence=0.3)))
    assert not photo.accepted and photo.step.impossible == [] and game.timeline.last is None
    assert any("not taken as the game's start" in w and "outside any closed area" in w
               for w in photo.result.warnings)


def test_with_a_previous_reading_a_doubted_photo_is_compared_with_it_not_taken_as_a_start():
    game = game_after(state([SCREEN]))  # scan --previous: the previous reading is given
    photo = game.follow(scan(Reading(state=state([SCREEN, GEAR]), confidence=0.3)))
    assert not any("game's start" in w for w in photo.result.warnings)
    assert [c["text"] for c in photo.step.changes] == ["blue placed a gear on F4"]


def test_a_mark_covered_since_the_first_photo_keeps_its_terrain_without_a_setup_terrain():
    bare = ["......", "..+...", "......", "......"]
    under = ["......", "......", "......", "......"]  # the + on C2 under red's gear: read as sand
    gear = {"player": "red", "kind": "gear", "cells": [[1, 2]]}
    game = FollowedGame(SimpleNamespace(game="plazing"), {"players": ["red", "blue"], "weather": "sun"})
    first = game.follow(scan(Reading(state=dict(state([]), terrain=bare), confidence=0.9)))
    later = game.follow(scan(Reading(state=dict(state([gear]), terrain=under), confidence=0.9)))
    assert first.accepted and later.accepted and later.result.state["terrain"] == bare
    final = game.final_json()
    assert final["timeline"]["track"]["red"] == 1  # the + square under red's gear
    assert any(w.startswith("terrain read from the photos") for w in final["warnings"])


def test_a_setup_terrain_is_never_replaced():
    game = FollowedGame(SimpleNamespace(game="plazing"), dict(SETUP, weather="sun"))
    assert game.terrain is None
    game.follow(scan(Reading(state=state([SCREEN]), confidence=0.9)))
    assert not any(w.startswith("terrain read from the photos") for w in game.final_json()["warnings"])


def test_the_possible_totals_say_when_doubted_photos_may_put_the_truth_outside_them():
    game = _doubted_game()
    assert "may lie outside" not in final_text(game)            # every accepted photo was trusted
    photo = game.follow(scan(Reading(state=game.timeline.last, confidence=0.3)))
    assert photo.accepted and game.doubted_accepted == 1
    text = final_text(game)
    assert "possible totals, by who closed the doubted areas: " in text
    assert "1 accepted photo(s) were doubted, so the true totals may lie outside them" in text


def test_the_annotated_picture_shows_the_confidence_the_pages_show(monkeypatch):
    drawn = []

    class Drawer:
        @staticmethod
        def annotate(photo, reading):
            drawn.append(reading.confidence)
            return photo.image

    monkeypatch.setattr("beachscore.pipeline.reader", lambda game: Drawer)
    previous = state([SCREEN], [AMBER])
    alt = Reading(state=state([SCREEN]), confidence=0.5)  # ruled out: the reading's confidence rises
    result = game_after(previous).follow(scan(Reading(state=state([SCREEN], [AMBER]), confidence=0.6,
                                                      alternatives=[alt]))).result
    image = np.zeros((4, 4, 3), np.uint8)
    result = dataclasses.replace(result, photo=SimpleNamespace(image=image, calibration=SimpleNamespace(lens=None)))
    result.annotate()
    assert result.reading.confidence == pytest.approx(0.6) and drawn == [pytest.approx(0.75)]
    assert drawn[0] == result.confidence


def test_the_final_block_says_how_to_name_the_doubted_closers():
    game = _doubted_game()
    hint = [line for line in final_text(game).splitlines() if "--closer" in line]
    assert len(hint) == 1 and hint[0].startswith("  to get every total, say who closed each of those areas: --closer ")
    places = [d["cells"] for d in game.timeline.facts["doubted_closings"]]
    assert hint[0].count("--closer ") == len(places)
