"""The station: scan on a worker thread, store, publish; refusals; corrections; button wiring."""

import os
import queue
import time

import pytest

from beachscore.errors import UnreadableBoardError
from beachscore.station import Station
from beachscore.station.store import Store
from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score, mock_pin_factory
from hardware.mock_camera import MockCamera

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "strand-unter")


def _events(q):
    out = []
    while True:
        try:
            out.append(q.get_nowait()["kind"])
        except queue.Empty:
            return out


def test_scan_is_stored_and_published(station):
    game = station.new_game("strand-unter", {"players": {}})
    q = station.events.subscribe()
    assert station.request_scan("web").accepted
    assert station.wait_idle(10)
    scan = station.store.latest_scan()
    assert scan["game_id"] == game and scan["status"] == "ok" and scan["source"] == "web"
    assert scan["photo_id"] and scan["annotated_photo_id"]
    assert set(scan["timing_ms"]) >= {"capture", "encode", "annotate", "detect"}
    # the picture after the score, then the thread free again (the pages enable Scan now)
    assert _events(q) == ["scan-started", "scan", "scan-annotated", "scan-finished"]


def test_a_second_request_during_a_scan_is_refused(tmp_path):
    scanner = FakeScanner(delay_s=0.5)
    st = Station(Store(str(tmp_path)), camera=MockCamera(), calibration=FakeCalibration(), scanner=scanner)
    assert st.request_scan().accepted
    scanner.started.wait(5)
    second = st.request_scan()
    assert not second.accepted and "already running" in second.reason
    st.close()
    assert scanner.calls == 1 and st.store is not None


def test_missing_camera_or_calibration_refuses_with_a_reason(tmp_path):
    st = Station(Store(str(tmp_path)), camera=None, camera_problem="no camera found", calibration=FakeCalibration())
    answer = st.request_scan()
    assert not answer.accepted and "no camera found" in answer.reason
    assert st.status()["camera"] == {"ok": False, "name": None, "problem": "no camera found"}
    st.close()
    st = Station(Store(str(tmp_path)), camera=MockCamera())
    assert "calibration" in st.request_scan().reason
    st.close()


def test_unreadable_board_is_kept_as_an_error_scan(tmp_path):
    err = UnreadableBoardError("occluded", "a hand is over the board")
    st = Station(Store(str(tmp_path)), camera=MockCamera(), calibration=FakeCalibration(),
                 scanner=FakeScanner(error=err))
    st.request_scan()
    st.wait_idle()
    scan = st.store.latest_scan()
    assert scan["status"] == "error" and scan["error"]["code"] == "occluded" and scan["photo_id"]
    st.close()


def test_camera_failure_is_kept_and_the_station_lives_on(tmp_path):
    st = Station(Store(str(tmp_path)), camera=MockCamera(fail=True), calibration=FakeCalibration(),
                 scanner=FakeScanner())
    st.request_scan()
    st.wait_idle()
    assert st.store.latest_scan()["error"]["code"] == "camera-failed"
    st.camera.fail = False
    assert st.request_scan().accepted
    st.close()


def test_correction_is_a_revision_and_keeps_the_reading(station):
    station.request_scan()
    station.wait_idle()
    scan = station.store.latest_scan()
    state = scan["state"]
    fixed = {**state, "grooves": [dict(g) for g in state["grooves"]]}
    fixed["grooves"][1] = {**fixed["grooves"][1], "castles": [{"player": "yellow", "value": 3}]}
    out = station.correct(scan["id"], fixed, "yellow castle is a 3")
    assert out["score"] != scan["score"]
    again = station.store.scan(scan["id"])
    assert again["state"] == state and again["score"] == scan["score"]  # machine reading kept
    assert again["current_state"] == fixed and again["current_score"] == out["score"]


def test_long_press_ends_the_game_with_a_final_scan(station):
    game = station.new_game("strand-unter")
    assert station.end_game().accepted
    station.wait_idle()
    g = station.store.game(game)
    assert g["ended_at"] and g["final_scan_id"] == station.store.latest_scan()["id"]


@pytest.fixture
def mock_gpio():
    with mock_pin_factory() as factory:
        yield factory


def test_gpio_press_scans_through_build_station(tmp_path, mock_gpio):
    from beachscore.serving import build_station

    st = build_station(str(tmp_path), camera="mock", button="17", led="22",
                       scanner=FakeScanner(delay_s=0.2), scorer=fake_score)
    assert st.button is not None and st.light is not None
    st.use_calibration(FakeCalibration())
    pin = mock_gpio.pin(17)

    def press():
        pin.drive_low()
        time.sleep(0.08)  # longer than the debounce
        pin.drive_high()

    press()
    assert st.busy
    press()  # ignored: a scan runs
    st.wait_idle()
    assert st.store.count("scans") == 1 and st.button.ignored == 1
    st.close()


