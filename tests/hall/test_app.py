"""The hall's pages and API through Flask's test client, on SQLite and PostgreSQL."""

import hashlib
import re

import pytest

from tournament import Event, RoundOpenError, seat

NAMES = ["Ana", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"]


def token_of(client, path="/login"):
    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)


def new_event(org, game="strand-unter", size="3"):
    r = org.post("/events", {"name": "Club night", "game": game, "table_size": size, "uneven": "smaller-tables",
                             "tiebreakers": "game_points, wins, opponents, head_to_head"})
    assert r.status_code == 302, r.get_data(as_text=True)
    eid = int(r.headers["Location"].split("/")[2])
    assert org.post(f"/events/{eid}/players", {"players": "\n".join(NAMES)}).status_code == 302
    return eid


def test_viewers_need_nothing_and_writes_need_the_organiser(app, store):
    viewer = app.test_client()
    eid = store.create_event("Night", "plazing")
    for page in ("standings", "seating", "export/standings.csv", "export/results.csv", "export/event.json"):
        assert viewer.get(f"/events/{eid}/{page}").status_code == 200, page
    assert viewer.get(f"/api/events/{eid}/standings").get_json()["standings"] == []
    assert viewer.post(f"/events/{eid}/rounds").status_code == 403  # no CSRF token
    csrf = token_of(viewer, "/")
    r = viewer.post(f"/events/{eid}/rounds", data={"csrf_token": csrf})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "login-required"
    assert viewer.get(f"/events/{eid}/manage").status_code == 302  # to the login page


def test_setup_needs_the_printed_code_and_login_is_rate_limited(app):
    c = app.test_client()
    csrf = token_of(c, "/setup")
    r = c.post("/setup", data={"code": "guess", "username": "x", "password": "long-enough", "password2": "long-enough",
                               "csrf_token": csrf})
    assert r.status_code == 403
    r = c.post("/setup", data={"code": "setup-code", "username": "org", "password": "long-enough",
                               "password2": "long-enough", "csrf_token": csrf})
    assert r.status_code == 302
    other = app.test_client()
    csrf = token_of(other)
    codes = [other.post("/login", data={"username": "org", "password": f"wrong{i}", "csrf_token": csrf}).status_code
             for i in range(6)]
    # the right setup code forgave the wrong one; five wrong passwords from the same address: locked out
    assert codes[:5] == [403] * 5 and codes[5:] == [429]
    # the password is stored hashed, never in clear
    row = app.extensions["hall_store"].organiser("org")
    assert "long-enough" not in row["password_hash"] and row["password_hash"].startswith("scrypt:")


def test_the_evening_through_the_pages(organiser, app):
    org = organiser
    eid = new_event(org)
    assert org.post(f"/events/{eid}/rounds").status_code == 302
    page = org.get(f"/events/{eid}/manage").get_data(as_text=True)
    assert "Round 1" in page and page.count('class="state-waiting"') == 3  # 8 players at tables of 3: 3, 3, 2
    doc = org.get(f"/events/{eid}/export/event.json").get_json()
    for t in doc["rounds"][0]["tables"]:
        form = {f"gp_{p}": str(10 + i) for i, p in enumerate(t["players"])}
        r = org.post(f"/events/{eid}/rounds/1/tables/{t['table']}", form)
        assert r.status_code == 302
    standings = app.test_client().get(f"/api/events/{eid}/standings")
    body = standings.get_json()
    assert body["rounds_played"] == 1 and len(body["standings"]) == 8
    etag = standings.headers["ETag"]
    assert app.test_client().get(f"/api/events/{eid}/standings", headers={"If-None-Match": etag}).status_code == 304
    assert org.post(f"/events/{eid}/rounds/1/close").status_code == 302
    assert org.post(f"/events/{eid}/rounds").status_code == 302
    seating = app.test_client().get(f"/api/events/{eid}/seating").get_json()
    leader = body["standings"][0]["name"]
    assert seating["round"] == 2 and leader in [p["name"] for p in seating["tables"][0]["players"]]
    csv = org.get(f"/events/{eid}/export/results.csv").get_data(as_text=True).splitlines()
    assert csv[0].startswith("round,table,player") and len(csv) == 9


