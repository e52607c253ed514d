"""A Plażing game followed scan after scan at the station (fake pipeline, the rules engine's scoring):
each scan's step kept in the store, the running score with the timeline's facts, a forbidden change
flagged and not accepted, a player's correction accepted, and Game over's questions giving totals."""

from __future__ import annotations

import copy

import pytest

from beachscore.errors import BadInputError
from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.store import steps as game_steps
from beachscore.station.testing import FakeCalibration, FakeScanner, score_with_rules
from hardware.mock_camera import MockCamera
from scoring.timeline.plazing import UNSURE_WORDS, area_place

# the synthetic Plażing states of tests/scoring/test_timeline_rules.py: a 4x6 beach, red and blue
TERRAIN = ["......", "..+...", "......", "......"]
SETUP = {"terrain": TERRAIN, "players": ["red", "blue"]}
SCREEN = {"player": "red", "kind": "screen", "cells": [[2, 1], [2, 2], [2, 3]], "facing": "S"}
LEFT = {"player": "red", "kind": "gear", "cells": [[0, 0], [1, 0]]}
RIGHT = {"player": "blue", "kind": "gear", "cells": [[0, 4], [1, 4]]}
AMBER = {"kind": "amber", "cell": [0, 2]}


def plazing(pieces=(), **tokens):
    return {"game": "plazing", "rows": 4, "cols": 6, "pieces": [dict(p) for p in pieces],
            "meeples": tokens.get("meeples", []), "neutral": [], "resources": tokens.get("resources", []),
            "trash": [], "surprises": []}


#: one game from an empty beach: red lays a screen and a gear, blue closes red's area, red takes the amber
GAME = [plazing(resources=[AMBER]), plazing([SCREEN, LEFT], resources=[AMBER]),
        plazing([SCREEN, LEFT, RIGHT], resources=[AMBER]),
        plazing([SCREEN, LEFT, RIGHT], meeples=[{"player": "red", "cell": [0, 1]}])]


def plazing_calibration():
    return FakeCalibration(game="plazing", profile={"game": "plazing", "grid": {"rows": 4, "cols": 6}})


@pytest.fixture
def station(tmp_path):
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=plazing_calibration(),
                 scanner=FakeScanner(GAME[0], scorer=score_with_rules), scorer=score_with_rules)
    yield st
    st.close()


def scan(station, state, final=False):
    station.scanner.state = copy.deepcopy(state)
    answer = station.end_game("web") if final else station.request_scan("test")
    assert answer.accepted, answer.reason
    assert station.wait_idle(20)
    return station.store.scans(limit=1)[0]


def totals(score):
    return {p["player"]: p["total"] for p in score["players"]}


def play(station, states=GAME):
    return [scan(station, s) for s in states]


