"""The calibration wizard's API with the real pipeline: clicks → calibration → a sample photo scans."""

import json
import os

import cv2
import numpy as np
import pytest

from beachscore.errors import SampleError
from beachscore.station import Station
from beachscore.station.store import Store
from hardware.file_camera import FileCamera
from vision.errors import sample_slot
from web import create_app

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "strand-unter")


def clicks_for(calibration_json):
    """The clicks a person makes for the example: corners (image px) and every sample's px."""
    with open(calibration_json) as f:
        doc = json.load(f)
    with open(os.path.join(os.path.dirname(calibration_json), doc["profile"])) as f:
        profile = json.load(f)
    w, h = profile["board_mm"]
    H = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), np.float32(doc["corners_px"]))
    samples = [{"label": s["label"],
                "px": cv2.perspectiveTransform(np.array([[s["board_mm"]]], np.float64), H)[0, 0].tolist()}
               for s in doc["samples"]]
    return doc["corners_px"], samples, profile


def ring_colours(picture, samples) -> dict:
    """The colour names (``green``, ``red``, ``other``) of the ring the preview draws around each sample,
    by label: the pixel on the ring's left side (radius 12 px per 1,500 px of the picture's longer side)."""
    r = 12 * max(picture.shape[:2]) / 1500
    out = {}
    for s in samples:
        x, y = int(s["px"][0] - r), int(s["px"][1])
        b, g, red = np.median(picture[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3), axis=0)
        name = "green" if g > 140 and red < 90 and b < 90 else "red" if red > 180 and g < 90 and b < 90 else "other"
        out.setdefault(s["label"], set()).add(name)
    return out


def test_wizard_round_trip_makes_a_calibration_that_scans(tmp_path, make_unlocked):
    pytest.importorskip("vision.strand_unter")
    pytest.importorskip("beachscore.pipeline")
    station = Station(Store(str(tmp_path / "data")), camera=FileCamera(os.path.join(EXAMPLE, "calib.jpg")))
    app = create_app({"TESTING": True}, station=station)
    client = make_unlocked(app.test_client())
    shot = client.post_json("/api/calibration/shot")
    assert shot.status_code == 201
    corners, samples, profile = clicks_for(os.path.join(EXAMPLE, "calibration.json"))
    no_profile = client.post_json("/api/calibration", {"photo_id": shot.get_json()["photo_id"],
                                                       "corners_px": corners, "samples": samples})
    assert no_profile.status_code == 400 and no_profile.get_json()["error"]["code"] == "no-profile"
    r = client.post_json("/api/calibration", {"photo_id": shot.get_json()["photo_id"], "corners_px": corners,
                                              "samples": samples, "profile": profile})
    assert r.status_code == 201, r.get_json()
    out = r.get_json()
    assert out["game"] == "strand-unter" and out["classes"]
    assert out["confusable"] == []  # the example's light tells every class apart
    preview = client.get(f"/photos/{out['preview_photo_id']}")
    assert preview.status_code == 200
    rings = ring_colours(cv2.imdecode(np.frombuffer(preview.data, np.uint8), cv2.IMREAD_COLOR), samples)
    assert "sandpiper" in out["classes"] and rings["sandpiper"] == {"green"}  # the list and the picture agree
    assert not any("red" in colours for colours in rings.values()), rings  # every listed label learned
    assert station.calibration is not None and station.calibration_problem is None
    station.camera = FileCamera(os.path.join(EXAMPLE, "scene_05.jpg"))
    assert client.post_json("/api/scan").status_code == 202
    station.wait_idle(60)
    scan = station.store.latest_scan()
    assert scan["status"] == "ok", scan["error"]
    assert scan["state"]["grooves"]
    station.close()


SAND_CASTLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "samples", "sand-castles", "setup0")


@pytest.mark.skipif(not os.path.isdir(SAND_CASTLES), reason="shared samples absent")
def test_the_wizard_reports_the_classes_calibrate_reports(tmp_path, make_unlocked):
    """A Sand Castles shot (its reader keeps no class list of its own) names its labelled classes."""
    station = Station(Store(str(tmp_path / "data")), camera=FileCamera(os.path.join(SAND_CASTLES, "calib.jpg")))
    client = make_unlocked(create_app({"TESTING": True}, station=station).test_client())
    shot = client.post_json("/api/calibration/shot").get_json()
    corners, samples, profile = clicks_for(os.path.join(SAND_CASTLES, "calibration.json"))
    r = client.post_json("/api/calibration", {"photo_id": shot["photo_id"], "corners_px": corners,
                                              "samples": samples, "profile": profile})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["classes"] == sorted({s["label"] for s in samples})
    station.close()


