"""A reading's state edited one decision at a time: a token put down or replaced, a screen turned,
pieces replaced. The edits are ``state -> state`` functions that return a new dict; the revisit
stage (:mod:`vision.plazing.revisit`) applies them to try a decision's runner-up.
"""

from __future__ import annotations

import copy

#: The facing a screen turned round shows.
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}


def put_token(state: dict, cell, name: str) -> None:
    """Write the token ``name`` (a token class: ``meeple/red``, ``resource/amber``, ``neutral``,
    ``trash``, ``surprise``; bare sand writes nothing) on ``cell`` into ``state``, in place."""
    r, c = int(cell[0]), int(cell[1])
    parts = name.split("/")
    if parts[0] == "meeple":
        state["meeples"].append({"player": parts[1], "cell": [r, c]})
    elif parts[0] == "resource":
        state["resources"].append({"kind": parts[1], "cell": [r, c]})
    elif name == "neutral":
        state["neutral"].append([r, c])
    elif name == "trash":
        state["trash"].append([r, c])
    elif name == "surprise":
        state["surprises"].append([r, c])


def set_token(cell, name: str):
    """``state -> state`` with the token on ``cell`` replaced by ``name`` (or removed for sand)."""
    where = [int(cell[0]), int(cell[1])]

    def apply(state: dict) -> dict:
        st = copy.deepcopy(state)
        st["meeples"] = [m for m in st["meeples"] if m["cell"] != where]
        st["resources"] = [m for m in st["resources"] if m["cell"] != where]
        for k in ("neutral", "trash", "surprises"):
            st[k] = [c for c in st[k] if list(c) != where]
        put_token(st, where, name)
        return st

    return apply


def flip_facing(cells: list):
    """``state -> state`` with the screen on ``cells`` facing the other way."""
    key = sorted(map(tuple, cells))

    def apply(state: dict) -> dict:
        st = copy.deepcopy(state)
        for p in st["pieces"]:
            if p["kind"] == "screen" and sorted(map(tuple, p["cells"])) == key:
                p["facing"] = OPPOSITE[p["facing"]]
                return st
        raise KeyError("screen not in the state")

    return apply


def replace_pieces(old: list, new):
    """``state -> state`` with the pieces ``old`` replaced by ``new`` (a list, or a function giving it)."""
    keys = [(p["player"], p["kind"], sorted(map(tuple, p["cells"]))) for p in old]

    def apply(state: dict) -> dict:
        st = copy.deepcopy(state)
        kept = [p for p in st["pieces"] if (p["player"], p["kind"], sorted(map(tuple, p["cells"]))) not in keys]
        if len(kept) != len(st["pieces"]) - len(old):
            raise KeyError("pieces not in the state")
        st["pieces"] = kept + copy.deepcopy(new() if callable(new) else new)
        return st

    return apply
