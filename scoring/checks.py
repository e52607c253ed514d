"""Shape checks shared by the game modules: collect every problem, then raise once.

A :class:`Problems` collector is passed through a game's parser; each ``need_*`` method
returns the checked value (or ``None`` when it was wrong) and records a message naming the
field and quoting the bad value. :meth:`Problems.raise_if_any` raises
:class:`~scoring.errors.InvalidStateError` with the whole list.
"""

from __future__ import annotations

from typing import Any

from scoring.errors import InvalidStateError

_MISSING = object()
NAME_MAX = 40
CELL_MAX = 10_000


class Problems:
    """Collector of validation problems (strings).

    >>> p = Problems()
    >>> p.need_int(-1, "walls_left", lo=0)
    >>> p.need_int(3, "wave", lo=1, hi=8)
    3
    >>> p.messages
    ['walls_left: expected an integer >= 0, got -1']
    """

    def __init__(self) -> None:
        self.messages: list[str] = []

    def __bool__(self) -> bool:
        return bool(self.messages)

    def add(self, message: str) -> None:
        """Record one problem."""
        self.messages.append(message)

    def raise_if_any(self) -> None:
        """Raise InvalidStateError listing every recorded problem, if any."""
        if self.messages:
            raise InvalidStateError(self.messages)

    # -- typed getters -------------------------------------------------------------------
    def need_dict(self, value: Any, where: str) -> dict | None:
        """Return ``value`` if it is a dict with str keys, else record a problem."""
        if not isinstance(value, dict):
            self.add(f"{where}: expected an object, got {_show(value)}")
            return None
        bad = [k for k in value if not isinstance(k, str)]
        if bad:
            self.add(f"{where}: keys must be strings, got {_show(bad[0])}")
            return None
        return value

    def need_list(self, value: Any, where: str) -> list | None:
        """Return ``value`` if it is a list (or tuple), else record a problem."""
        if not isinstance(value, (list, tuple)):
            self.add(f"{where}: expected a list, got {_show(value)}")
            return None
        return list(value)

    def need_str(self, value: Any, where: str, choices: tuple[str, ...] | list[str] | None = None) -> str | None:
        """Return ``value`` if it is a non-empty str (one of ``choices`` when given)."""
        if not isinstance(value, str) or not value:
            self.add(f"{where}: expected a non-empty string, got {_show(value)}")
            return None
        if choices is not None and value not in choices:
            self.add(f"{where}: unknown value {_show(value)}; expected one of {', '.join(choices)}")
            return None
        return value

    def need_name(self, value: Any, where: str) -> str | None:
        """Return ``value`` if it is a player name: a non-empty string of at most 40 characters.

        >>> p = Problems()
        >>> p.need_name("ana", "player"), p.need_name(5, "player"), p.need_name("x" * 41, "player")
        ('ana', None, None)
        >>> p.messages[1]
        "player: a player name has at most 40 characters, got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'"
        """
        if not isinstance(value, str) or not value.strip():
            self.add(f"{where}: expected a player name (a non-empty string), got {_show(value)}")
            return None
        if len(value) > NAME_MAX:
            self.add(f"{where}: a player name has at most {NAME_MAX} characters, got {_show(value)}")
            return None
        return value

    def need_bool(self, value: Any, where: str) -> bool | None:
        """Return ``value`` if it is a bool, else record a problem."""
        if not isinstance(value, bool):
            self.add(f"{where}: expected true or false, got {_show(value)}")
            return None
        return value

    def need_int(self, value: Any, where: str, lo: int | None = None, hi: int | None = None) -> int | None:
        """Return ``value`` if it is an int (not a bool) within ``lo..hi`` (inclusive)."""
        ok = isinstance(value, int) and not isinstance(value, bool)
        if ok and lo is not None and value < lo:
            ok = False
        if ok and hi is not None and value > hi:
            ok = False
        if not ok:
            if lo is not None and hi is not None:
                want = f"an integer {lo}..{hi}"
            elif lo is not None:
                want = f"an integer >= {lo}"
            elif hi is not None:
                want = f"an integer <= {hi}"
            else:
                want = "an integer"
            self.add(f"{where}: expected {want}, got {_show(value)}")
            return None
        return value

    def need_cell(self, value: Any, where: str, rows: int | None, cols: int | None) -> tuple[int, int] | None:
        """Return ``(row, col)`` if ``value`` is ``[row, col]`` inside a rows×cols grid."""
        if (
            not isinstance(value, (list, tuple))
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            self.add(f"{where}: expected a cell [row, col], got {_show(value)}")
            return None
        r, c = value
        if abs(r) > CELL_MAX or abs(c) > CELL_MAX:
            self.add(f"{where}: cell {_show(list(value))} is off any board")
            return None
        if rows is not None and cols is not None and not (0 <= r < rows and 0 <= c < cols):
            self.add(f"{where}: cell {_show([r, c])} is off the {rows}x{cols} grid")
            return None
        return (r, c)

    def field(self, obj: dict, key: str, where: str, *, required: bool = True) -> Any:
        """Return ``obj[key]``; record a problem if it is required and missing."""
        value = obj.get(key, _MISSING)
        if value is _MISSING:
            if required:
                self.add(f"{where}.{key}: missing")
            return None
        return value


def _show(value: Any, _depth: int = 0) -> str:
    """Short repr of a bad value for a message; never raises.

    >>> _show(10 ** 5000)
    '<an integer of about 5000 digits>'
    >>> _show("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"<an integer of {len(str(abs(value))) if value.bit_length() < 14000 else 'about %d' % int(value.bit_length() * 0.30103)} digits>"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # e.g. a huge int inside a list, a very deep list
        if isinstance(value, (list, tuple)) and len(value) <= 8 and _depth < 2:
            text = "[" + ", ".join(_show(v, _depth + 1) for v in value) + "]"
        else:
            text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


show = _show


def counts_dict(p: Problems, value: Any, where: str, keys: tuple[str, ...], hi: int | None = None) -> dict[str, int] | None:
    """Check a ``{key: count}`` object with known keys and counts 0..``hi``; missing keys are 0.

    >>> p = Problems()
    >>> counts_dict(p, {"white": 2, "pink": 1, "gray": -1}, "bucket", ("white", "gray"))
    >>> p.messages
    ["bucket: unknown key 'pink'; expected one of white, gray", 'bucket.gray: expected an integer >= 0, got -1']
    """
    d = p.need_dict(value, where)
    if d is None:
        return None
    before = len(p.messages)
    out = {k: 0 for k in keys}
    for k, v in d.items():
        if k not in keys:
            p.add(f"{where}: unknown key {_show(k)}; expected one of {', '.join(keys)}")
            continue
        n = p.need_int(v, f"{where}.{k}", lo=0, hi=hi)
        if n is not None:
            out[k] = n
    return out if len(p.messages) == before else None


def merged(key: str, state: dict, setup: dict | None) -> Any:
    """Return ``state[key]`` if present, else ``setup[key]``, else None (the state wins)."""
    if key in state:
        return state[key]
    if setup and key in setup:
        return setup[key]
    return None
