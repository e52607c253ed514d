#!/usr/bin/env python3
"""Memory of ``beachscore serve`` under use: idle, after scans, after bursts of PIN guesses.

    .venv/bin/python scripts/bench_station_memory.py [--scans 200] [--bursts 3] [--burst 24] [--arenas default]

Starts ``beachscore serve --camera file:examples/strand-unter/scene_05.jpg`` (the real pipeline
on the bundled example, calibrated into a temporary folder) on 127.0.0.1 in a fresh process,
chooses the PIN, then runs ``--scans`` scans one after another through ``POST /api/scan``, then
``--bursts`` bursts of ``--burst`` wrong PINs sent in parallel, and prints the server's resident
memory (VmRSS) and peak (VmHWM) from /proc at each step. ``--arenas default`` runs the server
with glibc's default malloc arenas (MALLOC_ARENA_MAX unset and the station's own cap disabled)
to show what the cap saves.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(REPO, "examples", "strand-unter")
BEACHSCORE = os.path.join(os.path.dirname(sys.executable), "beachscore")
PIN = "2468"

sys.path.insert(0, REPO)
from tests.station.attack_helpers import Client  # noqa: E402 - the attack tests' cookie-keeping client



def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MB."""
    with open(f"/proc/{pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scans", type=int, default=200)
    ap.add_argument("--bursts", type=int, default=3)
    ap.add_argument("--burst", type=int, default=24)
    ap.add_argument("--arenas", choices=("capped", "default"), default="capped")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-memory-")
    server = None
    try:
        cal = os.path.join(tmp, "cal")
        subprocess.run([BEACHSCORE, "calibrate", os.path.join(EXAMPLE, "calibration.json"), "--out", cal],
                       check=True, capture_output=True)
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
        if a.arenas == "default":
            env["BEACHSCORE_MALLOC_ARENAS"] = "default"
        server = subprocess.Popen([BEACHSCORE, "serve", "--camera", "file:" + os.path.join(EXAMPLE, "scene_05.jpg"),
                                   "--button", "none", "--calibration", cal, "--data", os.path.join(tmp, "data"),
                                   "--host", "127.0.0.1", "--port", str(port)], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        owner = Client(port)
        for _ in range(100):
            try:
                owner.open_page()
                break
            except OSError:
                time.sleep(0.1)
        assert owner.post_json("/api/pin", {"pin": PIN, "pin2": PIN})[0] == 200
        assert owner.post_json("/api/games", {"game": "strand-unter", "setup": json.load(
            open(os.path.join(EXAMPLE, "setup.json")))})[0] == 201
        time.sleep(1.0)
        print(f"beachscore serve (real pipeline, 1920x1080 example photo), malloc arenas {a.arenas}:")
        print(f"  idle                      RSS {memory_mb(server.pid)[0]:6.1f} MB")
        t0 = time.perf_counter()
        for i in range(1, a.scans + 1):
            while True:
                status = owner.post_json("/api/scan", {})[0]
                if status == 202:
                    break
                time.sleep(0.01)  # the previous scan is still running
            if i in (1, 10, 60) or i == a.scans:
                while json.loads(owner.request("GET", "/api/status")[2])["busy"]:
                    time.sleep(0.01)
                print(f"  after {i:3d} scans           RSS {memory_mb(server.pid)[0]:6.1f} MB")
        print(f"  ({a.scans} scans in {time.perf_counter() - t0:.1f} s)")
        guessers = [Client(port) for _ in range(a.burst)]
        for g in guessers:
            g.open_page()
        for b in range(1, a.bursts + 1):
            with concurrent.futures.ThreadPoolExecutor(a.burst) as pool:
                codes = list(pool.map(lambda g: g.post_json("/api/pin", {"pin": "0000"})[0], guessers))
            print(f"  after PIN burst {b} ({a.burst} parallel: {codes.count(403)} checked, {codes.count(429)} refused) "
                  f"RSS {memory_mb(server.pid)[0]:6.1f} MB")
            time.sleep(31 if b < a.bursts else 0)  # the next window
        rss, hwm = memory_mb(server.pid)
        print(f"  end                       RSS {rss:6.1f} MB, peak (VmHWM) {hwm:6.1f} MB")
    finally:
        if server is not None:
            server.terminate()
            server.wait(30)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