def test_station_api_pairs_reports_and_is_idempotent(organiser, app):
    org = organiser
    eid = new_event(org, size="4")
    org.post(f"/events/{eid}/rounds")
    code = org.post(f"/events/{eid}/tables/1/pairing", headers={"Accept": "application/json"}).get_json()["code"]
    station = app.test_client()
    paired = station.post("/api/pair", json={"code": code, "name": "window"})
    assert paired.status_code == 201
    auth = {"Authorization": "Bearer " + paired.get_json()["token"]}
    assignment = station.get("/api/station/assignment", headers=auth).get_json()
    assert assignment["round"] == 1 and len(assignment["players"]) == 4
    photo = b"\x89PNG\r\n\x1a\n" + b"0" * 100
    sha = hashlib.sha256(photo).hexdigest()
    assert station.put(f"/api/station/photos/{sha}", data=photo, headers=auth).status_code == 201
    assert station.put(f"/api/station/photos/{sha}", data=photo, headers=auth).status_code == 200
    assert station.put(f"/api/station/photos/{'0' * 64}", data=photo, headers=auth).status_code == 400
    players = assignment["players"]
    score = {"players": [{"player": p["name"], "total": 20 - i} for i, p in enumerate(players)],
             "ranking": [[p["name"]] for p in players]}
    report = {"scan_id": 5, "revision": 0, "game": "strand-unter", "score": score, "photo_sha256": sha,
              "explanation": "castle by castle"}
    first = station.post("/api/station/results", json=report, headers=auth)
    again = station.post("/api/station/results", json=report, headers=auth)
    assert first.status_code == 201 and again.status_code == 200 and again.get_json()["duplicate"]
    page = org.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True)
    assert "castle by castle" in page and sha in page and "Accept this result" in page
    assert org.get(f"/photos/{sha}").data == photo
    assert app.test_client().get(f"/photos/{sha}").status_code == 302  # viewers do not see photos
    assert org.post(f"/events/{eid}/rounds/1/tables/1", {"action": "accept"}).status_code == 302
    # revoked: the token stops working
    sid = app.extensions["hall_store"].stations(eid)[0]["id"]
    org.post(f"/stations/{sid}/revoke")
    assert station.get("/api/station/assignment", headers=auth).status_code == 401
    assert station.post("/api/station/results", json={**report, "revision": 1}, headers=auth).status_code == 401


def test_wrong_pairing_codes_are_rate_limited(app):
    station = app.test_client()
    codes = [station.post("/api/pair", json={"code": f"WRONG{i}"}).status_code for i in range(11)]
    assert codes[:10] == [401] * 10 and codes[10] == 429


def test_seat_while_a_round_is_open_is_refused_naming_it(organiser, app):
    """The page offers *Seat round 2* only once round 1 is closed; a seat request meanwhile (another tab,
    the API) is refused in one line naming the open round, as ``beachscore seat`` on the export is."""
    org = organiser
    eid = new_event(org)
    assert org.post(f"/events/{eid}/rounds").status_code == 302
    page = org.get(f"/events/{eid}/manage").get_data(as_text=True)
    assert 'id="start-round"' not in page and "Round 2 is seated once round 1 is closed." in page
    r = org.post(f"/events/{eid}/rounds", follow_redirects=True)
    assert "round 1 is still being played (tables 1, 2, 3 have no result yet)" in r.get_data(as_text=True)
    r = org.post(f"/events/{eid}/rounds", headers={"Accept": "application/json"})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "round-open"
    assert "round 1" in r.get_json()["error"]["message"]
    doc = org.get(f"/events/{eid}/export/event.json").get_json()
    for t in doc["rounds"][0]["tables"]:
        org.post(f"/events/{eid}/rounds/1/tables/{t['table']}", {f"gp_{p}": str(i) for i, p in enumerate(t["players"])})
    r = org.post(f"/events/{eid}/rounds", follow_redirects=True)  # every result in, the round not closed yet
    assert "round 1 is still open: close it, then seat round 2" in r.get_data(as_text=True)
    assert [x["number"] for x in org.get(f"/events/{eid}/export/event.json").get_json()["rounds"]] == [1]
    # the export says the round is open: the command line refuses it the same way
    with pytest.raises(RoundOpenError, match="round 1 is still open"):
        seat(Event.from_json(org.get(f"/events/{eid}/export/event.json").get_json()))
    assert org.post(f"/events/{eid}/rounds/1/close").status_code == 302
    assert org.post(f"/events/{eid}/rounds").status_code == 302
    assert app.test_client().get(f"/api/events/{eid}/seating").get_json()["round"] == 2


def test_an_odd_csrf_token_is_just_wrong(app):
    """Non-ASCII in the CSRF field or header is a wrong token (403), not a crash: the hall checks it with
    the station's own code (beachscore.csrf)."""
    c = app.test_client()
    token_of(c, "/setup")
    form = {"code": "setup-code", "username": "org", "password": "long-enough", "password2": "long-enough"}
    assert c.post("/setup", data={**form, "csrf_token": "é"}).status_code == 403
    assert c.post("/setup", data=form, headers={"X-CSRF-Token": "é".encode().decode("latin-1")}).status_code == 403
    assert app.extensions["hall_store"].organiser_count() == 0
