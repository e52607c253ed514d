"""The live page's buttons before the station has a PIN or a game, in headless Chromium: greyed out,
with a line saying why, as the station refuses them."""


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
    with served_station(Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(80, 60)),
                                calibration=FakeCalibration(), scanner=FakeScanner(), scorer=fake_score)) as served:
        yield served


def buttons(driver) -> dict:
    return {b: driver.find_element(By.ID, b).is_enabled() for b in ("scan-now", "game-over", "auto-scan")}


def hint(driver) -> str:
    el = driver.find_element(By.ID, "actions-hint")
    return el.text if el.is_displayed() else ""


def test_without_a_pin_or_a_game_the_buttons_say_why_they_are_off(server):
    url, station = server["url"], server["station"]
    with headless_chromium() as browser:
        browser.get(url + "/")
        wait(browser, lambda d: "PIN" in hint(d))
        assert buttons(browser) == {"scan-now": False, "game-over": False, "auto-scan": False}
        assert "Choose the station PIN first" in hint(browser)
        assert browser.find_element(By.ID, "scan-now").get_attribute("title") == hint(browser)
        unlock(browser, url)  # the PIN is set: a scan is allowed, but there is no game to end
        browser.get(url + "/")
        wait(browser, lambda d: buttons(d) == {"scan-now": True, "game-over": False, "auto-scan": True})
        assert "set up a game first" in hint(browser)
        station.new_game("strand-unter")
        browser.get(url + "/")
        wait(browser, lambda d: buttons(d) == {"scan-now": True, "game-over": True, "auto-scan": True})
        assert hint(browser) == ""
