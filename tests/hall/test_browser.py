"""The organiser's evening in headless Chromium, on SQLite and on PostgreSQL.

Create the organiser account, an event, 8 players; seat round 1 (tables of 3: 3, 3, 2); pair two
real stations (one through its own Hall page in the browser, one directly), which report their
game over through their outboxes; type the third table's result by hand; watch the standings
page update; accept a report, close the round, seat round 2 by standings; export.
Screenshots go to $BEACHSCORE_SCREENSHOTS (the README's come from here) or a temporary folder.
"""

import json
import os
import re
import tempfile
import time
import urllib.request

import pytest

from tests.chromium import headless_chromium, installed
from tests.server_thread import ServerThread

from beachscore.station import Station
from beachscore.station.hall_link import HallLink
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score
from hall import create_app
from hall.db import open_engine
from hall.store import HallStore
from hall.testing import free_port
from hardware.mock_camera import MockCamera
import tournament
from web.hall_link import attach

SHOTS = os.environ.get("BEACHSCORE_SCREENSHOTS") or tempfile.mkdtemp(prefix="hall-shots-")
PLAYERS = [("Ana", "Sopot"), ("Bo", "Gdynia"), ("Cy", "Sopot"), ("Di", ""), ("Ed", "Hel"), ("Fay", "Gdynia"),
           ("Gus", ""), ("Hal", "Hel")]
PASSWORD = "sand-castle-42"
PIN = "2468"

webdriver = pytest.importorskip("selenium.webdriver")
if not installed():
    pytest.skip("Chromium/chromedriver not installed (apt-get install chromium chromium-driver)",
                allow_module_level=True)

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


def serve(app):
    server = ServerThread.serving(app, port=free_port(), threads=8)
    return server, server.url


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as driver:
        yield driver


@pytest.fixture
def hall(db_url, tmp_path):
    store = HallStore(open_engine(db_url), photo_dir=str(tmp_path / "photos"))
    app = create_app({"SETUP_CODE": "evening-code", "REFRESH_MS": 400}, store=store)
    server, url = serve(app)
    yield url, store
    server.close()
    store.close()


class TableStation:
    """A station of one table: the fake pipeline "reads" castles for the colours its players chose."""

    def __init__(self, data):
        self.scanner = FakeScanner()
        self.station = Station(Store(str(data)), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                               scanner=self.scanner, scorer=fake_score)

    def play(self, names: list[str], values: list[int]):
        colours = ["red", "yellow", "green"][:len(names)]
        self.scanner.state = {"game": "strand-unter", "sea_front": 5, "grooves": [
            {"number": 2, "castles": [{"player": c, "value": v} for c, v in zip(colours, values)]}]}
        self.station.new_game("strand-unter", {}, {"names": dict(zip(colours, names))})
        assert self.station.end_game().accepted
        assert self.station.wait_idle(10)


def wait(driver, condition, timeout=30):
    """Wait for ``condition``; the pages redraw themselves, so an element may go stale meanwhile
    (Chrome may say so as "Node with given id does not belong to the document")."""
    def asked_again_when_redrawn(d):
        try:
            return condition(d)
        except WebDriverException as err:
            if "does not belong to the document" in str(err):
                return False
            raise
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(asked_again_when_redrawn)


def click(driver, by, value):
    """Click an element of a page that may redraw itself meanwhile."""
    wait(driver, lambda d: d.find_element(by, value).click() or True)


