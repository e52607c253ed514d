"""A PostgreSQL outage: the hall answers 503 in the error shape (a page for the organiser), logs a
line, not a traceback per request, and serves again when the database is back (issue 22, item 7)."""

import itertools
import logging

import pytest
from sqlalchemy import create_engine, text

from hall import create_app
from hall.db import open_engine
from hall.store import HallStore

_names = itertools.count(1)


@pytest.fixture
def outage(pg_cluster, tmp_path):
    """``(app, event_id, down, up)``: a hall on its own PostgreSQL database that ``down()`` makes
    unreachable (no connection allowed, the open ones ended) and ``up()`` brings back."""
    name = f"outage{next(_names)}"
    store = HallStore(open_engine(pg_cluster.new_database(name)), photo_dir=str(tmp_path / "photos"))
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "SETUP_CODE": "setup-code"}, store=store)
    eid = store.create_event("Night", "plazing")
    admin = create_engine(pg_cluster.url, isolation_level="AUTOCOMMIT")

    def down():
        with admin.connect() as conn:
            conn.execute(text(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false"))
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :n"), {"n": name})

    def up():
        with admin.connect() as conn:
            conn.execute(text(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true"))

    yield app, eid, down, up
    up()
    store.close()
    admin.dispose()


def test_an_outage_is_a_503_in_the_error_shape_and_a_page_for_the_organiser(outage, caplog):
    app, eid, down, up = outage
    client = app.test_client()
    assert client.get(f"/api/events/{eid}/standings").status_code == 200
    down()
    with caplog.at_level(logging.ERROR):
        api = client.get(f"/api/events/{eid}/standings")
        assert api.status_code == 503 and api.headers["Retry-After"]
        assert api.get_json()["error"]["code"] == "database-unavailable"
        station = client.post("/api/station/results", json={}, headers={"Authorization": "Bearer x" * 3})
        assert station.status_code == 503 and station.get_json()["error"]["code"] == "database-unavailable"
        page = client.get(f"/events/{eid}/standings", headers={"Accept": "text/html"})
        assert page.status_code == 503 and "cannot reach its database" in page.get_data(as_text=True)
        login = client.get("/login", headers={"Accept": "text/html"})
        assert login.status_code == 503
    assert not any(r.exc_info for r in caplog.records)  # no tracebacks
    assert sum("database unavailable" in r.getMessage() for r in caplog.records) == 1
    up()
    assert client.get(f"/api/events/{eid}/standings").status_code == 200
