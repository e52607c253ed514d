"""``beachscore standings`` and ``beachscore seat``: the tournament's event file."""

from __future__ import annotations

import json

from beachscore.commands.common import EXIT_OK
from beachscore.errors import BadInputError
from tournament import Event, InvalidEventError, RoundOpenError, seat, standings_json
from tournament.text import seating_text, standings_text
from vision.files import load_object


def load_event(path: str):
    """Read EVENT.json as a :class:`tournament.Event`; a file that breaks the contract is bad input (exit 2)."""
    doc = load_object(path, "event file")
    try:
        return Event.from_json(doc)
    except InvalidEventError as err:
        raise BadInputError("invalid-event", f"event file {path}: " + "; ".join(err.problems[:5])
                            + (f" (and {len(err.problems) - 5} more)" if len(err.problems) > 5 else "")) from None


def standings(args) -> int:
    """``beachscore standings``: the standings after the rounds in the event file."""
    event = load_event(args.event)
    print(json.dumps(standings_json(event)) if args.json else standings_text(event))
    return EXIT_OK


def seating(args) -> int:
    """``beachscore seat``: the seating of the next round (random first round with ``--seed``)."""
    event = load_event(args.event)
    try:
        nxt = seat(event, seed=args.seed)
    except RoundOpenError as err:  # the hall refuses the same way (hall.store.HallStore.start_round)
        raise BadInputError("round-open", f"event file {args.event}: {err}") from None
    print(json.dumps(nxt.to_json()) if args.json else seating_text(event, nxt))
    return EXIT_OK
