"""What broke the hall in issue 22's evening, one test per item (SQLite and PostgreSQL)."""

import re

import pytest

PASSWORD = "sand-castle-42"  # conftest's organiser


def csrf_of(client, path="/login") -> str:
    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)


def _login(client, next_url: str = ""):
    csrf = csrf_of(client, "/login")
    url = "/login" + (f"?next={next_url}" if next_url else "")
    return client.post(url, data={"username": "org", "password": PASSWORD, "csrf_token": csrf})


@pytest.mark.parametrize("target", ["/%09/127.0.0.2:8123/steal", "/%0A/evil.example/", "/%0D%0A/evil.example",
                                    "%09//evil.example", "/\\evil.example", "https:evil.example",
                                    "%20//evil.example", "/%5Cevil.example"])
def test_login_never_sends_the_browser_to_another_origin(organiser, app, target):
    client = app.test_client()
    r = _login(client, target)
    assert r.status_code == 302
    location = r.headers["Location"]
    assert location.startswith("/") and not location.startswith("//") and "\\" not in location
    assert "evil" not in location and "127.0.0.2" not in location


def test_login_still_goes_back_to_the_page_asked_for(organiser, app):
    r = _login(app.test_client(), "/events/1/manage%3Fpart%3Dtables")
    assert r.headers["Location"] == "/events/1/manage?part=tables"


def _copy_cookie(src, dst) -> None:
    cookie = src.get_cookie("hall_session")
    dst.set_cookie("hall_session", cookie.value)


def _adds_players(client, csrf: str, eid: int) -> bool:
    r = client.post(f"/events/{eid}/players", data={"players": "Zed", "csrf_token": csrf})
    return r.status_code == 302 and "/login" not in r.headers.get("Location", "")


def _event(organiser) -> int:
    r = organiser.post("/events", {"name": "Night", "game": "strand-unter", "table_size": "2"})
    return int(r.headers["Location"].split("/")[2])


def test_logout_ends_the_session_for_a_copied_cookie(organiser, app):
    eid = _event(organiser)
    thief = app.test_client()
    _copy_cookie(organiser.client, thief)
    assert thief.get(f"/events/{eid}/manage").status_code == 200
    organiser.post("/logout")
    assert thief.get(f"/events/{eid}/manage").status_code == 302  # to the login page
    assert not _adds_players(thief, organiser.csrf, eid)


def test_log_out_everywhere_ends_every_browsers_session(organiser, app):
    eid = _event(organiser)
    other = app.test_client()
    assert _login(other).status_code == 302
    other_csrf = csrf_of(other, "/")
    assert _adds_players(other, other_csrf, eid)
    r = organiser.post("/account/logout-everywhere")
    assert r.status_code == 302 and r.headers["Location"].startswith("/login")
    assert other.get(f"/events/{eid}/manage").status_code == 302
    assert organiser.get(f"/events/{eid}/manage").status_code == 302


def test_a_password_change_on_the_account_page_ends_the_other_sessions(organiser, app):
    eid = _event(organiser)
    assert organiser.get("/account").status_code == 200
    other = app.test_client()
    _copy_cookie(organiser.client, other)
    wrong = organiser.post("/account/password", {"current": "nope", "password": "new-password-1",
                                                  "password2": "new-password-1"})
    assert wrong.status_code == 403
    r = organiser.post("/account/password", {"current": PASSWORD, "password": "new-password-1",
                                             "password2": "new-password-1"})
    assert r.status_code == 302
    assert organiser.get(f"/events/{eid}/manage").status_code == 200  # this browser stays logged in
    assert other.get(f"/events/{eid}/manage").status_code == 302
    fresh = app.test_client()
    csrf = csrf_of(fresh, "/login")
    assert fresh.post("/login", data={"username": "org", "password": PASSWORD, "csrf_token": csrf}).status_code == 403


def _paired(organiser, app, eid, table=1):
    code = organiser.post(f"/events/{eid}/tables/{table}/pairing", headers={"Accept": "application/json"}) \
        .get_json()["code"]
    client = app.test_client()
    token = client.post("/api/pair", json={"code": code, "name": f"station {code[:2]}"}).get_json()["token"]
    auth = {"Authorization": "Bearer " + token}
    return client, auth


