"""Browser tests in headless Chromium (Debian's chromium + chromedriver, driven by Selenium).

They skip when Chromium is absent; CI installs it (.ci/run). Screenshots go to $BEACHSCORE_SCREENSHOTS
(the README's come from here) or a temporary folder.
"""

import json
import re
import os
import tempfile
import time

import cv2
import numpy as np
import pytest

from tests.chromium import headless_chromium, installed
from tests.server_thread import ServerThread

from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score, mock_pin_factory
from hardware.button import ScanButton
from hardware.file_camera import FileCamera
from web import create_app

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(REPO, "examples", "strand-unter")
# README screenshots: BEACHSCORE_SCREENSHOTS=docs/screenshots pytest tests/web/test_browser.py
SHOTS = os.environ.get("BEACHSCORE_SCREENSHOTS") or tempfile.mkdtemp(prefix="beachscore-shots-")
PIN = "2468"
BUTTON_PIN = 17

webdriver = pytest.importorskip("selenium.webdriver")
if not installed():
    pytest.skip("Chromium/chromedriver not installed (apt-get install chromium chromium-driver)",
                allow_module_level=True)

from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


def real_pipeline() -> bool:
    try:
        import beachscore.pipeline  # noqa: F401
        import vision.strand_unter  # noqa: F401
        return True
    except ImportError:
        return False


@pytest.fixture(scope="module")
def browser(server):  # depends on the server so that it quits (closing its event streams) first
    with headless_chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def gpio():
    with mock_pin_factory() as factory:
        yield factory


@pytest.fixture(scope="module")
def server(tmp_path_factory, gpio):
    """A station (real pipeline on the example when the reader imports, else the fake) served by waitress."""
    tmp = tmp_path_factory.mktemp("station")
    cal = None
    if real_pipeline():
        from beachscore.pipeline import calibrate

        try:
            cal = calibrate(os.path.join(EXAMPLE, "calibration.json"), str(tmp / "cal"))
        except Exception:  # noqa: BLE001 - a reader being rewritten fails its own tests and the
            cal = None     # end-to-end ones; these page tests then run on the fake pipeline
    if cal is not None:
        station = Station(Store(str(tmp / "data")), camera=FileCamera(os.path.join(EXAMPLE, "scene_05.jpg")),
                          calibration=cal)
    else:
        station = Station(Store(str(tmp / "data")), camera=FileCamera(os.path.join(EXAMPLE, "scene_05.jpg")),
                          calibration=FakeCalibration(), scanner=FakeScanner(), scorer=fake_score)
    station.button = ScanButton(BUTTON_PIN, on_press=lambda: station.request_scan("button"),
                                on_long_press=station.end_game, is_busy=lambda: station.busy)
    app = create_app({"EVENTS_KEEPALIVE_S": 1.0, "POLL_INTERVAL_MS": 400}, station=station)
    srv = ServerThread.serving(app, threads=12)
    yield {"url": srv.url, "station": station, "app": app}
    srv.close()
    station.close()


def wait(driver, predicate, timeout=15):
    # an element looked up while the page is being replaced (after a submit or a navigation) goes
    # stale, which Chromium may also report as a node that "does not belong to the document": look again
    def look(d):
        try:
            return predicate(d)
        except WebDriverException as e:
            if isinstance(e, StaleElementReferenceException) or "does not belong to the document" in str(e):
                return False
            raise
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(look)
    except TimeoutException:
        shown = driver.execute_script("const m = document.getElementById('message'); return m && m.textContent")
        raise AssertionError(f"timed out after {timeout} s on {driver.current_url}; the page says {shown!r}") from None


def press_button(gpio):
    pin = gpio.pin(BUTTON_PIN)
    pin.drive_low()
    time.sleep(0.1)
    pin.drive_high()


def screenshot(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SHOTS, name))


