"""What a fresh user found on the station's pages, in headless Chromium at a laptop's 1280 px and a
phone's 390 px: the Sand Castles score is a table (one row per castle, the points together), not
raw JSON. Screenshots go to $BEACHSCORE_SCREENSHOTS or a temporary folder."""

import contextlib
import os
import tempfile
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tests.chromium import headless_chromium, require_chromium

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score, score_with_rules
from hardware.mock_camera import MockCamera
from tests.web.serving import served_station

require_chromium()

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402
from tests.web.test_browser import unlock, wait  # noqa: E402

SHOTS = os.environ.get("BEACHSCORE_SCREENSHOTS") or tempfile.mkdtemp(prefix="beachscore-fresh-")
os.makedirs(SHOTS, exist_ok=True)
WIDTHS = (390, 1280)

from tests.web.fresh_user_data import SAND_STATE  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    station = Station(Store(str(tmp_path_factory.mktemp("fresh") / "data")), camera=MockCamera(size=(160, 120)),
                      calibration=FakeCalibration(), scanner=FakeScanner(), scorer=fake_score)
    with served_station(station) as out:
        yield out


@contextlib.contextmanager
def phone_or_laptop(width: int):
    """A headless Chromium as wide as a phone (390, touch metrics) or a laptop (1280)."""
    with headless_chromium(f"{max(width, 500)},900") as driver:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 800})
        yield driver


def cells(driver, lane: str) -> list[str]:
    return [td.text for td in driver.find_elements(By.CSS_SELECTOR, f'#score tr[data-lane="{lane}"] td')]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_sand_castles_score_is_a_table_of_castles(served, width):
    url, station = served["url"], served["station"]
    station.new_game("sand-castles")
    score = score_with_rules(SAND_STATE)
    scan_id = station.store.add_scan(game_id=station.store.current_game()["id"], source="test", photo_jpeg=None,
                                     result={"game": "sand-castles", "state": SAND_STATE, "score": score,
                                             "confidence": 0.9})
    with phone_or_laptop(width) as driver:
        unlock(driver, url)
        for page in ("/", f"/scans/{scan_id}", f"/scans/{scan_id}/correct"):
            driver.get(url + page)
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#score table.castles"))
            assert not driver.find_elements(By.CSS_SELECTOR, "#score pre"), page  # no raw JSON
            assert cells(driver, "top") == ["top", "2 of 5", "wave 4 moves from the wall space, no wall", "2"], page
            assert cells(driver, "middle")[0].startswith("middle") and "complete" in cells(driver, "middle")[0], page
            assert cells(driver, "middle")[1:] == ["3 of 3", "wave 2 moves from the wall space, wall standing", "4"]
            assert cells(driver, "bottom")[:2] == ["bottom flooded", "0 of 4"], page
            total = driver.find_element(By.CSS_SELECTOR, "#score tr.together td.total").text
            assert total == "6 of 15", page
            outcome = driver.find_element(By.CSS_SELECTOR, "#score .outcome").text
            assert "flooded" in outcome and "play on" in outcome, page
            name = page.strip("/").replace("/", "-") or "live"
            driver.save_screenshot(os.path.join(SHOTS, f"sand-castles-{name}-{width}.png"))
            wide = driver.execute_script("return document.documentElement.scrollWidth")
            assert wide <= width + 1, (page, wide)
        assert driver.find_element(By.ID, "machine-totals").text == "6 of 15 points together"
        lanes = [tr.get_attribute("data-lane") for tr in driver.find_elements(By.CSS_SELECTOR, "#lanes tr[data-lane]")]
        assert lanes == ["top", "middle", "bottom"]  # the board's order, as the score lists them


@pytest.mark.parametrize("width", WIDTHS)
def test_the_pages_name_the_games(served, width):
    url = served["url"]
    with phone_or_laptop(width) as driver:
        unlock(driver, url)
        driver.get(url + "/game")
        shown = {o.get_attribute("value"): o.text for o in Select(driver.find_element(By.ID, "game")).options}
        assert shown["strand-unter"] == "Strand unter" and shown["plazing"] == "Plażing", shown
        driver.save_screenshot(os.path.join(SHOTS, f"game-{width}.png"))
        driver.get(url + "/calibrate")
        Select(driver.find_element(By.ID, "profile-source")).select_by_value("default:sand-castles")
        wait(driver, lambda d: "the boxed Sand Castles board" in d.find_element(By.ID, "message").text)
        driver.save_screenshot(os.path.join(SHOTS, f"calibrate-{width}.png"))


def expected_time(iso: str, zone: str) -> str:
    """``iso`` as the pages say it to a device in ``zone``: 24-hour clock, the date when not today."""
    when = datetime.fromisoformat(iso).astimezone(ZoneInfo(zone))
    today = datetime.now(ZoneInfo(zone)).date()
    return when.strftime("%H:%M:%S" if when.date() == today else "%Y-%m-%d %H:%M:%S")


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_says_a_time_the_same_way(served, width):
    """Live, History and the scan page show a scan's time alike: 24-hour clock in the device's zone
    (here not the station's), the date only when not today."""
    url, station = served["url"], served["station"]
    station.new_game("strand-unter")
    assert station.request_scan("test").accepted and station.wait_idle()
    scan = station.store.latest_scan()
    zone = "Asia/Kolkata"  # +05:30, no summer time: never the station's zone (UTC here)
    want = expected_time(scan["created_at"], zone)
    with phone_or_laptop(width) as driver:
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})
        unlock(driver, url)
        driver.get(url + "/")
        wait(driver, lambda d: d.find_element(By.ID, "live").get_attribute("data-scan-id") == str(scan["id"]))
        title = driver.find_element(By.ID, "score-title").text
        assert title.endswith(f"Scan {scan['id']} · {want}"), (title, want)
        driver.save_screenshot(os.path.join(SHOTS, f"time-live-{width}.png"))
        driver.get(url + "/history")
        row = driver.find_element(By.CSS_SELECTOR, f'li[data-scan-id="{scan["id"]}"] time')
        assert row.text == want
        driver.save_screenshot(os.path.join(SHOTS, f"time-history-{width}.png"))
        driver.get(url + f"/scans/{scan['id']}")
        assert driver.find_element(By.CSS_SELECTOR, "h1 time").text == want


