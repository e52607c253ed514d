"""What a new user reads on the station's pages before any game: the calibration shot's needs per
game, the live page before its first photo, the Plażing terrain grid's place names, a scan's score."""

import html
import json
import re

import pytest

from beachscore.station.testing import FakeCalibration
from scoring.plazing_state import cell_name
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


def score_data(page: str) -> dict:
    return json.loads(html.unescape(re.search(r'id="score-data">(.*?)</script>', page, re.S).group(1)))


def test_a_scans_page_draws_the_score_the_live_page_shows_for_it(unlocked, station):
    game = unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {},
                                             "display": {"names": {"red": "Ana"}}}).get_json()["game_id"]
    assert unlocked.post_json("/api/scan").status_code == 202
    station.wait_idle()
    live = unlocked.get("/api/latest").get_json()
    page = unlocked.get(f"/scans/{live['scan']['id']}").get_data(as_text=True)
    shown = score_data(page)
    assert shown["score"] == live["scan"]["current_score"] and shown["score"]["players"]
    assert shown["display"] == live["status"]["game"]["display"] == station.store.game(game)["display"]
    # drawn by the live page's own table (score.js's renderScore), into the page's score element
    assert '<div id="score"></div>' in page and "/static/score.js" in page and "/static/scan.js" in page


def test_a_finished_games_final_scan_page_shows_the_final_score(unlocked, station):
    station.new_game("strand-unter", {"players": {"red": {"bucket": {"white": 1, "gray": 0, "brown": 0, "black": 0},
                                                          "open_cards": []}}})
    assert unlocked.post_json("/api/game-over").status_code == 202
    station.wait_idle()
    live = unlocked.get("/api/latest").get_json()
    assert live["status"]["game"]["ended_at"] and live["follow"]["ending"]["score"]
    page = unlocked.get(f"/scans/{live['scan']['id']}").get_data(as_text=True)
    assert score_data(page)["score"] == live["scan"]["current_score"] == live["follow"]["ending"]["score"]


def terrain_html(page: str) -> str:
    return re.search(r'<div id="terrain"[^>]*>(.*?)</div>', page, re.S).group(1)


@pytest.mark.parametrize("grid", [None, (5, 28)])
def test_the_terrain_grid_has_the_boards_column_letters_and_row_numbers(client, station, grid):
    if grid is not None:  # a Plażing calibration whose profile gives another grid
        station.calibration = FakeCalibration(game="plazing", profile={"game": "plazing",
                                                                       "grid": {"rows": grid[0], "cols": grid[1]}})
    rows, cols = grid or (12, 20)
    terrain = terrain_html(client.get("/game").get_data(as_text=True))
    columns = re.findall(r'<b class="axis col">([^<]*)</b>', terrain)
    numbers = re.findall(r'<b class="axis row">([^<]*)</b>', terrain)
    assert columns == [cell_name((0, c))[:-1] for c in range(cols)] and numbers == [str(r + 1) for r in range(rows)]
    if grid is None:
        assert columns == list("ABCDEFGHIJKLMNOPQRST") and numbers[-1] == "12"
    else:
        assert columns[-2:] == ["AA", "AB"]
    # each square sits after its row's number, under its column's letter, and is named as the game names it
    squares = re.findall(r'<span data-row="(\d+)" data-col="(\d+)" title="([^"]+)"', terrain)
    assert len(squares) == rows * cols
    assert all(name == f"{columns[int(c)]}{numbers[int(r)]}" == cell_name((int(r), int(c))) for r, c, name in squares)
    cells = re.findall(r'<b class="axis row">|<span data-row="(\d+)"', terrain)
    assert cells[:cols + 1] == ["", *(["0"] * cols)]  # a row's number, then its squares


def test_the_live_pages_photo_card_says_there_is_no_photo_yet(client):
    card = re.search(r'<section class="card photo-card">(.*?)</section>', client.get("/").get_data(as_text=True), re.S)
    assert "No photo yet: press the button or “Scan now”." in text_of(card.group(1))
