"""Run a waitress server in the foreground until Ctrl-C or ``SIGTERM`` (systemd's stop)."""

from __future__ import annotations

import signal


def run_until_stopped(server) -> None:
    """Serve until the process is interrupted (``SIGINT``) or asked to stop (``SIGTERM``), then
    return normally so the caller closes what it opened; installs a ``SIGTERM`` handler (main
    thread only).

    Args:
        server: a ``waitress.server.create_server(...)`` result (anything with ``run()``).
    """
    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
