"""Typed errors that map onto the contract's exit codes and error shape.

Exit codes (``shared/contracts/README.md`` §Errors): 0 read and scored, 2 bad input,
3 the photo is readable but the board cannot be read reliably.
"""

from __future__ import annotations


class BeachscoreError(Exception):
    """Base of every error the command line turns into ``{"error": {"code", "message"}}``.

    Attributes:
        code: short machine-readable reason, e.g. ``"image-corrupt"``.
        message: one human-readable line.
        exit_code: process exit code from the contract.
    """

    exit_code = 1

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        """Return the contract's error object ``{"error": {"code": str, "message": str}}``."""
        return {"error": {"code": self.code, "message": self.message}}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class BadInputError(BeachscoreError, ValueError):
    """Input the user handed in is wrong: bad image, bad JSON, unknown label, missing file (exit 2)."""

    exit_code = 2


class UnreadableBoardError(BeachscoreError, RuntimeError):
    """The photo decodes but the board cannot be read reliably (exit 3).

    Codes in use: ``board-not-found``, ``registration-lost``, ``occluded``, ``too-dark``,
    ``too-blurred``, ``glare``.
    """

    exit_code = 3