def test_each_scan_keeps_its_changes_and_the_running_score(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    scans = play(station)
    stepped = [game_steps.of_scan(station.store, s["id"]) for s in scans]
    assert all(s["accepted"] and s["impossible"] == [] for s in stepped)
    assert [c["text"] for c in stepped[1]["changes"]] == ["red placed a screen on B3–D3", "red placed a gear on A1–A2"]
    assert [c["kind"] for c in stepped[2]["changes"]] == ["placed", "closed"]
    assert [c["text"] for c in stepped[3]["changes"]] == ["red collected the amber on C1",
                                                         "a red meeple was put on B1"]
    timeline = stepped[3]["timeline"]
    assert timeline["closings"] == {"red": 0, "blue": 1} and timeline["collected"]["red"]["amber"] == 1
    assert timeline["readings"] == 4
    # the running score is scored with the timeline's facts: every total known (weather given)
    last = station.store.scan(scans[-1]["id"])
    assert last["score"]["missing"] == []
    assert all(isinstance(t, int) for t in totals(last["score"]).values())
    view = station.follow_view(station.store.game(game_id), last)
    assert view["accepted_scan_id"] == last["id"] and view["step"]["changes"] == stepped[3]["changes"]


def test_a_forbidden_change_is_flagged_with_both_photos_and_not_accepted(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    scans = play(station, GAME[:3])
    gone = scan(station, plazing([SCREEN, RIGHT], resources=[AMBER]))  # red's gear left the beach
    step = game_steps.of_scan(station.store, gone["id"])
    assert not step["accepted"]
    assert [c["kind"] for c in step["impossible"]] == ["removed"]
    assert "never moves or leaves" in step["impossible"][0]["text"]
    assert game_steps.last_accepted(station.store, game_id)["scan_id"] == scans[2]["id"]
    view = station.follow_view(station.store.game(game_id), station.store.scan(gone["id"]))
    assert view["previous_scan_id"] == scans[2]["id"]
    assert view["previous_photo_id"] == scans[2]["photo_id"] and view["photo_id"] == gone["photo_id"]
    assert gone["confidence"] <= 0.4  # doubted, never trusted; the reading is kept as read, not "fixed"
    assert len(gone["state"]["pieces"]) == 2
    # the next scan is compared with the last accepted reading, not with the refused one
    nxt = scan(station, GAME[3])
    assert [c["kind"] for c in game_steps.of_scan(station.store, nxt["id"])["changes"]] == ["collected", "marked"]


def test_a_players_correction_becomes_the_accepted_reading(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    play(station, GAME[:3])
    gone = scan(station, plazing([SCREEN, RIGHT], resources=[AMBER]))
    assert not game_steps.of_scan(station.store, gone["id"])["accepted"]
    station.correct(gone["id"], plazing([SCREEN, RIGHT], resources=[AMBER]), "the gear fell off the table")
    step = game_steps.of_scan(station.store, gone["id"])
    assert step["accepted"] and step["revision_id"] is not None
    assert [c["kind"] for c in step["impossible"]] == ["removed"]  # kept for the record, not refused
    assert game_steps.last_accepted(station.store, game_id)["id"] == step["id"]
    again = scan(station, plazing([SCREEN, RIGHT], resources=[AMBER]))  # the same board now reads as no change
    later = game_steps.of_scan(station.store, again["id"])
    assert later["accepted"] and later["changes"] == [] and later["impossible"] == []


def test_game_over_asks_the_weather_then_ends_with_every_total(station):
    game_id = station.new_game("plazing", SETUP)  # no weather in the set-up
    play(station)
    final = scan(station, GAME[3], final=True)
    game = station.store.game(game_id)
    assert game["ended_at"] is None  # open until the players answer
    ending = station.game_ending(game_id)
    assert [q["key"] for q in ending["questions"]] == ["weather"] and ending["scan_id"] == final["id"]
    with pytest.raises(BadInputError) as err:
        station.answer_questions(game_id, {"weather": "snow"})
    assert err.value.code == "invalid-answers"
    with pytest.raises(BadInputError) as err:  # the die is rolled at the end: not answered is not sun
        station.answer_questions(game_id, {})
    assert err.value.code == "invalid-answers" and "weather" in err.value.message
    assert station.store.game(game_id)["ended_at"] is None
    out = station.answer_questions(game_id, {"weather": "rain"})
    assert station.store.game(game_id)["ended_at"] and station.store.game(game_id)["final_scan_id"] == final["id"]
    got = totals(out["score"])
    assert set(got) == {"red", "blue"} and all(isinstance(t, int) for t in got.values())
    ending = station.game_ending(game_id)
    assert ending["setup"]["weather"] == "rain" and ending["setup"]["closings"] == {"red": 0, "blue": 1}
    with pytest.raises(BadInputError):
        station.answer_questions(game_id, {})


def test_a_game_joined_mid_way_asks_closings_and_collected(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    play(station, GAME[2:])  # the station joined with pieces on the beach already
    scan(station, GAME[3], final=True)
    asked = {q["key"]: q["value"] for q in station.game_ending(game_id)["questions"]}
    facts = game_steps.last_accepted(station.store, game_id)["timeline"]
    sure = facts["closings_at_least"]  # the first reading's area: red or blue closed it, the photo cannot tell
    assert asked["red/closings"] == sure["red"] and asked["blue/closings"] == sure["blue"]
    assert asked["red/amber"] == 1  # the timeline's counts are the defaults
    out = station.answer_questions(game_id, {"red/closings": 2, "blue/closings": 1, "red/shell": 3})
    ending = station.game_ending(game_id)
    assert ending["setup"]["closings"] == {"red": 2, "blue": 1} and "track" not in ending["setup"]
    red = next(p for p in out["score"]["players"] if p["player"] == "red")
    assert red["closing_points"] == 2 and isinstance(red["total"], int)


def test_a_doubted_first_scan_is_not_the_games_start(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    station.scanner.confidence = 0.3  # a hand over the board: the pieces read where none lie
    doubted = scan(station, plazing([SCREEN, RIGHT], resources=[AMBER]))
    step = game_steps.of_scan(station.store, doubted["id"])
    assert not step["accepted"] and step["changes"] == [] and step["impossible"] == []
    assert any("not taken as the game's start" in w for w in station.store.scan(doubted["id"])["warnings"])
    assert game_steps.last_accepted(station.store, game_id) is None
    station.scanner.confidence = 0.9
    first = scan(station, GAME[0])  # the empty beach, trusted: the game starts here, nothing called removed
    step = game_steps.of_scan(station.store, first["id"])
    assert step["accepted"] and step["impossible"] == [] and step["timeline"]["readings"] == 1
    assert game_steps.first_accepted(station.store, game_id)["scan_id"] == first["id"]
    later = game_steps.of_scan(station.store, scan(station, GAME[1])["id"])
    assert later["accepted"] and [c["kind"] for c in later["changes"]] == ["placed", "placed"]


def test_a_game_with_every_fact_ends_at_once(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="wind-N"))
    play(station)
    scan(station, GAME[3], final=True)
    assert station.store.game(game_id)["ended_at"]
    ending = station.game_ending(game_id)
    assert ending["questions"] == [] and all(isinstance(t, int) for t in totals(ending["score"]).values())


def test_strand_unter_game_over_asks_each_players_unfit_shells(tmp_path):
    from beachscore.station.testing import STRAND_STATE

    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                 scanner=FakeScanner(STRAND_STATE, scorer=score_with_rules), scorer=score_with_rules)
    try:
        game_id = st.new_game("strand-unter", {})
        scan(st, STRAND_STATE)
        scan(st, STRAND_STATE, final=True)
        asked = [q["key"] for q in st.game_ending(game_id)["questions"]]
        assert asked == [f"{p}/unfit/{c}" for p in ("red", "yellow") for c in ("white", "gray", "brown", "black")]
        out = st.answer_questions(game_id, {"red/unfit/gray": 2})
        got = {p["player"]: (p["unfit_shells"], p["total"]) for p in out["score"]["players"]}
        castles = {p["player"]: p["castle_points"] for p in out["score"]["players"]}
        # yellow's counters were left unset: not given, so yellow's unfit shells and total stay unknown
        assert got == {"red": (2, castles["red"] - 2), "yellow": (None, None)}
        assert [q["value"] for q in st.game_ending(game_id)["questions"]] == [None] * 8
        assert st.store.game(game_id)["ended_at"]
    finally:
        st.close()


def test_a_correction_is_scored_with_the_timelines_facts(station):
    station.new_game("plazing", dict(SETUP, weather="sun"))
    scans = play(station, GAME[:3])
    out = station.correct(scans[2]["id"], GAME[2])
    assert out["score"]["missing"] == []  # closings, collected and track from the timeline
    assert {p["player"]: p["closing_points"] for p in out["score"]["players"]} == {"red": 0, "blue": 1}


def test_a_version_1_store_is_migrated_and_keeps_its_games(tmp_path):
    import sqlite3

    from beachscore.station.store.schema import MIGRATIONS

    data = tmp_path / "old"
    data.mkdir()
    db = sqlite3.connect(str(data / "beachscore.sqlite3"))
    db.executescript(MIGRATIONS[0])
    db.execute("INSERT INTO games(game, setup_json, display_json, created_at) VALUES('plazing', '{}', '{}', 'then')")
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    store = Store(str(data))
    try:
        assert store.schema_version == 2 and store.game(1)["game"] == "plazing"
        assert game_steps.last_accepted(store, 1) is None and game_steps.ending(store, 1) is None
        sid = store.add_scan(game_id=1, source="test", photo_jpeg=None, result={"game": "plazing", "state": GAME[0]})
        game_steps.add_step(store, game_id=1, scan_id=sid, state=GAME[0], accepted=True, changes=[], impossible=[],
                            timeline={"readings": 1})
        assert game_steps.last_accepted(store, 1)["scan_id"] == sid
    finally:
        store.close()


def test_an_area_two_players_may_have_closed_is_asked(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    # red's gear and blue's gear both laid between two photos: either one closed the area
    play(station, [GAME[0], plazing([SCREEN], resources=[AMBER]), GAME[2], GAME[3]])
    scan(station, GAME[3], final=True)
    questions = station.game_ending(game_id)["questions"]
    assert [q["key"] for q in questions] == ["closer/1"]
    assert "Who closed the area at" in questions[0]["text"]
    assert [c[0] for c in questions[0]["choices"]] == ["blue", "red", "unknown"] and questions[0]["value"] is None
    sure_track = game_steps.last_accepted(station.store, game_id)["timeline"]["track_at_least"]
    station.answer_questions(game_id, {"closer/1": "blue"})
    ending = station.game_ending(game_id)
    assert ending["setup"]["closings"] == {"red": 0, "blue": 1}
    assert ending["setup"]["track"] == {"red": sure_track["red"], "blue": sure_track["blue"] + 1}
    assert ending["score"]["missing"] == []
    assert ending["setup"]["collected"]["red"]["amber"] == 1  # the timeline's, not asked
    assert all(isinstance(p["total"], int) for p in ending["score"]["players"])


def test_an_area_nobody_remembers_closing_leaves_its_candidates_totals_unknown(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    play(station, [GAME[0], plazing([SCREEN], resources=[AMBER]), GAME[2], GAME[3]])
    scan(station, GAME[3], final=True)
    with pytest.raises(BadInputError, match="choose one of blue, red, nobody remembers"):
        station.answer_questions(game_id, {})  # no default: the players choose
    station.answer_questions(game_id, {"closer/1": "unknown"})
    ending = station.game_ending(game_id)
    assert ending["answers"] == {"closer/1": "unknown"}
    assert {p["player"]: p["total"] for p in ending["score"]["players"]} == {"red": None, "blue": None}


def test_a_closer_not_among_the_candidates_is_refused(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    play(station, [GAME[0], plazing([SCREEN], resources=[AMBER]), GAME[2], GAME[3]])
    scan(station, GAME[3], final=True)
    with pytest.raises(BadInputError, match="expected one of blue, red, unknown"):
        station.answer_questions(game_id, {"closer/1": "green"})
    assert station.game_ending(game_id)["answers"] is None


def test_the_page_after_every_closer_was_named_shows_no_doubt(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    play(station, [GAME[0], plazing([SCREEN], resources=[AMBER]), GAME[2], GAME[3]])
    final = scan(station, GAME[3], final=True)
    station.answer_questions(game_id, {"closer/1": "blue"})
    view = station.follow_view(station.store.game(game_id), final)
    assert all(isinstance(p["total"], int) for p in view["ending"]["score"]["players"])
    # follow.js shows "N to M (the photos cannot tell who closed K)" for these …
    assert view["timeline"]["doubted_closings"] == [] and view["timeline"]["closings"] == {"red": 0, "blue": 1}
    # … and "still not known: …" under the totals for these
    assert not view["ending"]["score"]["missing"]


def test_once_the_players_named_the_closer_the_doubt_is_replaced_by_their_word(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    scans = play(station, [GAME[0], plazing([SCREEN], resources=[AMBER]), GAME[2], GAME[3]])
    final = scan(station, GAME[3], final=True)
    doubted = [s for s in scans if any(UNSURE_WORDS in w for w in s["warnings"])]
    assert doubted, "the game's doubted closing was not warned about"
    place = area_place(game_steps.last_accepted(station.store, game_id)["timeline"]["doubted_closings"][0]["cells"])
    station.answer_questions(game_id, {"closer/1": "blue"})
    said = f"the players said blue closed the area at {place}"
    notes = station.follow_view(station.store.game(game_id), final)["timeline"]["notes"]
    assert not any(UNSURE_WORDS in n for n in notes) and said in notes
    for shown in [station.told_scan(station.store.scan(s["id"])) for s in doubted + [final]]:
        assert not any(UNSURE_WORDS in w for w in shown["warnings"])
    assert said in station.told_scan(station.store.scan(doubted[0]["id"]))["warnings"]


def test_an_area_nobody_remembers_closing_stays_doubted_on_the_page(station):
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    scans = play(station, [GAME[0], plazing([SCREEN], resources=[AMBER]), GAME[2], GAME[3]])
    final = scan(station, GAME[3], final=True)
    station.answer_questions(game_id, {"closer/1": "unknown"})
    assert any(UNSURE_WORDS in n for n in station.follow_view(station.store.game(game_id), final)["timeline"]["notes"])
    assert any(UNSURE_WORDS in w for s in scans for w in station.told_scan(station.store.scan(s["id"]))["warnings"])
