"""Plain-text views of standings and seating for the terminal (``beachscore standings|seat``)."""

from __future__ import annotations

from tournament.event import Event
from tournament.seating import NextRound
from tournament.standings import as_number, rounds_played, standings


def _fmt(value) -> str:
    v = as_number(value) if hasattr(value, "denominator") else value
    return f"{v:.2f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v)


def standings_text(event: Event) -> str:
    """The standings as an aligned table.

    >>> ev = Event.from_json({"event": "Night", "game": "plazing", "players": [{"id": "a", "name": "Ana"},
    ...     {"id": "b", "name": "Bo"}], "rounds": [{"number": 1, "tables": [{"table": 1, "players": ["a", "b"],
    ...     "result": {"game_points": {"a": 40, "b": 31}}}]}]})
    >>> print(standings_text(ev))
    Night (plazing): standings after 1 round
    rank  player  TP  GP  wins  opp  played
       1  Ana      2  40     1    0       1
       2  Bo       0  31     0    2       1
    """
    rows = [[str(s.rank), s.player.name + (" (dropped)" if s.player.dropped else ""), _fmt(s.tournament_points),
             _fmt(s.game_points), str(s.wins), _fmt(s.opponents), str(s.played)] for s in standings(event)]
    head = ["rank", "player", "TP", "GP", "wins", "opp", "played"]
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    n = rounds_played(event)
    lines = [f"{event.name or 'Event'} ({event.game}): standings after {n} round{'s' if n != 1 else ''}",
             "  ".join(h.ljust(w) if i == 1 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths)))]
    for r in rows:
        lines.append("  ".join(c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    return "\n".join(line.rstrip() for line in lines)


def seating_text(event: Event, nxt: NextRound) -> str:
    """The next round's tables, one line each, then the byes.

    >>> ev = Event.from_json({"game": "plazing", "players": [{"id": "a", "name": "Ana"}, {"id": "b", "name": "Bo"}]})
    >>> from tournament.seating import seat
    >>> print(seating_text(ev, seat(ev, seed=1)))
    Round 1
    table 1: Bo, Ana
    """
    names = {p.id: p.name for p in event.players}
    lines = [f"Round {nxt.number}"]
    lines += [f"table {t.number}: " + ", ".join(names[p] for p in t.players) for t in nxt.tables]
    if nxt.byes:
        lines.append("bye: " + ", ".join(names[p] for p in nxt.byes))
    return "\n".join(lines)