def test_station_starts_without_camera_or_calibration(tmp_path, monkeypatch):
    from beachscore.serving import build_station

    st = build_station(str(tmp_path), camera="file:/no/such/folder", calibration=str(tmp_path / "nocal"), button="none")
    status = st.status()
    assert not status["camera"]["ok"] and "no such file" in status["camera"]["problem"]
    assert not status["calibration"]["ok"] and status["calibration"]["problem"]
    st.close()


def _real_pipeline():
    try:
        import vision.strand_unter  # noqa: F401
        import beachscore.pipeline  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"strand-unter reader not importable yet: {exc}")


def test_end_to_end_with_the_real_pipeline(tmp_path):
    _real_pipeline()
    from beachscore.pipeline import calibrate
    from beachscore.serving import build_station

    calibrate(os.path.join(EXAMPLE, "calibration.json"), str(tmp_path / "cal"))
    st = build_station(str(tmp_path / "data"), camera="file:" + os.path.join(EXAMPLE, "scene_05.jpg"),
                       calibration=str(tmp_path / "cal"), button="none")
    st.new_game("strand-unter")
    assert st.request_scan("test").accepted
    st.wait_idle(60)
    scan = st.store.latest_scan()
    assert scan["status"] == "ok", scan["error"]
    assert scan["game"] == "strand-unter" and scan["state"]["grooves"] and 0 <= scan["confidence"] <= 1
    assert scan["extra"]["H_px_from_mm"] and scan["annotated_photo_id"]
    st.close()


def test_new_game_refuses_a_setup_the_rules_refuse(station):
    from beachscore.errors import BadInputError

    with pytest.raises(BadInputError) as err:
        station.new_game("plazing", {"terrain": ["###"], "weather": "snow"})
    assert err.value.code == "invalid-setup" and "weather" in err.value.message and "terrain" in err.value.message
    assert station.store.count("games") == 0
    assert station.setup_problems("plazing", {"terrain": ["." * 20] * 12, "weather": "sun"}) == []
    assert station.setup_problems("sand-castles", {}) == [] and station.setup_problems("seashells", {}) == []


def test_rescore_scan_refuses_another_games_state(station):
    from beachscore.errors import BadInputError

    station.new_game("strand-unter", {})
    station.request_scan()
    station.wait_idle()
    scan = station.store.latest_scan()
    assert station.rescore_scan(scan["id"], scan["state"]) == scan["score"]
    with pytest.raises(BadInputError):
        station.rescore_scan(scan["id"], {"game": "plazing"})


def test_no_button_by_choice_is_not_a_problem(tmp_path, mock_gpio):
    from beachscore.serving import build_station

    st = build_station(str(tmp_path), camera="mock", button="none", scanner=FakeScanner(), scorer=fake_score)
    try:
        button = st.status()["button"]
        assert button["ok"] and not button["fitted"] and button["problem"] is None
    finally:
        st.close()


def test_a_game_the_calibration_does_not_read_is_not_scanned(station):
    station.new_game("sand-castles")
    answer = station.request_scan("web")
    assert not answer.accepted and "calibration is for strand-unter" in answer.reason
    assert station.store.count("scans") == 0


def test_a_button_without_gpio_is_one_line_and_shown_on_the_page(tmp_path, caplog, recwarn):
    import logging

    from gpiozero import Device

    from beachscore.serving import build_station
    from web import create_app

    if Device.pin_factory is not None:
        pytest.skip("a pin factory is loaded in this process")
    with caplog.at_level(logging.WARNING):
        st = build_station(str(tmp_path), camera="mock", button="17", led="27", scanner=FakeScanner(), scorer=fake_score)
    try:
        if st.button is not None:
            pytest.skip("this machine has GPIO")
        assert not [w for w in recwarn if "PinFactoryFallback" in type(w.message).__name__]  # no warning flood
        gpio_lines = [r.getMessage() for r in caplog.records if "GPIO" in r.getMessage()]
        assert len(gpio_lines) == 2  # one for the button, one for the light
        assert "button on GPIO 17" in gpio_lines[1] and "python3-lgpio" in gpio_lines[1]
        status = st.status()
        assert not status["button"]["fitted"] and "GPIO" in status["button"]["problem"]
        assert "GPIO" in status["light"]["problem"]
        client = create_app({"TESTING": True}, station=st).test_client()
        assert "button on GPIO 17" in client.get("/api/status").get_json()["button"]["problem"]
        assert b"Button not working" in client.get("/static/live.js").data  # the live page shows it
    finally:
        st.close()