@pytest.mark.parametrize("width", WIDTHS)
def test_an_unknown_total_says_what_it_needs_and_where(tmp_path, width):
    """A Strand unter game without buckets: Total "—" and one visible line saying what is missing,
    with links to Game over and the Game page; a score whose totals are known shows no such line."""
    from scoring import score as rules_score

    station = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(160, 120)),
                      calibration=FakeCalibration(), scanner=FakeScanner(scorer=rules_score), scorer=rules_score)
    with served_station(station) as served, phone_or_laptop(width) as driver:
        url = served["url"]
        station.new_game("strand-unter")
        assert station.request_scan("test").accepted and station.wait_idle()
        scan = station.store.latest_scan()
        assert scan["status"] == "ok", scan["error"]
        unlock(driver, url)
        for page in ("/", f"/scans/{scan['id']}/correct"):
            driver.get(url + page)
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#score td.total"))
            assert driver.find_element(By.CSS_SELECTOR, '#score tr[data-player="red"] td.total').text == "—"
            hint = driver.find_element(By.ID, "unknown-hint")
            assert hint.is_displayed() and "bucket" in hint.text, page
            links = {a.text: a.get_attribute("href") for a in hint.find_elements(By.TAG_NAME, "a")}
            assert links == {"Game over": url + "/#game-over", "Game page": url + "/game"}, links
            driver.save_screenshot(os.path.join(SHOTS, f"unknown-total-{page.strip('/').replace('/', '-') or 'live'}-{width}.png"))
        station.scorer = station.scanner.scorer = fake_score  # every total known
        assert station.request_scan("test").accepted and station.wait_idle()
        driver.get(url + "/")
        wait(driver, lambda d: d.find_element(By.ID, "live").get_attribute("data-scan-id") == str(scan["id"] + 1))
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#score td.total"))
        assert not driver.find_elements(By.ID, "unknown-hint")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_wizard_says_its_labels_and_what_it_learned_in_words(tmp_path, width):
    """Labels in the drop-down and the learned list in players' words; the class learned without a
    label (Strand unter's stick) is listed apart, saying what it is."""
    from selenium.webdriver.common.action_chains import ActionChains

    station = Station(Store(str(tmp_path / "data")), camera=MockCamera(size=(320, 240)),
                      calibration=FakeCalibration(), scanner=FakeScanner(), scorer=fake_score)
    station.calibrator = lambda request, out_dir: FakeCalibration(model={"classes": ["castle/red", "stick"]})
    with served_station(station) as served, phone_or_laptop(width) as driver:
        url = served["url"]
        unlock(driver, url)
        driver.get(url + "/calibrate")
        Select(driver.find_element(By.ID, "profile-source")).select_by_value("default:strand-unter")
        label = Select(driver.find_element(By.ID, "label"))
        assert {o.get_attribute("value"): o.text for o in label.options}["castle/red/2"] == "red castle, value 2"
        driver.find_element(By.ID, "take-shot").click()
        shot, wizard = driver.find_element(By.ID, "shot"), driver.find_element(By.ID, "wizard")
        wait(driver, lambda d: wizard.get_attribute("data-photo-id")
             and d.execute_script("return arguments[0].naturalWidth", shot) > 0)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", shot)
        size = shot.size
        clicks = [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9), (0.4, 0.5), (0.6, 0.5)]
        for i, (fx, fy) in enumerate(clicks):
            if i >= 4:
                label.select_by_value(f"castle/red/{i - 4}")
            ActionChains(driver, duration=0).move_to_element_with_offset(
                shot, round((fx - 0.5) * size["width"]), round((fy - 0.5) * size["height"])).click().perform()
        wait(driver, lambda d: wizard.get_attribute("data-samples") == "2")
        assert [li.text.split(" @ ")[0] for li in driver.find_elements(By.CSS_SELECTOR, "#samples li")] == [
            "red castle, value 0", "red castle, value 1"]
        driver.find_element(By.ID, "save").click()
        wait(driver, lambda d: wizard.get_attribute("data-done") == "yes"
             or "bad" in d.find_element(By.ID, "message").get_attribute("class"), timeout=30)
        assert wizard.get_attribute("data-done") == "yes", driver.find_element(By.ID, "message").text
        learned = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#classes li")]
        assert learned == ["red castles values 0, 1"], learned
        found = driver.find_elements(By.CSS_SELECTOR, "#found li")
        assert [li.text.split(" the stick")[0] for li in found] == ["the sea's stick"]
        assert found[0].is_displayed()
        driver.execute_script("document.getElementById('result').scrollIntoView()")
        driver.save_screenshot(os.path.join(SHOTS, f"wizard-learned-{width}.png"))