def unlock(driver, url):
    driver.get(url + "/pin")
    fields = driver.find_elements(By.CSS_SELECTOR, "#pin-form input[type=password]")
    if fields:
        for f in fields:
            f.send_keys(PIN)
        driver.find_element(By.CSS_SELECTOR, "#pin-form button").click()
        wait(driver, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-unlocked") == "yes")


def new_game(driver, url):
    driver.get(url + "/game")
    Select(driver.find_element(By.ID, "game")).select_by_value("strand-unter")
    rows = driver.find_elements(By.CSS_SELECTOR, "#players .p-name")
    rows[0].send_keys("Hannah")
    driver.find_element(By.CSS_SELECTOR, "#game-form button[type=submit]").click()
    wait(driver, lambda d: "started" in d.find_element(By.ID, "message").text)


def test_gpio_press_shows_the_new_scan_without_reload(browser, server, gpio):
    url, station = server["url"], server["station"]
    unlock(browser, url)
    new_game(browser, url)
    browser.get(url + "/")
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-transport") == "sse")
    live = browser.find_element(By.ID, "live")
    before = live.get_attribute("data-scan-id")
    browser.execute_script("window.__same_page = true")
    press_button(gpio)
    wait(browser, lambda d: live.get_attribute("data-scan-id") not in ("", before))
    assert browser.execute_script("return window.__same_page") is True  # no reload
    scan_id = int(live.get_attribute("data-scan-id"))
    assert station.store.scan(scan_id)["source"] == "button"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#score table.score td.total"))
    wait(browser, lambda d: d.execute_script("const i = document.getElementById('photo');"
                                             "return i.complete && i.naturalWidth > 0"))
    wait(browser, lambda d: not d.find_element(By.ID, "busy").is_displayed())  # the scan's work is over
    screenshot(browser, "live.png")

    # the polling fallback shows the next scan too
    browser.get(url + "/?transport=poll")
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-transport") == "poll")
    wait(browser, lambda d: d.find_element(By.ID, "live").get_attribute("data-scan-id") == str(scan_id))
    press_button(gpio)
    wait(browser, lambda d: d.find_element(By.ID, "live").get_attribute("data-scan-id") not in ("", str(scan_id)))


def test_live_page_polls_when_every_event_stream_slot_is_taken(browser, server):
    url, station, app = server["url"], server["station"], server["app"]
    app.config["EVENTS_MAX_STREAMS"] = 0  # /events answers 503 + Retry-After
    try:
        browser.get(url + "/")
        wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-transport") == "poll")
        before = browser.find_element(By.ID, "live").get_attribute("data-scan-id")
        assert station.request_scan("web").accepted
        wait(browser, lambda d: d.find_element(By.ID, "live").get_attribute("data-scan-id") not in ("", before))
    finally:
        app.config["EVENTS_MAX_STREAMS"] = 8
        station.wait_idle(60)


def test_scan_now_button(browser, server):
    url, station = server["url"], server["station"]
    unlock(browser, url)
    browser.get(url + "/")
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-transport") == "sse")
    before = station.store.count("scans")
    wait(browser, lambda d: d.find_element(By.ID, "scan-now").is_enabled())
    browser.find_element(By.ID, "scan-now").click()
    wait(browser, lambda d: station.store.count("scans") == before + 1 and not station.busy)
    latest = station.store.latest_scan()["id"]
    wait(browser, lambda d: d.find_element(By.ID, "live").get_attribute("data-scan-id") == str(latest))


def test_correction_changes_the_score_and_keeps_the_reading(browser, server):
    url, station = server["url"], server["station"]
    unlock(browser, url)
    if station.store.latest_scan() is None:
        station.request_scan("test")
        station.wait_idle()
    scan = station.store.latest_scan()
    browser.get(f"{url}/scans/{scan['id']}/correct")
    wait(browser, lambda d: d.find_element(By.ID, "correct").get_attribute("data-ready") == "yes")
    score_el = browser.find_element(By.ID, "score")
    before = score_el.text

    H = scan["extra"].get("H_px_from_mm")
    if H:  # click groove 1 on the photo: its row gets selected
        photo = browser.find_element(By.ID, "photo")
        wait(browser, lambda d: d.execute_script("return arguments[0].naturalWidth", photo) > 0)
        profile = station.calibration.profile
        poly = next(g["polygon_mm"] for g in profile["grooves"] if g["number"] == 1)
        cx, cy = np.mean(poly, axis=0)
        px = cv2.perspectiveTransform(np.array([[[cx, cy]]], np.float64), np.array(H))[0, 0]
        natural_w = browser.execute_script("return arguments[0].naturalWidth", photo)
        natural_h = browser.execute_script("return arguments[0].naturalHeight", photo)
        px = px * natural_w / scan["extra"].get("H_image_size", [natural_w])[0]  # H is for the drawn size
        scale_x, scale_y = photo.size["width"] / natural_w, photo.size["height"] / natural_h
        ActionChains(browser, duration=0).move_to_element_with_offset(
            photo, int(px[0] * scale_x - photo.size["width"] / 2), int(px[1] * scale_y - photo.size["height"] / 2)
        ).click().perform()
        wait(browser, lambda d: "selected" in (d.find_element(By.CSS_SELECTOR, 'tr[data-groove="1"]')
                                               .get_attribute("class") or ""))

    # change the first castle's value to a different one
    row = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#grooves tr[data-groove]")
               if r.find_elements(By.CSS_SELECTOR, ".castle"))
    value = Select(row.find_element(By.CSS_SELECTOR, ".castle .c-value"))
    old = int(value.first_selected_option.text)
    value.select_by_visible_text(str(3 if old != 3 else 0))
    wait(browser, lambda d: d.find_element(By.ID, "score").text != before)
    screenshot(browser, "correction.png")
    browser.find_element(By.ID, "note").send_keys("castle value misread")
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: "Saved as revision" in d.find_element(By.ID, "message").text)

    again = station.store.scan(scan["id"])
    assert again["state"] == scan["state"] and again["score"] == scan["score"]  # machine reading kept
    assert again["revisions"][-1]["note"] == "castle value misread"
    assert again["current_score"] != scan["score"]


