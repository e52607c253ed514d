"""A Plażing game at the station in headless Chromium: from an empty beach through a few scans, a
forbidden change shown with both photos, to Game over's question and every player's total on the page."""

import copy

import pytest

from tests.chromium import headless_chromium, require_chromium

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeScanner, score_with_rules
from hardware.mock_camera import MockCamera
from tests.web.serving import served_station

from tests.station.test_followed_game import AMBER, GAME, RIGHT, SCREEN, SETUP, plazing, plazing_calibration

require_chromium()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from tests.web.test_browser import unlock, wait  # noqa: E402


@pytest.fixture
def server(tmp_path):
    with served_station(Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)),
                                calibration=plazing_calibration(), scanner=FakeScanner(GAME[0], scorer=score_with_rules),
                                scorer=score_with_rules)) as served:
        yield served


def scan_now(driver, station, state):
    station.scanner.state = copy.deepcopy(state)
    before = station.store.count("scans")
    wait(driver, lambda d: d.find_element(By.ID, "scan-now").is_enabled())
    driver.find_element(By.ID, "scan-now").click()
    wait(driver, lambda d: station.store.count("scans") == before + 1 and not station.busy)
    latest = station.store.latest_scan()["id"]
    wait(driver, lambda d: d.find_element(By.ID, "live").get_attribute("data-scan-id") == str(latest))
    return latest


def test_a_plazing_game_ends_with_every_total_on_the_page(server):
    url, station = server["url"], server["station"]
    game_id = station.new_game("plazing", SETUP, {"names": {"red": "Ana", "blue": "Bo"}})
    with headless_chromium() as browser:
        unlock(browser, url)
        browser.get(url + "/")
        for state in GAME[:3]:
            scan_now(browser, station, state)
        wait(browser, lambda d: "blue closed the area" in d.find_element(By.ID, "changes").text)
        # a forbidden change: flagged with the last accepted photo beside this one, not accepted
        scan_now(browser, station, plazing([SCREEN, RIGHT], resources=[AMBER]))
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#impossible .side-by-side img"))
        assert len(browser.find_elements(By.CSS_SELECTOR, "#impossible .side-by-side img")) == 2
        assert "never moves or leaves" in browser.find_element(By.ID, "impossible").text
        scan_now(browser, station, GAME[3])
        wait(browser, lambda d: "red collected the amber" in d.find_element(By.ID, "changes").text)
        # Game over: the final scan, then the one thing nobody knows (the weather die), with a choice
        station.scanner.state = copy.deepcopy(GAME[3])
        browser.execute_script("window.confirm = () => true")
        browser.find_element(By.ID, "game-over").click()
        wait(browser, lambda d: d.find_element(By.ID, "follow").get_attribute("data-state") == "asking")
        Select(browser.find_element(By.CSS_SELECTOR, "#questions select[data-key=weather]")).select_by_value("rain")
        browser.find_element(By.ID, "finish-game").click()
        wait(browser, lambda d: d.find_element(By.ID, "follow").get_attribute("data-state") == "over")
        shown = {li.get_attribute("data-player"): li.find_element(By.CSS_SELECTOR, ".total").text
                 for li in browser.find_elements(By.CSS_SELECTOR, "#totals li")}
        ending = station.game_ending(game_id)
        want = {p["player"]: str(p["total"]) for p in ending["score"]["players"]}
        assert shown == want and set(shown) == {"red", "blue"}
        assert all(v.lstrip("-").isdigit() for v in shown.values())
        assert station.store.game(game_id)["ended_at"] and ending["setup"]["weather"] == "rain"
        # the score card shows the final score too: every total, none unknown
        totals = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#score td.total")]
        assert sorted(totals) == sorted(want.values())


def test_the_players_name_who_closed_an_area_the_photos_cannot_tell(server):
    url, station = server["url"], server["station"]
    # red's gear and blue's gear both laid between two photos: either one closed the area
    game_id = station.new_game("plazing", dict(SETUP, weather="sun"))
    with headless_chromium() as browser:
        unlock(browser, url)
        browser.get(url + "/")
        for state in (GAME[0], plazing([SCREEN], resources=[AMBER]), GAME[2], GAME[3]):
            scan_now(browser, station, state)
        station.scanner.state = copy.deepcopy(GAME[3])
        browser.execute_script("window.confirm = () => true")
        browser.find_element(By.ID, "game-over").click()
        wait(browser, lambda d: d.find_element(By.ID, "follow").get_attribute("data-state") == "asking")
        question = browser.find_element(By.CSS_SELECTOR, "#questions label.question")
        assert "Who closed the area at" in question.text
        chooser = Select(question.find_element(By.CSS_SELECTOR, "select[data-key='closer/1']"))
        assert [o.get_attribute("value") for o in chooser.options] == ["", "blue", "red", "unknown"]
        # nothing chosen yet: the form cannot be sent (no default closer)
        assert browser.execute_script("return document.getElementById('questions').checkValidity()") is False
        chooser.select_by_value("blue")
        browser.find_element(By.ID, "finish-game").click()
        wait(browser, lambda d: d.find_element(By.ID, "follow").get_attribute("data-state") == "over")
        shown = {li.get_attribute("data-player"): li.find_element(By.CSS_SELECTOR, ".total").text
                 for li in browser.find_elements(By.CSS_SELECTOR, "#totals li")}
    ending = station.game_ending(game_id)
    assert ending["setup"]["closings"] == {"red": 0, "blue": 1}
    assert shown == {p["player"]: str(p["total"]) for p in ending["score"]["players"]}
    assert all(v.lstrip("-").isdigit() for v in shown.values())
