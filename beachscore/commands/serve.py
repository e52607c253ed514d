"""``beachscore serve``."""

from __future__ import annotations

from beachscore import serving


def run(args) -> int:
    """``beachscore serve``: run the table station until stopped."""
    return serving.run(args)