def test_calibration_wizard_round_trip(browser, server):
    if not real_pipeline():
        pytest.skip("strand-unter reader not importable yet")
    url, station = server["url"], server["station"]
    unlock(browser, url)
    with open(os.path.join(EXAMPLE, "calibration.json")) as f:
        doc = json.load(f)
    with open(os.path.join(EXAMPLE, "profile.json")) as f:
        w, h = json.load(f)["board_mm"]
    H = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), np.float32(doc["corners_px"]))
    old_cal = station.calibration

    browser.get(url + "/calibrate")
    Select(browser.find_element(By.ID, "profile-source")).select_by_value("file")
    browser.find_element(By.ID, "profile-file").send_keys(os.path.join(EXAMPLE, "profile.json"))
    wait(browser, lambda d: "Board profile for Strand unter" in d.find_element(By.ID, "message").text)
    browser.find_element(By.ID, "upload").send_keys(os.path.join(EXAMPLE, "calib.jpg"))
    shot = browser.find_element(By.ID, "shot")
    wait(browser, lambda d: d.find_element(By.ID, "wizard").get_attribute("data-photo-id"))
    browser.execute_script("arguments[0].scrollIntoView()", shot)
    nat_w = browser.execute_script("return arguments[0].naturalWidth", shot)
    nat_h = browser.execute_script("return arguments[0].naturalHeight", shot)

    size = shot.size  # CSS px; one round trip instead of one per click

    def click_at(x, y):
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", shot)
        sx, sy = size["width"] / nat_w, size["height"] / nat_h
        ActionChains(browser, duration=0).move_to_element_with_offset(
            shot, round(x * sx - size["width"] / 2), round(y * sy - size["height"] / 2)).click().perform()

    for x, y in doc["corners_px"]:
        click_at(x, y)
    wait(browser, lambda d: d.find_element(By.ID, "wizard").get_attribute("data-corners") == "4")
    label = Select(browser.find_element(By.ID, "label"))
    for s in doc["samples"]:
        label.select_by_value(s["label"])
        x, y = cv2.perspectiveTransform(np.array([[s["board_mm"]]], np.float64), H)[0, 0]
        click_at(x, y)
    n = len(doc["samples"])
    wait(browser, lambda d: d.find_element(By.ID, "wizard").get_attribute("data-samples") == str(n))
    # one more click on a white shell, labelled black: refused (two labels on one spot), named by number, ringed; undone
    white = next(s for s in doc["samples"] if s["label"] == "shell/white")
    label.select_by_value("shell/black")
    click_at(*cv2.perspectiveTransform(np.array([[white["board_mm"]]], np.float64), H)[0, 0])
    wait(browser, lambda d: d.find_element(By.ID, "wizard").get_attribute("data-samples") == str(n + 1))
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: "bad" in d.find_element(By.ID, "message").get_attribute("class"), timeout=60)
    assert f"calibration sample {n + 1} (shell/black)" in browser.find_element(By.ID, "message").text
    assert browser.find_elements(By.CSS_SELECTOR, "#samples li")[n].get_attribute("class") == "doubted"
    assert browser.find_elements(By.CSS_SELECTOR, "#shot-marks circle.doubted, svg circle.doubted")
    browser.find_element(By.ID, "undo").click()
    wait(browser, lambda d: d.find_element(By.ID, "wizard").get_attribute("data-samples") == str(n))
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda d: d.find_element(By.ID, "wizard").get_attribute("data-done") == "yes"
         or "Learning" not in d.find_element(By.ID, "message").text, timeout=60)
    assert browser.find_element(By.ID, "wizard").get_attribute("data-done") == "yes", \
        browser.find_element(By.ID, "message").text
    wait(browser, lambda d: d.execute_script("const i = document.getElementById('preview');"
                                             "return i.complete && i.naturalWidth > 0"))
    preview = browser.find_element(By.ID, "preview")  # opens full size (a phone shows its labels too small)
    assert browser.find_element(By.ID, "preview-full").get_attribute("href") == preview.get_attribute("src")
    classes = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#classes li")]
    assert classes
    assert not browser.find_element(By.ID, "light").is_displayed()  # the example's light tells every class apart
    browser.execute_script("document.getElementById('result').scrollIntoView()")
    screenshot(browser, "wizard.png")

    assert station.calibration is not old_cal
    assert station.request_scan("test").accepted
    station.wait_idle(60)
    scan = station.store.latest_scan()
    assert scan["status"] == "ok", scan["error"]
    assert scan["state"]["grooves"]


def test_plazing_setup_form_terrain_editor(browser, server):
    url, station = server["url"], server["station"]
    unlock(browser, url)
    browser.get(url + "/game")
    Select(browser.find_element(By.ID, "game")).select_by_value("plazing")
    cell = browser.find_element(By.CSS_SELECTOR, '#terrain span[data-row="2"][data-col="3"]')
    cell.click()  # . → #
    cell.click()  # # → +
    browser.find_element(By.CSS_SELECTOR, '#terrain span[data-row="0"][data-col="0"]').click()
    Select(browser.find_element(By.ID, "weather")).select_by_value("rain")
    browser.find_element(By.CSS_SELECTOR, "#game-form button[type=submit]").click()
    wait(browser, lambda d: "started" in d.find_element(By.ID, "message").text)
    game = station.store.current_game()
    assert game["game"] == "plazing" and game["setup"]["weather"] == "rain"
    assert game["setup"]["terrain"][2][3] == "+" and game["setup"]["terrain"][0][0] == "#"
    assert game["setup"]["players"] == ["red", "yellow"] and game["display"]["swatches"]["red"]
    station.new_game("strand-unter")  # leave the station as the other tests expect


def test_plazing_terrain_not_clicked_in_is_not_sent(browser, server):
    """Issue 22: the grid started all sand and was always sent, so a game whose terrain nobody
    entered was read against an all-sand terrain. Until a cell is clicked nothing is sent (the
    scans read the terrain from the photo); "Clear" goes back to that."""
    url, station = server["url"], server["station"]
    unlock(browser, url)
    browser.get(url + "/game")
    Select(browser.find_element(By.ID, "game")).select_by_value("plazing")
    state = browser.find_element(By.ID, "terrain-state")
    assert state.get_attribute("data-entered") == "no" and "not entered" in state.text
    browser.find_element(By.CSS_SELECTOR, "#game-form button[type=submit]").click()
    wait(browser, lambda d: "started" in d.find_element(By.ID, "message").text)
    game = station.store.current_game()
    assert game["game"] == "plazing" and "terrain" not in game["setup"]
    assert "weather" not in game["setup"]  # not rolled yet: asked at Game over, never taken as sun
    browser.find_element(By.CSS_SELECTOR, '#terrain span[data-row="1"][data-col="1"]').click()
    assert state.get_attribute("data-entered") == "yes"
    browser.find_element(By.ID, "terrain-clear").click()
    assert state.get_attribute("data-entered") == "no"
    browser.find_element(By.CSS_SELECTOR, "#game-form button[type=submit]").click()
    wait(browser, lambda d: d.execute_script("return document.getElementById('message').textContent")
         .startswith(f"Game {game['id'] + 1} started"))
    assert "terrain" not in station.store.current_game()["setup"]
    station.new_game("strand-unter")  # leave the station as the other tests expect


