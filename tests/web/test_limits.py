"""What requests may send: ids bounded (404/400, never 500), JSON bodies bounded in size and depth,
player names and other text bounded (400)."""

import pytest
from werkzeug.routing.converters import IntegerConverter

from web.inputs import MAX_ID, MAX_JSON_BYTES, IdConverter

HUGE = "99999999999999999999999"  # > 2**63: SQLite cannot hold it

JSON_ROUTES = ["/api/games", "/api/calibration", "/api/scans/1/rescore", "/api/scans/1/revisions", "/api/pin"]


def _scan(unlocked, station):
    unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {}})
    unlocked.post_json("/api/scan")
    station.wait_idle()
    return station.store.latest_scan()


def _post_raw(unlocked, url, text):
    return unlocked.client.post(url, data=text, content_type="application/json",
                                headers={"X-CSRF-Token": unlocked.csrf})


# -- ids ----------------------------------------------------------------------------------------

def test_every_id_in_a_url_is_bounded(app):
    """No route takes Werkzeug's unbounded ``<int:...>``: ids go through ``<id:...>``."""
    for rule in app.url_map.iter_rules():
        for name, converter in rule._converters.items():
            assert not isinstance(converter, IntegerConverter) or isinstance(converter, IdConverter), (rule, name)


@pytest.mark.parametrize("url", [f"/photos/{HUGE}", f"/scans/{HUGE}", f"/api/scans/{HUGE}", f"/scans/{HUGE}/correct",
                                 f"/photos/{2 ** 63}", "/photos/0", "/photos/" + "9" * 5000])
def test_ids_beyond_sqlite_are_404(unlocked, url):
    r = unlocked.get(url)
    assert r.status_code == 404


@pytest.mark.parametrize("url", [f"/api/scans/{HUGE}/rescore", f"/api/scans/{HUGE}/revisions"])
def test_posts_to_huge_ids_are_404(unlocked, url):
    assert unlocked.post_json(url, {"state": {}}).status_code == 404


def test_largest_id_is_a_plain_not_found(unlocked):
    assert unlocked.get(f"/photos/{MAX_ID}").status_code == 404
    assert unlocked.get(f"/api/scans/{MAX_ID}").get_json()["error"]["code"] == "not-found"


@pytest.mark.parametrize("url", [f"/history?game={HUGE}", f"/api/scans?game={HUGE}", "/api/scans?game=-3",
                                 "/api/scans?game=1e9"])
def test_huge_game_filters_show_everything_not_500(unlocked, station, url):
    _scan(unlocked, station)
    r = unlocked.get(url)
    assert r.status_code == 200
    if url.startswith("/api/"):
        assert len(r.get_json()["scans"]) == 1


@pytest.mark.parametrize("photo_id", [10 ** 23, "1e23", True, "5", 0, -1, None, 2 ** 63])
def test_calibration_photo_id_must_be_an_id(unlocked, photo_id):
    body = '{"photo_id": %s, "corners_px": [], "samples": []}' % (
        "1e23" if photo_id == "1e23" else __import__("json").dumps(photo_id))
    r = _post_raw(unlocked, "/api/calibration", body)
    assert r.status_code == 400
    err = r.get_json()["error"]
    assert err["code"] == "invalid-id" and "photo_id" in err["message"]


# -- JSON bodies ----------------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [40, 100_000])
@pytest.mark.parametrize("url", JSON_ROUTES)
def test_deeply_nested_json_is_400(unlocked, station, url, depth):
    _scan(unlocked, station)
    nested = "[" * depth + "]" * depth
    body = ('{"game": "strand-unter", "photo_id": 1, "pin": "1", "state": {"game": "strand-unter"}, '
            '"setup": {"a": %s}}' % nested)
    r = _post_raw(unlocked, url, body)
    assert r.status_code == 400, r.get_data(as_text=True)[:200]
    assert r.get_json()["error"]["code"] == "invalid-json" and "nested" in r.get_json()["error"]["message"]
    assert station.store.count("games") == 1 and station.store.count("revisions") == 0


@pytest.mark.parametrize("url", JSON_ROUTES)
def test_huge_and_broken_json_is_400(unlocked, url):
    big = _post_raw(unlocked, url, '{"setup": {"a": "%s"}}' % ("x" * (MAX_JSON_BYTES + 1)))
    assert big.status_code == 400 and big.get_json()["error"]["code"] == "body-too-large"
    long_number = _post_raw(unlocked, url, '{"photo_id": %s}' % ("9" * 5000))
    assert long_number.status_code == 400 and long_number.get_json()["error"]["code"] == "invalid-json"
    broken = _post_raw(unlocked, url, '{"game": ')
    assert broken.status_code == 400 and "line 1" in broken.get_json()["error"]["message"]
    not_object = _post_raw(unlocked, url, "[1, 2]")
    assert not_object.status_code == 400 and not_object.get_json()["error"]["code"] == "invalid-json"


