"""The hall under attack: each test reproduces one way a station, a viewer or a script broke it, on
SQLite and PostgreSQL (Flask's test client; the parallel ones through a real waitress server)."""

import json

import pytest



def new_event(org, size="4"):
    r = org.post("/events", {"name": "Club night", "game": "strand-unter", "table_size": size})
    assert r.status_code == 302, r.get_data(as_text=True)
    eid = int(r.headers["Location"].split("/")[2])
    assert org.post(f"/events/{eid}/players", {"players": "Ana\nBo\nCy\nDi\nEd\nFay\nGus\nHal"}).status_code == 302
    return eid


def paired_station(org, app, eid, table=1):
    code = org.post(f"/events/{eid}/tables/{table}/pairing", headers={"Accept": "application/json"}).get_json()["code"]
    station = app.test_client()
    token = station.post("/api/pair", json={"code": code, "name": f"table {table}"}).get_json()["token"]
    auth = {"Authorization": "Bearer " + token}
    return station, auth, station.get("/api/station/assignment", headers=auth).get_json()


def strand_report(players, scan_id, totals):
    return {"scan_id": scan_id, "revision": 0, "game": "strand-unter",
            "score": {"players": [{"player": p["id"], "total": t} for p, t in zip(players, totals)]}}


@pytest.mark.parametrize("total", ["NaN", "Infinity", "-Infinity", "1e300"])
def test_a_station_cannot_break_the_standings_with_impossible_points(organiser, app, total):
    eid = new_event(organiser, size="4")
    organiser.post(f"/events/{eid}/rounds")
    station, auth, assignment = paired_station(organiser, app, eid)
    players = assignment["players"]
    body = json.dumps(strand_report(players, 7, [1] * len(players))).replace('"total": 1', f'"total": {total}', 1)
    r = station.post("/api/station/results", data=body, headers={**auth, "Content-Type": "application/json"})
    assert r.status_code in (201, 400)
    if r.status_code == 201:
        assert r.get_json()["needs_review"]  # kept for the organiser to see, without points
    viewer = app.test_client()
    assert viewer.get(f"/api/events/{eid}/standings").status_code == 200
    assert viewer.get(f"/events/{eid}/export/standings.csv").status_code == 200
    assert viewer.get(f"/events/{eid}/export/results.csv").status_code == 200
    assert organiser.get(f"/events/{eid}/manage").status_code == 200


@pytest.mark.parametrize("path", ["/api/station/results", "/api/pair"])
def test_deeply_nested_json_is_a_clear_400(organiser, app, path):
    eid = new_event(organiser, size="4")
    organiser.post(f"/events/{eid}/rounds")
    station, auth, _ = paired_station(organiser, app, eid)
    for body in (b"[" * 100_000 + b"]" * 100_000, b'{"score": ' + b'{"a": ' * 50_000 + b"1" + b"}" * 50_001):
        r = station.post(path, data=body, headers={**auth, "Content-Type": "application/json"})
        assert r.status_code == 400 and r.get_json()["error"]["code"] == "invalid-json"


def test_a_big_report_never_breaks_the_organisers_pages(organiser, app):
    eid = new_event(organiser, size="4")
    organiser.post(f"/events/{eid}/rounds")
    station, auth, assignment = paired_station(organiser, app, eid)
    players = assignment["players"]
    report = strand_report(players, 8, [20, 15, 10, 5][:len(players)])
    report["state"] = {"notes": "x" * 300_000}  # a state far bigger than any board's
    r = station.post("/api/station/results", json=report, headers=auth)
    assert r.status_code in (201, 413)
    assert organiser.get(f"/events/{eid}/manage").status_code == 200
    page = organiser.get(f"/events/{eid}/rounds/1/tables/1")
    assert page.status_code == 200
    if r.status_code == 201:
        assert app.extensions["hall_store"].table(eid, 1, 1)["current"]["game_points"] is not None


def test_a_round_that_is_not_a_number_is_refused(organiser, app):
    eid = new_event(organiser, size="4")
    organiser.post(f"/events/{eid}/rounds")
    station, auth, assignment = paired_station(organiser, app, eid)
    for bad in ("1", 1.0, True, [1]):
        report = {**strand_report(assignment["players"], 9, [3, 2, 1, 0]), "round": bad}
        r = station.post("/api/station/results", json=report, headers=auth)
        assert r.status_code == 400 and r.get_json()["error"]["code"] == "invalid-report", bad
    assert app.extensions["hall_store"].count_results(eid) == {}


