"""``beachscore hall``."""

from __future__ import annotations

from hall import serve


def run(args) -> int:
    """``beachscore hall``: run the hall server until stopped."""
    return serve.run(args)