def test_plazing_terrain_typed_as_rows(browser, server):
    """The terrain typed (or pasted) as rows of text, one character per square: a wrong row is named
    and nothing is taken; right rows fill the grid and are sent."""
    url, station = server["url"], server["station"]
    unlock(browser, url)
    browser.get(url + "/game")
    Select(browser.find_element(By.ID, "game")).select_by_value("plazing")
    form = browser.find_element(By.ID, "game-form")
    rows, cols = int(form.get_attribute("data-rows")), int(form.get_attribute("data-cols"))
    browser.find_element(By.CSS_SELECTOR, "#terrain-typed summary").click()
    box = browser.find_element(By.ID, "terrain-rows")
    lines = ["." * cols for _ in range(rows)]
    lines[1] = "#+" + "." * (cols - 3) + "x"
    box.send_keys("\n".join(lines[:-1] + ["." * (cols - 1) + "?"]))
    browser.find_element(By.ID, "terrain-use-rows").click()
    assert f'Row {rows}: "?" is not a square' in browser.find_element(By.ID, "terrain-rows-error").text
    box.clear()
    box.send_keys("\n".join(lines[:1] + ["." * (cols - 1)] + lines[2:]))
    browser.find_element(By.ID, "terrain-use-rows").click()
    assert f"Row 2: {cols - 1} squares" in browser.find_element(By.ID, "terrain-rows-error").text
    assert browser.find_element(By.ID, "terrain-state").get_attribute("data-entered") == "no"
    box.clear()
    typed = list(lines)
    typed[1] = lines[1][:-1] + "X"                 # a phone's capital
    typed[2] = "\u2026" + lines[2][3:]             # a phone's "…" for "..."
    box.send_keys("\n".join(typed))
    browser.find_element(By.ID, "terrain-use-rows").click()
    assert browser.find_element(By.ID, "terrain-rows-error").text == ""
    assert browser.find_element(By.CSS_SELECTOR, '#terrain span[data-row="1"][data-col="1"]').text == "+"
    browser.find_element(By.CSS_SELECTOR, "#game-form button[type=submit]").click()
    wait(browser, lambda d: "started" in d.find_element(By.ID, "message").text)
    assert station.store.current_game()["setup"]["terrain"] == lines
    station.new_game("strand-unter")  # leave the station as the other tests expect


# ---- Seashells, Plażing and Sand Castles at the station ---------------------------------------

class Swapped:
    """Give the shared station another calibration / scanner / scorer for one test, then put them back."""

    def __init__(self, station, **parts):
        self.station, self.parts = station, parts
        self.old = {k: getattr(station, k) for k in parts}

    def __enter__(self):
        for k, v in self.parts.items():
            setattr(self.station, k, v)
        return self.station

    def __exit__(self, *exc):
        self.station.wait_idle(30)
        for k, v in self.old.items():
            setattr(self.station, k, v)
        self.station.new_game("strand-unter")  # leave the station as the other tests expect


def test_seashells_game_reads_one_mat_per_player_and_shows_the_combined_score(browser, server, gpio):
    from beachscore.station.testing import MatScanner, score_with_rules

    url, station = server["url"], server["station"]
    cal = FakeCalibration(game="seashells", profile={"game": "seashells", "board_mm": [260, 310]})
    scanner = MatScanner({"red": {"shells": [["conch", "pink"], ["whelk", "blue"]], "sand_dollars": 2},
                          "yellow": {"shells": [["conch", "blue"]], "fossil_heads": 1, "fossil_tails": 1}})
    with Swapped(station, calibration=cal, scanner=scanner, scorer=score_with_rules):
        unlock(browser, url)
        browser.get(url + "/game")
        Select(browser.find_element(By.ID, "game")).select_by_value("seashells")
        Select(browser.find_element(By.ID, "ss-scoring")).select_by_value("advanced")
        Select(browser.find_element(By.ID, "ss-sun-shape")).select_by_value("cowrie")
        Select(browser.find_element(By.ID, "ss-sun-colour")).select_by_value("white")
        red = browser.find_element(By.CSS_SELECTOR, '#secrets tr[data-player="red"]')
        Select(red.find_element(By.CSS_SELECTOR, '.sec-shape[data-n="0"]')).select_by_value("whelk")
        Select(red.find_element(By.CSS_SELECTOR, '.sec-colour[data-n="0"]')).select_by_value("green")
        screenshot(browser, "seashells-setup.png")
        browser.find_element(By.CSS_SELECTOR, "#game-form button[type=submit]").click()
        wait(browser, lambda d: "started" in d.find_element(By.ID, "message").text)
        game = station.store.current_game()
        assert game["game"] == "seashells" and game["setup"] == {
            "players": ["red", "yellow"], "scoring": "advanced", "sun": {"shape": "cowrie", "colour": "white"},
            "secrets": {"red": {"shapes": ["whelk"], "colours": ["green"]}}}

        browser.get(url + "/")
        live = browser.find_element(By.ID, "live")
        wait(browser, lambda d: live.get_attribute("data-seashells") == "missing:red,yellow")
        wait(browser, lambda d: d.find_element(By.ID, "scan-now").text == "Scan red's mat")
        assert "Still to read" in browser.find_element(By.ID, "mats-missing").text
        wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-transport") == "sse")
        press_button(gpio)  # the button reads the next missing mat: red's
        wait(browser, lambda d: live.get_attribute("data-seashells") == "missing:yellow")
        assert scanner.players == ["red"]
        wait(browser, lambda d: d.find_element(By.ID, "scan-now").text == "Scan yellow's mat")
        browser.find_element(By.CSS_SELECTOR, '#seashells tr[data-player="yellow"] .scan-mat').click()
        wait(browser, lambda d: live.get_attribute("data-seashells") == "complete")
        assert scanner.players == ["red", "yellow"]
        table = station.seashells_table(station.store.current_game())
        for p in table["score"]["players"]:
            row = browser.find_element(By.CSS_SELECTOR, f'#seashells tr[data-player="{p["player"]}"]')
            assert row.find_element(By.CSS_SELECTOR, "td.total").text == str(p["total"])
        ranks = [browser.find_element(By.CSS_SELECTOR, f'#seashells tr[data-player="{p}"] td.rank').text
                 for p in ("red", "yellow")]
        assert sorted(ranks) in (["1", "2"], ["1", "1"])
        assert "shape whelk" in browser.find_element(By.CSS_SELECTOR, '#seashells tr[data-player="red"]').text
        screenshot(browser, "seashells.png")
        press_button(gpio)  # every mat read: the press is refused and the page says why
        wait(browser, lambda d: "every player's mat is read" in d.find_element(By.ID, "message").text)
        assert scanner.players == ["red", "yellow"]


