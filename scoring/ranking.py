"""Ranking helpers shared by the games: groups of equal rank and prize splitting on ties."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence


def rank_groups(players: Iterable[str], key: Callable[[str], Hashable]) -> list[list[str]]:
    """Group players by equal ``key``, best (largest key) first; each group keeps input order.

    >>> rank_groups(["a", "b", "c"], {"a": 3, "b": 5, "c": 3}.get)
    [['b'], ['a', 'c']]
    """
    order = list(players)
    keys = {p: key(p) for p in order}
    groups: list[list[str]] = []
    for value in sorted(set(keys.values()), reverse=True):
        groups.append([p for p in order if keys[p] == value])
    return groups


def split_prizes(values: dict[str, int], prizes: Sequence[int]) -> dict[str, int]:
    """Award place prizes by value, best first; tied players share their places' prizes.

    Players tied for a place add the prizes of the places they occupy and split the sum
    evenly, rounding down (Plażing §Scoring: two tied for 1st of 12/6/3 get 9 each, three
    tied for 1st get 7 each). A player with a value of 0 or less earns nothing (our zero
    ruling, matching the sample truths). Places past the end of ``prizes`` are worth 0.

    Args:
        values: player -> count (areas held, size of largest area, ...).
        prizes: points for 1st, 2nd, 3rd... place.
    Returns:
        player -> points, every player of ``values`` present.

    >>> split_prizes({"red": 3, "blue": 3, "green": 1}, (12, 6, 3))
    {'red': 9, 'blue': 9, 'green': 3}
    >>> split_prizes({"red": 2, "blue": 2, "green": 2, "pink": 1}, (12, 6, 3))
    {'red': 7, 'blue': 7, 'green': 7, 'pink': 0}
    >>> split_prizes({"red": 0, "blue": 1}, (12, 6))
    {'red': 0, 'blue': 12}
    """
    out = {p: 0 for p in values}
    place = 0
    ranked = rank_groups([p for p in values if values[p] > 0], values.__getitem__)
    for group in ranked:
        pool = sum(prizes[place : place + len(group)])
        for p in group:
            out[p] = pool // len(group)
        place += len(group)
    return out
