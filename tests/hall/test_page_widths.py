"""Every hall page reads at a phone's 390 px and a laptop's 1280 px without sideways scrolling, and
the standings' text stays readable on the phone (issue 22: the standings shrank to ~7 px text).
Headless Chromium, SQLite."""


import pytest
from werkzeug.security import generate_password_hash

from tests.chromium import headless_chromium, installed
from tests.server_thread import ServerThread
from hall import create_app
from hall.db import open_engine
from hall.store import HallStore
from hall.testing import free_port

if not installed():
    pytest.skip("needs chromium and chromium-driver", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

PAGES = ["/", "/login", "/account", "/events/{e}/manage", "/events/{e}/rounds/1/tables/1", "/events/{e}/rounds/1/slips",
         "/events/{e}/standings", "/events/{e}/seating", "/events/{e}/report", "/events/{e}/report/1"]


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    """A hall with an evening's event (long names and clubs, a round seated, one result)."""
    tmp = tmp_path_factory.mktemp("widths")
    store = HallStore(open_engine("sqlite:///" + str(tmp / "hall.sqlite3")), photo_dir=str(tmp / "photos"))
    app = create_app({"SETUP_CODE": "code", "REFRESH_MS": 400}, store=store)
    store.add_organiser("org", generate_password_hash("sand-castle-42"))
    eid = store.create_event("Friday beach night at the harbour club", "strand-unter",
                             {"seating": {"table_size": 4, "uneven": "byes"}})
    store.add_players(eid, [{"name": f"Maximiliane-Josephine von Strandhausen {i}", "club": "Sandbank Surfers Sopot"}
                            for i in range(1, 11)])
    store.start_round(eid, seed=1)
    players = store.table(eid, 1, 1)["players"]
    store.enter_result(eid, 1, 1, {"game_points": {p["id"]: 100 + i for i, p in enumerate(players)}})
    server = ServerThread.serving(app, port=free_port())
    yield server.url, eid
    server.close()
    store.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_no_page_scrolls_sideways(room, width):
    url, eid = room
    with headless_chromium(window=f"{max(width, 500)},900") as driver:
        # the window cannot be narrower than 500 px: the phone's width is emulated
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 500})
        driver.get(url + "/login")
        driver.find_element(By.ID, "username").send_keys("org")
        driver.find_element(By.ID, "password").send_keys("sand-castle-42")
        driver.find_element(By.ID, "log-in").click()
        WebDriverWait(driver, 20).until(lambda d: "/login" not in d.current_url)
        wide = {}
        for page in PAGES:
            driver.get(url + page.format(e=eid))
            if "standings" in page:
                WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#standings tr[data-player]"))
            scroll, inner = driver.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]")
            if max(scroll, inner) > width:  # a phone widens its layout to fit content that is too wide
                wide[page] = (scroll, inner)
            if "standings" in page:
                size = driver.execute_script(
                    "return parseFloat(getComputedStyle(document.querySelector('#standings td')).fontSize)")
                assert size >= 14, f"standings text {size} px at {width} px"
        assert not wide, f"pages wider than the window at {width} px: {wide}"
