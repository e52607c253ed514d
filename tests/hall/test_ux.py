"""What a new user walking the README ran into on the organiser's pages, on SQLite and PostgreSQL."""

import html
import re

import pytest


def new_event(org, players="Anna, Sandbank\nBo\nCy\nDi", size="2"):
    r = org.post("/events", {"name": "Club night", "game": "strand-unter", "table_size": size})
    assert r.status_code == 302, r.get_data(as_text=True)
    eid = int(r.headers["Location"].split("/")[2])
    assert org.post(f"/events/{eid}/players", {"players": players}).status_code == 302
    return eid


def flashed(org, response) -> str:
    """The page a form's redirect lands on, as text."""
    assert response.status_code == 302, response.get_data(as_text=True)[:300]
    return html.unescape(org.get(response.headers["Location"]).get_data(as_text=True))


@pytest.mark.parametrize("again", ["Anna, Sandbank", "  anna ,  sandbank ", "ANNA", "Eve\nEve, Hel"])
def test_a_player_already_registered_is_refused_naming_them(organiser, store, again):
    """Adding ``Anna, Sandbank`` again said "2 players added" and made a second Anna."""
    eid = new_event(organiser)
    before = [(p["name"], p["club"]) for p in store.players(eid)]
    page = flashed(organiser, organiser.post(f"/events/{eid}/players", {"players": "Fay\n" + again},
                                             headers={"Referer": f"/events/{eid}/manage"}))
    assert "is already registered in this event, so nothing was added" in page
    name = "Eve" if again.startswith("Eve") else "Anna (Sandbank)"
    assert f"{name} is already registered" in page
    assert [(p["name"], p["club"]) for p in store.players(eid)] == before  # not even Fay: nothing half-added


def test_two_players_of_one_name_from_different_clubs_are_still_welcome(organiser, store):
    eid = new_event(organiser)
    organiser.post(f"/events/{eid}/players", {"players": "Anna, Hel"})
    assert [p["name"] for p in store.players(eid)].count("Anna") == 2


def test_a_line_with_more_than_name_and_club_is_refused(organiser, store):
    """``Gus, Club, extra`` became Gus of the club "Club, extra"."""
    eid = new_event(organiser)
    page = flashed(organiser, organiser.post(f"/events/{eid}/players", {"players": "Fay\nGus, Club, extra"},
                                             headers={"Referer": f"/events/{eid}/manage"}))
    assert "line 2 (Gus, Club, extra) has more than a name and a club" in page and "name, club" in page
    assert not [p for p in store.players(eid) if p["name"] in ("Gus", "Fay")]


def pair(org, app, eid, table=1, name=""):
    code = org.post(f"/events/{eid}/tables/{table}/pairing", headers={"Accept": "application/json"}).get_json()["code"]
    station = app.test_client()
    token = station.post("/api/pair", json={"code": code, "name": name}).get_json()["token"]
    auth = {"Authorization": "Bearer " + token}
    return station, auth, station.get("/api/station/assignment", headers=auth).get_json(), code


def colour_report(scan_id=1, totals=(21, 9), names=None):
    """A station's report whose players are piece colours, with the names typed at the station (or none)."""
    return {"scan_id": scan_id, "revision": 0, "game": "strand-unter", "names": names or {},
            "score": {"players": [{"player": c, "total": t} for c, t in zip(("red", "yellow"), totals)],
                      "ranking": [["red"], ["yellow"]]}}


def test_a_station_result_with_unknown_names_gets_its_colours_assigned_on_the_table_page(organiser, app, store):
    """The table page said "say who played red, yellow: no player of the table matches" and offered
    only typing the points by hand; "Close round" then said the table had no result at all."""
    eid = new_event(organiser)
    organiser.post(f"/events/{eid}/rounds")
    station, auth, assignment, _ = pair(organiser, app, eid)
    r = station.post("/api/station/results", json=colour_report(names={"red": "Zed", "yellow": "Yan"}), headers=auth)
    assert r.status_code == 201 and r.get_json()["needs_review"]
    # closing now names what is waiting, and what to do
    page = flashed(organiser, organiser.post(f"/events/{eid}/rounds/1/close",
                                             headers={"Referer": f"/events/{eid}/manage"}))
    assert "table 1 has a station result waiting for its colours to be matched to the players" in page
    assert "table 1 still without a result" not in page
    # the table page offers the colours to assign
    url = f"/events/{eid}/rounds/1/tables/1"
    page = html.unescape(organiser.get(url).get_data(as_text=True))
    assert 'id="assign-form"' in page and 'name="seat_red"' in page and 'name="seat_yellow"' in page
    assert "choose below who played which colour" in page
    first, second = (p["id"] for p in assignment["players"])
    names = {p["id"]: p["name"] for p in assignment["players"]}
    # the same player twice is refused
    page = flashed(organiser, organiser.post(url, {"action": "assign", "seat_red": first, "seat_yellow": first},
                                             headers={"Referer": url}))
    assert f"{names[first]} chosen for more than one colour" in page
    assert store.table(eid, 1, 1)["current"] is None
    # red was the second seated player: the station's points go to them
    organiser.post(url, {"action": "assign", "seat_red": second, "seat_yellow": first})
    current = store.table(eid, 1, 1)["current"]
    assert current["game_points"] == {second: 21, first: 9} and current["ranks"] == {second: 1, first: 2}
    assert current["source"] == "organiser" and current["kind"] == "assign"
    assert 'id="assign-form"' not in organiser.get(url).get_data(as_text=True)