PLAZING_STATE = {"game": "plazing", "rows": 12, "cols": 20,
                 "pieces": [{"player": "red", "kind": "screen", "cells": [[3, 4], [3, 5], [3, 6]], "facing": "N"},
                            {"player": "blue", "kind": "gear", "cells": [[5, 7]]}],
                 "meeples": [{"player": "red", "cell": [2, 5]}], "neutral": [], "resources": [], "trash": [],
                 "surprises": []}


def test_the_pages_lens_model_is_the_readers(browser, server):
    """web/static/lens.js (the correction editor's drawing and clicks on the photo as taken) bends
    and unbends points as vision.lens.model does, on the reader's half-size image of a wide lens."""
    from vision.lens.model import Lens

    url, station = server["url"], server["station"]
    unlock(browser, url)
    if station.store.latest_scan() is None:
        station.request_scan("test")
        station.wait_idle()
    browser.get(f"{url}/scans/{station.store.latest_scan()['id']}/correct")
    wait(browser, lambda d: d.execute_script("return !!window.beachscoreLens"))
    lens = Lens.fitted((-0.12, 0.02, 0.001, -0.0005), (1920, 1080), "lines")
    ideal = np.array([[12.0, 9.0], [480.0, 270.0], [900.0, 500.0], [700.0, 40.0]])
    photo_px = browser.execute_script(
        "return arguments[1].map(([u, v]) => beachscoreLens.distort(arguments[0], 960, 540, u, v))",
        lens.to_json(), ideal.tolist())
    assert np.abs(np.array(photo_px) - lens.distort_points(ideal, 960, 540)).max() < 1e-3
    back = browser.execute_script(
        "return arguments[1].map(([u, v]) => beachscoreLens.undistort(arguments[0], 960, 540, u, v))",
        lens.to_json(), photo_px)
    assert np.abs(np.array(back) - lens.undistort_points(np.array(photo_px), 960, 540)).max() < 1e-3
    assert np.abs(np.array(back) - ideal).max() < 1e-3


