"""``beachscore hall``'s start: a data folder it cannot use, ``--db`` as people write it, one hall per data folder."""

import os
import subprocess
import sys

import pytest

from beachscore.cli import main
from hall.db import open_engine
from hall.testing import HallProcess


def _one_line(capsys) -> str:
    out, err = capsys.readouterr()
    assert "First run" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal-error" not in err, err
    return lines[0]


@pytest.mark.parametrize("below", ["", "sub"])
def test_a_data_folder_that_is_a_file_is_one_clear_line(tmp_path, capsys, below):
    """``--data /tmp/a-file`` printed ``FileExistsError … [internal-error]`` (exit 1)."""
    afile = tmp_path / "a-file"
    afile.write_text("not a folder")
    data = str(afile / below) if below else str(afile)
    assert main(["hall", "--data", data, "--host", "127.0.0.1", "--port", "0"]) == 2
    line = _one_line(capsys)
    assert f"hall: cannot create the data folder {data}: Not a directory" in line and "--data" in line, line


def _refused_db(tmp_path, capsys, url: str) -> str:
    """``beachscore hall --db url`` refused (exit 2): its one line."""
    assert main(["hall", "--db", url, "--data", str(tmp_path / "d"), "--host", "127.0.0.1", "--port", "0"]) == 2
    return _one_line(capsys)


@pytest.mark.parametrize("url, words", [
    ("mysql://hall:secret@db.example/hall", "SQLite or PostgreSQL only"),
    ("nonsense", "not a database URL"),
    ("postgres://user:pw@host:port/db", "not a database URL"),
    ("postgresql+nodriver://hall@db.example/hall", "unknown database driver"),
])
def test_an_unknown_database_url_is_one_clear_line_naming_the_accepted_forms(tmp_path, capsys, url, words):
    """Any other scheme said ``NoSuchModuleError: Can't load plugin … [internal-error]``."""
    line = _refused_db(tmp_path, capsys, url)
    assert words in line and "sqlite:///" in line and "postgresql+psycopg://" in line and "[db-url]" in line, line
    assert "secret" not in line and "pw" not in line


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_postgres_urls_as_heroku_and_psql_write_them_open_postgresql(pg_cluster, tmp_path, scheme):
    url = pg_cluster.new_database(f"heroku_{scheme}")
    assert url.startswith("postgresql+psycopg://")
    engine = open_engine(scheme + "://" + url.split("://", 1)[1])
    try:
        assert engine.dialect.name == "postgresql"
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT 1").scalar() == 1
    finally:
        engine.dispose()


def _second_hall(data: str) -> str:
    """``beachscore hall`` on ``data`` in a subprocess that must stop by itself; its one line of stderr."""
    run = subprocess.run([sys.executable, "-m", "beachscore", "hall", "--data", data, "--host", "127.0.0.1",
                          "--port", "0"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert run.returncode == 2, (run.returncode, run.stderr)
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "First run" not in run.stdout, run.stderr
    return lines[0]


def test_a_second_hall_on_the_same_data_folder_is_refused_until_the_first_is_gone(tmp_path):
    """Two halls on one data folder started without complaint (two processes writing one SQLite file)."""
    data = str(tmp_path / "hall")
    os.makedirs(data)
    first = HallProcess(data_dir=data).start()
    try:
        line = _second_hall(data)
        assert f"another hall (pid {first.proc.pid})" in line and data in line and "[data-folder-in-use]" in line
        first.kill9()                      # no clean-up at all: the kernel drops the lock
        first.start()                      # the same data folder again
        assert f"pid {first.proc.pid}" in _second_hall(data)
    finally:
        first.stop()
    # stopped cleanly: the next hall starts (and stops on Ctrl-C / SIGTERM)
    again = HallProcess(data_dir=data).start()
    again.stop()
    assert again.proc.returncode == 0


@pytest.mark.parametrize("url, words", [
    ("sqlite://", "in memory"),
    ("sqlite:///:memory:", "in memory"),
    ("postgresql+psycopg2://hall:s3cr%40t@db.example/hall", "postgresql+psycopg://"),
    ("postgresql+asyncpg://hall:s3cr%40t@db.example/hall", "postgresql+psycopg://"),
])
def test_a_database_the_hall_cannot_keep_or_a_driver_it_does_not_install_is_one_line(tmp_path, capsys, url, words):
    """``sqlite://`` crashed with ``TypeError: Invalid argument(s) 'max_overflow'`` (and an in-memory
    hall would lose every result at its stop); ``postgresql+psycopg2://`` told to install the
    postgres extra, which installs psycopg (3), not psycopg2."""
    line = _refused_db(tmp_path, capsys, url)
    assert words in line, line
    assert "s3cr" not in line


def test_a_scheme_in_capitals_is_read_as_the_same_scheme():
    from hall.db import database_url

    assert database_url("POSTGRES://hall:pw@db.example/hall") == "postgresql+psycopg://hall:pw@db.example/hall"
    assert database_url("SQLite:////tmp/h.sqlite3") == "sqlite:////tmp/h.sqlite3"


def test_a_lock_file_that_is_a_folder_is_one_line_not_a_hall_without_its_lock(tmp_path):
    """``hall.lock`` as a folder made ``os.open`` fail with EISDIR, taken for a read-only folder:
    the hall ran with no lock at all, so a second hall on the same data folder started too."""
    data = str(tmp_path / "hall")
    os.makedirs(os.path.join(data, "hall.lock"))
    line = _second_hall(data)
    assert os.path.join(data, "hall.lock") in line and "is a folder" in line, line
