"""A waitress server run in a daemon thread, for the tests that talk to a real HTTP server.

It is closed from its own loop thread: a socket closed from another thread while the loop sits in
``select()`` on it makes the loop fail with ``EBADF`` (a warning at the end of a test run).
"""

from __future__ import annotations

import threading


class ServerThread:
    """``server`` (a waitress server, e.g. from ``waitress.server.create_server``) running in a thread."""

    def __init__(self, server):
        self.server = server
        self.thread = threading.Thread(target=server.run, daemon=True)
        self.thread.start()

    @classmethod
    def serving(cls, app, port: int = 0, threads: int = 4) -> "ServerThread":
        """Serve the WSGI ``app`` on 127.0.0.1 (``port`` 0: a free one) with ``threads`` workers."""
        from waitress.server import create_server

        return cls(create_server(app, host="127.0.0.1", port=port, threads=threads))

    @property
    def port(self) -> int:
        return int(self.server.effective_port)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, no trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    def close(self, timeout_s: float = 10.0) -> None:
        """Close the listening socket and every connection in the server's loop thread, wait up to
        ``timeout_s`` for the loop to end, then stop the worker threads."""
        def close_all():
            for channel in list(self.server._map.values()):
                channel.close()

        try:
            self.server.trigger.pull_trigger(close_all)
        except OSError:  # the loop has already ended
            pass
        self.thread.join(timeout_s)
        self.server.task_dispatcher.shutdown()
