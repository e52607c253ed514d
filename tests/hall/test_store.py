"""The hall's store on SQLite and PostgreSQL: migrations, rounds, results, idempotent station reports."""

import json

import pytest
from sqlalchemy import text

from hall.db import DatabaseError, open_engine
from hall.migrations import VERSION
from hall.store import HallError, HallStore

NAMES = ["Ana", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"]


def seated(store, game="strand-unter", size=4, n=8):
    eid = store.create_event("Night", game, {"seating": {"table_size": size}})
    store.add_players(eid, [{"name": x} for x in NAMES[:n]])
    store.start_round(eid, seed=1)
    return eid


def paired(store, eid, table):
    return store.station_by_token(store.pair(store.new_pairing_code(eid, table), f"station {table}")["token"])


def strand_score(players, totals):
    ranked = sorted(zip(players, totals), key=lambda x: -x[1])
    return {"players": [{"player": p, "total": t} for p, t in zip(players, totals)],
            "ranking": [[p] for p, _ in ranked]}


def test_migrations_reach_the_latest_version_once(db_url):
    for _ in range(2):  # opening again migrates nothing
        engine = open_engine(db_url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT version FROM schema_version")).scalar_one() == VERSION
        engine.dispose()


def test_a_newer_database_is_refused(db_url):
    engine = open_engine(db_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE schema_version SET version = 99"))
    engine.dispose()
    with pytest.raises(DatabaseError) as err:
        open_engine(db_url)
    assert err.value.code == "db-version"


def test_round_seating_and_standings(store):
    eid = seated(store)
    doc = store.event_doc(eid)
    tables = doc["rounds"][0]["tables"]
    assert sorted(p for t in tables for p in t["players"]) == sorted(f"p{i}" for i in range(1, 9))
    with pytest.raises(HallError) as err:
        store.start_round(eid)
    assert err.value.code == "round-open"
    with pytest.raises(HallError) as err:
        store.close_round(eid, 1)
    assert err.value.code == "round-incomplete"
    for t in tables:
        store.enter_result(eid, 1, t["table"], {"game_points": {p: 10 * i for i, p in enumerate(t["players"])}})
    store.close_round(eid, 1)
    with pytest.raises(HallError) as err:
        store.close_round(eid, 1)
    assert err.value.code == "round-closed" and err.value.message == "round 1 is already closed"
    model = store.model(eid)
    assert model.rounds[0].is_complete
    assert store.start_round(eid) == 2


def test_a_station_report_counts_once_and_only_for_its_table(store):
    eid = seated(store)
    table = store.event_doc(eid)["rounds"][0]["tables"][0]
    names = {p["pid"]: p["name"] for p in store.players(eid)}
    station = paired(store, eid, table["table"])
    colours = ["red", "yellow", "green", "blue"]
    report = {"scan_id": 7, "revision": 0, "game": "strand-unter", "score": strand_score(colours, [9, 7, 5, 3]),
              "names": {c: names[p] for c, p in zip(colours, table["players"])}}
    status, body = store.station_report(station, report)
    assert status == 201 and not body["needs_review"]
    status, again = store.station_report(station, report)
    assert status == 200 and again["duplicate"] and again["result_id"] == body["result_id"]
    assert store.count_results(eid) == {"station": 1}
    result = store.event_doc(eid)["rounds"][0]["tables"][0]["result"]
    assert result["game_points"] == {p: t for p, t in zip(table["players"], [9, 7, 5, 3])}
    assert result["ranks"] == {p: i + 1 for i, p in enumerate(table["players"])}
    # a corrected scan at the station is a new revision
    status, _ = store.station_report(station, {**report, "revision": 1})
    assert status == 201 and store.count_results(eid) == {"station": 2}
    # wrong game, then the organiser's confirmation closes the table to the station
    with pytest.raises(HallError) as err:
        store.station_report(station, {**report, "game": "plazing", "revision": 2})
    assert err.value.code == "wrong-game"
    store.enter_result(eid, 1, table["table"], {"game_points": result["game_points"]}, kind="accept")
    with pytest.raises(HallError) as err:
        store.station_report(station, {**report, "revision": 3})
    assert err.value.code == "confirmed"


def test_unmatched_players_need_review_and_revoked_tokens_stop(store):
    eid = seated(store)
    token = store.pair(store.new_pairing_code(eid, 1), "s")["token"]
    station = store.station_by_token(token)
    status, body = store.station_report(station, {"scan_id": 1, "score": strand_score(["red", "blue"], [3, 1])})
    assert status == 201 and body["needs_review"] and "say who played" in body["problem"]
    assert "result" not in store.event_doc(eid)["rounds"][0]["tables"][0]
    store.revoke_station(station["id"])
    assert store.station_by_token(token) is None


def test_pairing_codes_work_once(store):
    eid = seated(store)
    code = store.new_pairing_code(eid, 2)
    answer = store.pair(code.lower()[:4] + "-" + code[4:], "s")
    assert answer["table"] == 2 and len(answer["token"]) > 30
    with pytest.raises(HallError) as err:
        store.pair(code, "s")
    assert err.value.status == 401


def test_report_for_a_closed_round_is_refused(store):
    eid = seated(store)
    station = paired(store, eid, 1)
    for t in store.event_doc(eid)["rounds"][0]["tables"]:
        store.enter_result(eid, 1, t["table"], {"game_points": {p: 1 for p in t["players"]}})
    store.close_round(eid, 1)
    with pytest.raises(HallError) as err:
        store.station_report(station, {"scan_id": 1, "round": 1, "score": {"players": []}})
    assert err.value.code == "no-open-round"
    store.start_round(eid)
    with pytest.raises(HallError) as err:
        store.station_report(station, {"scan_id": 1, "round": 1, "score": {"players": []}})
    assert err.value.code == "round-closed"


def test_co_operative_tables_are_teams(store):
    eid = seated(store, game="sand-castles", size=4)
    tables = store.event_doc(eid)["rounds"][0]["tables"]
    station = paired(store, eid, 1)
    status, body = store.station_report(station, {"scan_id": 3, "score": {"points": 12, "outcome": "won"}})
    assert status == 201 and not body["needs_review"]
    store.enter_result(eid, 1, 2, {"points": 5})
    standings = {s.player.id: s for s in __import__("tournament").standings(store.model(eid))}
    assert all(standings[p].tournament_points == 2 for p in tables[0]["players"])  # first of 2 teams: 2/0
    assert all(standings[p].tournament_points == 0 for p in tables[1]["players"])
    assert json.loads(json.dumps(store.event_doc(eid)))["rounds"][0]["tables"][0]["result"]["game_points"]


def test_grouped_commits_keep_each_job_apart(store):
    import threading

    from hall.store import now_iso

    errors, threads = [], []

    def job(i):
        def work(conn):
            conn.execute(store.t["settings"].insert().values(key=f"k{i}", value=now_iso()))
            if i % 2:
                raise ValueError(i)
            return i
        try:
            assert store._grouped(work) == i
        except ValueError as err:
            errors.append(err.args[0])

    for i in range(20):
        threads.append(threading.Thread(target=job, args=(i,)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(errors) == list(range(1, 20, 2))
    kept = {k for k in (f"k{i}" for i in range(20)) if store.setting(k) is not None}
    assert kept == {f"k{i}" for i in range(0, 20, 2)}