def _report(client, auth, scan_id, winner_first: bool):
    assignment = client.get("/api/station/assignment", headers=auth).get_json()
    players = assignment["players"]
    totals = [10, 2] if winner_first else [2, 10]
    body = {"scan_id": scan_id, "revision": 0, "game": "strand-unter",
            "score": {"players": [{"player": p["id"], "total": t} for p, t in zip(players, totals)]}}
    return client.post("/api/station/results", json=body, headers=auth)


def _two_player_event(organiser) -> int:
    eid = _event(organiser)
    assert organiser.post(f"/events/{eid}/players", {"players": "Ana\nBo"}).status_code == 302
    assert organiser.post(f"/events/{eid}/rounds").status_code == 302
    return eid


def test_pairing_a_new_station_to_a_table_unpairs_the_one_before(organiser, app):
    eid = _two_player_event(organiser)
    first, first_auth = _paired(organiser, app, eid)
    second, second_auth = _paired(organiser, app, eid)
    assert first.get("/api/station/assignment", headers=first_auth).status_code == 401
    assert second.get("/api/station/assignment", headers=second_auth).status_code == 200
    r = first.post("/api/station/results", json={"scan_id": 1, "revision": 0, "score": {"players": []}},
                   headers=first_auth)
    assert r.status_code == 401


def test_two_stations_that_disagree_leave_the_table_for_review_until_the_organiser_picks(organiser, app):
    eid = _two_player_event(organiser)
    store = app.extensions["hall_store"]
    a, a_auth = _paired(organiser, app, eid)
    b, b_auth = _paired(organiser, app, eid)
    # the second pairing unpaired the first: let both report, as two stations paired before that could
    with store.engine.begin() as conn:
        conn.execute(store.t["stations"].update().values(revoked_at=None))
    store._tokens.clear()
    assert _report(a, a_auth, 1, True).status_code == 201
    assert _report(b, b_auth, 1, False).status_code == 201
    info = store.table(eid, 1, 1)
    assert info["current"] is None and len(info["conflict"]) == 2
    assert "result" not in store.event_doc(eid)["rounds"][0]["tables"][0]
    manage = organiser.get(f"/events/{eid}/manage").get_data(as_text=True)
    assert "needs review" in manage
    r = organiser.post(f"/events/{eid}/rounds/1/close")
    assert r.status_code == 302 and "different results" in organiser.get(f"/events/{eid}/manage").get_data(as_text=True)
    assert store.open_round(eid) == 1
    chosen = info["conflict"][0]
    r = organiser.post(f"/events/{eid}/rounds/1/tables/1", {"action": "accept", "revision": str(chosen["id"]),
                                                             "latest": str(info["revisions"][-1]["id"])})
    assert r.status_code == 302
    after = store.table(eid, 1, 1)
    assert after["conflict"] == [] and after["current"]["game_points"] == chosen["game_points"]
    assert organiser.post(f"/events/{eid}/rounds/1/close").status_code == 302 and store.open_round(eid) is None


def test_two_stations_that_agree_need_no_review(organiser, app):
    eid = _two_player_event(organiser)
    store = app.extensions["hall_store"]
    a, a_auth = _paired(organiser, app, eid)
    b, b_auth = _paired(organiser, app, eid)
    with store.engine.begin() as conn:
        conn.execute(store.t["stations"].update().values(revoked_at=None))
    store._tokens.clear()
    assert _report(a, a_auth, 1, True).status_code == 201
    assert _report(b, b_auth, 5, True).status_code == 201
    assert store.table(eid, 1, 1)["current"] is not None


def _try_login(app, address: str, username: str, password: str) -> int:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    csrf = csrf_of(client, "/login")
    return client.post("/login", data={"username": username, "password": password, "csrf_token": csrf}).status_code


def test_password_guessing_is_limited_per_account_from_any_number_of_addresses(organiser, app):
    limit = app.config["LOGIN_MAX_FAILURES_PER_ACCOUNT"]
    statuses = [_try_login(app, f"10.0.{i // 200}.{i % 200 + 1}", "org", f"guess-{i}") for i in range(limit + 5)]
    assert statuses[:limit] == [403] * limit and set(statuses[limit:]) == {429}
    assert _try_login(app, "10.9.9.9", "ORG", PASSWORD) == 429  # the right password waits too
    assert _try_login(app, "10.9.9.10", "someone-else", "x") == 403  # other accounts are not locked


