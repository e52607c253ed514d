"""Plain-text summaries of a scan for the terminal."""

from __future__ import annotations

import json


def scan_text(path: str, result) -> str:
    """One readable block per scanned photo: confidence, warnings, score summary."""
    lines = [f"{path}: {result.game}, confidence {result.confidence:.2f}"]
    lines += [f"  warning: {w}" for w in result.warnings]
    players = result.score.get("players") if isinstance(result.score, dict) else None
    if players:
        for p in players:
            total = p.get("total")
            lines.append(f"  {p.get('player')}: {total if total is not None else 'total unknown'}")
        if result.score.get("winners"):
            lines.append(f"  winners: {', '.join(result.score['winners'])}")
    else:
        lines.append("  " + json.dumps(result.score))
    return "\n".join(lines)
