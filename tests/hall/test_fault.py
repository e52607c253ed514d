"""Kill -9 the hall while stations push: after restarts nothing is lost and nothing is counted twice.

25 stations (real outboxes in their own SQLite files, real senders with a short back-off) each
queue 4 revisions of their table's result, spread over about two seconds, while the hall process
is killed with SIGKILL three times and restarted on the same port and database.
"""

import os
import threading
import time

import pytest
from sqlalchemy import func, select

from beachscore.station.outbox import HallClient, Outbox, Sender
from hall.db import open_engine
from hall.store import HallStore
from hall.testing import HallProcess, report_for, seed_event

STATIONS, REVISIONS, KILLS = 25, 4, 3


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_9_loses_nothing_and_counts_nothing_twice(backend, tmp_path, request):
    url = "sqlite:///" + str(tmp_path / "hall.sqlite3") if backend == "sqlite" else \
        request.getfixturevalue("pg_cluster").new_database("fault")
    store = HallStore(open_engine(url), photo_dir=str(tmp_path / "photos"))
    eid, codes = seed_event(store, STATIONS)
    hall = HallProcess(data_dir=str(tmp_path), db_url=url).start()
    outboxes, senders = [], []
    try:
        for i, code in enumerate(codes):
            box = Outbox(str(tmp_path / f"station{i}.sqlite3"))
            client = HallClient(hall.url, timeout_s=5)
            status, answer = client.request("POST", "/api/pair", body={"code": code, "name": f"s{i}"})
            assert status == 201, answer
            box.set_link(hall.url, answer)
            status, assignment = client.request("GET", "/api/station/assignment", token=answer["token"])
            box.set_assignment(assignment)
            outboxes.append(box)
            senders.append(Sender(box, base_s=0.05, cap_s=0.5,
                                  client_for=lambda u: HallClient(u, timeout_s=2)).start())

        def push():
            for rev in range(REVISIONS):
                for i, box in enumerate(outboxes):
                    link = box.link()
                    box.enqueue(link["id"], f"{link['id']}:{1000 + i}:{rev}", report_for(link["assignment"], 1000 + i, rev))
                    senders[i].wake()
                    time.sleep(0.02)

        pusher = threading.Thread(target=push)
        pusher.start()
        for _ in range(KILLS):
            time.sleep(0.6)
            hall.kill9()
            time.sleep(0.3)
            hall.start()
        pusher.join()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and any(b.counts().get("pending") for b in outboxes):
            time.sleep(0.2)
        assert not any(b.counts().get("pending") for b in outboxes), [b.counts() for b in outboxes]
        assert all(b.counts() == {"sent": REVISIONS} for b in outboxes), [b.counts() for b in outboxes]
        retried = sum(e["attempts"] for b in outboxes for e in b.entries(100))
        assert retried > 0  # the kills did hit reports on their way
    finally:
        for s in senders:
            s.close()
        hall.stop()
    res = store.t["results"]
    with store.engine.connect() as conn:
        rows = conn.execute(select(res.c.station_id, res.c.scan_id, res.c.scan_revision)).all()
        per_key = conn.execute(select(func.count()).select_from(
            select(res.c.station_id, res.c.scan_id, res.c.scan_revision).distinct().subquery())).scalar_one()
    assert len(rows) == STATIONS * REVISIONS  # nothing lost
    assert per_key == len(rows)               # nothing counted twice
    doc = store.event_doc(eid)
    # each table's result is its station's last revision
    for t in doc["rounds"][0]["tables"]:
        first = t["players"][0]
        assert t["result"]["game_points"][first] == 10 * len(t["players"]) - (REVISIONS - 1)
    for box in outboxes:
        box.close()
    store.close()
    assert "Traceback" not in open(os.path.join(tmp_path, "hall.log"), errors="replace").read()
