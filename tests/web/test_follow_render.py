"""The live page's game card (web/static/follow.js) rendered in headless Chromium from
a hand-made follow view: the running totals under their own heading, apart from the changes since
the last accepted reading, and nothing shown twice on a game's first reading."""

import json
import pathlib

from tests.chromium import headless_chromium, require_chromium

require_chromium()

from selenium.webdriver.common.by import By  # noqa: E402

STATIC = pathlib.Path(__file__).resolve().parents[2] / "web" / "static"
CASTLES = [{"player": "yellow", "value": 2, "groove": 1}, {"player": "red", "value": 3, "groove": 4}]


def render(tmp_path, follow: dict) -> dict:
    """The card's headings and texts after ``renderFollow(follow, {})``."""
    page = tmp_path / "follow.html"
    page.write_text(
        '<!doctype html><meta name="csrf-token" content="x"><div id="follow" hidden></div>'
        f'<script src="{(STATIC / "common.js").as_uri()}"></script>'
        f'<script src="{(STATIC / "follow.js").as_uri()}"></script>'
        f"<script>renderFollow({json.dumps(follow)}, {{}});</script>")
    with headless_chromium() as browser:
        browser.get(page.as_uri())
        card = browser.find_element(By.ID, "follow")
        return {"headings": [h.text for h in card.find_elements(By.CSS_SELECTOR, "h2, h3")],
                "changes": card.find_element(By.ID, "changes").text,
                "facts": card.find_element(By.ID, "timeline-facts").text, "text": card.text}


def step(changes):
    return {"accepted": True, "changes": changes, "impossible": [], "revision_id": None}


def test_running_totals_have_their_own_heading_after_nothing_changed(tmp_path):
    shown = render(tmp_path, {"step": step([]), "ending": None,
                              "timeline": {"built": CASTLES, "readings": 3, "notes": []}})
    assert shown["headings"] == ["The latest scan", "Since the last accepted reading", "The game's timeline"]
    assert shown["changes"] == "nothing changed"
    assert "yellow's castle 2 (groove 1)" in shown["facts"]


def test_the_first_reading_lists_each_castle_once(tmp_path):
    built = [{"kind": "built", "text": "yellow built a castle of 2 in groove 1"},
             {"kind": "built", "text": "red built a castle of 3 in groove 4"}]
    shown = render(tmp_path, {"step": step(built), "ending": None,
                              "timeline": {"built": CASTLES, "readings": 1, "notes": []}})
    assert shown["headings"] == ["The latest scan", "The game's timeline"]
    assert shown["changes"] == "The game's first photo: everything it shows is below."
    assert shown["text"].count("yellow") == 1 and shown["text"].count("red") == 1


def render_with_score(tmp_path, follow: dict, st: dict, score: dict) -> dict:
    """The game card (with score.js, as on the live page) and a score card rendered for the game of ``st``."""
    page = tmp_path / "final.html"
    page.write_text(
        '<!doctype html><meta name="csrf-token" content="x"><div id="follow" hidden></div><div id="score"></div>'
        + "".join(f'<script src="{(STATIC / name).as_uri()}"></script>' for name in ("common.js", "score.js", "follow.js"))
        + f"<script>renderFollow({json.dumps(follow)}, {json.dumps(st)});"
        f"document.getElementById('score').innerHTML = renderScore({json.dumps(score)}, "
        f"{{swatches: {json.dumps(st['game']['display']['swatches'])}, game: 'strand-unter'}});</script>")
    with headless_chromium() as browser:
        browser.get(page.as_uri())
        return {"totals": [(li.get_attribute("data-player"), bool(li.find_elements(By.CLASS_NAME, "star")))
                           for li in browser.find_elements(By.CSS_SELECTOR, "#totals li")],
                "score": [tr.get_attribute("data-player") for tr in browser.find_elements(By.CSS_SELECTOR, "#score tbody tr")],
                "headings": [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#follow h2, #follow h3")],
                "follow": browser.find_element(By.ID, "follow").text}


def test_final_totals_are_ranked_winner_first_and_the_score_card_keeps_the_game_pages_order(tmp_path):
    row = {"castles": [], "unfit_shells": 0}
    score = {"players": [dict(row, player="yellow", castle_points=4, total=4),
                         dict(row, player="red", castle_points=22, total=20),
                         dict(row, player="blue", castle_points=9, total=9)],
             "ranking": [["red"], ["blue"], ["yellow"]], "winners": ["red"], "ranked_by": "total"}
    st = {"game": {"display": {"swatches": {"blue": "#1976d2", "yellow": "#fbc02d", "red": "#d32f2f"}}}}
    follow = {"step": None, "timeline": {"built": CASTLES, "readings": 2, "notes": []},
              "ending": {"answers": {}, "questions": [], "score": score}}
    shown = render_with_score(tmp_path, follow, st, score)
    assert shown["totals"] == [("red", True), ("blue", False), ("yellow", False)]
    assert shown["score"] == ["blue", "yellow", "red"]  # the Game page's order
    assert shown["headings"] == ["Final totals", "The game's timeline"]


def test_still_not_known_is_said_only_while_a_total_is_not_known(tmp_path):
    row = {"castles": [], "unfit_shells": 0, "castle_points": 3}
    st = {"game": {"display": {"swatches": {"blue": "#1976d2", "red": "#d32f2f"}}}}

    def shown(blue_total):
        score = {"players": [dict(row, player="red", total=12), dict(row, player="blue", total=blue_total)],
                 "ranking": [["red"], ["blue"]], "winners": ["red"], "ranked_by": "total", "missing": ["track"]}
        follow = {"step": None, "timeline": {"built": CASTLES, "readings": 2, "notes": []},
                  "ending": {"answers": {}, "questions": [], "score": score}}
        return render_with_score(tmp_path, follow, st, score)["follow"]

    assert "still not known" not in shown(7)  # every total known without the score track
    assert "still not known: track" in shown(None)
