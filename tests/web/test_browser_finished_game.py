"""A new user's first Strand unter game at the station, in headless Chromium: the photo card before
the first photo, the buttons and the timeline of a finished game before and after a reload, the
scan's page with the live page's score table, the Plażing terrain grid's place names."""


import pytest

from tests.chromium import headless_chromium, require_chromium

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score
from hardware.mock_camera import MockCamera
from tests.web.serving import served_station

require_chromium()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from tests.web.test_browser import unlock, wait  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("station")
    with served_station(Station(Store(str(tmp / "data")), camera=MockCamera(size=(80, 60)),
                                calibration=FakeCalibration(), scanner=FakeScanner(), scorer=fake_score)) as served:
        yield served


@pytest.fixture(scope="module")
def browser(server):
    with headless_chromium() as driver:
        yield driver


def buttons(driver) -> dict:
    return {b: driver.find_element(By.ID, b).is_enabled() for b in ("scan-now", "game-over")}


def finished_page(driver) -> None:
    """The finished game's live page: the buttons off, the timeline's facts under its heading."""
    wait(driver, lambda d: d.find_element(By.ID, "follow").get_attribute("data-state") == "over")
    wait(driver, lambda d: buttons(d) == {"scan-now": False, "game-over": False})
    # nothing scans a finished game by itself: the box is off and the page says why, not "Watching the board."
    assert not driver.find_element(By.ID, "auto-scan").is_enabled()
    board = driver.find_element(By.ID, "board-state")
    assert "The game is over" in board.text and "Watching" not in board.text
    follow = driver.find_element(By.ID, "follow")
    assert "The game's timeline" in follow.text
    facts = {li.get_attribute("data-fact"): li.text for li in follow.find_elements(By.CSS_SELECTOR, "#timeline-facts li")}
    assert facts["built"] == "Castles built: red's castle 2 (groove 1), yellow's castle 1 (groove 2)"
    assert facts["washed"] == "Castles the sea washed away: none" and facts["taken"].endswith(": none")


def test_a_strand_unter_game_from_no_photo_to_its_finished_page_after_a_reload(browser, server):
    url, station = server["url"], server["station"]
    game_id = station.new_game("strand-unter")
    unlock(browser, url)
    browser.get(url + "/")
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-transport") == "sse")
    no_photo = browser.find_element(By.ID, "no-photo")
    assert no_photo.is_displayed() and no_photo.text == "No photo yet: press the button or “Scan now”."
    assert not browser.find_element(By.ID, "photo").is_displayed()
    wait(browser, lambda d: buttons(d) == {"scan-now": True, "game-over": True})

    browser.find_element(By.ID, "scan-now").click()
    wait(browser, lambda d: d.find_element(By.ID, "photo").is_displayed())
    assert not browser.find_element(By.ID, "no-photo").is_displayed()

    browser.execute_script("window.confirm = () => true")
    browser.find_element(By.ID, "game-over").click()
    finished_page(browser)
    assert station.store.game(game_id)["ended_at"]
    browser.refresh()
    finished_page(browser)
    assert not browser.find_element(By.ID, "no-photo").is_displayed()


def test_a_scans_page_shows_the_live_pages_score_table(browser, server):
    url, station = server["url"], server["station"]
    station.new_game("strand-unter")
    assert station.request_scan("test").accepted
    station.wait_idle()
    scan = station.store.latest_scan()
    browser.get(url + "/")
    wait(browser, lambda d: d.find_element(By.ID, "live").get_attribute("data-scan-id") == str(scan["id"]))
    live = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#score table.score tr")]
    browser.get(f"{url}/scans/{scan['id']}")
    rows = browser.find_elements(By.CSS_SELECTOR, "#score table.score tbody tr")
    assert [r.get_attribute("data-player") for r in rows] == [p["player"] for p in scan["score"]["players"]]
    assert [r.find_element(By.CSS_SELECTOR, "td.total").text for r in rows] == \
        [str(p["total"]) for p in scan["score"]["players"]]
    assert [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#score table.score tr")] == live


def test_the_terrain_grids_letters_stand_over_their_columns_and_numbers_beside_their_rows(browser, server):
    unlock(browser, server["url"])
    browser.get(server["url"] + "/game")
    Select(browser.find_element(By.ID, "game")).select_by_value("plazing")
    square = browser.find_element(By.CSS_SELECTOR, '#terrain span[data-row="4"][data-col="13"]')
    assert square.get_attribute("title") == "N5"
    letter = next(b for b in browser.find_elements(By.CSS_SELECTOR, "#terrain b.col") if b.text == "N")
    number = next(b for b in browser.find_elements(By.CSS_SELECTOR, "#terrain b.row") if b.text == "5")
    centre = lambda el: (el.rect["x"] + el.rect["width"] / 2, el.rect["y"] + el.rect["height"] / 2)  # noqa: E731
    assert abs(centre(letter)[0] - centre(square)[0]) < 2 and centre(letter)[1] < centre(square)[1]
    assert abs(centre(number)[1] - centre(square)[1]) < 2 and centre(number)[0] < centre(square)[0]
