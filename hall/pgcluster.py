"""A throwaway PostgreSQL cluster in a temporary folder, for tests and benchmarks.

Uses Debian's ``postgresql`` server binaries (``initdb``, ``pg_ctl``; found on PATH or under
``/usr/lib/postgresql/*/bin``). PostgreSQL refuses to run as root: as root the cluster is made
and run as the ``postgres`` user through ``runuser``. It listens on 127.0.0.1 only, trusts local
connections and writes nothing outside its folder; :meth:`PgCluster.stop` removes it.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time

from hall.testing import free_port


class PgUnavailable(RuntimeError):
    """PostgreSQL's server binaries are not installed (``apt-get install postgresql``)."""


def find_bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if not found:
        raise PgUnavailable(f"{name} not found: apt-get install postgresql")
    return found


class PgCluster:
    """``with PgCluster() as pg: pg.url`` — a running server with an empty database ``hall``."""

    def __init__(self, *, user: str = "postgres"):
        self.initdb, self.pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
        self.root = tempfile.mkdtemp(prefix="hall-pg-")
        self.data = os.path.join(self.root, "data")
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        self.run_user = user if self.as_root else None
        self.db_user = user if self.as_root else os.environ.get("USER", "postgres")

    def _run(self, argv: list[str], **kw) -> subprocess.CompletedProcess:
        if self.run_user:
            argv = ["runuser", "-u", self.run_user, "--"] + argv
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True, **kw)

    def start(self) -> "PgCluster":
        if self.as_root:
            shutil.chown(self.root, self.run_user, self.run_user)
        self._run([self.initdb, "-D", self.data, "-U", self.db_user, "--auth=trust", "--encoding=UTF8",
                   "--locale=C", "--no-sync"])
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=on "
                "-c max_connections=200 -c shared_buffers=64MB")
        self._run([self.pg_ctl, "-D", self.data, "-o", opts, "-l", os.path.join(self.root, "log"), "-w", "start"])
        createdb = find_bin("createdb")
        for _ in range(50):
            try:
                self._run([createdb, "-h", "127.0.0.1", "-p", str(self.port), "-U", self.db_user, "hall"])
                break
            except subprocess.CalledProcessError:
                time.sleep(0.2)
        return self

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{self.db_user}@127.0.0.1:{self.port}/hall"

    def new_database(self, name: str) -> str:
        """Create another empty database; returns its URL."""
        self._run([find_bin("createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.db_user, name])
        return f"postgresql+psycopg://{self.db_user}@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self._run([self.pg_ctl, "-D", self.data, "-m", "immediate", "-w", "stop"])
        except (subprocess.CalledProcessError, FileNotFoundError, subprocess.TimeoutExpired):
            pass
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> "PgCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
