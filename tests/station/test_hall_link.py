"""A real station reporting to a real hall: pairing, game over → outbox → hall, hall down, station reboot."""

import time

import pytest

from beachscore.station import Station
from beachscore.station.hall_link import HallLink, HallLinkError
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score
from hall import create_app
from hall.db import open_engine
from hall.store import HallStore
from hall.testing import free_port
from hardware.mock_camera import MockCamera
from tests.server_thread import ServerThread


class Hall:
    """A hall served by waitress in this process (stop/start to simulate a restart on the same port)."""

    def __init__(self, tmp_path):
        self.store = HallStore(open_engine("sqlite:///" + str(tmp_path / "hall.sqlite3")))
        self.app = create_app({"TESTING": True}, store=self.store)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = None

    def start(self):
        self.server = ServerThread.serving(self.app, port=self.port)
        return self

    def stop(self):
        if self.server:
            self.server.close()
            self.server = None


def seated_hall(tmp_path, game: str, name: str):
    """A started :class:`Hall` with one event of ``game`` (tables of 2), Ana and Bo seated in round 1
    (``event_id`` set); the caller stops it and closes its store."""
    h = Hall(tmp_path).start()
    eid = h.store.create_event(name, game, {"seating": {"table_size": 2}})
    h.store.add_players(eid, [{"name": "Ana"}, {"name": "Bo"}])
    h.store.start_round(eid, seed=1)
    h.event_id = eid
    return h


