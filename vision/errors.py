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


def sample_slot(i: int) -> str:
    """The place in a :class:`SampleError` template where its ``i``-th sample is named."""
    return f"\x00{i}\x00"


def sample_at_mm(label: str, board_mm) -> str:
    """A calibration sample as the command line names it: ``calibration sample 'shell' at 34,50 mm``."""
    return f"calibration sample {label!r} at {board_mm[0]:g},{board_mm[1]:g} mm"


class SampleError(BadInputError):
    """Calibration samples refused (exit 2), each named in the one-line message.

    Args:
        code: the contract's code (``bad-sample``, ``sample-off-place``, ``unknown-label``, …).
        samples: ``[(label, (x, y))]``, the refused samples' labels and board positions (mm).
        template: the message with :func:`sample_slot` ``(i)`` where sample ``i`` is named.
        naming: how a sample is named, ``naming(label, (x, y)) -> str`` (default :func:`sample_at_mm`).
        where: the file the samples were read from, said first (``FILE: …``), or None.

    Attributes:
        samples: as given, positions as floats.
        numbers: the samples' numbers as the caller's user knows them (:meth:`rename`), or None.

    A caller that knows the samples by other names (the station's wizard numbers the points its user
    clicked, in a file of its own) names them so with :meth:`rename`, without the file.
    """

    def __init__(self, code: str, samples, template: str, naming=sample_at_mm, where: str | None = None):
        self.samples = [(str(label), (float(xy[0]), float(xy[1]))) for label, xy in samples]
        self.template = template
        self.numbers: list[int] | None = None
        said = self._said([naming(label, xy) for label, xy in self.samples])
        super().__init__(code, f"{where}: {said}" if where else said)

    def _said(self, names: list[str]) -> str:
        text = self.template
        for i, name in enumerate(names):
            text = text.replace(sample_slot(i), name)
        return text

    def rename(self, names: list[str], numbers: list[int] | None = None) -> None:
        """Name the samples ``names`` (one per sample, in order) in :attr:`message` instead, and leave
        out the file it was read from; ``numbers``, the samples' numbers as the caller's user knows
        them, go into :meth:`to_json` as ``"samples"``."""
        self.message = self._said(names)
        self.args = (self.message,)
        self.numbers = numbers

    def to_json(self) -> dict:
        """The contract's error object, with ``"samples"`` (the refused samples' numbers) when renamed
        with them."""
        out = super().to_json()
        if self.numbers:
            out["error"]["samples"] = list(self.numbers)
        return out


class UnreadableBoardError(CodedError, RuntimeError):
    """The photo decodes but the board cannot be read reliably (exit 3).

    Codes in use: ``board-not-found``, ``registration-lost``, ``occluded``, ``too-dark``,
    ``too-blurred``, ``glare``.
    """

    exit_code = 3
