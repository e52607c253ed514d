"""What a new user stumbled on, in headless Chromium: after *Start new game* the Live page is one
click away; the correction page shows the photo first on a phone and beside the editor on a laptop."""

import pytest

from tests.chromium import headless_chromium, require_chromium

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score
from hardware.mock_camera import MockCamera
from tests.web.serving import served_station

require_chromium()

from selenium.webdriver.common.by import By  # noqa: E402
from tests.web.test_browser import unlock, wait  # noqa: E402


@pytest.fixture
def server(tmp_path):
    with served_station(Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(160, 120)),
                                calibration=FakeCalibration(), scanner=FakeScanner(), scorer=fake_score)) as served:
        yield served


def test_after_starting_a_game_one_click_leads_to_the_live_page(server):
    url, station = server["url"], server["station"]
    with headless_chromium("1280,900") as browser:
        unlock(browser, url)
        browser.get(url + "/game")
        assert not browser.find_element(By.ID, "to-live").is_displayed()  # nothing started yet
        browser.find_element(By.CSS_SELECTOR, "#game-form button[type=submit]").click()
        wait(browser, lambda d: "started" in d.find_element(By.ID, "message").text)
        link = browser.find_element(By.CSS_SELECTOR, "#to-live a")
        assert link.is_displayed()
        link.click()
        wait(browser, lambda d: d.find_elements(By.ID, "scan-now") and d.find_element(By.ID, "scan-now").is_enabled())
        assert browser.current_url.rstrip("/") == url
        assert station.store.current_game()["ended_at"] is None


def boxes(driver) -> dict:
    """The page rectangles (CSS px) of the correction page's photo and editor."""
    return driver.execute_script(
        "const r = id => { const b = document.getElementById(id).getBoundingClientRect();"
        "  return {left: b.left, right: b.right, top: b.top, bottom: b.bottom}; };"
        "return {photo: r('photo'), editor: r('editor')};")


@pytest.mark.parametrize("width", [390, 1280])
def test_the_correction_page_shows_the_photo_first_on_a_phone_and_beside_on_a_laptop(server, width):
    url, station = server["url"], server["station"]
    station.new_game("strand-unter")
    station.request_scan("test")
    station.wait_idle(30)
    scan = station.store.latest_scan()
    assert scan["status"] == "ok" and scan["photo_id"], scan
    with headless_chromium(f"{width},900") as browser:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 800})
        unlock(browser, url)
        browser.get(f"{url}/scans/{scan['id']}/correct")
        wait(browser, lambda d: d.find_element(By.ID, "correct").get_attribute("data-ready") == "yes")
        wait(browser, lambda d: d.execute_script("return document.getElementById('photo').complete"))
        b = boxes(browser)
        if width < 800:
            assert b["photo"]["bottom"] <= b["editor"]["top"], b  # the photo above the form
            assert b["photo"]["bottom"] < 900, b  # … and on the first screen
        else:
            assert b["photo"]["left"] >= b["editor"]["right"], b  # beside it
            assert b["photo"]["top"] < 900, b


#: The contract's Plażing player row (../shared/contracts/plazing.md), keys sorted by name as the
#: station's JSON sends them.
PLAZING_ROW = {"areas": 2, "closing_points": 2, "field_points": 1, "largest_area": 7, "largest_area_points": 9,
               "most_areas_points": 12, "player": "red", "resource_points": 15, "start": 0, "total": 53,
               "track": 14, "trash_points": None, "weather_points": 4}


def headers(driver) -> list[str]:
    return [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#score table.score thead th")]


def test_the_score_breakdown_follows_the_rules_order(tmp_path):
    from scoring import score as rules_score

    station = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(160, 120)),
                      calibration=FakeCalibration(), scanner=FakeScanner(scorer=rules_score), scorer=rules_score)
    with served_station(station) as served, headless_chromium("1280,900") as browser:
        url = served["url"]
        station.new_game("strand-unter")
        station.request_scan("test")
        station.wait_idle(30)
        scan = station.store.latest_scan()
        assert scan["status"] == "ok", scan["error"]
        unlock(browser, url)
        for page in ("/", f"/scans/{scan['id']}", f"/scans/{scan['id']}/correct"):
            browser.get(url + page)
            wait(browser, lambda d: headers(d))
            # the rules: each castle (groove + value = points), castle points, unfit shells, total
            assert headers(browser) == ["Player", "castle points", "unfit shells", "Total"], page
            castle = browser.find_element(By.CSS_SELECTOR, '#score tr[data-player="red"] .detail').text
            assert castle == "castles: groove 1 value 2 points 3", page
            total = browser.find_element(By.CSS_SELECTOR, '#score tr[data-player="red"] td.total')
            assert total.text == "—" and "not known yet" in total.get_attribute("title"), page  # no buckets given
        shown = browser.execute_script(
            "const box = document.createElement('div'); box.innerHTML = renderScore(arguments[0], {game: 'plazing'});"
            "return [...box.querySelectorAll('thead th')].map(th => th.textContent);", {"players": [PLAZING_ROW]})
        assert shown == ["Player", "start", "closing points", "field points", "track", "weather points",
                         "resource points", "areas", "most areas points", "largest area", "largest area points",
                         "trash points", "Total"]
