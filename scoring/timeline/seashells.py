"""Seashells' timeline: the beach and the players' collections between two accepted readings.

Rules (``shared/rules/seashells.md``): on a turn the bucket moves to an item in its row or column
and the item is taken, so items only leave the beach, each where it lay, and the bucket stands on
a space that held an item; a player's collection only grows (shells, fossil parts, sand dollars),
except message bottles, which may be spent.

The facts: ``taken`` (items taken from the beach, per kind of item) and ``turns`` (bucket moves seen).
"""

from __future__ import annotations

from scoring.seashells import read_state
from scoring.timeline.common import Step, change, plural

_GROWS = ("fossil_heads", "fossil_tails", "sand_dollars")


def initial_facts(players: list[str] | None = None) -> dict:
    """Nothing taken yet.

    >>> initial_facts()
    {'taken': {}, 'turns': 0}
    """
    return {"taken": {}, "turns": 0}


def with_facts(setup: dict | None, facts: dict | None) -> dict:
    """The setup as it is (the score comes from the players' mats)."""
    return dict(setup or {})


def _item_name(item: dict) -> str:
    if item.get("item") == "shell":
        return f"{item.get('colour')} {item.get('shape')}"
    return str(item.get("item")).replace("_", " ")


def compare(before: dict | None, after: dict, setup: dict | None = None, facts: dict | None = None) -> Step:
    """Compare a reading with the last accepted one under Seashells' rules.

    Returns:
        :class:`Step` (facts: ``taken``, ``turns``).
    Raises:
        InvalidStateError: a state breaks the single-photo rules.

    >>> shell = {"cell": [0, 3], "item": "shell", "shape": "oyster", "colour": "green"}
    >>> b = {"game": "seashells", "players": [], "beach": {"items": [shell], "bucket": [0, 0]}}
    >>> a = {"game": "seashells", "players": [], "beach": {"items": [], "bucket": [0, 3]}}
    >>> [c["text"] for c in compare(b, a).changes]
    ['the green oyster on [0, 3] was taken', 'the bucket moved to [0, 3]']
    >>> [c["kind"] for c in compare(a, b).impossible]
    ['appeared', 'moved']
    """
    read_state(after, setup)
    old_facts = facts or initial_facts()
    step = Step(facts={"taken": dict(old_facts["taken"]), "turns": old_facts["turns"]})
    if before is None:
        return step
    read_state(before, setup)
    if isinstance(before.get("beach"), dict) and isinstance(after.get("beach"), dict):
        _beach(step, before["beach"], after["beach"])
    old_mats = {m.get("player"): m for m in before.get("players", []) if isinstance(m, dict)}
    for mat in after.get("players", []):
        if isinstance(mat, dict) and mat.get("player") in old_mats:
            _mat(step, old_mats[mat["player"]], mat)
    return step


def _beach(step: Step, old: dict, new: dict) -> None:
    was = {tuple(i["cell"]): i for i in old.get("items", [])}
    now = {tuple(i["cell"]): i for i in new.get("items", [])}
    for cell, item in now.items():
        if cell not in was:
            step.impossible.append(change("appeared", f"a {_item_name(item)} appeared on {list(cell)}: items only "
                                          "leave the beach", cell=list(cell)))
        elif _item_name(was[cell]) != _item_name(item):
            step.impossible.append(change("changed", f"the {_item_name(was[cell])} on {list(cell)} is now a "
                                          f"{_item_name(item)}", cell=list(cell)))
    for cell, item in was.items():
        if cell not in now:
            name = _item_name(item)
            step.changes.append(change("taken", f"the {name} on {list(cell)} was taken", cell=list(cell)))
            key = item.get("item", "shell")
            step.facts["taken"][key] = step.facts["taken"].get(key, 0) + 1
    bucket_was, bucket_now = old.get("bucket"), new.get("bucket")
    if bucket_now is not None and bucket_was is not None and list(bucket_now) != list(bucket_was):
        if tuple(bucket_now) in was and tuple(bucket_now) not in now:
            step.changes.append(change("moved", f"the bucket moved to {list(bucket_now)}", cell=list(bucket_now)))
            step.facts["turns"] += 1
        else:
            step.impossible.append(change("moved", f"the bucket moved to {list(bucket_now)}, where no item was "
                                          "taken: the bucket moves onto the item it takes", cell=list(bucket_now)))


def _mat(step: Step, old: dict, new: dict) -> None:
    who = new["player"]
    had = [tuple(s) for s in old.get("shells", [])]
    has = [tuple(s) for s in new.get("shells", [])]
    lost = [s for s in had if s not in has]
    if lost:
        step.impossible.append(change("removed", f"{who} lost {', '.join(f'the {c} {s}' for s, c in lost)}: a "
                                      "collection only grows", player=who))
    got = [s for s in has if s not in had]
    if got:
        step.changes.append(change("collected", f"{who} collected {', '.join(f'the {c} {s}' for s, c in got)}",
                                   player=who))
    for key in _GROWS + ("bottles",):
        a, b = int(old.get(key, 0) or 0), int(new.get(key, 0) or 0)
        word = key.replace("_", " ").rstrip("s")
        if b > a:
            step.changes.append(change("collected", f"{who} collected {plural(b - a, word)}", player=who))
        elif b < a and key in _GROWS:
            step.impossible.append(change("removed", f"{who} has {plural(a - b, word)} fewer: a collection only "
                                          "grows", player=who))
        elif b < a:
            step.changes.append(change("spent", f"{who} spent {plural(a - b, word)} for an extra turn", player=who))
