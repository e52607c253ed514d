"""Reading the files a user hands in (photos, JSON) with size limits, strict JSON and one-line errors.

Every failure is a :class:`~vision.errors.BadInputError` (exit 2) naming the file.
"""

from __future__ import annotations

import json
import os
import stat

from vision.errors import BadInputError

#: Largest JSON file accepted (bytes).
MAX_JSON_BYTES = 16 * 1024 * 1024


def read_input_file(path: str, max_bytes: int, what: str, too_large_code: str) -> bytes:
    """Read a file the user handed in, refusing it before reading when it is too large.

    Args:
        path: the file.
        max_bytes: largest accepted size (bytes).
        what: how messages name the file, e.g. ``"profile"`` (may be empty).
        too_large_code: error code when the file is larger than ``max_bytes``.
    Raises:
        BadInputError: ``file-missing`` (absent, or a folder), ``file-unreadable``, or ``too_large_code``.
    """
    name = f"{what} {path}".strip()
    try:
        if os.path.exists(path) and not os.path.isdir(path) and not stat.S_ISREG(os.stat(path).st_mode):
            raise BadInputError("file-unreadable", f"{name}: not a regular file (a pipe or a device?)")
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > max_bytes:
                raise BadInputError(too_large_code, f"{name}: {size} bytes; at most {max_bytes} accepted")
            data = f.read(max_bytes + 1)
    except FileNotFoundError:
        raise BadInputError("file-missing", f"{name}: no such file") from None
    except IsADirectoryError:
        raise BadInputError("file-missing", f"{name}: is a folder, not a file") from None
    except OSError as exc:
        raise BadInputError("file-unreadable", f"{name}: {exc.strerror}") from None
    if len(data) > max_bytes:  # a pipe or device that reports no size
        raise BadInputError(too_large_code, f"{name}: larger than {max_bytes} bytes")
    return data


def _not_json(name: str):
    """``json.loads(parse_constant=…)``: NaN, Infinity and -Infinity are not JSON; refuse them."""
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    """``json.loads(parse_float=…)``: a number too large for a float (``1e999``) is refused, not infinity."""
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:40]} is too large a number")
    return value


def strict_json_loads(text: str | bytes):
    """``json.loads`` of JSON a user handed in, refusing what Python reads but JSON is not: NaN,
    ±Infinity and numbers that overflow a float (echoed back they would make the output invalid JSON).

    Raises:
        json.JSONDecodeError: invalid JSON (line and column).
        ValueError: NaN, Infinity, a float overflow, an integer of more than 4300 digits.
        RecursionError: nested too deeply.

    >>> strict_json_loads('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> strict_json_loads('{"a": NaN}')
    Traceback (most recent call last):
    ...
    ValueError: NaN is not a JSON number
    """
    return json.loads(text, parse_constant=_not_json, parse_float=_finite)


def parse_json_text(text: str, what: str):
    """Parse JSON text from the command line (``--setup '{…}'``) into one-line errors.

    Raises:
        BadInputError: ``invalid-json`` naming ``what``.
    """
    try:
        return strict_json_loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputError("invalid-json", f"{what}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise BadInputError("invalid-json", f"{what}: nested too deeply") from None
    except ValueError as exc:
        message = "a number has more than 4300 digits" if "digits" in str(exc) else str(exc)
        raise BadInputError("invalid-json", f"{what}: invalid JSON: {message}") from None


def load_json(path: str, what: str = "JSON file") -> object:
    """Parse a JSON file.

    Raises:
        BadInputError: ``file-missing`` or ``invalid-json`` with the line and column.
    """
    raw = read_input_file(path, MAX_JSON_BYTES, what, "invalid-json")
    try:
        return strict_json_loads(raw.decode("utf-8"))  # NaN/Infinity are not JSON: ValueError below
    except UnicodeDecodeError:
        raise BadInputError("invalid-json", f"{what} {path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise BadInputError("invalid-json",
                            f"{what} {path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:  # e.g. an integer with thousands of digits
        raise BadInputError("invalid-json", f"{what} {path}: {exc}") from None
    except RecursionError:
        raise BadInputError("invalid-json", f"{what} {path}: nested too deeply") from None


def load_object(path: str, what: str) -> dict:
    """Parse a JSON file that must hold an object.

    Raises:
        BadInputError: as :func:`load_json`, or ``invalid-json`` when the top level is not an object.
    """
    data = load_json(path, what)
    if not isinstance(data, dict):
        raise BadInputError("invalid-json", f"{what} {path}: expected a JSON object, got {type(data).__name__}")
    return data
