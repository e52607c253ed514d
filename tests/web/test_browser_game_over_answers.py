"""In headless Chromium, Game over of a Strand unter game without buckets: the unfit-shell counters
start as "not given" (—), Finish without touching them leaves those totals unknown (never 0 unfit
shells), a counter set to 0 gives that player's total, and the score card's "Asked at Game over" is
hidden while Game over's questions are on screen."""

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


def asking(url, station, driver) -> int:
    """A game scanned once, then Game over pressed on the page: its questions on screen; the game's id."""
    game_id = station.new_game("strand-unter", {})
    assert station.request_scan("test").accepted and station.wait_idle(20)
    unlock(driver, url)
    driver.get(url + "/")
    wait(driver, lambda d: d.find_elements(By.ID, "unknown-hint"))
    assert driver.find_element(By.CSS_SELECTOR, "#unknown-hint .asked-at-end").is_displayed()
    driver.execute_script("window.confirm = () => true")
    driver.find_element(By.ID, "game-over").click()
    wait(driver, lambda d: d.find_element(By.ID, "follow").get_attribute("data-state") == "asking")
    return game_id


def totals(driver) -> dict:
    wait(driver, lambda d: d.find_element(By.ID, "follow").get_attribute("data-state") == "over")
    return {li.get_attribute("data-player"): li.find_element(By.CSS_SELECTOR, ".total").text
            for li in driver.find_elements(By.CSS_SELECTOR, "#totals li")}


def test_untouched_counters_are_not_given(served):
    url, station, driver = served
    game_id = asking(url, station, driver)
    shown = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#questions .counter output")]
    assert shown == ["—"] * 8
    # the score card under the questions no longer sends the players to Game over: they are in it
    hint = driver.find_element(By.ID, "unknown-hint")
    assert not hint.find_element(By.CLASS_NAME, "asked-at-end").is_displayed()
    assert "Asked at" not in hint.text
    driver.find_element(By.ID, "finish-game").click()
    assert totals(driver) == {"red": "not known", "yellow": "not known"}
    # the finished game's score card no longer sends anyone to Game over
    wait(driver, lambda d: "the game ended without them" in d.find_element(By.ID, "unknown-hint").text)
    assert "Asked at" not in driver.find_element(By.ID, "unknown-hint").text
    rows = {p["player"]: p for p in station.game_ending(game_id)["score"]["players"]}
    assert rows["red"]["unfit_shells"] is None and rows["yellow"]["total"] is None


def test_a_counter_set_gives_that_players_total(served):
    url, station, driver = served
    asking(url, station, driver)
    counter = driver.find_element(By.CSS_SELECTOR, ".counter[data-key='red/unfit/white']")
    counter.find_element(By.CLASS_NAME, "minus").click()  # from "not given" to 0
    assert counter.find_element(By.TAG_NAME, "output").text == "0"
    yellow = driver.find_element(By.CSS_SELECTOR, ".counter[data-key='yellow/unfit/gray']")
    yellow.find_element(By.CLASS_NAME, "plus").click()
    yellow.find_element(By.CLASS_NAME, "plus").click()
    assert yellow.find_element(By.TAG_NAME, "output").text == "2"
    driver.find_element(By.ID, "finish-game").click()
    assert totals(driver) == {"red": "3", "yellow": str(3 - 2)}