def test_plazing_correction_by_clicking_cells_on_the_grid_and_the_photo(browser, server):
    from beachscore.station.encoding import encode
    from beachscore.station.testing import score_with_rules
    from calibration.profiles import default_profile

    url, station = server["url"], server["station"]
    profile = default_profile("plazing")
    with Swapped(station, calibration=FakeCalibration(game="plazing", profile=profile), scorer=score_with_rules):
        setup = {"players": ["red", "blue"], "weather": "sun"}
        game_id = station.new_game("plazing", setup, {"swatches": {"red": "#d32f2f", "blue": "#1976d2"}})
        photo = np.full((600, 920, 3), 200, np.uint8)  # 2 px/mm: board mm → px is a plain scale
        scan_id = station.store.add_scan(
            game_id=game_id, source="test", photo_jpeg=encode(photo, ".jpg"),
            result={"game": "plazing", "state": PLAZING_STATE, "score": score_with_rules(PLAZING_STATE, setup),
                    "confidence": 0.5}, extra={"H_px_from_mm": [[2, 0, 0], [0, 2, 0], [0, 0, 1]]})
        unlock(browser, url)
        browser.get(f"{url}/scans/{scan_id}/correct")
        root = browser.find_element(By.ID, "correct")
        wait(browser, lambda d: root.get_attribute("data-ready") == "yes")

        def cell(r, c):
            return browser.find_element(By.CSS_SELECTOR, f'#pl-grid span[data-row="{r}"][data-col="{c}"]')

        def what(r, c):
            return cell(r, c).get_attribute("data-what")

        assert what(3, 4) == "piece:red:screen:N" and what(5, 7) == "piece:blue:gear" and what(2, 5) == "meeple:red"
        assert what(0, 0) == "empty"
        # erase one cell of the screen: a two-cell screen is no piece of the game → the rescore says so
        Select(browser.find_element(By.ID, "pl-what")).select_by_value("empty")
        cell(3, 6).click()
        wait(browser, lambda d: "bad" in d.find_element(By.ID, "message").get_attribute("class"))
        assert what(3, 6) == "empty"
        # the piece tool: click the screen to select it, then the free cell next to it extends it again
        Select(browser.find_element(By.ID, "pl-what")).select_by_value("piece")
        Select(browser.find_element(By.ID, "pl-player")).select_by_value("red")
        Select(browser.find_element(By.ID, "pl-kind")).select_by_value("screen")
        cell(3, 4).click()
        wait(browser, lambda d: "red screen" in d.find_element(By.ID, "pl-selected").text)
        cell(3, 6).click()
        wait(browser, lambda d: what(3, 6) == "piece:red:screen:N")
        wait(browser, lambda d: "bad" not in d.find_element(By.ID, "message").get_attribute("class"))
        Select(browser.find_element(By.ID, "sel-facing")).select_by_value("S")
        wait(browser, lambda d: what(3, 5) == "piece:red:screen:S")
        # a blue gear placed by clicking cell [8, 8] on the photo (board mm 200, 200 → px 400, 400)
        Select(browser.find_element(By.ID, "sel-kind"))  # the selection panel is there …
        browser.find_element(By.ID, "sel-done").click()  # … and done: the next click starts a new piece
        Select(browser.find_element(By.ID, "pl-player")).select_by_value("blue")
        Select(browser.find_element(By.ID, "pl-kind")).select_by_value("gear")
        img = browser.find_element(By.ID, "photo")
        wait(browser, lambda d: d.execute_script("return arguments[0].naturalWidth", img) > 0)
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", img)
        size = img.size
        ActionChains(browser, duration=0).move_to_element_with_offset(
            img, round(400 * size["width"] / 920 - size["width"] / 2),
            round(400 * size["height"] / 600 - size["height"] / 2)).click().perform()
        wait(browser, lambda d: what(8, 8) == "piece:blue:gear")
        assert browser.find_elements(By.CSS_SELECTOR, "#overlay polyline")  # the grid drawn over the photo
        # a resource and a neutral marker
        Select(browser.find_element(By.ID, "pl-what")).select_by_value("resource")
        Select(browser.find_element(By.ID, "pl-resource")).select_by_value("shell")
        cell(10, 1).click()
        Select(browser.find_element(By.ID, "pl-what")).select_by_value("neutral")
        cell(10, 2).click()
        wait(browser, lambda d: what(10, 1) == "resource:shell" and what(10, 2) == "neutral")
        screenshot(browser, "plazing-correction.png")
        browser.find_element(By.ID, "note").send_keys("screen faces the land")
        browser.find_element(By.ID, "save").click()
        wait(browser, lambda d: "Saved as revision" in d.find_element(By.ID, "message").text)

        saved = station.store.scan(scan_id)
        assert saved["state"] == PLAZING_STATE  # the machine reading is kept
        state = saved["revisions"][-1]["state"]
        screen = next(p for p in state["pieces"] if p["kind"] == "screen")
        assert screen["facing"] == "S" and sorted(screen["cells"]) == [[3, 4], [3, 5], [3, 6]]
        assert {"player": "blue", "kind": "gear", "cells": [[8, 8]]} in state["pieces"]
        assert {"kind": "shell", "cell": [10, 1]} in state["resources"] and state["neutral"] == [[10, 2]]
        # the game is followed: the correction is its accepted reading, scored with the timeline's facts
        from beachscore.station.store.steps import of_scan
        step = of_scan(station.store, scan_id)
        assert step["accepted"] and step["revision_id"] == saved["revisions"][-1]["id"]
        facts = {k: step["timeline"][k] for k in ("closings", "collected", "track")}
        assert saved["current_score"] == score_with_rules(state, dict(setup, **facts))


def test_sand_castles_correction_per_lane(browser, server):
    from beachscore.station.testing import score_with_rules

    url, station = server["url"], server["station"]
    state = {"game": "sand-castles", "walls_left": 4, "lanes": {
        "top": {"length": 8, "wave": 3, "wall": False, "castle_pieces": 2, "flooded": False},
        "middle": {"length": 8, "wave": 5, "wall": True, "castle_pieces": 3, "flooded": False},
        "bottom": {"length": 8, "wave": 2, "wall": False, "castle_pieces": 0, "flooded": False}}}
    with Swapped(station, scorer=score_with_rules):
        game_id = station.new_game("sand-castles")
        scan_id = station.store.add_scan(game_id=game_id, source="test", photo_jpeg=None, result={
            "game": "sand-castles", "state": state, "score": score_with_rules(state), "confidence": 0.5})
        unlock(browser, url)
        browser.get(f"{url}/scans/{scan_id}/correct")
        wait(browser, lambda d: d.find_element(By.ID, "correct").get_attribute("data-ready") == "yes")
        before = browser.find_element(By.ID, "score").text
        top = browser.find_element(By.CSS_SELECTOR, '#lanes tr[data-lane="top"]')
        pieces = top.find_element(By.CSS_SELECTOR, ".l-pieces")
        pieces.clear()
        pieces.send_keys("5")
        top.find_element(By.CSS_SELECTOR, ".l-wall").click()
        wait(browser, lambda d: d.find_element(By.ID, "score").text != before)
        browser.find_element(By.ID, "save").click()
        wait(browser, lambda d: "Saved as revision" in d.find_element(By.ID, "message").text)
        rev = station.store.scan(scan_id)["revisions"][-1]
        assert rev["state"]["lanes"]["top"] == {"length": 8, "wave": 3, "wall": True, "castle_pieces": 5,
                                                "flooded": False}
        assert "top" in rev["score"]["completed"]