def test_bad_clicks_are_400(unlocked, station):
    shot = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    profile = {"game": "strand-unter", "board_mm": [440, 380]}
    for body, code in [({"corners_px": [[0, 0]] * 4, "samples": [{"label": "sea", "px": [1, 1]}]}, "invalid-corners"),
                       ({"corners_px": [[0, 0], [50, 0], [50, 50], [0, 50]], "samples": []}, "no-samples"),
                       ({"corners_px": [[0, 0], [50, 0], [50, 50], [0, 50]],
                         "samples": [{"label": "sea", "px": [70, 70]}]}, "sample-off-board"),
                       ({"corners_px": [[0, 0], [50, 0], [50, 50], [0, 50]],
                         "samples": [{"label": "sea", "px": [10 ** 400, 1]}]}, "invalid-json"),
                       ({"corners_px": [[10 ** 400, 0], [50, 0], [50, 50], [0, 50]],
                         "samples": [{"label": "sea", "px": [1, 1]}]}, "invalid-json")]:
        r = unlocked.post_json("/api/calibration", {"photo_id": shot, "profile": profile, **body})
        assert r.status_code == 400 and r.get_json()["error"]["code"] == code


CORNERS = [[0, 0], [70, 0], [70, 50], [0, 50]]
SAMPLES = [{"label": "sea", "px": [10, 10]}]
ABSURD_GRID = {"game": "plazing", "board_mm": [460, 300], "grid": {"rows": 100_000_000, "cols": 100_000_000,
                                                                   "cell_mm": 20, "origin_mm": [0, 0]}}
UNKNOWN_MARKERS = {"game": "strand-unter", "board_mm": [440, 380], "markers": [
    {"dictionary": "DICT_NOPE", "id": 1, "corners_mm": [[0, 0], [20, 0], [20, 20], [0, 20]]}]}


def _keeps_old_calibration(unlocked, station, body, code, calibrator=None):
    old = station.calibration
    if calibrator is not None:
        station.calibrator = calibrator
    events = station.events.subscribe()
    shot = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    r = unlocked.post_json("/api/calibration", {"photo_id": shot, "corners_px": CORNERS, "samples": SAMPLES, **body})
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["error"]["code"] == code
    assert station.calibration is old and station.calibration_problem is None
    assert unlocked.get("/api/status").get_json()["calibration"] == {"ok": True, "game": old.game, "problem": None}
    assert events.empty()  # no "calibration" event: the pages keep the old one too
    return r.get_json()["error"]["message"]


@pytest.mark.parametrize("profile, words", [(ABSURD_GRID, "grid"), (UNKNOWN_MARKERS, "DICT_NOPE")])
def test_a_profile_the_cli_refuses_is_400_and_the_old_calibration_stays(unlocked, station, profile, words):
    called = []
    message = _keeps_old_calibration(unlocked, station, {"profile": profile}, "invalid-profile",
                                     calibrator=lambda *a: called.append(a))
    assert words in message and not called  # refused before anything is learned


def test_a_calibrator_that_breaks_leaves_the_old_calibration(unlocked, station):
    def broken(request, out_dir):
        raise ValueError("cannot reshape array of size 0")

    message = _keeps_old_calibration(unlocked, station, {"profile": {"game": "strand-unter", "board_mm": [440, 380]}},
                                     "calibration-failed", calibrator=broken)
    assert "cannot reshape" in message and "previous calibration" in message


def test_a_calibration_whose_profile_is_absurd_is_not_used(unlocked, station):
    from beachscore.station.testing import FakeCalibration

    made = FakeCalibration(game="plazing", profile=ABSURD_GRID)
    _keeps_old_calibration(unlocked, station, {"profile": {"game": "strand-unter", "board_mm": [440, 380]}},
                           "invalid-profile", calibrator=lambda request, out_dir: made)


def test_a_good_calibration_replaces_the_old_one(unlocked, station):
    from beachscore.station.testing import FakeCalibration

    made = FakeCalibration(model={"classes": ["sea"]})
    station.calibrator = lambda request, out_dir: made
    events = station.events.subscribe()
    shot = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    r = unlocked.post_json("/api/calibration", {"photo_id": shot, "corners_px": CORNERS, "samples": SAMPLES})
    assert r.status_code == 201, r.get_json()
    assert station.calibration is made and events.get_nowait()["kind"] == "calibration"


# -- heavy image work: one at a time, nothing left behind -------------------------------------

def _upload(unlocked, data: bytes, name: str = "shot.jpg"):
    import io

    return unlocked.client.post("/api/calibration/upload", headers={"X-CSRF-Token": unlocked.csrf},
                                data={"photo": (io.BytesIO(data), name)})


def _jpeg(width: int, height: int) -> bytes:
    return cv2.imencode(".jpg", np.full((height, width, 3), 90, np.uint8))[1].tobytes()


