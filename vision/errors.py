"""The readers' errors: each carries a short code and one line of message.

The command line maps them onto the contract's exit codes (``shared/contracts/README.md``
§Errors: 2 bad input, 3 the photo is readable but the board cannot be read reliably) and the
station's pages onto HTTP statuses; ``exit_code`` says which.
"""

from __future__ import annotations


class CodedError(Exception):
    """Base of every error reported as the contract's ``{"error": {"code", "message"}}``.

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


class BadInputError(CodedError, ValueError):
    """Input the user handed in is wrong: bad image, bad JSON, unknown label, missing file (exit 2)."""

    exit_code = 2


class UnreadableBoardError(CodedError, RuntimeError):
    """The photo decodes but the board cannot be read reliably (exit 3).

    Codes in use: ``board-not-found``, ``registration-lost``, ``occluded``, ``too-dark``,
    ``too-blurred``, ``glare``.
    """

    exit_code = 3
