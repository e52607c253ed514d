"""The live page in words a player reads: it is headed by the name of the game being played, and a
running Strand unter game says ahead what Game over will ask (``follow.needed_at_end``)."""

from __future__ import annotations

import re

import pytest

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import STRAND_STATE, FakeCalibration, FakeScanner, score_with_rules
from hardware.mock_camera import MockCamera
from web import create_app

BOTH_BUCKETS = ["the shells left in red's and yellow's buckets that find no space on the face-up (unbuilt) castle "
                "cards (unfit shells), counted per colour"]


def game_title(client) -> str:
    """The live page's heading as the server writes it, tags dropped, spaces squeezed."""
    html = client.get("/").get_data(as_text=True)
    found = re.search(r'<h1 id="game-title"( hidden)?>(.*?)</h1>', html, re.S)
    assert found, html
    return ("hidden:" if found.group(1) else "") + " ".join(re.sub(r"<[^>]+>", " ", found.group(2)).split())


@pytest.mark.parametrize("game, name", [("strand-unter", "Strand unter"), ("plazing", "Plażing"),
                                        ("seashells", "Seashells"), ("sand-castles", "Sand Castles")])
def test_the_live_page_is_headed_by_the_games_own_name(station, client, game, name):
    assert game_title(client) == "hidden:"  # no game set up: the status line says so
    game_id = station.new_game(game, {})
    assert game_title(client) == f"{name} game {game_id}"


def test_a_finished_game_is_named_as_over(station, client):
    game_id = station.new_game("strand-unter", {})
    assert station.end_game("web").accepted and station.wait_idle(20)
    assert station.store.game(game_id)["ended_at"]
    assert game_title(client) == f"Strand unter game {game_id}, over"


@pytest.fixture
def ruled(tmp_path):
    """A station scoring the small Strand unter reading with the rules engine, and its test client."""
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                 scanner=FakeScanner(STRAND_STATE, scorer=score_with_rules), scorer=score_with_rules)
    yield st, create_app({"TESTING": True}, station=st).test_client()
    st.close()


def needed_at_end(client):
    follow = client.get("/api/latest").get_json()["follow"]
    return follow["needed_at_end"] if follow else None


def scanned(station, final: bool = False) -> None:
    answer = station.end_game("web") if final else station.request_scan("test")
    assert answer.accepted, answer.reason
    assert station.wait_idle(20)


def bucket(**shells) -> dict:
    return {"bucket": {c: shells.get(c, 0) for c in ("white", "gray", "brown", "black")}, "open_cards": []}


def test_a_running_game_without_buckets_says_what_game_over_will_ask(ruled):
    station, client = ruled
    station.new_game("strand-unter", {})
    assert needed_at_end(client) == []  # no accepted reading yet: nothing to tell
    scanned(station)
    assert needed_at_end(client) == BOTH_BUCKETS
    scanned(station)
    assert needed_at_end(client) == BOTH_BUCKETS  # the same line, not one more per scan


def test_only_the_players_whose_bucket_is_missing_are_named(ruled):
    station, client = ruled
    station.new_game("strand-unter", {"players": {"red": bucket(white=1)}})
    scanned(station)
    assert needed_at_end(client) == ["the shells left in yellow's bucket that find no space on the face-up "
                                     "(unbuilt) castle cards (unfit shells), counted per colour"]


def test_nothing_is_asked_ahead_when_every_bucket_is_given(ruled):
    station, client = ruled
    station.new_game("strand-unter", {"players": {"red": bucket(white=1), "yellow": bucket()}})
    scanned(station)
    assert needed_at_end(client) == []
    totals = [p["total"] for p in client.get("/api/latest").get_json()["scan"]["current_score"]["players"]]
    assert None not in totals


def test_once_game_over_asks_the_hint_gives_way_to_the_questions(ruled):
    station, client = ruled
    game_id = station.new_game("strand-unter", {})
    scanned(station)
    scanned(station, final=True)
    follow = client.get("/api/latest").get_json()["follow"]
    assert follow["needed_at_end"] == [] and follow["ending"]["questions"]
    station.answer_questions(game_id, {})
    assert needed_at_end(client) == []


def test_game_over_names_the_players_in_the_game_pages_order(ruled):
    station, client = ruled
    station.new_game("strand-unter", {}, {"swatches": {"yellow": "#fbc02d", "red": "#d32f2f"}})
    scanned(station)
    assert needed_at_end(client) == [BOTH_BUCKETS[0].replace("red's and yellow's", "yellow's and red's")]
    scanned(station, final=True)
    asked = client.get("/api/latest").get_json()["follow"]["ending"]["questions"]
    assert [q["player"] for q in asked] == ["yellow"] * 4 + ["red"] * 4
