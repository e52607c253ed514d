"""``beachscore hall``: serve the tournament hall in the foreground until Ctrl-C or ``SIGTERM``."""

from __future__ import annotations

from beachscore.errors import BadInputError
from beachscore.run_server import run_until_stopped
from hall.errors import DatabaseError, StartError
from hall.serve import open_hall


def run(args) -> int:
    """Serve the hall until stopped; returns the exit code (0).

    Args:
        args: the ``hall`` subcommand's arguments (``data``, ``db``, ``host``, ``port``).
    Raises:
        BadInputError: the hall cannot start (data folder, database, port), with the hall's code.
    """
    try:
        hall = open_hall(args)
    except (StartError, DatabaseError) as err:
        raise BadInputError(err.code, err.message) from None
    try:
        run_until_stopped(hall.server)
    finally:
        hall.close()
    return 0