def _csrf(client, path):
    import re

    return re.search(r'name="csrf-token" content="([^"]+)"', client.get(path).get_data(as_text=True)).group(1)


def _in_parallel(n, work):
    import threading

    barrier = threading.Barrier(n)
    out = []

    def run(i):
        barrier.wait()
        out.append(work(i))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_parallel_wrong_passwords_get_five_checks_in_all(organiser, app):
    """The lockout counts an attempt before its (slow, scrypt) check: 24 guesses sent at once from
    one address are not all checked before the first failure is known."""
    clients = [app.test_client() for _ in range(24)]
    tokens = [_csrf(c, "/login") for c in clients]
    statuses = _in_parallel(24, lambda i: clients[i].post("/login", data={
        "username": "org", "password": f"guess-{i}", "csrf_token": tokens[i]}).status_code)
    assert sorted(statuses) == [403] * 5 + [429] * 19


def test_parallel_wrong_pairing_codes_get_ten_checks_in_all(app):
    clients = [app.test_client() for _ in range(30)]
    statuses = _in_parallel(30, lambda i: clients[i].post("/api/pair", json={"code": f"WRONG{i:03d}"}).status_code)
    assert sorted(statuses) == [401] * 10 + [429] * 20


def test_idle_sockets_are_closed_and_the_room_gets_in_again(app):
    """Sockets opened and left idle (sleeping phones, a script holding them) fill the connection
    limit; the hall closes them after its idle timeout and answers again. The shipped set-up
    closes them within seconds, not a minute."""
    import socket

    from hall.serve import WAITRESS, create_server
    from tests.server_thread import ServerThread

    assert WAITRESS["channel_timeout"] <= 15 and WAITRESS["cleanup_interval"] <= 2
    eid = app.extensions["hall_store"].create_event("Night", "plazing")
    server = create_server(app, "127.0.0.1", 0, connection_limit=10, channel_timeout=1, cleanup_interval=0.5)
    served = ServerThread(server)
    port = served.port
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
    try:
        idle[0].sendall(b"GET /api/events/1/standings HTTP/1.1\r\nHost: x\r\n")  # half a request, then nothing
        for s in idle:
            s.settimeout(30)
            assert s.recv(1) == b""  # the hall hung up on it
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", f"/api/events/{eid}/standings")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        for s in idle:
            s.close()
        served.close()