def test_wizard_offers_the_default_profiles_and_an_empty_board_shot(browser, server):
    url, station = server["url"], server["station"]
    seen = {}

    def calibrator(request, out_dir):
        with open(request) as f:
            seen["doc"] = json.load(f)
        with open(os.path.join(os.path.dirname(request), "profile.json")) as f:
            seen["profile"] = json.load(f)
        return FakeCalibration(game="plazing", profile=seen["profile"], model={"classes": ["neutral"]})

    with Swapped(station, calibrator=calibrator, calibration=station.calibration):  # the new one goes after
        unlock(browser, url)
        browser.get(url + "/calibrate")
        source = Select(browser.find_element(By.ID, "profile-source"))
        assert {o.get_attribute("value") for o in source.options} >= {
            "default:strand-unter", "default:plazing", "default:seashells", "default:sand-castles"}
        source.select_by_value("default:plazing")
        wait(browser, lambda d: "boxed Plażing board" in d.find_element(By.ID, "message").text)
        labels = [o.get_attribute("value") for o in Select(browser.find_element(By.ID, "label")).options]
        assert "neutral" in labels and "screen/red/N" in labels
        browser.find_element(By.ID, "upload").send_keys(os.path.join(EXAMPLE, "calib.jpg"))
        wizard = browser.find_element(By.ID, "wizard")
        wait(browser, lambda d: wizard.get_attribute("data-photo-id"))
        browser.find_element(By.CSS_SELECTOR, "#empty-part summary").click()
        browser.find_element(By.ID, "upload-empty").send_keys(os.path.join(EXAMPLE, "calib.jpg"))
        wait(browser, lambda d: wizard.get_attribute("data-empty-photo-id"))
        shot = browser.find_element(By.ID, "shot")
        wait(browser, lambda d: d.execute_script("return arguments[0].naturalWidth", shot) > 0)
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", shot)
        size = shot.size
        for fx, fy in ((0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9), (0.5, 0.5)):
            ActionChains(browser, duration=0).move_to_element_with_offset(
                shot, round((fx - 0.5) * size["width"]), round((fy - 0.5) * size["height"])).click().perform()
        wait(browser, lambda d: wizard.get_attribute("data-samples") == "1")
        browser.find_element(By.ID, "save").click()
        wait(browser, lambda d: wizard.get_attribute("data-done") == "yes"
             or "bad" in d.find_element(By.ID, "message").get_attribute("class"), timeout=30)
        assert wizard.get_attribute("data-done") == "yes", browser.find_element(By.ID, "message").text
        from calibration.profiles import default_profile

        assert seen["profile"] == default_profile("plazing") and seen["doc"]["empty_image"].startswith("empty.")


# ---- a phone's width ---------------------------------------------------------------------------

PHONE_WIDTH_PX = 390  # an iPhone 12–15 / Pixel in portrait, CSS px


def _overflow(driver) -> tuple[int, list[str]]:
    """The page's scroll width and what sticks out past the viewport (for the failure message)."""
    width = driver.execute_script("return document.documentElement.scrollWidth")
    wide = driver.execute_script(
        "const W = document.documentElement.clientWidth, out = [];"
        "for (const e of document.querySelectorAll('body *')) { const r = e.getBoundingClientRect();"
        "  if (r.width > 0 && r.right > W + 1) out.push(e.tagName + '#' + e.id + '.' + e.className); }"
        "return out.slice(0, 6);")
    return width, wide


@pytest.fixture
def phone(browser):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": PHONE_WIDTH_PX, "height": 844, "deviceScaleFactor": 3, "mobile": True})
    yield browser
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_correction_setup_and_calibration_pages_fit_a_phone(phone, server):
    url, station = server["url"], server["station"]
    unlock(phone, url)
    if not station.store.scans(limit=1) or station.store.latest_scan()["game"] != "strand-unter":
        station.request_scan("test")
        station.wait_idle(60)
    scan = station.store.latest_scan()
    assert scan["status"] == "ok", scan["error"]
    pages = [(f"/scans/{scan['id']}/correct", None), ("/calibrate", None)] + \
        [("/game", game) for game in ("strand-unter", "plazing", "seashells", "sand-castles")]
    for path, game in pages:
        phone.get(url + path)
        if path.endswith("/correct"):
            wait(phone, lambda d: d.find_element(By.ID, "correct").get_attribute("data-ready") == "yes")
        if game:
            Select(phone.find_element(By.ID, "game")).select_by_value(game)
            if game == "strand-unter":
                for b in phone.find_elements(By.CSS_SELECTOR, "#buckets .add-card"):
                    b.click()
        assert phone.execute_script("return window.innerWidth") == PHONE_WIDTH_PX
        width, wide = _overflow(phone)
        assert width <= PHONE_WIDTH_PX, f"{path} {game or ''}: {width} px wide; sticking out: {wide}"
        screenshot(phone, f"phone-{(game or path.strip('/').split('/')[-1])}.png")


# ---- what a new user sees in the first hour ----------------------------------------------------

def test_scan_and_game_over_outcomes_replace_started_on_the_page(browser, server):
    from beachscore.errors import UnreadableBoardError

    url, station = server["url"], server["station"]
    failing = FakeScanner(error=UnreadableBoardError("occluded", "a hand is over the board"))
    with Swapped(station, calibration=FakeCalibration(), scanner=FakeScanner(), scorer=fake_score):
        unlock(browser, url)
        game_id = station.new_game("strand-unter")
        for transport in ("sse", "poll"):
            browser.get(url + ("/" if transport == "sse" else "/?transport=poll"))
            wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-transport") == transport)
            wait(browser, lambda d: d.find_element(By.ID, "scan-now").is_enabled())
            browser.find_element(By.ID, "scan-now").click()
            wait(browser, lambda d: re.fullmatch(r"Scan \d+ read\.", d.find_element(By.ID, "message").text))
            title = browser.find_element(By.ID, "score-title").text
            assert "UTC" not in title  # the phone's local time
            station.scanner = failing  # the final scan does not read: the game stays open, the page says so
            browser.execute_script("window.confirm = () => true")
            browser.find_element(By.ID, "game-over").click()
            wait(browser, lambda d: "the game is still open" in d.find_element(By.ID, "message").text, timeout=20)
            assert station.store.game(game_id)["ended_at"] is None
            station.scanner = FakeScanner()
        browser.find_element(By.ID, "game-over").click()
        wait(browser, lambda d: "the final score is below" in d.find_element(By.ID, "message").text, timeout=20)
        assert station.store.game(game_id)["ended_at"] is not None


