"""Errors of the devices: each carries a short code and one line of message, like the readers'."""

from __future__ import annotations


class HardwareError(Exception):
    """Base of the devices' errors, reported as the contract's ``{"error": {"code", "message"}}``.

    Attributes:
        code: short machine-readable reason, e.g. ``"camera-failed"``.
        message: one human-readable line.
        exit_code: process exit code when the command line stops on it (2: the device or its spec).
    """

    exit_code = 2

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        """Return the contract's error object ``{"error": {"code": str, "message": str}}``."""
        return {"error": {"code": self.code, "message": self.message}}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class CameraError(HardwareError, RuntimeError):
    """The camera cannot be opened or cannot take a photo.

    Codes: ``camera-unavailable`` (no device / library), ``camera-failed`` (a capture failed),
    ``camera-spec`` (the spec string is not understood).
    """