class GatedScanner(FakeScanner):
    """A scan that waits for ``go`` once it has started (``started``): the test acts mid-scan."""

    def __init__(self):
        super().__init__()
        import threading

        self.go = threading.Event()

    def __call__(self, image, calibration, setup):
        self.started.set()
        assert self.go.wait(30)
        return super().__call__(image, calibration, setup)


@pytest.mark.parametrize("final", [False, True], ids=["scan", "game-over"])
def test_a_new_game_set_up_during_a_scan_keeps_both_games_apart(tmp_path, final):
    """The scan (and a final scan's "game over") belongs to the game it was asked for: a new game
    set up on another phone meanwhile was ended at once with the old game's final score, and the
    old one stayed open."""
    scanner = GatedScanner()
    st = Station(Store(str(tmp_path)), camera=MockCamera(), calibration=FakeCalibration(), scanner=scanner,
                 scorer=fake_score)
    try:
        old = st.new_game("strand-unter")
        assert (st.end_game() if final else st.request_scan("web")).accepted
        assert scanner.started.wait(30)
        new = st.new_game("strand-unter")
        scanner.go.set()
        assert st.wait_idle(30)
        scan = st.store.latest_scan()
        assert scan["game_id"] == old
        assert st.store.game(new)["ended_at"] is None
        assert (st.store.game(old)["ended_at"] is not None) == final
        if final:
            assert st.store.game(old)["final_scan_id"] == scan["id"]
    finally:
        scanner.go.set()
        st.close()


def test_a_scan_through_a_lens_keeps_the_lens_with_its_homography(tmp_path):
    """The correction editor draws on the photo as taken: a scan whose calibration has a lens stores
    it beside the homography (which belongs to the undistorted image), so the page can bend the
    board's lines as the lens did (web/static/lens.js)."""
    from tests.common.test_lens import CORNERS, PPM, SIZE, _calibrate, _layout, _through
    from vision.lens.model import Lens
    from tests.synthetic.grid import draw_board, grid_profile, photograph

    lens = Lens(-0.12, size=SIZE, scale=1.0)
    prof = grid_profile(6, 7)
    cal = _calibrate(tmp_path / "lens", lens, _layout(6, 7, 1), prof)
    photo = _through(lens, photograph(draw_board(prof, _layout(6, 7, 2), PPM), PPM, CORNERS, size=SIZE))
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera([photo], size=SIZE), calibration=cal)
    try:
        st.new_game("grid")
        assert st.request_scan("test").accepted and st.wait_idle(60)
        scan = st.store.latest_scan()
    finally:
        st.close()
    assert scan["status"] == "ok", scan["error"]
    assert scan["extra"]["H_px_from_mm"] and scan["extra"]["lens"]["k1"] == pytest.approx(-0.12, abs=0.02)
    assert Lens.from_json(scan["extra"]["lens"]).size == cal.lens.size


def test_a_new_game_naming_a_colour_the_calibration_has_not_learned_is_refused(tmp_path):
    from beachscore.errors import BadInputError

    cal = FakeCalibration(model={"players": ["red", "yellow"]})
    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(), calibration=cal, scanner=FakeScanner())
    try:
        with pytest.raises(BadInputError) as err:
            st.new_game("strand-unter", {"players": {"Red": {"bucket": {"white": 1}}}})
        assert err.value.code == "invalid-setup" and "players.Red: not a player colour" in err.value.message
        assert st.new_game("strand-unter", {"players": {"red": {"bucket": {"white": 1}}}})
    finally:
        st.close()


@pytest.mark.parametrize("setup, says", [
    ({"players": []}, "players: an empty list"),
    ({"players": ["red", "yellow"], "collected": {"red": {"amber": 10 ** 12}}}, "collected.red.amber"),
])
def test_a_new_plazing_game_the_rules_cannot_score_is_refused_up_front(tmp_path, setup, says):
    from beachscore.errors import BadInputError

    st = Station(Store(str(tmp_path / "data")), camera=MockCamera(), calibration=None, scanner=FakeScanner())
    try:
        with pytest.raises(BadInputError) as err:
            st.new_game("plazing", setup)
        assert err.value.code == "invalid-setup" and says in err.value.message
        assert st.store.count("games") == 0
    finally:
        st.close()
