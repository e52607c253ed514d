"""Stations reporting while the organiser closes the round, at the same moment, on SQLite and PostgreSQL.

PostgreSQL runs its transactions at READ COMMITTED, side by side; SQLite takes one writer at a
time. Threads hammer the store: every table's station sends revision after revision of its result
while another thread closes the round. Whatever the interleaving:

- a result the hall acknowledged (201, or 200 "duplicate") is stored, and a refused one is not
  (nothing lost, nothing stored behind the station's back);
- once anyone has seen the round closed, its results no longer change (nothing accepted after the
  close: the standings the next round is seated by are final);
- a result that arrives after the close gets a clear refusal that says the round is over.
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
