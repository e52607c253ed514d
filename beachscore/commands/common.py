"""What the commands share: exit codes, ``--setup``, and how an error is reported."""

from __future__ import annotations

import json
import sys

from beachscore.errors import BadInputError, BeachscoreError
from vision.files import load_object, parse_json_text

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT, EXIT_UNREADABLE = 0, 1, 2, 3


def load_setup(value: str | None) -> dict | None:
    """Read ``--setup``: a path to a JSON file, or inline JSON text starting with ``{``.

    Raises:
        BadInputError: missing file or invalid JSON.
    """
    if value is None:
        return None
    if value.lstrip()[:1] in ("{", "["):
        data = parse_json_text(value, "--setup")
        if not isinstance(data, dict):
            raise BadInputError("invalid-json", "--setup: expected a JSON object")
        return data
    return load_object(value, "setup file")


def emit_error(err: BeachscoreError, as_json: bool, image: str | None = None) -> None:
    """The error's one line on stderr (and its JSON object on stdout with ``--json``); ``image``
    names the photo it is about when a command reads several."""
    if as_json:
        print(json.dumps(dict(err.to_json(), image=image) if image else err.to_json()), flush=True)
    where = f"{image}: " if image else ""
    print(f"beachscore: error: {where}{err.message} [{err.code}]", file=sys.stderr, flush=True)
