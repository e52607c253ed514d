"""Fixtures for the hall: a store on SQLite and on a real PostgreSQL (a throwaway cluster in a temp folder).

The PostgreSQL cluster is Debian's server (``apt-get install postgresql``, which .ci/run does); as
root it runs as the ``postgres`` user. Without the binaries the PostgreSQL cases skip, except
under CI (``CI`` set), where they fail: CI must test both databases.
"""

import itertools
import os
import re

import pytest

from hall import create_app
from hall.db import open_engine
from hall.pgcluster import PgCluster, PgUnavailable
from hall.store import HallStore

PASSWORD = "sand-castle-42"
_names = itertools.count(1)


@pytest.fixture(scope="session")
def pg_cluster():
    try:
        cluster = PgCluster().start()
    except (PgUnavailable, OSError) as err:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is needed under CI: {err}")
        pytest.skip(f"PostgreSQL not available: {err}")
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return "sqlite:///" + str(tmp_path / "hall.sqlite3")
    return request.getfixturevalue("pg_cluster").new_database(f"t{next(_names)}")


@pytest.fixture
def store(db_url, tmp_path):
    s = HallStore(open_engine(db_url), photo_dir=str(tmp_path / "photos"))
    yield s
    s.close()


@pytest.fixture
def app(store, tmp_path):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "SETUP_CODE": "setup-code"}, store=store)


def csrf_of(client, path="/login") -> str:
    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)


class Organiser:
    """A test client logged in as the organiser; ``post`` sends the CSRF field."""

    def __init__(self, client):
        self.client = client
        self.csrf = csrf_of(client, "/setup")
        r = client.post("/setup", data={"code": "setup-code", "username": "org", "password": PASSWORD,
                                        "password2": PASSWORD, "csrf_token": self.csrf})
        assert r.status_code == 302, r.get_data(as_text=True)
        self.csrf = csrf_of(client, "/")

    def post(self, url, data=None, **kw):
        return self.client.post(url, data={**(data or {}), "csrf_token": self.csrf}, **kw)

    def get(self, url, **kw):
        return self.client.get(url, **kw)


@pytest.fixture
def organiser(app):
    return Organiser(app.test_client())
