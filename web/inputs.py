"""What a request may send: ids in URLs and bodies, JSON bodies, player names and other text.

Every limit is here, named, so a route never parses an id or a body on its own:

- ids are whole numbers 1..:data:`MAX_ID` (SQLite's INTEGER); the ``<id:...>`` URL converter
  answers 404 beyond that, :func:`body_id` answers 400;
- a JSON body is at most :data:`MAX_JSON_BYTES` and nested at most :data:`MAX_JSON_DEPTH` deep
  (:func:`json_body`);
- a game has at most :data:`MAX_PLAYERS` players; labels and display names are at most
  :data:`MAX_NAME_CHARS` characters (:func:`check_display`, :func:`check_players`).
"""

from __future__ import annotations

import json
import re

from flask import request
from werkzeug.routing.converters import IntegerConverter

from beachscore.errors import BadInputError
from vision.files import strict_json_loads

#: Largest id a URL or body may name: SQLite stores integers in 64 bits.
MAX_ID = 2 ** 63 - 1
#: Bytes of the largest JSON body (a Plażing state with every piece is a few kB).
MAX_JSON_BYTES = 256 * 1024
#: Deepest nesting of arrays/objects a JSON body may have (a state needs 5).
MAX_JSON_DEPTH = 32
#: Bytes of the largest set-up kept with a game (it goes out in every ``/api/status``).
MAX_SETUP_BYTES = 32 * 1024
#: Players of one game (the boxed games take 2–5).
MAX_PLAYERS = 8
#: Characters of a player label (colour) or display name.
MAX_NAME_CHARS = 40
#: Characters of a correction's note.
MAX_NOTE_CHARS = 500
#: Characters of a calibration sample's label (``screen/green/N``).
MAX_LABEL_CHARS = 64
#: Samples one calibration may click.
MAX_SAMPLES = 1000
DISPLAY_KEYS = ("names", "swatches")
SWATCH = re.compile(r"#[0-9a-fA-F]{6}")


class IdConverter(IntegerConverter):
    """``<id:name>``: a record id 1..MAX_ID; longer or larger numbers do not match (404).

    >>> from werkzeug.routing import Map
    >>> c = IdConverter(Map())
    >>> c.to_python("42")
    42
    >>> c.to_python("99999999999999999999999")
    Traceback (most recent call last):
    ...
    werkzeug.routing.converters.ValidationError
    """

    regex = r"\d{1,19}"

    def __init__(self, map, *args, **kwargs):
        super().__init__(map, min=1, max=MAX_ID)