def wait_for(predicate, timeout_s=15.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _settled(counts: dict, n: int) -> bool:
    """``n`` reports in the outbox and none pending (one reading of the counts: a report queued
    between two readings would pass a check made of two)."""
    return counts.get("pending", 0) == 0 and sum(counts.values()) == n


@pytest.fixture
def hall(tmp_path):
    h = seated_hall(tmp_path, "strand-unter", "Club night")
    yield h
    h.stop()
    h.store.close()


def make_station(data):
    return Station(Store(str(data)), camera=MockCamera(size=(80, 60)), calibration=FakeCalibration(),
                   scanner=FakeScanner(), scorer=fake_score)


def finish_game(station):
    station.new_game("strand-unter", {}, {"names": {"red": "Ana", "yellow": "Bo"}})
    assert station.end_game().accepted
    assert station.wait_idle(10)


def test_game_over_reaches_the_hall_once(hall, tmp_path):
    station = make_station(tmp_path / "st")
    link = HallLink(station, backoff_s=(0.05, 0.3)).start()
    try:
        with pytest.raises(HallLinkError):
            link.pair(hall.url, "WRONG-CODE")
        code = hall.store.new_pairing_code(hall.event_id, 1)
        link.pair(hall.url.replace("http://", ""), code, "window")  # the scheme may be left out
        assert link.status()["link"]["assignment"]["round"] == 1
        finish_game(station)
        assert wait_for(lambda: link.outbox.counts() == {"sent": 1})
        table = hall.store.table(hall.event_id, 1, 1)
        assert table["current"]["source"] == "station"
        names = {p["id"]: p["name"] for p in table["players"]}
        got = {names[p]: v for p, v in table["current"]["game_points"].items()}
        assert got == {"Ana": 2, "Bo": 2}  # fake_score: value x groove
        assert table["current"]["photo_sha256"] and hall.store.photo(table["current"]["photo_sha256"])
        # a correction of the final scan at the station goes out as revision 1, once
        scan_id = station.store.current_game()["final_scan_id"]
        state = station.store.scan(scan_id)["current_state"]
        state["grooves"][1]["castles"][0]["value"] = 3
        station.correct(scan_id, state)
        assert wait_for(lambda: link.outbox.counts() == {"sent": 2})
        assert link.reconcile() == 0  # nothing new to queue
        assert hall.store.count_results(hall.event_id) == {"station": 2}
    finally:
        link.close()
        station.close()


def test_hall_down_then_station_reboot_still_delivers_once(hall, tmp_path):
    data = tmp_path / "st"
    station = make_station(data)
    link = HallLink(station, backoff_s=(0.05, 0.2)).start()
    link.pair(hall.url, hall.store.new_pairing_code(hall.event_id, 1))
    hall.stop()                                     # Wi-Fi gone / hall restarting
    finish_game(station)
    assert wait_for(lambda: link.outbox.entries(1) and link.outbox.entries(1)[0]["attempts"] >= 2)
    link.close()                                    # the station reboots with the report still queued
    station.close()
    station = make_station(data)
    link = HallLink(station, backoff_s=(0.05, 0.2)).start()
    try:
        assert link.outbox.counts() == {"pending": 1}
        hall.start()
        assert wait_for(lambda: link.outbox.counts() == {"sent": 1})
        assert hall.store.count_results(hall.event_id) == {"station": 1}
    finally:
        link.close()
        station.close()


def test_a_station_only_reports_its_own_table_in_the_current_round(hall, tmp_path):
    station = make_station(tmp_path / "st")
    link = HallLink(station, backoff_s=(0.05, 0.2)).start()
    try:
        link.pair(hall.url, hall.store.new_pairing_code(hall.event_id, 1))
        hall.store.enter_result(hall.event_id, 1, 1, {"game_points": {"p1": 1, "p2": 0}})
        hall.store.close_round(hall.event_id, 1)
        finish_game(station)
        assert wait_for(lambda: link.outbox.counts() == {"rejected": 1})
        assert "no round is being played" in link.status()["reports"][0]["last_error"]
        assert hall.store.count_results(hall.event_id) == {"organiser": 1}
    finally:
        link.close()
        station.close()


def test_beachscore_serve_attaches_the_hall_page(tmp_path):
    """``beachscore serve`` itself (not a test's own wiring) gives the station its *Hall* page."""
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    port = free_port()
    log = open(tmp_path / "serve.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "beachscore", "serve", "--camera", "mock", "--button", "none",
                             "--data", str(tmp_path / "st"), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def hall_page():
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/hall", timeout=2) as r:
                return r.status
        except urllib.error.HTTPError as err:
            return err.code
        except OSError:
            return None

    try:
        assert wait_for(lambda: proc.poll() is not None or hall_page() is not None, timeout_s=60)
        assert hall_page() == 200, (tmp_path / "serve.log").read_text()
        assert "hall link off" not in (tmp_path / "serve.log").read_text()
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def _new_round(hall):
    hall.store.close_round(hall.event_id, hall.store.open_round(hall.event_id))
    return hall.store.start_round(hall.event_id, seed=2)


def test_a_later_round_is_reported_without_opening_the_hall_page(hall, tmp_path):
    """The round a report names is the one being played when the game started, not the one the
    station happened to hear of when it paired."""
    station = make_station(tmp_path / "st")
    link = HallLink(station, backoff_s=(0.05, 0.2)).start()
    try:
        link.pair(hall.url, hall.store.new_pairing_code(hall.event_id, 1))
        finish_game(station)
        assert wait_for(lambda: link.outbox.counts() == {"sent": 1})
        assert _new_round(hall) == 2
        finish_game(station)  # nobody opened the station's Hall page since round 1
        assert wait_for(lambda: _settled(link.outbox.counts(), 2))
        assert link.outbox.counts() == {"sent": 2}, link.status()["reports"]
        assert hall.store.table(hall.event_id, 2, 1)["current"]["source"] == "station"
    finally:
        link.close()
        station.close()


def test_a_game_started_in_an_earlier_round_is_not_counted_in_the_next(hall, tmp_path):
    station = make_station(tmp_path / "st")
    link = HallLink(station, backoff_s=(0.05, 0.2)).start()
    try:
        link.pair(hall.url, hall.store.new_pairing_code(hall.event_id, 1))
        game_id = station.new_game("strand-unter", {}, {"names": {"red": "Ana", "yellow": "Bo"}})
        assert wait_for(lambda: link.outbox.game_round(game_id) == 1)
        hall.store.enter_result(hall.event_id, 1, 1, {"game_points": {"p1": 1, "p2": 0}})  # typed by hand
        assert _new_round(hall) == 2
        link.refresh_assignment()  # someone opened the Hall page meanwhile: it now says round 2
        assert station.end_game().accepted and station.wait_idle(10)
        assert wait_for(lambda: link.outbox.counts() == {"rejected": 1})
        assert "round 1 is over" in link.status()["reports"][0]["last_error"]
        assert hall.store.table(hall.event_id, 2, 1)["current"] is None
    finally:
        link.close()
        station.close()


def _hall_page_client(station):
    """The station's web app with its *Hall* page, as a test client that set the PIN (CSRF token kept)."""
    import re

    from web import create_app as station_app
    from web.hall_link import attach

    app = station_app({"TESTING": True}, station=station)
    link = attach(app, station, backoff_s=(0.05, 0.3))
    client = app.test_client()
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/pin").get_data(as_text=True)).group(1)
    assert client.post("/pin", data={"pin": "2468", "pin2": "2468", "csrf_token": csrf}).status_code == 302
    return client, csrf, link


@pytest.mark.parametrize("address", ["192.168.1.20:8090x", "http://[::1", "ftp://192.168.1.20:8090",
                                     "192.168.1.20:99999", "http://", "hall laptop:8090"])
def test_a_malformed_hall_address_is_told_on_the_page(tmp_path, address):
    page = _pair_on_the_page(tmp_path, address)
    assert "the hall address" in page and "http://192.168.1.20:8090" in page


def _pair_on_the_page(tmp_path, address: str) -> str:
    """The Hall page after pairing with ``address`` was tried (a 200 page, the station left unpaired)."""
    station = make_station(tmp_path / "st")
    client, csrf, link = _hall_page_client(station)
    try:
        r = client.post("/hall/pair", data={"hall_url": address, "code": "ABCD-2345", "csrf_token": csrf},
                        follow_redirects=True)
        page = r.get_data(as_text=True)
        assert r.status_code == 200, page[:300]
        assert link.status()["link"] is None
        return page
    finally:
        link.close()
        station.close()


def test_the_organisers_page_address_pasted_whole_still_pairs(hall, tmp_path):
    station = make_station(tmp_path / "st")
    client, csrf, link = _hall_page_client(station)
    try:
        code = hall.store.new_pairing_code(hall.event_id, 1)
        r = client.post("/hall/pair", data={"hall_url": f"{hall.url}/events/{hall.event_id}/manage", "code": code,
                                            "csrf_token": csrf}, follow_redirects=True)
        assert "Paired with the hall." in r.get_data(as_text=True)
        assert link.status()["link"]["hall_url"] == hall.url
    finally:
        link.close()
        station.close()


def test_an_answer_that_is_not_the_halls_pairing_api_is_not_relayed(tmp_path):
    """A server at the address that is not a hall (or a hall page's CSRF guard) is named as such."""
    from beachscore.station.outbox import HallClient

    class NotAHall(HallClient):
        def request(self, method, path, **kw):
            return 403, {"error": {"code": "csrf", "message": "this form has expired: reload the page and try again"}}

    station = make_station(tmp_path / "st")
    link = HallLink(station, client_for=NotAHall).start()
    try:
        with pytest.raises(HallLinkError) as err:
            link.pair("192.168.1.20:8090", "ABCD-2345")
        assert "expired" not in err.value.message and "not as a beachscore hall" in err.value.message
    finally:
        link.close()
        station.close()


@pytest.mark.parametrize("address", ["x" * 300 + ":8090", "http://example.com..:8090",
                                     "http://" + "a" * 64 + ".lan:8090", "http://.:8090"])
def test_a_hall_name_dns_cannot_take_is_told_on_the_page(tmp_path, address):
    """A name too long, or with an empty or 64-character label, was sent to urllib, whose idna
    encoding raised a UnicodeError (not an OSError) through the page: a 500."""
    page = _pair_on_the_page(tmp_path, address)
    assert "the hall address" in page and "is not an address" in page


def test_an_international_hall_name_is_sent_as_dns_writes_it():
    """``bücher.de`` went to urllib as typed: the Host header's latin-1 encoding raised through the page."""
    from beachscore.station.hall_link import hall_address

    assert hall_address("http://Bücher.de:8090/") == "http://xn--bcher-kva.de:8090"
    assert hall_address("[fe80::1%eth0]:8090") == "http://[fe80::1%eth0]:8090"
    assert hall_address("HTTP://[::1]:8090/events/1") == "http://[::1]:8090"


def test_the_hall_client_says_unreachable_for_an_address_it_cannot_encode():
    from beachscore.station.outbox import HallClient, HallUnreachable

    for url in ("http://" + "x" * 300 + ":8090", "http://ſ:8090"):
        with pytest.raises(HallUnreachable):
            HallClient(url, timeout_s=2).request("POST", "/api/pair", body={})


def test_https_to_a_hall_that_serves_http_says_to_type_http(hall, tmp_path):
    """``https://`` said "cannot reach the hall … ([SSL: WRONG_VERSION_NUMBER] wrong version number
    (_ssl.c:1006)): check the address and the Wi-Fi", though the address and the Wi-Fi were right."""
    station = make_station(tmp_path / "st")
    link = HallLink(station).start()
    try:
        with pytest.raises(HallLinkError) as err:
            link.pair(hall.url.replace("http://", "https://"), "ABCD-2345")
        assert err.value.message == (f"the hall at {hall.url.replace('http://', 'https://')} does not answer https: "
                                     f"type its address with http://, e.g. {hall.url}")
    finally:
        link.close()
        station.close()
