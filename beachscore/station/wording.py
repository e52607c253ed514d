"""What the station's pages say: the readers' and the rules engine's messages are written for the
command line (``pass --setup with 'terrain'``); at the station there is no command line, only its
pages. :func:`for_the_page` says the same with what to do on the page instead of a flag.

The known phrases get a page's sentence; any other command-line flag left in a message is named
by what it stands for on the pages, so that no page ever tells a player to type a flag.
"""

from __future__ import annotations

import re

#: Command-line phrases of the readers and what the station's pages say instead (longest first).
PHRASES = (
    ("pass --setup SETUP.json with 'terrain' (or calibrate with calib.setup.json, the calibration shot's terrain, "
     "beside the calibration photo so that the terrain can be read from photos)",
     "enter the terrain on the Game page (or calibrate again with the calibration shot's terrain, "
     "calib.setup.json, so that the terrain can be read from photos)"),
    ("(pass the terrain of this game, or leave it out to read it from the photo)",
     "(enter this game's terrain on the Game page, or set up a game without it to read it from the photo)"),
    ("(or fix --setup)", "(or check the game's set-up on the Game page)"),
    ("(no --setup terrain)", "(none entered on the Game page)"),
    ("pass --setup with 'terrain' to be sure", "enter the terrain on the Game page to be sure"),
    ("(--setup '{\"player\": \"ana\"}')", "(each mat is read for one player on the live page)"),
)

#: Any flag left: what it stands for on the pages.
FLAGS = (
    (re.compile(r"--setup(?:\s+\S+\.json)?"), "the game's set-up (Game page)"),
    (re.compile(r"--calibration(?:\s+[^\s;,]+)?"), "the calibration (Calibrate page)"),
    (re.compile(r"--out(?:\s+[^\s;,:]+)?"), "the calibration's folder"),
)
ANY_FLAG = re.compile(r"(?<![\w-])--[a-z][\w-]*")


def for_the_page(message: str | None) -> str | None:
    """``message`` as a station page shows it: no command-line flag, what to do on the page instead.

    >>> for_the_page("something covers C6: a hand? Take the photo again with the view clear (or fix --setup).")
    "something covers C6: a hand? Take the photo again with the view clear (or check the game's set-up on the Game page)."
    >>> for_the_page("terrain read from the photo (no --setup terrain): 4 closing cells")
    'terrain read from the photo (none entered on the Game page): 4 closing cells'
    >>> for_the_page("see --explain"), for_the_page(None)
    ('see the matching setting', None)
    """
    if not message or "--" not in message:
        return message
    for cli, page in PHRASES:
        message = message.replace(cli, page)
    for flag, page in FLAGS:
        message = flag.sub(page, message)
    return ANY_FLAG.sub("the matching setting", message)


def warnings_for_the_page(warnings: list | None) -> list:
    """Each warning of a scan as :func:`for_the_page` says it."""
    return [for_the_page(w) if isinstance(w, str) else w for w in warnings or []]


#: Each game's own name, as its box prints it (the ids stay in URLs, JSON and form values).
GAME_NAMES = {
    "strand-unter": "Strand unter",
    "plazing": "Plażing",
    "seashells": "Seashells",
    "sand-castles": "Sand Castles",
    "grid": "Grid (a board of squares)",
}


def game_name(game: str | None) -> str:
    """A game's own name for a person to read: ``"strand-unter"`` → ``"Strand unter"``; an unknown id as given.

    >>> game_name("plazing"), game_name("sand-castles"), game_name("chess"), game_name(None)
    ('Plażing', 'Sand Castles', 'chess', '')
    """
    return GAME_NAMES.get(game, game or "")


#: What asked for a scan (the store's ``source``) as the pages say it.
SOURCES = {
    "web": "from the page",
    "button": "by the button",
    "auto": "by itself (the board stood still)",
    "upload": "from an uploaded photo",
    "test": "by a test",
}


def source_for_the_page(source: str | None) -> str:
    """What asked for a scan, in words: ``"web"`` → ``"from the page"``; an unknown source as stored.

    >>> source_for_the_page("web"), source_for_the_page("auto"), source_for_the_page("hall"), source_for_the_page(None)
    ('from the page', 'by itself (the board stood still)', 'hall', '')
    """
    return SOURCES.get(source, source or "")


#: A warning about one groove of a Strand unter reading ("the yellow castle in groove 1 may be …").
GROOVE_NAMED = re.compile(r"\bgroove (\d+)\b")


def _grooves(state: dict | None) -> dict[int, tuple]:
    """Each groove of a state by number, its shells and castles in a comparable form."""
    out = {}
    for g in (state or {}).get("grooves") or []:
        if isinstance(g, dict) and isinstance(g.get("number"), int):
            castles = sorted((str(c.get("player")), c.get("value")) for c in g.get("castles") or [])
            out[g["number"]] = (sorted((g.get("shells") or {}).items()), castles)
    return out


def settled_by_correction(warnings: list[str], read: dict | None, corrected: dict | None) -> tuple[list, list]:
    """Split a scan's warnings into those still open and those a player's correction settled: a
    warning about one groove (Strand unter) is settled when the correction changed that groove.

    Args:
        warnings: the scan's warnings; read: the machine reading's state; corrected: the state of
            the scan's latest correction (None: not corrected).
    Returns:
        (open warnings, settled warnings), each in the order given.

    >>> read = {"grooves": [{"number": 1, "castles": [{"player": "yellow", "value": 2}]}, {"number": 2}]}
    >>> fixed = {"grooves": [{"number": 1, "castles": [{"player": "yellow", "value": 3}]}, {"number": 2}]}
    >>> settled_by_correction(["the yellow castle in groove 1 may be worth 3 rather than 2",
    ...                        "the board moved 3 mm"], read, fixed)
    (['the board moved 3 mm'], ['the yellow castle in groove 1 may be worth 3 rather than 2'])
    """
    if corrected is None or corrected is read:
        return list(warnings or []), []
    before, after = _grooves(read), _grooves(corrected)
    changed = {n for n in set(before) | set(after) if before.get(n) != after.get(n)}
    still, settled = [], []
    for w in warnings or []:
        named = {int(n) for n in GROOVE_NAMED.findall(str(w))}
        (settled if named and named <= changed else still).append(w)
    return still, settled


def in_game_order(rows: list, display: dict | None) -> list:
    """Rows naming a ``player`` (a score's players, Game over's questions) in the Game page's order
    (the order of its swatches), players it does not name last, as given.

    >>> [p["player"] for p in in_game_order([{"player": "yellow"}, {"player": "red"}, {"player": "x"}],
    ...                                     {"swatches": {"red": "#d32f2f", "yellow": "#fbc02d"}})]
    ['red', 'yellow', 'x']
    """
    order = list((display or {}).get("swatches") or {})
    return sorted(rows, key=lambda p: order.index(p.get("player")) if p.get("player") in order else len(order))
