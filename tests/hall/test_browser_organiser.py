"""The organiser's new tools in a real browser (headless Chromium, SQLite): the tiebreak order on
the standings before round 1, a no-show typed with one tick, the warning when a correction
changes a round the next was seated on, and the players' own report confirming the station's."""

import re

import pytest
from werkzeug.security import generate_password_hash

from tests.chromium import headless_chromium, installed
from tests.server_thread import ServerThread
from hall import create_app
from hall.db import open_engine
from hall.store import HallStore
from hall.testing import free_port, report_for

if not installed():
    pytest.skip("needs chromium and chromium-driver", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture
def hall(tmp_path):
    store = HallStore(open_engine("sqlite:///" + str(tmp_path / "hall.sqlite3")), photo_dir=str(tmp_path / "photos"))
    app = create_app({"SETUP_CODE": "code", "REFRESH_MS": 400}, store=store)
    store.add_organiser("org", generate_password_hash("sand-castle-42"))
    server = ServerThread.serving(app, port=free_port())
    yield server.url, store, app
    server.close()
    store.close()


def _log_in(driver, url):
    driver.get(url + "/login")
    driver.find_element(By.ID, "username").send_keys("org")
    driver.find_element(By.ID, "password").send_keys("sand-castle-42")
    driver.find_element(By.ID, "log-in").click()
    WebDriverWait(driver, 20).until(lambda d: "/login" not in d.current_url)


def _shows(driver, element_id: str, words: str) -> bool:
    """Wait until the element shows ``words`` (the manage page redraws its tables after loading)."""
    return WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: words in d.find_element(By.ID, element_id).text)


def _submit(driver, form_id):
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, f"#{form_id} button[type=submit]").click()
    WebDriverWait(driver, 20).until(lambda d: old.id != d.find_element(By.TAG_NAME, "html").id)


def test_the_organisers_evening_with_no_shows_corrections_and_players_reports(hall):
    url, store, app = hall
    eid = store.create_event("Club night", "strand-unter", {"seating": {"table_size": 2, "uneven": "byes"},
                                                            "scoring": {"tiebreakers": ["wins", "game_points"]}})
    store.add_players(eid, [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")])
    with headless_chromium() as driver:
        driver.get(f"{url}/events/{eid}/standings")
        assert "Ties: tournament points, then wins, then game points" in driver.find_element(By.ID, "tiebreaks").text
        store.start_round(eid, seed=1)
        _log_in(driver, url)
        # table 1: a no-show, typed with one tick and no points
        driver.get(f"{url}/events/{eid}/rounds/1/tables/1")
        absent = store.table(eid, 1, 1)["players"][1]
        driver.find_element(By.ID, f"noshow-{absent['id']}").click()
        _submit(driver, "result-form")
        result = store.table(eid, 1, 1)["current"]
        assert result["ranks"][absent["id"]] == 2 and result["note"] == f"no-show: {absent['name']}"
        # table 2: the station reports, the players confirm it from a phone with the slip's code
        code = store.new_pairing_code(eid, 2)
        station = store.pair(code, "table 2")
        status, _ = store.station_report(store.station_by_token(station["token"]),
                                         report_for(store.assignment(store.station_by_token(station["token"])), 1))
        assert status == 201
        driver.get(f"{url}/events/{eid}/rounds/1/slips")
        slip_code = re.findall(r"[A-Z0-9]{6}", driver.find_elements(By.CSS_SELECTOR, ".report-code .code")[1].text)[0]
        points = store.table(eid, 1, 2)["current"]["game_points"]
        phone = driver  # the same browser stands in for a player's phone
        phone.get(f"{url}/events/{eid}/report/2")
        for pid, value in points.items():
            phone.find_element(By.ID, f"gp-{pid}").send_keys(str(value))
        phone.find_element(By.ID, "code").send_keys(slip_code)
        _submit(phone, "report-form")
        assert store.table(eid, 1, 2)["agreed"]
        driver.get(f"{url}/events/{eid}/manage")
        assert _shows(driver, "tables", "station and players agree")
        # close, seat round 2, then correct round 1: the warning
        assert store.close_round(eid, 1) == [] and store.start_round(eid, seed=2) == 2
        driver.get(f"{url}/events/{eid}/rounds/1/tables/1")
        for p in store.table(eid, 1, 1)["players"]:
            field = driver.find_element(By.ID, f"gp-{p['id']}")
            field.clear()
            field.send_keys("7")
        _submit(driver, "result-form")
        assert "Round 2 was seated on the standings before this correction" in driver.page_source