def test_an_unknown_user_name_costs_one_password_check_like_a_known_one(organiser, app, monkeypatch):
    import hall.auth

    calls = []
    real = hall.auth.check_password_hash
    monkeypatch.setattr(hall.auth, "check_password_hash", lambda h, p: calls.append(h) or real(h, p))
    assert _try_login(app, "10.1.1.1", "org", "wrong-password") == 403
    assert _try_login(app, "10.1.1.2", "nobody-here", "wrong-password") == 403
    assert len(calls) == 2 and calls[0].split("$")[0] == calls[1].split("$")[0]  # the same kind of hash


def test_a_login_flood_waits_for_a_few_check_slots_instead_of_hashing_in_every_thread(organiser, app):
    checks = app.extensions["password_checks"]
    checks.wait_s = 0.0
    for _ in range(app.config["LOGIN_CONCURRENT_CHECKS"]):
        assert checks._slots.acquire(timeout=5)
    try:
        assert _try_login(app, "10.2.2.2", "org", PASSWORD) == 503
    finally:
        for _ in range(app.config["LOGIN_CONCURRENT_CHECKS"]):
            checks._slots.release()
    assert _try_login(app, "10.2.2.3", "org", PASSWORD) == 302


def test_csv_exports_never_carry_a_formula(organiser, app):
    eid = _event(organiser)
    r = organiser.post(f"/events/{eid}/players", {"players": "@SUM(A1:A9)\n=1+2, +club\n-Ana\nBo"})
    assert r.status_code == 302
    organiser.post(f"/events/{eid}/rounds")
    for path in ("standings.csv", "results.csv"):
        text_ = app.test_client().get(f"/events/{eid}/export/{path}").get_data(as_text=True)
        cells = [c for line in text_.splitlines() for c in line.split(",")]
        assert not any(c.lstrip('"').startswith(("=", "+", "-", "@", "\t", "\r")) for c in cells), cells
    assert "'@SUM(A1:A9)" in app.test_client().get(f"/events/{eid}/export/standings.csv").get_data(as_text=True)


@pytest.mark.parametrize("path", ["/events/{}/standings", "/api/events/{}/standings", "/events/{}/manage",
                                  "/events/{}/export/results.csv"])
def test_a_huge_event_id_is_no_such_page(organiser, app, path):
    r = organiser.get(path.format("1" * 23))
    assert r.status_code == 404


@pytest.mark.parametrize("twin", ["A\u200bna", "\u0410na", "Ana\ufeff", "\uff21na", "ANA"])
def test_a_name_that_only_looks_different_is_the_same_player(organiser, app, twin):
    eid = _event(organiser)
    assert organiser.post(f"/events/{eid}/players", {"players": "Ana"}).status_code == 302
    organiser.post(f"/events/{eid}/players", {"players": twin})
    names = [p["name"] for p in app.extensions["hall_store"].players(eid)]
    assert names == ["Ana"]


def test_names_are_stored_without_invisible_characters(organiser, app):
    eid = _event(organiser)
    organiser.post(f"/events/{eid}/players", {"players": "Bo\u200b Lee"})
    assert [p["name"] for p in app.extensions["hall_store"].players(eid)] == ["Bo Lee"]


@pytest.mark.parametrize("pid", ["p/1", "a b", "x" * 41, "<b>", "p%2F1"])
def test_a_player_id_outside_the_safe_characters_is_refused_at_creation(organiser, app, pid):
    eid = _event(organiser)
    organiser.post(f"/events/{eid}/players", {"players": f"{pid}; Name"})
    assert app.extensions["hall_store"].players(eid) == []


def test_a_safe_player_id_can_be_dropped(organiser, app):
    eid = _event(organiser)
    organiser.post(f"/events/{eid}/players", {"players": "ana.k-1; Ana"})
    assert organiser.post(f"/events/{eid}/players/ana.k-1/drop", {"dropped": "1"}).status_code == 302
    assert app.extensions["hall_store"].players(eid)[0]["dropped"]


def _raw_report(client, auth, scan_id, score):
    return client.post("/api/station/results", json={"scan_id": scan_id, "revision": 0, "game": "strand-unter",
                                                     "score": score}, headers=auth)


