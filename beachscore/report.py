"""Plain-text summary of a scan for the terminal."""

from __future__ import annotations

import scoring
from vision.confidence import confidence_percent


def scan_text(path: str, result) -> str:
    """One readable block per scanned photo: confidence, warnings, then the rules engine's explanation.

    Args:
        path: the photo's path, as given on the command line.
        result: a :class:`beachscore.pipeline.ScanResult`.
    """
    lines = [f"{path}: {result.game}, confidence {confidence_percent(result.confidence)}%"]
    lines += [f"  warning: {w}" for w in result.warnings]
    if result.game != "grid" and result.score:
        lines += ["  " + line for line in scoring.explain(result.state, result.photo.setup).splitlines()]
    elif result.game == "grid":
        lines += ["  " + " ".join(f"{c:>8}" for c in row) for row in result.state.get("cells", [])]
    return "\n".join(lines)
