"""Plażing: parawany w dłoń — validate, score and explain a board snapshot.

State, setup and score shapes: ``shared/contracts/plazing.md``. Rules and the open points we
decided: ``shared/rules/plazing.md``. The work is split by idea:

- ``plazing_state``: read and check the JSON into frozen dataclasses;
- ``plazing_areas``: areas, rings, owners, markers and disputes;
- ``plazing_points``: running points and final scoring per player;
- ``text_map``: the text map and the per-area explanation.

``score`` is pure (no I/O) and returns JSON-ready dicts. Figures that need an off-board fact
the setup does not give are ``null``; ``missing`` lists which facts were missing.
"""

from __future__ import annotations

from scoring import text_map as _text
from scoring.plazing_areas import find_areas
from scoring.plazing_points import player_figures
from scoring.plazing_state import Board, Facts, read_board

RULES = [
    "area = 4-connected group of free squares; pieces and closing terrain '#' are walls",
    "an area is closed unless it reaches the left, right or dune edge; the sea closes",
    "ring = pieces edge-adjacent to the area (holes filled: pieces lying inside are not counted)",
    "owner = the player with most ring pieces, each piece counts 1; a tie makes the area neutral",
    "areas held and largest area are counted by the ring verdict, not by the meeples",
    "most areas / largest area: 12, 6 (3 only with 4 players); tied places share their points, "
    "rounded down; a player with no area earns nothing",
    "field points = ±1 squares a player covers + those inside areas the player owns",
]


def validate(state: dict, setup: dict | None = None) -> None:
    """Check a Plażing state (and setup) strictly.

    Checks: grid size, terrain characters and size, pieces (player known when the setup
    lists players, kind and shape in the catalogue — setup ``pieces`` or the default screen
    1×3, blanket 2×2, gear 1×1/1×2, any rotation —, on the grid, not on ``#``, no overlap,
    a screen's facing across its length), at most 8 screens and 5 blankets per player, at
    most 4 players, player names non-empty strings of at most 40 characters, meeples /
    neutral markers / resources / trash / surprises on free cells of the grid, one token per
    cell, off-board facts' shapes.

    Raises:
        InvalidStateError: with ``.problems`` listing every problem and its cell / field.

    >>> validate({"game": "plazing", "rows": 2, "cols": 3,
    ...           "pieces": [{"player": "red", "kind": "gear", "cells": [[0, 0], [1, 1]]},
    ...                      {"player": "red", "kind": "gear", "cells": [[0, 5]]}]})
    Traceback (most recent call last):
    ...
    scoring.errors.InvalidStateError: invalid state: pieces[0]: cells [[0, 0], [1, 1]] are not a gear shape of the catalogue (any rotation); pieces[1].cells[0]: cell [0, 5] is off the 2x3 grid
    """
    read_board(state, setup)


def score(state: dict, setup: dict | None = None) -> dict:
    """Score a Plażing snapshot: every area's verdict and every player's figures.

    Args:
        state: contract state (``rows``, ``cols``, ``pieces``, ``meeples``, ``neutral``,
            ``resources``, ``trash``, ``surprises``; may also carry setup fields).
        setup: contract setup (``terrain``, ``weather``, ``players``, ``collected``,
            ``closings``, ``track``, ``expansions``, optional ``pieces`` catalogue).
    Returns:
        ``{"areas": [...], "players": [...], "rules": [...], "missing": [...]}`` as in the
        contract; ``ring`` indexes ``state["pieces"]``.
    Raises:
        InvalidStateError: the state or setup is invalid (see ``validate``).
    Source: shared/rules/plazing.md §Areas, §Scoring.

    >>> state = {"game": "plazing", "rows": 3, "cols": 5, "pieces": [
    ...     {"player": "red", "kind": "screen", "cells": [[1, 1], [1, 2], [1, 3]], "facing": "S"},
    ...     {"player": "blue", "kind": "gear", "cells": [[0, 0]]},
    ...     {"player": "red", "kind": "gear", "cells": [[0, 4]]}]}
    >>> out = score(state, {"weather": "wind-S", "terrain": ["..+..", ".....", "-...."]})
    >>> [(a["cells"], a["closed"], a["ring"], a["counts"], a["owner"], a["fields"]) for a in out["areas"]][0]
    ([[0, 1], [0, 2], [0, 3]], True, [0, 1, 2], {'red': 2, 'blue': 1}, 'red', 1)
    >>> [(p["player"], p["areas"], p["weather_points"], p["field_points"], p["start"], p["total"]) for p in out["players"]]
    [('blue', 0, 0, 0, 10, None), ('red', 1, 2, 1, 10, None)]
    >>> out["missing"]
    ['collected', 'closings', 'track']
    """
    board, facts = read_board(state, setup)
    areas = find_areas(board)
    figures = player_figures(board, facts, areas)
    return {
        "areas": [a.to_json() for a in areas],
        "players": [f.to_json() for f in figures],
        "rules": RULES + _situational_rules(board, facts),
        "missing": missing_facts(board, facts),
    }


def explain(state: dict, setup: dict | None = None) -> str:
    """Text a player can check at the table: the lettered map, each area's verdict, points.

    Raises:
        InvalidStateError: the state or setup is invalid (see ``validate``).
    """
    board, facts = read_board(state, setup)
    areas = find_areas(board)
    figures = player_figures(board, facts, areas)
    return _text.plazing_text(board, facts, areas, figures, missing_facts(board, facts))


def missing_facts(board: Board, facts: Facts) -> list[str]:
    """Names of the off-board facts that were not given and make some figures null."""
    missing = []
    if board.terrain is None:
        missing.append("terrain")
    if facts.weather is None:
        missing.append("weather")
    if facts.collected is None or any(p not in facts.collected for p in facts.players):
        missing.append("collected")
    if facts.track is None or any(p not in facts.track for p in facts.players):
        if facts.closings is None or any(p not in facts.closings for p in facts.players):
            missing.append("closings")
        missing.append("track")
    return missing


def _situational_rules(board: Board, facts: Facts) -> list[str]:
    rules = []
    if board.terrain is None:
        rules.append("terrain unknown: every square taken as sand; field points unknown")
    elif board.has_minus_squares():
        rules.append("−1 squares are in play: everybody starts at 10")
    weather = facts.weather
    if weather == "sun":
        rules.append("sun: +2 per blanket on the board")
    elif weather == "rain":
        rules.append("rain: −1 per gear on the board")
    elif weather:
        rules.append(f"wind from {weather[-1]}: +2 per screen whose outer side faces {weather[-1]} (N = sea side)")
    rules.append("resources: 1, 3, 6, 10, 15… per kind (n(n+1)/2) + 5 per amber+shell+pebble set")
    if facts.clean_beach:
        rules.append("clean beach: 1 per trash collected, +5 to the single player with most; "
                     "a closed area holding trash is a dispute")
    rules.append("total = track + final scoring when the track is given, else start + closings + "
                 "field points + final scoring")
    return rules
