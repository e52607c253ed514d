"""What a new user reads on the station's pages before any game: the calibration shot's needs per
game, the live page before its first photo, the Plażing terrain grid's place names, a scan's score."""

import html
import json
import re

import pytest

from scoring.strand_unter import COLOURS as SHELL_COLOURS
from web.calibrate import LABELS, SHOT_NEEDS

#: What each game's calibration refuses to go without (vision/*: ``missing-label``), in the page's words.
REQUIRED_WORDS = {
    "strand-unter": ["sea", *SHELL_COLOURS, "castle of each player's colour"],
    "plazing": ["piece or a screen of each player's colour", "terrain", "Game page"],
    "seashells": ["shell on a towel place", "free towel place"],
    "sand-castles": ["wave", "empty lane space", "castle piece", "empty castle slot"],
}


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page)))


def test_the_calibration_shot_asks_for_what_the_chosen_game_needs(client):
    page = client.get("/calibrate").get_data(as_text=True)
    words = text_of(page)
    assert "one piece of every kind" not in words
    assert f"with {SHOT_NEEDS['strand-unter']}." in words  # the station's calibration is Strand unter's
    shown = json.loads(html.unescape(re.search(r'id="shot-needs-data">(.*?)</script>', page, re.S).group(1)))
    assert shown == SHOT_NEEDS and set(SHOT_NEEDS) == set(LABELS)  # the page switches it with the board


@pytest.mark.parametrize("game", sorted(REQUIRED_WORDS))
def test_each_games_shot_sentence_names_what_its_calibration_requires(game):
    assert all(w in SHOT_NEEDS[game] for w in REQUIRED_WORDS[game]), SHOT_NEEDS[game]
