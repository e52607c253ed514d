"""Seating the next round: random for the first, Swiss-style by standings after that.

Table sizes: ``table_size`` players (the event's ``seating``, default the game's largest table up
to 4). When the players do not fill such tables, ``uneven="smaller-tables"`` (default) spreads
them over ⌈N / size⌉ tables as evenly as possible (11 players at tables of 4: 4, 4, 3), bigger
tables first; ``uneven="byes"`` seats full tables only and gives the rest a bye. Any count the
game's range cannot seat (1 player, 5 at a game of 3–4) leaves the fewest players out with byes.
Byes go to the lowest-ranked players who have had the fewest byes.

Grouping after round 1 (players in standings order, table 1 first):

- 2-player tables: a minimum-cost perfect matching (networkx's blossom algorithm) where a pair
  costs the distance between the two players' places, plus a large penalty when they have
  already met; each player is linked to the next players in the standings only, which keeps the
  graph small and the pairs close.
- 3–4-player tables: each table takes the best-ranked player still unseated, then, one at a
  time, the player who adds the fewest repeat meetings, the better-ranked first. Then players are
  swapped between tables while a swap removes a repeat meeting at the cost of spreading the
  tables' places less than one repeat is worth (one repeat outweighs any spread).
- The leader (first in the standings) always sits at table 1.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations

from tournament.errors import RoundOpenError
from tournament.event import Event, Round, Table
from tournament.standings import standings

#: How many later players in the standings each player may be paired with (2-player tables).
MATCHING_WINDOW = 12
#: Improvement passes of the swap search (3–4-player tables).
SWAP_PASSES = 4


@dataclass(frozen=True)
class NextRound:
    """A seating proposal: the round's number, its tables (players in standings order) and byes."""

    number: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...]

    def to_round(self) -> Round:
        return Round(self.number, self.tables, self.byes)

    def to_json(self) -> dict:
        return {"round": self.number, "tables": [{"table": t.number, "players": list(t.players)} for t in self.tables],
                "byes": list(self.byes)}


