"""Helpers for tests and benchmarks of the hall: an event seeded for N stations, a hall in a subprocess.

Shipped with the package like ``beachscore.station.testing``; nothing here runs on import.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def seed_event(store, tables: int, *, per_table: int = 2, game: str = "strand-unter") -> tuple[int, list[str]]:
    """An event with ``tables`` × ``per_table`` players and round 1 seated; returns (event id, one pairing
    code per table, table 1 first)."""
    eid = store.create_event("Load test", game, {"seating": {"table_size": per_table, "uneven": "byes"}})
    store.add_players(eid, [{"name": f"Player {i:03d}"} for i in range(1, tables * per_table + 1)])
    store.start_round(eid, seed=1)
    return eid, [store.new_pairing_code(eid, t) for t in range(1, tables + 1)]


def report_for(assignment: dict, scan_id: int, revision: int = 0) -> dict:
    """A station's final report for its seated players (a Strand unter score naming them directly)."""
    players = assignment["players"]
    score = {"players": [{"player": p["id"], "total": 10 * len(players) - i - revision} for i, p in enumerate(players)],
             "ranking": [[p["id"]] for p in players]}
    return {"scan_id": scan_id, "revision": revision, "game": assignment["game"], "score": score,
            "round": assignment["round"], "explanation": f"scan {scan_id} revision {revision}"}


class HallProcess:
    """``beachscore hall`` in a subprocess on 127.0.0.1 (to kill -9 it, or to load it from other processes)."""

    def __init__(self, *, data_dir: str, db_url: str | None = None, port: int | None = None):
        self.data_dir, self.db_url = data_dir, db_url
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        self.log = open(os.path.join(data_dir, "hall.log"), "ab")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 30.0) -> "HallProcess":
        argv = [sys.executable, "-m", "beachscore", "hall", "--data", self.data_dir, "--host", "127.0.0.1",
                "--port", str(self.port)]
        if self.db_url:
            argv += ["--db", self.db_url]
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the hall exited with {self.proc.returncode}; see {self.log.name}")
            try:
                with urllib.request.urlopen(self.url + "/login", timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the hall did not start in time")

    def kill9(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()  # SIGKILL: no clean-up at all
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill9()
        self.log.close()
