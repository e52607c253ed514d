"""Players' reports (the slip's code) against station reports and the organiser's review (SQLite and PostgreSQL)."""

import html
import re


def _event(organiser, players="Ana\nBo") -> int:
    r = organiser.post("/events", {"name": "Night", "game": "strand-unter", "table_size": "2"})
    eid = int(r.headers["Location"].split("/")[2])
    assert organiser.post(f"/events/{eid}/players", {"players": players}).status_code == 302
    assert organiser.post(f"/events/{eid}/rounds").status_code == 302
    return eid


def _code(organiser, eid, table=1):
    slips = organiser.get(f"/events/{eid}/rounds/1/slips").get_data(as_text=True)
    return re.findall(r'<strong class="code">([A-Z0-9]+)</strong>', slips)[table - 1]


def _players_say(app, organiser, eid, points, table=1, client=None):
    """Post the players' report; ``points`` in the seated order."""
    client = client or app.test_client()
    page = client.get(f"/events/{eid}/report/{table}").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    ids = [p["id"] for p in app.extensions["hall_store"].table(eid, 1, table)["players"]]
    form = {f"gp_{i}": str(v) for i, v in zip(ids, points)}
    return client.post(f"/events/{eid}/report/{table}", data={**form, "code": _code(organiser, eid, table),
                                                              "csrf_token": csrf})


def _station_says(organiser, app, eid, points, table=1):
    """Pair a station to the table and send its report; ``points`` in the seated order."""
    code = organiser.post(f"/events/{eid}/tables/{table}/pairing", headers={"Accept": "application/json"}) \
        .get_json()["code"]
    client = app.test_client()
    token = client.post("/api/pair", json={"code": code, "name": "st"}).get_json()["token"]
    auth = {"Authorization": "Bearer " + token}
    players = client.get("/api/station/assignment", headers=auth).get_json()["players"]
    body = {"scan_id": 1, "revision": 0, "game": "strand-unter",
            "score": {"players": [{"player": p["id"], "total": t} for p, t in zip(players, points)]}}
    return client.post("/api/station/results", json=body, headers=auth)


def _state(organiser, eid) -> str:
    page = organiser.get(f"/events/{eid}/manage?part=tables").get_data(as_text=True)
    return re.search(r'<span class="badge">([^<]+)</span>', page).group(1)


def _flashed(organiser, response) -> str:
    assert response.status_code == 302, response.get_data(as_text=True)
    return html.unescape(organiser.get(response.headers["Location"]).get_data(as_text=True))


def test_players_sending_different_points_again_is_a_dispute_not_an_overwrite(organiser, app):
    eid = _event(organiser)
    store = app.extensions["hall_store"]
    assert _players_say(app, organiser, eid, [10, 2]).status_code == 302
    assert _state(organiser, eid) == "reported"
    assert _players_say(app, organiser, eid, [10, 2]).status_code == 302  # the same again: nothing new
    assert store.count_results(eid) == {"players": 1}
    client = app.test_client()
    r = _players_say(app, organiser, eid, [2, 10], client=client)
    assert "differs from the result sent before" in html.unescape(client.get(r.headers["Location"]).get_data(
        as_text=True))
    info = store.table(eid, 1, 1)
    assert info["current"] is None and len(info["conflict"]) == 2 and _state(organiser, eid) == "needs review"
    assert "result" not in store.event_doc(eid)["rounds"][0]["tables"][0]
    page = _flashed(organiser, organiser.post(f"/events/{eid}/rounds/1/close"))
    assert "table 1: the reports give different results" in page and store.open_round(eid) == 1


def test_no_report_takes_a_table_out_of_review_only_the_organiser_does(organiser, app):
    eid = _event(organiser)
    store = app.extensions["hall_store"]
    assert _players_say(app, organiser, eid, [10, 2]).status_code == 302
    assert _station_says(organiser, app, eid, [2, 10]).status_code == 201
    assert _state(organiser, eid) == "needs review"
    assert _players_say(app, organiser, eid, [2, 10]).status_code == 302  # now the players agree with the station
    assert _state(organiser, eid) == "needs review" and store.table(eid, 1, 1)["current"] is None
    assert _players_say(app, organiser, eid, [7, 7]).status_code == 302
    assert _state(organiser, eid) == "needs review"
    organiser.post(f"/events/{eid}/rounds/1/close")
    assert store.open_round(eid) == 1
    info = store.table(eid, 1, 1)
    assert sorted(tuple(r["game_points"].values()) for r in info["conflict"]) == [(2, 10), (7, 7), (10, 2)]
    page = organiser.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True)
    assert "The players&#39; report:" in page or "The players' report:" in page
    first = next(r for r in info["conflict"] if list(r["game_points"].values()) == [10, 2])
    r = organiser.post(f"/events/{eid}/rounds/1/tables/1", {"action": "accept", "revision": str(first["id"]),
                                                             "latest": str(info["revisions"][-1]["id"])})
    assert r.status_code == 302
    assert _state(organiser, eid) == "confirmed"
    page = _flashed(organiser, organiser.post(f"/events/{eid}/rounds/1/close"))
    assert "Round 1 closed." in page and "counted as sent" not in page
    result = store.event_doc(eid)["rounds"][0]["tables"][0]["result"]
    assert list(result["game_points"].values()) == [10, 2]


def test_closing_names_the_players_report_it_counted(organiser, app):
    eid = _event(organiser, "Ana\nBo\nCy\nDi")
    assert _players_say(app, organiser, eid, [10, 2], table=1).status_code == 302
    assert _station_says(organiser, app, eid, [4, 5], table=2).status_code == 201
    manage = html.unescape(organiser.get(f"/events/{eid}/manage").get_data(as_text=True))
    assert "2 reported results not reviewed yet (tables 1, 2)" in manage
    page = _flashed(organiser, organiser.post(f"/events/{eid}/rounds/1/close"))
    assert ("Round 1 closed; the players' report of table 1 and the station result of table 2 were counted as "
            "sent, without review") in page


def test_impossible_points_are_told_with_the_players_name(organiser, app):
    eid = _event(organiser)
    client = app.test_client()
    r = _players_say(app, organiser, eid, [10, "1e300"], client=client)
    assert r.status_code == 302
    text = html.unescape(client.get(r.headers["Location"]).get_data(as_text=True))
    second = app.extensions["hall_store"].table(eid, 1, 1)["players"][1]["name"]
    assert f"{second}'s game points: 1e300 is more than a game gives" in text
    assert "game_points[" not in text and app.extensions["hall_store"].count_results(eid) == {}


def test_wrong_report_codes_lock_the_address_out_as_the_docs_say(organiser, app):
    eid = _event(organiser)
    client = app.test_client()
    page = client.get(f"/events/{eid}/report/1").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    ids = [p["id"] for p in app.extensions["hall_store"].table(eid, 1, 1)["players"]]
    form = {f"gp_{i}": "3" for i in ids}
    limit = app.config["PAIRING_MAX_FAILURES"]
    codes = ["WRONG1"] * limit + [_code(organiser, eid)]
    statuses = [client.post(f"/events/{eid}/report/1", data={**form, "code": c, "csrf_token": csrf}).status_code
                for c in codes]
    assert statuses == [403] * limit + [429]
    docs = (__import__("pathlib").Path(__file__).parents[2] / "docs" / "tournament.md").read_text()
    assert f"{limit} wrong in a row lock that\naddress out for {app.config['LOGIN_LOCKOUT_S']:g} s" in docs