@pytest.mark.parametrize("ext", [".jpg", ".png"])
def test_an_upload_kept_as_sent_is_checked_without_a_full_size_pixel_buffer(unlocked, monkeypatch, ext):
    """A 1 MB JPEG (or a 200 kB PNG) may hold 64 Mpx (192 MB of pixels, ~420 MB while decoding):
    an upload kept byte for byte is checked by decoding it at 1/8 size."""
    import vision.image.decode

    shapes, real = [], vision.image.decode.cv2.imdecode

    def recording(buf, flags):
        out = real(buf, flags)
        shapes.append(out.shape)
        return out
    monkeypatch.setattr(vision.image.decode.cv2, "imdecode", recording)
    data = cv2.imencode(ext, np.full((1600, 2400, 3), 90, np.uint8))[1].tobytes()
    r = _upload(unlocked, data, "shot" + ext)
    assert r.status_code == 201
    assert shapes == [(200, 300, 3)]
    assert unlocked.get(f"/photos/{r.get_json()['photo_id']}").data == data  # kept as sent


def test_a_truncated_or_corrupt_jpeg_upload_is_still_refused(unlocked, station):
    data = _jpeg(640, 480)
    assert _upload(unlocked, data[: len(data) // 2]).status_code == 400
    assert _upload(unlocked, data[:300]).status_code == 400
    assert station.store.count("photos") == 0


def _blocking(monkeypatch, module, name):
    """Replace ``module.name`` by a wrapper that waits for ``release`` (``entered`` says it started)."""
    import threading

    entered, release, real = threading.Event(), threading.Event(), getattr(module, name)

    def wait_then_run(*args, **kwargs):
        entered.set()
        assert release.wait(30)
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, wait_then_run)
    return entered, release


def test_uploads_are_decoded_one_at_a_time(unlocked, station, monkeypatch):
    """Eight large photos uploaded in parallel took 1.9 GB (each decode ~200–400 MB on a Pi Zero
    2 W's 512 MB): while one is being read, another is refused at once (409), not decoded too."""
    import threading

    import vision.image.decode

    entered, release = _blocking(monkeypatch, vision.image.decode, "decode_image")
    first = {}
    worker = threading.Thread(target=lambda: first.update(id=station.add_upload(_jpeg(640, 480))))
    worker.start()
    try:
        assert entered.wait(30)
        r = _upload(unlocked, _jpeg(640, 480))
        assert r.status_code == 409 and r.get_json()["error"]["code"] == "busy"
        assert "try again" in r.get_json()["error"]["message"]
    finally:
        release.set()
        worker.join(30)
    assert first["id"] and station.store.count("photos") == 1
    assert _upload(unlocked, _jpeg(640, 480)).status_code == 201  # free again


def test_one_calibration_at_a_time(unlocked, station):
    """Two saves at once (a double click, two phones) ran two calibrations side by side (memory)
    and could pick the same calibrations/<n> folder: the second is refused while one runs."""
    import threading

    from beachscore.station.testing import FakeCalibration
    from beachscore.station.wizard import calibrate_from_clicks

    made, entered, release = FakeCalibration(model={"classes": ["sea"]}), threading.Event(), threading.Event()

    def slow(request, out_dir):
        entered.set()
        assert release.wait(30)
        return made
    station.calibrator = slow
    shot = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    done = {}
    worker = threading.Thread(target=lambda: done.update(
        out=calibrate_from_clicks(station, shot, station.calibration.profile, CORNERS, SAMPLES)))
    worker.start()
    try:
        assert entered.wait(30)
        r = unlocked.post_json("/api/calibration", {"photo_id": shot, "corners_px": CORNERS, "samples": SAMPLES})
        assert r.status_code == 409 and r.get_json()["error"]["code"] == "busy"
        assert _upload(unlocked, _jpeg(640, 480)).status_code == 409  # nor a photo decoded beside it
    finally:
        release.set()
        worker.join(30)
    assert done["out"]["game"] == "strand-unter" and station.calibration is made
    assert sorted(os.listdir(os.path.join(station.store.data_dir, "calibrations"))) == ["1"]


@pytest.mark.parametrize("failure", ["breaks", "refuses", "disk-full"])
def test_a_failed_calibration_leaves_no_folder_behind(unlocked, station, failure):
    """Each failed save kept calibrations/<n>/ with a copy of the photo (up to 16 MB each)."""
    import errno

    from beachscore.errors import BadInputError

    def calibrator(request, out_dir):
        if failure == "breaks":
            raise ValueError("cannot reshape array of size 0")
        if failure == "refuses":
            raise BadInputError("missing-label", "calibration needs at least one sample of: sand")
        raise OSError(errno.ENOSPC, "No space left on device")
    station.calibrator = calibrator
    shot = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    r = unlocked.post_json("/api/calibration", {"photo_id": shot, "corners_px": CORNERS, "samples": SAMPLES})
    if failure == "disk-full":
        assert r.status_code == 507 and r.get_json()["error"]["code"] == "disk-full"
    else:
        assert r.status_code == 400
    root = os.path.join(station.store.data_dir, "calibrations")
    assert not os.path.isdir(root) or os.listdir(root) == []


def test_a_refused_sample_is_named_by_the_wizards_number(unlocked, station):
    """A calibrator refusing one sample names it by board millimetres; the wizard's user clicked numbered
    points and never saw millimetres, so the page names it by its number and label (as a doubted one)."""
    def refuses_the_second(request, out_dir):
        with open(request, encoding="utf-8") as f:
            xy = json.load(f)["samples"][1]["board_mm"]
        raise SampleError("bad-sample", [("sand", xy)], f"{sample_slot(0)} looks like 'sea', not like the other "
                          "'sand' samples; check its label and point")

    old = station.calibration
    station.calibrator = refuses_the_second
    shot = unlocked.post_json("/api/calibration/shot").get_json()["photo_id"]
    r = unlocked.post_json("/api/calibration", {
        "photo_id": shot, "corners_px": CORNERS, "profile": {"game": "strand-unter", "board_mm": [440, 380]},
        "samples": [{"label": "sea", "px": [10, 10]}, {"label": "sand", "px": [33.3, 21.7]}]})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "bad-sample"
    message = r.get_json()["error"]["message"]
    assert message.startswith("calibration sample 2 (sand) looks like 'sea'") and " mm" not in message, message
    assert r.get_json()["error"]["samples"] == [2]  # the page rings it
    assert station.calibration is old


def test_name_by_number_leaves_what_it_cannot_match():
    from beachscore.station.wizard import name_by_number
    clicked = [{"label": "empty", "board_mm": [34.0, 34.0]}, {"label": "shell", "board_mm": [66.0, 34.0]}]
    said = SampleError("bad-sample", [("empty", (34, 34))], f"{sample_slot(0)} looks like 'shell'")
    assert str(said) == "calibration sample 'empty' at 34,34 mm looks like 'shell'"
    name_by_number(said, clicked)
    assert said.message == str(said) == "calibration sample 1 (empty) looks like 'shell'"
    for samples in ([("empty", (66, 34))],                        # another label there
                    [("empty", (40, 34))],                        # nothing clicked there
                    [("empty", (34, 34)), ("empty", (40, 34))]):  # one of two not clicked
        other = SampleError("sample-off-place", samples, " and ".join(sample_slot(i) for i in range(len(samples))))
        before = other.message
        name_by_number(other, clicked)
        assert other.message == before


def test_the_real_calibrator_s_refused_sample_is_named_by_its_number(tmp_path, make_unlocked):
    """Strand unter's calibrator refuses a black shell clicked as white; the page names the click."""
    pytest.importorskip("vision.strand_unter")
    station = Station(Store(str(tmp_path / "data")), camera=FileCamera(os.path.join(EXAMPLE, "calib.jpg")))
    client = make_unlocked(create_app({"TESTING": True}, station=station).test_client())
    shot = client.post_json("/api/calibration/shot").get_json()["photo_id"]
    corners, samples, profile = clicks_for(os.path.join(EXAMPLE, "calibration.json"))
    wrong = len(samples) - 1 - [s["label"] for s in reversed(samples)].index("shell/black")  # the last black shell
    samples[wrong] = dict(samples[wrong], label="shell/white")
    r = client.post_json("/api/calibration", {"photo_id": shot, "corners_px": corners, "samples": samples,
                                              "profile": profile})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "bad-sample", r.get_json()
    message = r.get_json()["error"]["message"]
    assert message.startswith(f"calibration sample {wrong + 1} (shell/white) looks like shell/black"), message


def test_two_samples_on_one_spot_are_named_by_number_without_the_server_s_file():
    from beachscore.station.wizard import name_by_number
    clicked = [{"label": "empty", "board_mm": [34.0, 34.0]}, {"label": "shell", "board_mm": [34.2, 34.0]}]
    said = SampleError("bad-sample", [("empty", (34, 34)), ("shell", (34.2, 34))],
                       f"samples of different labels on the same spot: {sample_slot(0)} and {sample_slot(1)}",
                       where="/data/calibrations/3/request/calibration.json")
    assert said.message.startswith("/data/calibrations/3/request/calibration.json: samples")
    name_by_number(said, clicked)
    assert said.message == ("samples of different labels on the same spot: calibration sample 1 (empty) and "
                            "calibration sample 2 (shell)")
