"""Decisions in words, for warnings and the revisit stage's "read with …" notes. Most are handed
out as functions giving the words: they are only written for the decisions someone reads about.
"""

from __future__ import annotations

from vision.plazing.names import cell_name, cells_text
from vision.plazing.tokens import EMPTY


def facing_words(player: str, cells, facing: str):
    """A function giving a screen's facing in words (written only when someone reads it)."""
    return lambda: f"the {player} screen on {cells_text(cells)} facing {facing}"


def lazy_token_words(name: str, cell):
    """A function giving :func:`token_words` (written only when someone reads it)."""
    return lambda: token_words(name, cell)


def token_words(name: str, cell) -> str:
    """A token decision in words: ``a red meeple on D3``, ``bare sand on D3``."""
    where = cell_name(cell)
    parts = name.split("/")
    if name == EMPTY:
        return f"bare sand on {where}"
    if parts[0] == "meeple":
        return f"a {parts[1]} meeple on {where}"
    if parts[0] == "resource":
        return f"{'an' if parts[1][0] in 'aeiou' else 'a'} {parts[1]} on {where}"
    return f"a {'neutral marker' if name == 'neutral' else name} on {where}"


def pieces_words(pieces: list) -> str:
    """Pieces in words: ``a screen and a gear``."""
    kinds = [p["kind"] for p in pieces]
    words = [f"{'an' if k[0] in 'aeiou' else 'a'} {k}" for k in kinds]
    return " and ".join(words) if len(words) < 3 else ", ".join(words[:-1]) + " and " + words[-1]
