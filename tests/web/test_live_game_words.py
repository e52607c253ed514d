"""The live page in words a player reads: it is headed by the name of the game being played."""

from __future__ import annotations

import re

import pytest


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
