"""Helpers of the attack tests: a station served by the shipped waitress set-up on 127.0.0.1, a
tiny cookie-keeping HTTP client, a WebP bomb, and a small tmpfs for a real full or read-only disk."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import subprocess
import tempfile

from tests.server_thread import ServerThread


class Client:
    """One browser: keeps its session cookie, reads the CSRF token from a page."""

    def __init__(self, port: int):
        self.port = port
        self.cookie = None
        self.csrf = None

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
                timeout: float = 30.0) -> tuple[int, dict, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            hdrs = dict(headers or {})
            if self.cookie:
                hdrs["Cookie"] = self.cookie
            conn.request(method, path, body=body, headers=hdrs)
            r = conn.getresponse()
            data = r.read()
            cookie = r.getheader("Set-Cookie")
            if cookie:
                self.cookie = cookie.split(";", 1)[0]
            return r.status, dict(r.getheaders()), data
        finally:
            conn.close()

    def open_page(self, path: str = "/pin") -> str:
        status, _, data = self.request("GET", path)
        html = data.decode()
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)
        return html

    def post_json(self, path: str, body=None, raw: bytes | None = None, timeout: float = 30.0):
        data = raw if raw is not None else json.dumps(body if body is not None else {}).encode()
        status, headers, out = self.request("POST", path, data, {"Content-Type": "application/json",
                                                                 "X-CSRF-Token": self.csrf or ""}, timeout)
        return status, headers, json.loads(out) if out else None


@contextlib.contextmanager
def served(station, **overrides):
    """The station's page served as ``beachscore serve`` serves it (serving.create_server); yields the port."""
    from beachscore.serving import create_server

    server = ServerThread(create_server(station, "127.0.0.1", 0, **overrides))
    try:
        yield server.port
    finally:
        server.close()


def webp_bomb(width: int, height: int, bgr=(40, 120, 200)) -> bytes:
    """A valid lossless WebP of ``width`` x ``height`` px of one colour in ~32 bytes (every prefix
    code has one symbol, so a pixel costs 0 bits): decoding it allocates width*height*3 bytes."""
    bits, n = 0, 0

    def put(value: int, count: int) -> None:
        nonlocal bits, n
        bits |= (value & ((1 << count) - 1)) << n
        n += count

    put(0x2F, 8), put(width - 1, 14), put(height - 1, 14), put(0, 1), put(0, 3)
    put(0, 1), put(0, 1), put(0, 1)  # no transform, no colour cache, no meta prefix codes
    b, g, r = bgr
    for symbol in (g, r, b, 255, 0):  # green, red, blue, alpha, distance
        put(1, 1), put(0, 1)  # a simple code of one symbol
        if symbol < 2:
            put(0, 1), put(symbol, 1)
        else:
            put(1, 1), put(symbol, 8)
    data = bits.to_bytes((n + 7) // 8, "little")
    data += b"\0" * (len(data) % 2)
    chunk = b"VP8L" + len(data).to_bytes(4, "little") + data
    return b"RIFF" + (4 + len(chunk)).to_bytes(4, "little") + b"WEBP" + chunk


@contextlib.contextmanager
def small_tmpfs(size: str = "2m"):
    """A real, small filesystem (tmpfs) mounted for the test; yields its path, or None where mounting
    is not allowed (not root, no CAP_SYS_ADMIN) — the caller skips then."""
    folder = tempfile.mkdtemp(prefix="beachscore-tmpfs-")
    mounted = os.geteuid() == 0 and shutil.which("mount") is not None and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", folder], capture_output=True).returncode == 0
    try:
        yield folder if mounted else None
    finally:
        if mounted:
            subprocess.run(["umount", "-l", folder], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def remount_read_only(folder: str) -> bool:
    """Make a :func:`small_tmpfs` read-only (even root gets EROFS); True when done."""
    return subprocess.run(["mount", "-o", "remount,ro", folder], capture_output=True).returncode == 0


def fill_disk(folder: str) -> str:
    """Write a filler file into ``folder`` until its filesystem has no byte left; returns its path."""
    path = os.path.join(folder, "filler")
    chunk = b"\0" * 65536
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(chunk)
        except OSError:
            pass
        try:
            while True:
                f.write(b"\0")
        except OSError:
            pass
    return path