def shot(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SHOTS, name))


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def test_the_organisers_evening(browser, hall, tmp_path, db_url):
    url, store = hall
    d = browser
    # 1. the organiser account, with the setup code the hall printed
    d.get(f"{url}/setup?code=evening-code")
    d.find_element(By.ID, "username").send_keys("organiser")
    d.find_element(By.ID, "password").send_keys(PASSWORD)
    d.find_element(By.ID, "password2").send_keys(PASSWORD)
    click(d, By.ID, "create-account")
    wait(d, lambda d: d.find_elements(By.ID, "new-event"))
    # 2. the event and its 8 players
    d.find_element(By.ID, "event-name").send_keys("Club night")
    Select(d.find_element(By.ID, "event-game")).select_by_visible_text("strand-unter")
    d.find_element(By.ID, "table-size").send_keys("3")
    click(d, By.ID, "create-event")
    wait(d, lambda d: d.find_elements(By.ID, "players-text"))
    event_id = int(re.search(r"/events/(\d+)/manage", d.current_url).group(1))
    d.find_element(By.ID, "players-text").send_keys("\n".join(f"{n}, {c}" if c else n for n, c in PLAYERS))
    click(d, By.ID, "add-players-button")
    wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#player-list tbody tr")) == 8)
    # 3. round 1: tables of 3 for 8 players -> 3, 3, 2
    click(d, By.ID, "start-round")
    rows = wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#tables tbody tr"))
    assert len(rows) == 3
    seating = json.loads(fetch(f"{url}/api/events/{event_id}/seating"))
    assert [len(t["players"]) for t in seating["tables"]] == [3, 3, 2]
    # 4. pairing codes for tables 1 and 2
    codes = {}
    for table in (1, 2):
        box = d.find_element(By.ID, "pair-table")
        box.clear()
        box.send_keys(str(table))
        click(d, By.ID, "make-code")
        codes[table] = wait(d, lambda d: d.find_element(By.CSS_SELECTOR, f".code[data-table='{table}']")).text
    # 5. station 1 pairs through its own Hall page (PIN first), station 2 directly
    one, two = TableStation(tmp_path / "st1"), TableStation(tmp_path / "st2")
    station_app = create_app_for(one.station)
    link_one = attach(station_app, one.station, backoff_s=(0.05, 0.3))
    station_server, station_url = serve(station_app)
    link_two = HallLink(two.station, backoff_s=(0.05, 0.3)).start()
    try:
        d.get(f"{station_url}/pin")
        d.find_element(By.NAME, "pin").send_keys(PIN)
        d.find_element(By.NAME, "pin2").send_keys(PIN)
        d.find_element(By.NAME, "pin2").submit()
        # submit() does not wait for the PIN to be taken: the Hall page asked for before it would
        # send this browser back to /pin; wait for the redirect to the live page
        wait(d, lambda d: not d.current_url.split("?")[0].endswith("/pin"))
        d.get(f"{station_url}/hall")
        wait(d, lambda d: d.find_element(By.ID, "hall-url")).send_keys(url)
        d.find_element(By.ID, "pair-code").send_keys(codes[1].lower())
        d.find_element(By.ID, "station-name").send_keys("window table")
        click(d, By.ID, "pair")
        paired = wait(d, lambda d: d.find_elements(By.ID, "paired"))
        assert "table 1" in paired[0].text
        shot(d, "hall-station-pairing.png")
        link_two.pair(url, codes[2], "door table")
        names = {t["table"]: [p["name"] for p in t["players"]] for t in seating["tables"]}
        one.play(names[1], [3, 1, 2])
        two.play(names[2], [2, 2, 1])
        # 6. the organiser's page shows both reports by itself
        d.get(f"{url}/events/{event_id}/manage")
        for table in (1, 2):
            wait(d, lambda d: "state-reported" in d.find_element(By.CSS_SELECTOR, f"#tables tr[data-table='{table}']")
                 .get_attribute("class"), timeout=40)
        # 7. table 3 has no station: its result is typed by hand
        click(d, By.CSS_SELECTOR, "#tables tr[data-table='3'] a.button")
        third = seating["tables"][2]["players"]
        for p, points in zip(third, (11, 7)):
            d.find_element(By.ID, f"gp-{p['id']}").send_keys(str(points))
        click(d, By.ID, "save-result")
        wait(d, lambda d: "state-confirmed" in d.find_element(By.CSS_SELECTOR, "#tables tr[data-table='3']")
             .get_attribute("class"))
        # 8. the big-screen standings show everyone, led by a winner of round 1
        d.get(f"{url}/events/{event_id}/standings")
        wait(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#standings tbody tr[data-player]")) == 8)
        wait(d, lambda d: "after 1 round" in d.find_element(By.ID, "after").text)
        top = d.find_element(By.CSS_SELECTOR, "#standings tbody tr").text
        api = json.loads(fetch(f"{url}/api/events/{event_id}/standings"))
        assert api["standings"][0]["name"] in top and api["standings"][0]["tournament_points"] == 3
        if db_url.startswith("sqlite"):
            shot(d, "hall-standings.png")
        # a correction at table 1 shows on the open standings page by itself
        d.execute_script("window.open(arguments[0], 'organiser')", f"{url}/events/{event_id}/rounds/1/tables/1")
        d.switch_to.window(d.window_handles[-1])
        wait(d, lambda d: d.find_elements(By.ID, "accept"))
        assert "scan" in d.find_element(By.CSS_SELECTOR, ".report").text
        click(d, By.ID, "accept")
        wait(d, lambda d: "state-confirmed" in d.find_element(By.CSS_SELECTOR, "#tables tr[data-table='1']")
             .get_attribute("class"))
        # 9. close round 1, seat round 2 by standings: table 1 holds the leader
        click(d, By.ID, "close-round")
        wait(d, lambda d: d.find_elements(By.ID, "start-round"))
        click(d, By.ID, "start-round")
        wait(d, lambda d: "Round 2" in d.find_element(By.ID, "round").text)
        leader = api["standings"][0]["player"]
        round2 = json.loads(fetch(f"{url}/api/events/{event_id}/seating"))
        assert round2["round"] == 2 and leader in [p["id"] for p in round2["tables"][0]["players"]]
        d.switch_to.window(d.window_handles[0])
        d.get(f"{url}/events/{event_id}/seating")
        d.find_element(By.ID, "who").send_keys(api["standings"][0]["name"])
        wait(d, lambda d: "table 1" in d.find_element(By.ID, "answer").text)
        if db_url.startswith("sqlite"):
            shot(d, "hall-seating.png")
        # 10. exports: the event file gives the same standings through the pure model
        event_file = json.loads(fetch(f"{url}/events/{event_id}/export/event.json"))
        standings = tournament.standings_json(tournament.Event.from_json(event_file))
        now = json.loads(fetch(f"{url}/api/events/{event_id}/standings"))
        for _ in range(50):  # the API's standings may be up to StandingsCache.min_age_s behind the last change
            if now["version"] >= store.version(event_id):
                break
            time.sleep(0.1)
            now = json.loads(fetch(f"{url}/api/events/{event_id}/standings"))
        assert [s["player"] for s in standings["standings"]] == [s["player"] for s in now["standings"]]
        csv = fetch(f"{url}/events/{event_id}/export/standings.csv").splitlines()
        assert csv[0].startswith("rank,player,name") and len(csv) == 9
        results = fetch(f"{url}/events/{event_id}/export/results.csv").splitlines()
        assert len(results) == 1 + 8
        assert store.count_results(event_id) == {"station": 2, "organiser": 2}
    finally:
        d.get("about:blank")  # stop the pages' polling before the servers go
        link_one.close()
        link_two.close()
        station_server.close()
        one.station.close()
        two.station.close()


def create_app_for(station):
    from web import create_app as station_app

    return station_app({"TESTING": False}, station=station)