def test_strand_setup_buckets_left_empty_are_unknown(browser, server):
    url, station = server["url"], server["station"]
    unlock(browser, url)
    browser.get(url + "/game")
    Select(browser.find_element(By.ID, "game")).select_by_value("strand-unter")
    red = browser.find_element(By.CSS_SELECTOR, '#buckets fieldset[data-player="red"]')
    assert all(i.get_attribute("value") == "" for i in red.find_elements(By.CSS_SELECTOR, ".bucket input"))
    yellow = browser.find_element(By.CSS_SELECTOR, '#buckets fieldset[data-player="yellow"]')
    yellow.find_element(By.CSS_SELECTOR, ".b-white").send_keys("2")
    browser.find_element(By.CSS_SELECTOR, "#game-form button[type=submit]").click()
    wait(browser, lambda d: "started" in d.find_element(By.ID, "message").text)
    setup = station.store.current_game()["setup"]
    assert "red" not in setup["players"]  # unknown: unfit shells and total stay unknown
    assert setup["players"]["yellow"] == {"bucket": {"white": 2, "gray": 0, "brown": 0, "black": 0}, "open_cards": []}


def test_no_broken_image_before_any_photo(browser, server):
    url, station = server["url"], server["station"]
    unlock(browser, url)
    game = station.new_game("sand-castles")
    state = {"game": "sand-castles", "walls_left": 1, "lanes": {
        "top": {"length": 8, "wave": 3, "wall": False, "castle_pieces": 2, "flooded": False}}}
    scan_id = station.store.add_scan(game_id=game, source="test", photo_jpeg=None,
                                     result={"game": "sand-castles", "state": state, "score": {}, "confidence": 0.5})
    for path in ("/", f"/scans/{scan_id}/correct", f"/scans/{scan_id}", "/calibrate", "/history"):
        browser.get(url + path)
        time.sleep(0.3)
        broken = browser.execute_script(
            "return [...document.images].filter(i => !i.hidden && i.offsetParent !== null && "
            "(!i.getAttribute('src') || (i.complete && i.naturalWidth === 0))).map(i => i.id || i.alt)")
        assert broken == [], path
    station.new_game("strand-unter")


def test_the_live_page_says_what_the_board_watcher_sees_and_turns_it_off(browser, server):
    url, station = server["url"], server["station"]
    unlock(browser, url)
    browser.get(url + "/")
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-transport") == "sse")
    state = browser.find_element(By.ID, "board-state")
    station.events.publish("board", {"state": "hand", "problem": None})
    wait(browser, lambda d: state.get_attribute("data-state") == "hand" and "Hand over the board" in state.text)
    station.events.publish("board", {"state": "changing", "problem": None})
    wait(browser, lambda d: "changing" in state.text)
    box = browser.find_element(By.ID, "auto-scan")
    assert box.is_selected()  # on unless turned off
    box.click()
    wait(browser, lambda d: station.store.get_setting("auto_scan") == "off")
    wait(browser, lambda d: state.get_attribute("data-state") == "off" and "turned off" in state.text)
    box.click()
    wait(browser, lambda d: station.store.get_setting("auto_scan") == "on")


def test_the_wizard_zooms_in_so_a_corner_is_placed_within_a_pixel(browser, server):
    browser.set_window_size(390, 844)
    try:
        unlock(browser, server["url"])
        browser.get(server["url"] + "/calibrate")
        zoom = browser.find_element(By.ID, "zoom")
        browser.execute_script("arguments[0].click()", zoom)  # before any shot: nothing to zoom
        assert zoom.get_attribute("aria-pressed") == "false"
        browser.find_element(By.ID, "upload").send_keys(os.path.join(EXAMPLE, "calib.jpg"))
        shot = browser.find_element(By.ID, "shot")
        wait(browser, lambda d: d.find_element(By.ID, "wizard").get_attribute("data-photo-id"))
        wait(browser, lambda d: d.execute_script("return arguments[0].naturalWidth", shot) > 0)
        nat_w = browser.execute_script("return arguments[0].naturalWidth", shot)
        shown = shot.size["width"]
        assert shown > 100
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", zoom)
        zoom.click()
        assert zoom.get_attribute("aria-pressed") == "true" and zoom.text == "Zoom out"
        wait(browser, lambda d: shot.size["width"] > 2.5 * shown)
        x, y = 0.4 * nat_w, 0.45 * browser.execute_script("return arguments[0].naturalHeight", shot)
        scroller = browser.find_element(By.ID, "shot-scroll")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'});"
                               "arguments[0].scrollLeft = arguments[1] * arguments[2].getBoundingClientRect().width"
                               " - arguments[0].clientWidth / 2", scroller, x / nat_w, shot)
        left, top, width = browser.execute_script("const r = arguments[0].getBoundingClientRect();"
                                                  "return [r.left, r.top, r.width]", shot)
        at = ActionBuilder(browser)  # viewport coordinates: the zoomed shot is larger than the screen
        at.pointer_action.move_to_location(round(left + x * width / nat_w), round(top + y * width / nat_w))
        at.pointer_action.click()
        at.perform()
        wait(browser, lambda d: d.find_element(By.ID, "wizard").get_attribute("data-corners") == "1")
        cx, cy = (float(browser.execute_script(f"return document.querySelector('#marks circle').getAttribute('{a}')"))
                  for a in ("cx", "cy"))
        assert abs(cx - x) <= nat_w / width + 0.5 and abs(cy - y) <= nat_w / width + 0.5   # within a CSS px of the zoomed shot
        zoom.click()
        wait(browser, lambda d: abs(shot.size["width"] - shown) <= 1)
    finally:
        browser.set_window_size(1280, 900)
