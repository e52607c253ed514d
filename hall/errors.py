"""The hall's own errors: a refused request, a database that cannot be opened, a start that fails.

The pages turn :class:`HallError` into the contract's error shape and HTTP status; the command
line turns :class:`DatabaseError` and :class:`StartError` into exit code 2.
"""

from __future__ import annotations


class HallError(Exception):
    """A request the hall refuses: ``code``, one-line ``message``, HTTP ``status``."""

    def __init__(self, code: str, message: str, status: int = 400):
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


class DatabaseError(RuntimeError):
    """The database cannot be opened or is newer than this code (``code`` says which)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class StartError(RuntimeError):
    """The hall cannot start as asked (data folder, port, lock): ``code`` and a one-line ``message``."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message