def test_a_port_in_use_is_one_clear_line_and_no_setup_link(tmp_path, capsys):
    """A second hall on a busy port said 'First run: create the organiser account at …' (the other
    hall's address) and then failed with an internal error."""
    import socket

    from beachscore.cli import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["hall", "--data", str(tmp_path / "hall"), "--host", "127.0.0.1", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert "First run" not in out
    assert len(err.strip().splitlines()) == 1 and "choose another --port" in err


class _Organiser:
    """The organiser on a test client (as conftest's fixture, for an app this test builds itself)."""

    def __init__(self, client):
        self.client = client
        csrf = _csrf(client, "/setup")
        assert client.post("/setup", data={"code": "setup-code", "username": "org", "password": "sand-castle-42",
                                           "password2": "sand-castle-42", "csrf_token": csrf}).status_code == 302
        self.csrf = _csrf(client, "/")

    def post(self, url, data=None, **kw):
        return self.client.post(url, data={**(data or {}), "csrf_token": self.csrf}, **kw)

    def get(self, url, **kw):
        return self.client.get(url, **kw)


def _attack_helpers():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "station", "attack_helpers.py")
    spec = importlib.util.spec_from_file_location("station_attack_helpers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_full_disk_says_so_and_the_station_tries_again(tmp_path):
    """SQLite on a real, small tmpfs that fills up: every write answers 503 "the hall's disk is
    full" (a station retries a 503), reads go on, and once there is space the report goes in."""
    import hashlib
    import os

    from hall import create_app
    from hall.db import open_engine
    from hall.store import HallStore

    helpers = _attack_helpers()
    with helpers.small_tmpfs("4m") as disk:
        if disk is None:
            pytest.skip("needs root to mount a small tmpfs")
        store = HallStore(open_engine("sqlite:///" + os.path.join(disk, "hall.sqlite3")),
                          photo_dir=os.path.join(disk, "photos"))
        try:
            app = create_app({"TESTING": True, "DATA_DIR": disk, "SETUP_CODE": "setup-code"}, store=store)
            org = _Organiser(app.test_client())
            eid = new_event(org, size="4")
            org.post(f"/events/{eid}/rounds")
            station, auth, assignment = paired_station(org, app, eid)
            filler = helpers.fill_disk(disk)
            r = station.post("/api/station/results", json=strand_report(assignment["players"], 1, [4, 3, 2, 1]),
                             headers=auth)
            assert r.status_code == 503 and r.get_json()["error"]["code"] == "disk-full"
            assert "disk is full" in r.get_json()["error"]["message"]
            photo = b"\x89PNG\r\n\x1a\n" + os.urandom(200_000)
            r = station.put(f"/api/station/photos/{hashlib.sha256(photo).hexdigest()}", data=photo, headers=auth)
            assert r.status_code == 503 and r.get_json()["error"]["code"] == "disk-full"
            assert not [n for n in os.listdir(os.path.join(disk, "photos")) if n.startswith(".tmp-")]
            doc = app.test_client().get(f"/events/{eid}/export/event.json").get_json()
            table = doc["rounds"][0]["tables"][1]
            r = org.post(f"/events/{eid}/rounds/1/tables/2", {f"gp_{p}": "3" for p in table["players"]},
                         headers={"Referer": f"/events/{eid}/rounds/1/tables/2"})
            assert r.status_code == 302
            page = org.get(r.headers["Location"]).get_data(as_text=True)
            assert "disk is full" in page
            assert app.test_client().get(f"/api/events/{eid}/standings").status_code == 200
            os.unlink(filler)
            r = station.post("/api/station/results", json=strand_report(assignment["players"], 1, [4, 3, 2, 1]),
                             headers=auth)
            assert r.status_code == 201
        finally:
            store.close()


def test_a_read_only_data_folder_stops_the_start_with_what_to_do(tmp_path, capsys):
    import os

    from beachscore.cli import main
    from hall.db import open_engine

    helpers = _attack_helpers()
    with helpers.small_tmpfs("4m") as disk:
        if disk is None:
            pytest.skip("needs root to mount a small tmpfs")
        open_engine("sqlite:///" + os.path.join(disk, "hall.sqlite3")).dispose()  # an existing hall's database
        assert helpers.remount_read_only(disk)
        assert main(["hall", "--data", disk, "--host", "127.0.0.1", "--port", "0"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "read-only" in err and disk in err, err


def test_two_players_of_the_same_name_both_find_their_table(organiser, app):
    """'Where do I sit' keyed its answers by name: the second Tom's table replaced the first's."""
    r = organiser.post("/events", {"name": "Night", "game": "strand-unter", "table_size": "2"})
    eid = int(r.headers["Location"].split("/")[2])
    organiser.post(f"/events/{eid}/players", {"players": "Tom, Sopot\nTom, Hel\nAna\nBo"})
    organiser.post(f"/events/{eid}/rounds")
    doc = app.test_client().get(f"/api/events/{eid}/seating").get_json()
    toms = {name: table for name, table in doc["where"].items() if name.startswith("Tom")}
    assert len(toms) == 2 and set(toms) == {"Tom (Sopot)", "Tom (Hel)"}
    tables = {t["table"]: [p["id"] for p in t["players"]] for t in doc["tables"]}
    assert all(toms[f"Tom ({club})"] == next(n for n, ps in tables.items() if pid in ps)
               for pid, club in (("p1", "Sopot"), ("p2", "Hel")))


@pytest.mark.parametrize("method, path, body, status", [
    ("POST", "/api/pair", b"{" + b" " * (11 * 1024 * 1024) + b"}", 413),
    ("GET", "/api/nothing-here", None, 404),
    ("GET", "/api/pair", None, 405),
])
def test_the_api_answers_errors_in_the_contract_shape(app, method, path, body, status):
    r = app.test_client().open(path, method=method, data=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status
    error = r.get_json()["error"]
    assert set(error) == {"code", "message"} and error["message"] and "\n" not in error["message"]


def test_the_stations_photo_and_explanation_stay_on_the_table_page_after_accepting(organiser, app):
    eid = new_event(organiser, size="4")
    organiser.post(f"/events/{eid}/rounds")
    station, auth, assignment = paired_station(organiser, app, eid)
    photo = b"\x89PNG\r\n\x1a\n" + b"1" * 64
    import hashlib

    sha = hashlib.sha256(photo).hexdigest()
    station.put(f"/api/station/photos/{sha}", data=photo, headers=auth)
    report = {**strand_report(assignment["players"], 3, [9, 7, 5, 3]), "photo_sha256": sha,
              "explanation": "castle by castle"}
    assert station.post("/api/station/results", json=report, headers=auth).status_code == 201
    assert organiser.post(f"/events/{eid}/rounds/1/tables/1", {"action": "accept"}).status_code == 302
    page = organiser.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True)
    assert "castle by castle" in page and sha in page
    assert "Accept this result" not in page  # already accepted


@pytest.mark.parametrize("fill, words", [
    ({"rank": {0: "1"}}, "a rank for every player, or none"),
    ({"gp": "nan"}, "is not a number"),
    ({"gp": "inf"}, "is not a number"),
    ({"gp": "1e13"}, "at most"),
    ({"rank": "0"}, "a whole number from 1"),
    ({"rank": "1.5"}, "a whole number from 1"),
])
def test_a_mistyped_result_says_what_is_wrong_in_the_organisers_words(organiser, app, fill, words):
    import html

    eid = new_event(organiser, size="4")
    organiser.post(f"/events/{eid}/rounds")
    table = app.extensions["hall_store"].table(eid, 1, 1)
    form = {f"gp_{p['id']}": fill.get("gp", "3") for p in table["players"]}
    rank = fill.get("rank")
    for i, p in enumerate(table["players"]):
        value = rank.get(i) if isinstance(rank, dict) else rank
        if value is not None:
            form[f"rank_{p['id']}"] = value
    page_url = f"/events/{eid}/rounds/1/tables/1"
    assert organiser.post(page_url, form, headers={"Referer": page_url}).status_code == 302
    page = html.unescape(organiser.get(page_url).get_data(as_text=True))
    assert words in page
    assert "result." not in page and "game_points[" not in page  # no file paths of the event model
    assert app.extensions["hall_store"].table(eid, 1, 1)["current"] is None


def _race(n, work):
    """``work(i)`` in ``n`` threads released together; returns each outcome: a value or the error's code."""
    from hall.store import HallError

    def run(i):
        try:
            return work(i)
        except HallError as err:
            return err.code
    return _in_parallel(n, run)


def test_one_pairing_code_sent_at_once_by_many_stations_pairs_one(store):
    """PostgreSQL (read committed) let 8 stations trade one single-use code for 8 tokens."""
    eid = store.create_event("Night", "plazing")
    for _ in range(3):
        code = store.new_pairing_code(eid, 1)
        outcomes = _race(8, lambda i: store.pair(code, f"station {i}"))
        assert sum(isinstance(o, dict) for o in outcomes) == 1, outcomes
        assert outcomes.count("pairing-code") == 7
    assert len(store.stations(eid)) == 3


def test_players_added_at_once_are_all_kept(store):
    """Two organiser tabs adding players at once: PostgreSQL gave both the same new ids and refused one."""
    eid = store.create_event("Night", "plazing")
    outcomes = _race(6, lambda i: store.add_players(eid, [{"name": f"P{i}-{j}"} for j in range(3)]))
    assert all(isinstance(o, list) and len(o) == 3 for o in outcomes), outcomes
    ids = [p["pid"] for p in store.players(eid)]
    assert len(ids) == 18 == len(set(ids))


def test_a_round_seated_twice_at_once_is_seated_once(store):
    eid = store.create_event("Night", "plazing")
    store.add_players(eid, [{"name": f"P{i}"} for i in range(8)])
    outcomes = _race(6, lambda i: store.start_round(eid, seed=i))
    assert sorted(map(str, outcomes)) == ["1"] + ["round-open"] * 5, outcomes
    assert [r.number for r in store.model(eid).rounds] == [1]
