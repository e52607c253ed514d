"""Combine single-mat Seashells scans into one state that scores every player.

One scan reads one player's mat (``vision.seashells.reader``); the score compares players, so the station
(or a user running ``beachscore score``) merges the mats first. Pure data, no pixels.

Source: shared/contracts/seashells.md §Reading a player mat.
"""

from __future__ import annotations

from scoring.checks import Problems, show
from scoring.errors import InvalidStateError

_SHARED = ("shapes", "colours", "scoring", "sun", "beach")


def merge_mats(states: list[dict], setup: dict | None = None) -> dict:
    """Merge Seashells states of one mat each into one state with every player.

    Args:
        states: Seashells states, each with ``players`` (usually one mat, named ``"mat"`` unless
            the scan's setup named it). Later states must not repeat a player's name.
        setup: optional setup; ``players`` (list of names) renames unnamed mats (``"mat"``) in
            scan order, ``scoring`` and ``sun`` fill what the states lack.
    Returns:
        A new state ``{"game": "seashells", "players": [...], ...}``; shared fields (shapes,
        colours, scoring, sun, beach) come from the first state that has them.
    Raises:
        InvalidStateError: no states, a state of another game, states whose shape or colour
            vocabularies differ, or a player named twice.

    >>> a = {"game": "seashells", "players": [{"player": "mat", "shells": [["conch", "blue"]], "sand_dollars": 1}]}
    >>> b = {"game": "seashells", "players": [{"player": "ben", "shells": []}]}
    >>> [p["player"] for p in merge_mats([a, b], {"players": ["ana"]})["players"]]
    ['ana', 'ben']
    """
    if not isinstance(states, (list, tuple)) or not states:
        raise InvalidStateError("no mats to merge")
    setup = {} if setup is None else setup
    if not isinstance(setup, dict):
        raise InvalidStateError(f"setup: expected an object, got {show(setup)}")
    p = Problems()
    raw_names = setup.get("players")
    names = [] if raw_names is None else p.need_list(raw_names, "setup.players") or []
    names = [p.need_name(n, f"setup.players[{i}]") for i, n in enumerate(names)]
    p.raise_if_any()
    merged: dict = {"game": "seashells", "players": []}
    seen: set[str] = set()
    for i, st in enumerate(states):
        if not isinstance(st, dict) or st.get("game") != "seashells":
            raise InvalidStateError(f"mat {i + 1} is not a Seashells reading")
        for key in _SHARED:
            if key in st and key not in merged:
                merged[key] = st[key]
            elif key in ("shapes", "colours") and key in st and st[key] != merged[key]:
                raise InvalidStateError(f"mat {i + 1} lists other {key} ({show(st[key])}) than the first mat")
        mats = st.get("players") or []
        if not isinstance(mats, (list, tuple)):
            raise InvalidStateError(f"mat {i + 1}: players: expected a list, got {show(mats)}")
        for j, mat in enumerate(mats):
            if not isinstance(mat, dict):
                raise InvalidStateError(f"mat {i + 1}: players[{j}]: expected an object, got {show(mat)}")
            mat = dict(mat)
            if mat.get("player", "mat") == "mat" and names:
                mat["player"] = names.pop(0)
            who = mat.get("player")
            if not isinstance(who, str) or not who:  # unhashable or empty: validate names the problem
                merged["players"].append(mat)
                continue
            if who in seen:
                raise InvalidStateError(f"player {show(who)} appears on two mats; name each mat "
                                        "(--setup '{\"player\": \"ana\"}')")
            seen.add(who)
            merged["players"].append(mat)
    for key in ("scoring", "sun"):
        if key not in merged and key in setup:
            merged[key] = setup[key]
    return merged