def test_closing_says_which_station_results_were_counted_without_review(organiser, app, store):
    """Round 2 was closed while both station tables still showed "from station, review", with no word."""
    eid = new_event(organiser)
    organiser.post(f"/events/{eid}/rounds")
    reported = []
    for table in (1, 2):
        station, auth, assignment, _ = pair(organiser, app, eid, table)
        names = dict(zip(("red", "yellow"), (p["name"] for p in assignment["players"])))
        assert station.post("/api/station/results", json=colour_report(table, names=names),
                            headers=auth).status_code == 201
        reported.append(table)
    manage = html.unescape(organiser.get(f"/events/{eid}/manage").get_data(as_text=True))
    assert "2 station results not reviewed yet (tables 1, 2): closing counts them as sent" in manage
    organiser.post(f"/events/{eid}/rounds/1/tables/1", {"action": "accept"})
    page = flashed(organiser, organiser.post(f"/events/{eid}/rounds/1/close"))
    assert "Round 1 closed; the station result of table 2 was counted as sent, without review" in page


def test_the_table_page_names_players_and_stations_and_used_codes_go(organiser, app, store):
    """"From the station station" for a station without a name; revisions listed ``p3 -2, p4 19``;
    a used pairing code stayed listed on the event page."""
    eid = new_event(organiser)
    organiser.post(f"/events/{eid}/rounds")
    station, auth, assignment, code = pair(organiser, app, eid, name="")
    shown = f"{code[:4]}-{code[4:]}"
    organiser.post(f"/events/{eid}/tables/2/pairing")  # another code, not used
    manage = organiser.get(f"/events/{eid}/manage").get_data(as_text=True)
    assert shown not in manage and 'class="code" data-table="2"' in manage
    names = dict(zip(("red", "yellow"), (p["name"] for p in assignment["players"])))
    station.post("/api/station/results", json=colour_report(names=names, totals=(-2, 19)), headers=auth)
    page = html.unescape(organiser.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True))
    assert "From the station station" not in page and "From the station" in page
    revisions = re.search(r'<ol class="revisions">(.*?)</ol>', page, re.S).group(1)
    first, second = assignment["players"]
    assert f"{first['name']} -2" in revisions and f"{second['name']} 19" in revisions
    assert not re.search(r"\bp\d+ -?\d", revisions), revisions
    station2, auth2, assignment2, _ = pair(organiser, app, eid, table=2, name="window table")
    names2 = dict(zip(("red", "yellow"), (p["name"] for p in assignment2["players"])))
    station2.post("/api/station/results", json=colour_report(7, names=names2), headers=auth2)
    assert "From station “window table”" in organiser.get(f"/events/{eid}/rounds/1/tables/2").get_data(as_text=True)


@pytest.mark.parametrize("again", ["A\u0308nna, Sandbank", "ÄNNA", "Ｂｏ"])
def test_a_name_written_with_other_unicode_code_points_is_the_same_player(organiser, store, again):
    """``Änna`` typed (one code point Ä) and ``Änna`` pasted from a Mac (A + combining diaeresis)
    look the same on every page but compared different, so the same player was added twice."""
    eid = new_event(organiser, players="Änna, Sandbank\nBo")
    page = flashed(organiser, organiser.post(f"/events/{eid}/players", {"players": again},
                                             headers={"Referer": f"/events/{eid}/manage"}))
    assert "is already registered in this event, so nothing was added" in page
    assert [p["name"] for p in store.players(eid)] == ["Änna", "Bo"]


def test_text_with_a_nul_character_is_refused_in_one_line_not_a_500(organiser, app, store):
    """PostgreSQL cannot store U+0000 in text: a station report naming a player ``"red\\u0000"`` (or
    a player typed with one) was a 500, which a station sends again for ever."""
    eid = new_event(organiser)
    organiser.post(f"/events/{eid}/rounds")
    station, auth, _, _ = pair(organiser, app, eid)
    report = colour_report(names={"red": "Zed\u0000", "yellow": "Yan"})
    r = station.post("/api/station/results", json=report, headers=auth)
    assert r.status_code == 400, r.get_data(as_text=True)[:300]
    assert r.get_json()["error"]["code"] == "invalid-text" and "\n" not in r.get_json()["error"]["message"]
    page = flashed(organiser, organiser.post(f"/events/{eid}/players", {"players": "Fay\u0000"},
                                             headers={"Referer": f"/events/{eid}/manage"}))
    assert "NUL" in page
    assert "Fay" not in [p["name"] for p in store.players(eid)]
    assert station.post("/api/station/results", json=colour_report(), headers=auth).status_code == 201
