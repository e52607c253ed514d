"""Stations reporting while the organiser closes the round, at the same moment, on SQLite and PostgreSQL.

PostgreSQL runs its transactions at READ COMMITTED, side by side; SQLite takes one writer at a
time. Threads hammer the store: every table's station sends revision after revision of its result
while another thread closes the round. Whatever the interleaving:

- a result the hall acknowledged (201, or 200 "duplicate") is stored, and a refused one is not
  (nothing lost, nothing stored behind the station's back);
- once anyone has seen the round closed, its results no longer change (nothing accepted after the
  close: the standings the next round is seated by are final);
- a result that arrives after the close gets a clear refusal that says the round is over.

And the organiser's decision about a station report posted twice at the same moment (a double
click) is stored once; a different decision racing it is refused, never stored beside it.
"""

import random
import threading

from sqlalchemy import text

from hall.store import HallError
from hall.testing import report_for, seed_event

TABLES, REPETITIONS = 6, 25
#: The round's status and its result rows in one statement (one snapshot, even at READ COMMITTED).
_WATCH = text("SELECT r.status, (SELECT COUNT(*) FROM results x WHERE x.round_id = r.id) "
              "FROM rounds r WHERE r.event_id = :e AND r.number = 1")
REFUSALS = {"no-open-round", "round-closed"}


def _one_round(store, rng):
    eid, codes = seed_event(store, TABLES)
    stations = [store.station_by_token(store.pair(code, f"s{i}")["token"]) for i, code in enumerate(codes)]
    assignments = [store.assignment(s) for s in stations]
    for s, a in zip(stations, assignments):  # every table has a result: the round can be closed
        assert store.station_report(s, report_for(a, scan_id=1))[0] == 201
    acknowledged, refusals, errors = {}, [], []
    closed_seen, close_done = [], threading.Event()
    go = threading.Barrier(TABLES + 2)

    def station(i):
        go.wait()
        try:
            for revision in range(1, 200):
                try:
                    status, body = store.station_report(stations[i], report_for(assignments[i], 1, revision))
                except HallError as err:
                    if err.code not in REFUSALS:
                        raise
                    assert err.status == 409  # final: the station's outbox keeps the result as refused, with why
                    refusals.append(err.message)
                    return
                assert status == 201 and not body["duplicate"], body
                acknowledged[(i, revision)] = body["result_id"]
        except BaseException as err:  # noqa: BLE001 - reported by the test's thread
            errors.append(err)

    def closer():
        go.wait()
        try:
            threading.Event().wait(rng.uniform(0.0, 0.03))
            store.close_round(eid, 1)
        except BaseException as err:  # noqa: BLE001
            errors.append(err)
        finally:
            close_done.set()

    def watcher():
        go.wait()
        with store.engine.connect() as conn:
            while not close_done.is_set() or not closed_seen:
                status, count = conn.execute(_WATCH, {"e": eid}).one()
                conn.rollback()
                if status == "closed":
                    closed_seen.append(count)
                    if close_done.is_set():
                        break

    threads = [threading.Thread(target=station, args=(i,)) for i in range(TABLES)]
    threads += [threading.Thread(target=closer), threading.Thread(target=watcher)]
    for t in threads:
        t.start()
    close_done.wait(60)
    at_close = store.event_doc(eid)
    for t in threads:
        t.join(60)
    assert not errors, errors
    final = store.event_doc(eid)
    with store.engine.connect() as conn:
        stored = {r[0] for r in conn.execute(text(
            "SELECT x.id FROM results x JOIN rounds r ON r.id = x.round_id WHERE r.event_id = :e AND x.scan_revision > 0"),
            {"e": eid})}
        status, count = conn.execute(_WATCH, {"e": eid}).one()
    assert status == "closed"
    # nothing lost, nothing stored that the station was not told about
    assert stored == set(acknowledged.values())
    # nothing accepted after the close: what was seen closed is final
    assert closed_seen and all(c == count for c in closed_seen), \
        f"the round was seen closed with {closed_seen[0]} results, it ends with {count}"
    assert at_close == final, "a result was accepted into round 1 after close_round returned"
    # every station heard why its later results were refused
    assert len(refusals) == TABLES, refusals
    assert all("round 1" in m or "no round" in m for m in refusals), refusals
    return len(acknowledged)


def test_results_racing_the_close_are_kept_or_refused_never_both(store):
    rng = random.Random(12)
    accepted = [_one_round(store, rng) for _ in range(REPETITIONS)]
    assert sum(accepted) > 0  # the stations did get results in before the close


def _decide_at_once(store, eid, table_no, acting_on, decisions):
    """Each decision ``(kind, raw)`` posted by its own thread at the same moment; (ids, HallError codes)."""
    go = threading.Barrier(len(decisions))
    ids, codes, errors = [], [], []

    def decide(kind, raw):
        go.wait()
        try:
            ids.append(store.enter_result(eid, 1, table_no, raw, kind=kind, acting_on=acting_on))
        except HallError as err:
            codes.append((err.code, err.status))
        except BaseException as err:  # noqa: BLE001 - reported by the test's thread
            errors.append(err)

    threads = [threading.Thread(target=decide, args=d) for d in decisions]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    return ids, codes


def test_the_same_decision_posted_twice_at_once_is_stored_once(store):
    """An organiser's double click on "accept" (two posts of one form at the same moment): one
    revision, both posts told its id; a different decision about the same station report at the
    same moment is refused (409 ``result-changed``), never stored beside the first."""
    for _ in range(5):
        eid, codes = seed_event(store, 1)
        station = store.station_by_token(store.pair(codes[0], "s")["token"])
        assignment = store.assignment(station)
        assert store.station_report(station, report_for(assignment, scan_id=1))[0] == 201
        report = store.table(eid, 1, 1)["revisions"][-1]
        same = {"game_points": report["game_points"]}
        ids, refused = _decide_at_once(store, eid, 1, report["id"], [("accept", same)] * 3)
        assert len(set(ids)) == 1 and not refused
        assert [r["kind"] for r in store.table(eid, 1, 1)["revisions"]] == ["report", "accept"]
        other = {"game_points": {p: 0 for p in report["game_points"]}}
        ids, refused = _decide_at_once(store, eid, 1, ids[0], [("accept", same), ("accept", other)])
        assert len(ids) == 1 and refused == [("result-changed", 409)]
        assert [r["kind"] for r in store.table(eid, 1, 1)["revisions"]] == ["report", "accept", "accept"]