def test_absurd_station_points_wait_for_review(organiser, app):
    eid = _two_player_event(organiser)
    client, auth = _paired(organiser, app, eid)
    players = client.get("/api/station/assignment", headers=auth).get_json()["players"]
    r = _raw_report(client, auth, 1, {"players": [{"player": players[0]["id"], "total": -10 ** 12},
                                                  {"player": players[1]["id"], "total": 3}]})
    assert r.status_code == 201 and r.get_json()["needs_review"]
    info = app.extensions["hall_store"].table(eid, 1, 1)
    assert info["current"] is None and "more than a table game gives" in info["revisions"][-1]["problem"]
    page = organiser.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True)
    assert 'id="assign-form"' not in page and "needs review" in organiser.get(f"/events/{eid}/manage").get_data(
        as_text=True)


def test_a_ranking_that_names_a_player_twice_waits_for_review(organiser, app):
    eid = _two_player_event(organiser)
    client, auth = _paired(organiser, app, eid)
    players = client.get("/api/station/assignment", headers=auth).get_json()["players"]
    a, b = players[0]["id"], players[1]["id"]
    r = _raw_report(client, auth, 1, {"players": [{"player": a, "total": 5}, {"player": b, "total": 3}],
                                      "ranking": [[a], [a, b]]})
    assert r.status_code == 201 and r.get_json()["needs_review"]
    assert app.extensions["hall_store"].table(eid, 1, 1)["current"] is None


@pytest.mark.parametrize("path", ["/", "/login", "/api/events/1/standings", "/no-such-page", "/events/1/standings"])
def test_every_answer_forbids_framing_and_type_guessing(app, path):
    r = app.test_client().get(path)
    assert r.headers["X-Frame-Options"] == "DENY" and r.headers["X-Content-Type-Options"] == "nosniff"