def is_id(value) -> bool:
    """True for a JSON id: a whole number (not a bool) 1..MAX_ID.

    >>> is_id(3), is_id(10 ** 23), is_id(1e23), is_id(True), is_id(0)
    (True, False, False, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_ID


def query_id(value: str) -> int:
    """``request.args.get(name, type=query_id)``: an id, else ValueError (the filter is then dropped)."""
    if not re.fullmatch(r"\d{1,19}", value or "") or not is_id(int(value)):
        raise ValueError(f"not an id: {value!r}")
    return int(value)


def body_id(body: dict, key: str) -> int:
    """The id ``body[key]``.

    Raises:
        BadInputError: ``invalid-id`` quoting the value.
    """
    value = body.get(key)
    if not is_id(value):
        raise BadInputError("invalid-id", f"{key}: expected an id (a whole number 1..{MAX_ID}), got "
                            f"{_short(value)}")
    return value


def json_depth(value) -> int:
    """Nesting depth of parsed JSON (a scalar is 0, ``[]`` is 1), without recursion.

    >>> json_depth(1), json_depth([]), json_depth({"a": [[1]]})
    (0, 1, 3)
    """
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            deepest = max(deepest, depth)
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in node)
    return deepest


def json_body() -> dict:
    """The request's JSON object, bounded in size and depth.

    Raises:
        BadInputError: ``body-too-large``, ``invalid-json`` (not JSON, NaN or Infinity, not an
            object, too deep).
    """
    if request.content_length is not None and request.content_length > MAX_JSON_BYTES:
        raise BadInputError("body-too-large", f"the request body is larger than {MAX_JSON_BYTES // 1024} kB")
    raw = request.get_data(cache=True)
    if len(raw) > MAX_JSON_BYTES:
        raise BadInputError("body-too-large", f"the request body is larger than {MAX_JSON_BYTES // 1024} kB")
    try:
        body = loads(raw)
    except RecursionError:
        raise BadInputError("invalid-json", f"the JSON is nested deeper than {MAX_JSON_DEPTH} levels") from None
    except UnicodeDecodeError:
        raise BadInputError("invalid-json", "the request body is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise BadInputError("invalid-json", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:  # e.g. an integer with thousands of digits
        raise BadInputError("invalid-json", f"invalid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise BadInputError("invalid-json", f"expected a JSON object, got {type(body).__name__}")
    if json_depth(body) > MAX_JSON_DEPTH:
        raise BadInputError("invalid-json", f"the JSON is nested deeper than {MAX_JSON_DEPTH} levels")
    return body


def loads(text: str | bytes):
    """``json.loads`` that refuses NaN, ±Infinity, overflowing numbers and text with an unpaired
    UTF-16 surrogate (``"\\ud800"``: valid JSON, but no text a page can show) with a ValueError,
    like any invalid JSON."""
    value = strict_json_loads(text)
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("the text holds half of a UTF-16 surrogate pair (a broken character)") from None
    return value


def check_name(value, where: str, *, limit: int = MAX_NAME_CHARS) -> str:
    """A non-empty string of at most ``limit`` characters.

    Raises:
        BadInputError: ``invalid-setup`` quoting where.
    """
    if not isinstance(value, str) or not value.strip():
        raise BadInputError("invalid-setup", f"{where}: expected a non-empty text, got {_short(value)}")
    if len(value) > limit:
        raise BadInputError("invalid-setup", f"{where}: {len(value)} characters; at most {limit}")
    return value


def check_players(players, where: str = "players") -> None:
    """A set-up's ``players``: a list of labels (each once) or an object per label; at most MAX_PLAYERS.

    Raises:
        BadInputError: ``invalid-setup``.
    """
    if players is None:
        return
    if not isinstance(players, (list, dict)):
        raise BadInputError("invalid-setup", f"{where}: a list of colours or an object per colour")
    if len(players) > MAX_PLAYERS:
        raise BadInputError("invalid-setup", f"{where}: {len(players)} players; at most {MAX_PLAYERS}")
    for i, label in enumerate(players):
        if isinstance(players, dict) or isinstance(label, str):  # other entries: the scorer checks them
            check_name(label, f"{where}[{i}]")
            if isinstance(players, list) and label in players[:i]:
                raise BadInputError("invalid-setup", f"{where}[{i}]: {label!r} is listed twice; each player "
                                    "needs their own colour label")


def check_display(display) -> dict:
    """Page-only facts of a game: ``{"names": {label: name}, "swatches": {label: "#rrggbb"}}``.

    Returns:
        the display dict (``{}`` for None).
    Raises:
        BadInputError: ``invalid-display`` for unknown keys, too many players, long names, bad colours.
    """
    if display is None:
        return {}
    if not isinstance(display, dict):
        raise BadInputError("invalid-display", "display: expected {\"names\": {...}, \"swatches\": {...}}")
    unknown = sorted(set(display) - set(DISPLAY_KEYS))
    if unknown:
        raise BadInputError("invalid-display", f"display: unknown key {unknown[0][:MAX_NAME_CHARS]!r}; "
                            f"expected {', '.join(DISPLAY_KEYS)}")
    for key in DISPLAY_KEYS:
        part = display.get(key, {})
        if not isinstance(part, dict):
            raise BadInputError("invalid-display", f"display.{key}: expected an object per player")
        if len(part) > MAX_PLAYERS:
            raise BadInputError("invalid-display", f"display.{key}: {len(part)} players; at most {MAX_PLAYERS}")
        for label, value in part.items():
            if len(label) > MAX_NAME_CHARS:
                raise BadInputError("invalid-display", f"display.{key}: a player label has {len(label)} "
                                    f"characters; at most {MAX_NAME_CHARS}")
            where = f"display.{key}.{label}"
            if key == "names" and not (isinstance(value, str) and len(value) <= MAX_NAME_CHARS):
                raise BadInputError("invalid-display", f"{where}: expected a name of at most {MAX_NAME_CHARS} "
                                    f"characters, got {_short(value)}")
            if key == "swatches" and not (isinstance(value, str) and SWATCH.fullmatch(value)):
                raise BadInputError("invalid-display", f"{where}: expected a colour #rrggbb, got {_short(value)}")
    return display


def _short(value, limit: int = 60) -> str:
    """``repr`` of a value, cut to ``limit`` characters (error messages quote what was sent).

    >>> _short("x" * 100, 10)
    "'xxxxxxxx…"
    """
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"
