"""In headless Chromium, the Game page's players: a colour label typed twice is refused next to the
row that repeats it (no game is started, no name is lost), and a row's swatch follows the colour
typed until a swatch is picked by hand."""

import pytest

from tests.chromium import headless_chromium, require_chromium

from tests.web.serving import served_station

require_chromium()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from tests.web.test_browser import unlock, wait  # noqa: E402


@pytest.fixture
def game_page(station):
    with served_station(station) as served, headless_chromium() as driver:
        unlock(driver, served["url"])
        driver.get(served["url"] + "/game")
        Select(driver.find_element(By.ID, "game")).select_by_value("strand-unter")
        yield station, driver


def rows(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#players tbody tr")


def typed(field, text: str) -> None:
    field.clear()
    field.send_keys(text)


def test_a_colour_typed_twice_is_refused_next_to_its_row(game_page):
    station, driver = game_page
    first, second = rows(driver)
    typed(first.find_element(By.CLASS_NAME, "p-name"), "Anna")
    typed(second.find_element(By.CLASS_NAME, "p-label"), "red")
    typed(second.find_element(By.CLASS_NAME, "p-name"), "Ben")
    problem = second.find_element(By.CLASS_NAME, "p-error")
    assert problem.is_displayed() and '"red" is already player 1\'s colour' in problem.text
    assert not first.find_element(By.CLASS_NAME, "p-error").is_displayed()
    driver.find_element(By.CSS_SELECTOR, "#game-form button[type=submit]").click()
    wait(driver, lambda d: "Two players have the colour label" in d.find_element(By.ID, "message").text)
    assert station.store.current_game() is None  # nothing started, both names still typed
    assert second.find_element(By.CLASS_NAME, "p-name").get_attribute("value") == "Ben"
    typed(second.find_element(By.CLASS_NAME, "p-label"), "yellow")
    assert not problem.is_displayed()
    driver.find_element(By.CSS_SELECTOR, "#game-form button[type=submit]").click()
    wait(driver, lambda d: "started" in d.find_element(By.ID, "message").text)
    assert station.store.current_game()["display"]["names"] == {"red": "Anna", "yellow": "Ben"}


def test_a_new_rows_swatch_follows_the_colour_typed(game_page):
    _, driver = game_page
    driver.find_element(By.ID, "add-player").click()
    row = rows(driver)[-1]
    label, swatch = row.find_element(By.CLASS_NAME, "p-label"), row.find_element(By.CLASS_NAME, "p-colour")
    typed(label, "purple")
    assert swatch.get_attribute("value") == "#800080"
    typed(label, "blue")
    assert swatch.get_attribute("value") == "#1976d2"  # the game's own blue
    driver.execute_script("arguments[0].value = '#123456';"
                          "arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", swatch)
    typed(label, "orange")
    assert swatch.get_attribute("value") == "#123456"  # picked by hand: kept


def test_the_server_refuses_a_player_listed_twice(unlocked):
    r = unlocked.post_json("/api/games", {"game": "plazing", "setup": {"players": ["red", "red"], "weather": "sun",
                                                                      "terrain": ["...."] * 3}})
    assert r.status_code == 400 and "'red' is listed twice" in r.get_json()["error"]["message"]