def test_a_hall_started_on_a_full_disk_says_so_in_one_line(tmp_path, capsys):
    import importlib.util
    import os
    import sys

    from beachscore.cli import main

    folder = os.path.join(os.path.dirname(__file__), "..", "station")
    sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("attack_helpers", os.path.join(folder, "attack_helpers.py"))
    helpers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helpers)
    with helpers.small_tmpfs("4m") as disk:
        if disk is None:
            pytest.skip("needs root to mount a small tmpfs")
        helpers.fill_disk(disk)
        assert main(["hall", "--data", disk, "--host", "127.0.0.1", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "full" in err and "Traceback" not in err, err


def test_the_tiebreak_order_is_on_the_standings_before_the_first_round(organiser, app):
    r = organiser.post("/events", {"name": "Night", "game": "strand-unter", "table_size": "2",
                                   "tiebreakers": "wins, game_points"})
    eid = int(r.headers["Location"].split("/")[2])
    page = app.test_client().get(f"/events/{eid}/standings").get_data(as_text=True)
    assert "Ties: tournament points, then wins, then game points" in page


def _enter(organiser, eid, number, points):
    ids = [p["id"] for p in organiser.client.application.extensions["hall_store"].table(eid, number, 1)["players"]]
    return organiser.post(f"/events/{eid}/rounds/{number}/tables/1",
                          {"action": "enter", **{f"gp_{i}": str(v) for i, v in zip(ids, points)}})


def test_correcting_a_round_the_next_one_was_seated_on_warns(organiser, app):
    eid = _two_player_event(organiser)
    assert _enter(organiser, eid, 1, [5, 3]).status_code == 302
    assert organiser.post(f"/events/{eid}/rounds/1/close").status_code == 302
    assert organiser.post(f"/events/{eid}/rounds").status_code == 302
    _enter(organiser, eid, 1, [3, 5])
    page = organiser.get(f"/events/{eid}/manage").get_data(as_text=True)
    assert "Round 2 was seated on the standings before this correction" in page
    _enter(organiser, eid, 2, [1, 2])
    assert "before this correction" not in organiser.get(f"/events/{eid}/manage").get_data(as_text=True)


def test_the_command_line_agrees_with_the_hall_on_standings_and_seating(organiser, app, tmp_path, capsys):
    import json

    from beachscore.cli import main

    store = app.extensions["hall_store"]
    eid = _event(organiser)
    organiser.post(f"/events/{eid}/players", {"players": "Ana\nBo\nCy\nDi\nEd"})
    store.start_round(eid, seed=7)
    for t in store.event_doc(eid)["rounds"][0]["tables"]:
        ids = t["players"]
        organiser.post(f"/events/{eid}/rounds/1/tables/{t['table']}",
                       {"action": "enter", **{f"gp_{i}": str(10 + n) for n, i in enumerate(ids)}})
    assert organiser.post(f"/events/{eid}/rounds/1/close").status_code == 302
    path = tmp_path / "event.json"
    path.write_bytes(app.test_client().get(f"/events/{eid}/export/event.json").get_data())
    capsys.readouterr()
    assert main(["standings", str(path), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    hall = app.test_client().get(f"/api/events/{eid}/standings").get_json()
    assert cli["standings"] == hall["standings"] and cli["rounds_played"] == hall["rounds_played"]
    assert main(["seat", str(path), "--seed", "11", "--json"]) == 0
    seat = json.loads(capsys.readouterr().out)
    store.start_round(eid, seed=11)
    round2 = store.event_doc(eid)["rounds"][1]
    assert [t["players"] for t in seat["tables"]] == [t["players"] for t in round2["tables"]]
    assert seat.get("byes", []) == round2.get("byes", [])


def test_a_no_show_is_a_result_without_typing_its_points(organiser, app):
    eid = _event(organiser)
    organiser.post(f"/events/{eid}/players", {"players": "Ana\nBo\nCy"})
    store = app.extensions["hall_store"]
    store.start_round(eid, seed=3)
    table = store.table(eid, 1, 1)
    ids = [p["id"] for p in table["players"]]
    r = organiser.post(f"/events/{eid}/rounds/1/tables/1", {"action": "enter", f"noshow_{ids[1]}": "1",
                                                             f"gp_{ids[0]}": ""})
    assert r.status_code == 302
    current = store.table(eid, 1, 1)["current"]
    assert current["game_points"] == {ids[0]: 0, ids[1]: 0}
    assert current["ranks"] == {ids[0]: 1, ids[1]: 2} and current["note"].startswith("no-show: ")
    page = organiser.get(f"/events/{eid}/rounds/1/tables/1").get_data(as_text=True)
    assert re.search(rf'id="noshow-{ids[1]}" value="1" checked', page)   # a correction keeps the no-show
    assert not re.search(rf'id="noshow-{ids[0]}" value="1" checked', page)
    everyone = organiser.post(f"/events/{eid}/rounds/1/tables/1",
                              {"action": "enter", **{f"noshow_{i}": "1" for i in ids}})
    assert everyone.status_code == 302 and store.table(eid, 1, 1)["current"]["id"] == current["id"]


def _players_report(app, eid, table, points_by_name, code):
    client = app.test_client()
    page = client.get(f"/events/{eid}/report/{table}").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    info = app.extensions["hall_store"].table(eid, 1, table)
    form = {f"gp_{p['id']}": str(points_by_name[p["id"]]) for p in info["players"]}
    return client.post(f"/events/{eid}/report/{table}", data={**form, "code": code, "csrf_token": csrf})


def _slip_code(organiser, eid, table=1):
    slips = organiser.get(f"/events/{eid}/rounds/1/slips").get_data(as_text=True)
    return re.findall(r'<strong class="code">([A-Z0-9]+)</strong>', slips)[table - 1]


@pytest.mark.parametrize("players_agree", [True, False])
def test_the_station_and_the_players_confirm_each_other_or_send_the_table_to_review(organiser, app, players_agree):
    eid = _two_player_event(organiser)
    store = app.extensions["hall_store"]
    client, auth = _paired(organiser, app, eid)
    assert _report(client, auth, 1, True).status_code == 201
    station_points = store.table(eid, 1, 1)["current"]["game_points"]
    ids = list(station_points)
    said = dict(station_points) if players_agree else {ids[0]: station_points[ids[1]], ids[1]: station_points[ids[0]]}
    assert _players_report(app, eid, 1, said, "WRONG1").status_code == 403
    assert _players_report(app, eid, 1, said, _slip_code(organiser, eid).lower()).status_code == 302
    info = store.table(eid, 1, 1)
    manage = organiser.get(f"/events/{eid}/manage").get_data(as_text=True)
    if players_agree:
        assert info["agreed"] and info["current"]["game_points"] == station_points
        assert "station and players agree" in manage
        assert organiser.post(f"/events/{eid}/rounds/1/close").status_code == 302 and store.open_round(eid) is None
    else:
        assert info["current"] is None and len(info["conflict"]) == 2 and "needs review" in manage
