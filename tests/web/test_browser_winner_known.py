"""In headless Chromium, a Strand unter game scored by the rules engine without buckets: no winner is
starred while the totals that decide it are not known (the page says whose and what they need), the
running game says ahead what Game over will ask, the page is headed by the game's name (and follows
a new game), and once Game over's answers give every total the winner gets the star."""

import pytest

from tests.chromium import require_chromium
from tests.web.serving import served_strand_game

require_chromium()

from selenium.webdriver.common.by import By  # noqa: E402
from tests.web.test_browser import unlock, wait  # noqa: E402


@pytest.fixture
def served(tmp_path):
    with served_strand_game(str(tmp_path / "data")) as served:
        yield served


def shown(driver, scan_id: int) -> None:
    wait(driver, lambda d: d.find_element(By.ID, "live").get_attribute("data-scan-id") == str(scan_id))
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#score td.total"))


def test_no_star_until_the_deciding_totals_are_known(served):
    url, station, driver = served
    game_id = station.new_game("strand-unter", {})
    assert station.request_scan("test").accepted and station.wait_idle(20)
    scan = station.store.latest_scan()
    assert scan["current_score"]["winners"] == ["yellow"]  # the rules engine ranks by castle points
    unlock(driver, url)
    driver.get(url + "/")
    shown(driver, scan["id"])
    assert driver.find_element(By.ID, "game-title").text == f"Strand unter game {game_id}"
    score = driver.find_element(By.ID, "score")
    assert not score.find_elements(By.CSS_SELECTOR, ".star, tr.winner"), score.text
    assert "tie-break" not in score.text  # the castle points' tie-break decides no winner
    hint = driver.find_element(By.ID, "unknown-hint").text
    assert hint.startswith("No winner yet: red's and yellow's totals are not known yet"), hint
    assert "unfit shells: the shells left in each bucket that find no space on the face-up (unbuilt) castle cards" in hint
    needs = driver.find_element(By.ID, "needed-at-end").text
    assert needs == ("For the final score, Game over will ask: the shells left in red's and yellow's buckets that "
                     "find no space on the face-up (unbuilt) castle cards (unfit shells), counted per colour.")

    assert station.end_game("web").accepted and station.wait_idle(20)
    station.answer_questions(game_id, {"red/unfit/white": 1, "yellow/unfit/white": 0})  # red 3 − 1, yellow 3
    wait(driver, lambda d: d.find_element(By.ID, "follow").get_attribute("data-state") == "over")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#score .star"))
    star = driver.find_element(By.CSS_SELECTOR, "#score tr.winner")
    assert star.get_attribute("data-player") == "yellow"
    assert not driver.find_elements(By.ID, "unknown-hint") and not driver.find_elements(By.ID, "needed-at-end")
    assert driver.find_element(By.ID, "game-title").text == f"Strand unter game {game_id}, over"

    plazing = station.new_game("plazing", {})
    wait(driver, lambda d: d.find_element(By.ID, "game-title").text == f"Plażing game {plazing}")


def test_a_score_names_a_winner_only_when_its_deciding_totals_are_known(served):
    url, _, driver = served
    driver.get(url + "/")
    row = {"castles": [], "castle_points": 5, "unfit_shells": 0}
    cases = {
        "known": {"players": [dict(row, player="red", total=5), dict(row, player="blue", total=3)],
                  "winners": ["red"], "ranked_by": "total"},
        "one unknown": {"players": [dict(row, player="red", total=5), dict(row, player="blue", total=None)],
                        "winners": ["red"], "ranked_by": "castle_points"},
        "one mat": {"players": [{"player": "ana", "total": 9}], "winners": ["ana"]},
    }
    got = driver.execute_script(
        "const out = {};"
        "for (const [k, s] of Object.entries(arguments[0])) {"
        "  const box = document.createElement('div'); box.innerHTML = renderScore(s, {game: 'strand-unter'});"
        "  out[k] = [[...box.querySelectorAll('tr.winner')].map(r => r.dataset.player),"
        "            (box.querySelector('#unknown-hint') || {}).textContent || ''];"
        "}"
        "return out;", cases)
    assert got["known"] == [["red"], ""]
    assert got["one unknown"][0] == []
    assert got["one unknown"][1].startswith("No winner yet: blue's total is not known yet (—): it needs its unfit "
                                            "shells: the shells left in the bucket that find no space on the "
                                            "face-up (unbuilt) castle cards.")
    assert got["one mat"] == [[], ""]