def table_sizes(n: int, size: int, low: int, uneven: str = "smaller-tables") -> tuple[list[int], int]:
    """Table sizes for ``n`` players, biggest first, and how many players get a bye.

    >>> table_sizes(11, 4, 2), table_sizes(9, 4, 2), table_sizes(5, 4, 3), table_sizes(11, 4, 2, "byes")
    (([4, 4, 3], 0), ([3, 3, 3], 0), ([4], 1), ([4, 4], 3))
    >>> table_sizes(1, 4, 2), table_sizes(7, 2, 2)
    (([], 1), ([2, 2, 2], 1))
    """
    if uneven == "byes" or size == low:
        k = n // size
        return [size] * k, n - k * size
    for seated in range(n, 0, -1):
        k = -(-seated // size)
        if seated >= k * low:
            q, r = divmod(seated, k)
            return [q + 1] * r + [q] * (k - r), n - seated
    return [], n


def meetings(event: Event) -> dict[frozenset, int]:
    """How often each pair of players has sat at one table (played tables only)."""
    out: dict[frozenset, int] = {}
    for rnd in event.rounds:
        for t in rnd.tables:
            if t.result is not None:
                for a, b in combinations(t.players, 2):
                    key = frozenset((a, b))
                    out[key] = out.get(key, 0) + 1
    return out


def seat(event: Event, seed: int | None = None) -> NextRound:
    """Seat the round after the last one in the event.

    Every player who has not dropped is seated once or has a bye; table sizes stay within the
    game's range. With no result yet the draw is random (``seed`` makes it repeatable).

    Raises:
        RoundOpenError: the last round is still being played (a table without a result, or marked
            ``open`` by the hall): its standings are not final, so the next round waits for it.

    >>> from tournament.event import Event
    >>> ev = Event.from_json({"game": "strand-unter", "players": [{"id": f"p{i}", "name": f"P{i}"} for i in range(1, 10)]})
    >>> nxt = seat(ev, seed=1)
    >>> nxt.number, [len(t.players) for t in nxt.tables], nxt.byes
    (1, [3, 3, 3], ())
    >>> sorted(p for t in nxt.tables for p in t.players) == sorted(p.id for p in ev.players)
    True
    """
    if event.rounds and event.rounds[-1].is_open:
        raise RoundOpenError(event.rounds[-1].number, event.rounds[-1].waiting)
    number = 1 + max((r.number for r in event.rounds), default=0)
    rules = event.seating_rules
    low, _ = event.player_range
    active = [p.id for p in event.active_players]
    sizes, bye_count = table_sizes(len(active), rules.table_size, low, rules.uneven)
    played = any(r.is_played for r in event.rounds)
    if not played:
        order = list(active)
        random.Random(seed).shuffle(order)
        byes = order[len(order) - bye_count:] if bye_count else []
        seated = order[:len(order) - bye_count]
        groups, at = [], 0
        for size in sizes:
            groups.append(seated[at:at + size])
            at += size
    else:
        ranked = [s.player.id for s in standings(event) if not s.player.dropped]
        byes = _byes(event, ranked, bye_count)
        seated = [p for p in ranked if p not in byes]
        met = meetings(event)
        if sizes and all(s == 2 for s in sizes):
            groups = _pairs(seated, met)
        else:
            groups = _groups(seated, sizes, met)
    position = {p: i for i, p in enumerate(seated)}
    if played:
        groups = [sorted(g, key=position.__getitem__) for g in groups]
        groups.sort(key=lambda g: position[g[0]])
    tables = tuple(Table(i, tuple(g)) for i, g in enumerate(groups, 1))
    return NextRound(number, tables, tuple(byes))


def _byes(event: Event, ranked: list[str], count: int) -> list[str]:
    if not count:
        return []
    had = {p: sum(p in r.byes for r in event.rounds) for p in ranked}
    place = {p: i for i, p in enumerate(ranked)}
    return sorted(ranked, key=lambda p: (had[p], -place[p]))[:count]


def _pairs(players: list[str], met: dict[frozenset, int]) -> list[list[str]]:
    import networkx as nx

    n = len(players)
    graph = nx.Graph()
    penalty = 10 * n
    for i, a in enumerate(players):
        for j in range(i + 1, min(n, i + 1 + MATCHING_WINDOW)):
            b = players[j]
            cost = (j - i) + penalty * met.get(frozenset((a, b)), 0)
            graph.add_edge(a, b, weight=-cost)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = [list(pair) for pair in matching]
    if 2 * len(pairs) != n:  # cannot happen with a window of at least one neighbour; stay total anyway
        left = [p for p in players if not any(p in pair for pair in pairs)]
        pairs += [left[i:i + 2] for i in range(0, len(left), 2)]
    return pairs


def _groups(players: list[str], sizes: list[int], met: dict[frozenset, int]) -> list[list[str]]:
    place = {p: i for i, p in enumerate(players)}
    heavy = len(players) + 1  # one repeat meeting outweighs any spread of places

    def repeats(group: list[str]) -> int:
        return sum(met.get(frozenset(pair), 0) for pair in combinations(group, 2))

    def cost(group: list[str]) -> int:
        spread = max(place[p] for p in group) - min(place[p] for p in group)
        return heavy * repeats(group) + spread

    left = list(players)
    groups = []
    for size in sizes:
        group = [left.pop(0)]
        while len(group) < size:
            best = min(range(len(left)), key=lambda i: (sum(met.get(frozenset((left[i], g)), 0) for g in group), i))
            group.append(left.pop(best))
        groups.append(group)
    if not any(repeats(g) for g in groups):
        return groups
    leader = players[0]
    for _ in range(SWAP_PASSES):
        improved = False
        for a, b in combinations(range(len(groups)), 2):
            ga, gb = groups[a], groups[b]
            for i in range(len(ga)):
                for j in range(len(gb)):
                    if leader in (ga[i], gb[j]):
                        continue
                    before = cost(ga) + cost(gb)
                    na, nb = ga[:i] + [gb[j]] + ga[i + 1:], gb[:j] + [ga[i]] + gb[j + 1:]
                    if cost(na) + cost(nb) < before:
                        groups[a], groups[b] = ga, gb = na, nb
                        improved = True
        if not improved:
            break
    return groups