def test_deep_profile_text_is_400(unlocked):
    profile = '{"game": "strand-unter", "board_mm": [440, 380], "x": %s}' % ("[" * 100_000 + "]" * 100_000)
    r = unlocked.post_json("/api/calibration", {"photo_id": 1, "profile": profile})
    assert r.status_code == 400 and "nested" in r.get_json()["error"]["message"]


# -- names and other text ---------------------------------------------------------------------------

@pytest.mark.parametrize("body, code", [
    ({"display": {"names": {"red": "x" * 2_000_000}}}, "body-too-large"),
    ({"display": {"names": {"red": "x" * 41}}}, "invalid-display"),
    ({"display": {"names": {"r" * 41: "Ana"}}}, "invalid-display"),
    ({"display": {"names": {f"p{i}": "Ana" for i in range(9)}}}, "invalid-display"),
    ({"display": {"swatches": {"red": "red; background: url(x)"}}}, "invalid-display"),
    ({"display": {"names": {"red": 5}}}, "invalid-display"),
    ({"display": {"title": "x"}}, "invalid-display"),
    ({"display": "Ana"}, "invalid-display"),
    ({"setup": {"players": [f"p{i}" for i in range(9)]}}, "invalid-setup"),
    ({"setup": {"players": {"x" * 41: {}}}}, "invalid-setup"),
    ({"setup": {"players": ["red", ""]}}, "invalid-setup"),
    ({"setup": {"notes": "x" * 40_000}}, "invalid-setup"),
    ({"colour": "red"}, "invalid-json"),
])
def test_names_and_text_are_bounded(unlocked, station, body, code):
    r = unlocked.post_json("/api/games", {"game": "strand-unter", **body})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == code, r.get_json()
    assert station.store.count("games") == 0


def test_sane_names_are_kept_and_sent(unlocked):
    display = {"names": {f"p{i}": "N" * 40 for i in range(8)}, "swatches": {"p0": "#D32F2F"}}
    r = unlocked.post_json("/api/games", {"game": "strand-unter", "setup": {"players": {"p0": {}}}, "display": display})
    assert r.status_code == 201, r.get_json()
    assert unlocked.get("/api/status").get_json()["game"]["display"] == display


def test_correction_notes_are_bounded(unlocked, station):
    scan = _scan(unlocked, station)
    url = f"/api/scans/{scan['id']}/revisions"
    assert unlocked.post_json(url, {"state": scan["state"], "note": "x" * 501}).status_code == 400
    assert unlocked.post_json(url, {"state": scan["state"], "note": ["x"]}).status_code == 400
    assert station.store.count("revisions") == 0
    assert unlocked.post_json(url, {"state": scan["state"], "note": "x" * 500}).status_code == 201
    assert unlocked.post_json(url, {"state": scan["state"], "note": None}).status_code == 201


def test_calibration_labels_are_bounded(unlocked):
    body = {"photo_id": 1, "corners_px": [], "samples": [{"label": "x" * 65, "px": [1, 1]}]}
    r = unlocked.post_json("/api/calibration", body)
    assert r.status_code == 400 and "label" in r.get_json()["error"]["message"]
    r = unlocked.post_json("/api/calibration", {**body, "samples": [{"label": "sea", "px": [1, 1]}] * 1001})
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "too-many-samples"


@pytest.mark.parametrize("text", [r'"\ud800"', r'"ab\udfffcd"', r'"\udc00\ud800"'])
def test_text_with_an_unpaired_surrogate_is_400_and_not_stored(unlocked, station, text):
    """A JSON escape of half a UTF-16 pair is valid JSON but no text: stored, it made every page
    that shows it (the history) fail with a 500 for good."""
    body = '{"game": "strand-unter", "setup": {"players": {%s: {}}}}' % text
    r = _post_raw(unlocked, "/api/games", body)
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "invalid-json"
    body = '{"game": "strand-unter", "setup": {}, "display": {"names": {"red": %s}}}' % text
    assert _post_raw(unlocked, "/api/games", body).status_code == 400
    assert station.store.count("games") == 0
    assert unlocked.get("/history").status_code == 200


def test_a_proper_surrogate_pair_is_text(unlocked, station):
    r = _post_raw(unlocked, "/api/games", r'{"game": "strand-unter", "setup": {}, "display": {"names": {"red": "\ud83d\udc1a Ana"}}}')
    assert r.status_code == 201
    assert station.store.current_game()["display"]["names"]["red"] == "\U0001F41A Ana"
    assert unlocked.get("/history").status_code == 200
