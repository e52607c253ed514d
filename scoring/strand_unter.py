"""Strand unter — end scoring of the beach: castles, unfit shells, ranking with tie-break.

Shapes: ``shared/contracts/strand-unter.md``. Rules: ``shared/rules/strand-unter.md``.

Decisions (recorded in the score's ``rules``):

- castle points = groove + value (the rulebook's addition). Multiplication only with the
  house rule ``setup["house_rules"]["multiply"] = True``, echoed as ``house_rules``.
- unfit shells need the player's bucket *and* face-up cards; when either is unknown,
  ``unfit_shells`` and ``total`` are ``null`` (``castle_points`` is always a number).
- ranking is by ``total`` when every player's total is known, else by ``castle_points``
  (``ranked_by`` says which); ties are broken groove by groove from the sea landwards by the
  tied players' castle points in that groove; still tied after groove 1 → shared rank.
- a castle needs its groove visible (below ``sea_front``); a player has one castle per value
  and no face-up card for a castle that stands on the beach.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.checks import Problems, counts_dict, show
from scoring.ranking import rank_groups

COLOURS = ("white", "gray", "brown", "black")
NEEDS_KEYS = COLOURS + ("any",)
GROOVES = 11
SHELLS_PER_COLOUR = 20  # 80 shells, 20 of each colour (shared/rules/strand-unter.md §Components)
CARD_NEEDS_MAX = 7  # a value-3 card, the biggest, needs 7 shells


@dataclass(frozen=True)
class Castle:
    """A castle standing in a visible groove."""

    player: str
    value: int
    groove: int

    def points(self, multiply: bool = False) -> int:
        """Beach points: groove + value (house rule: groove × value).

        >>> Castle("red", 3, 6).points(), Castle("red", 3, 6).points(multiply=True)
        (9, 18)
        """
        return self.groove * self.value if multiply else self.groove + self.value


@dataclass(frozen=True)
class Hand:
    """Off-board facts of a player: bucket counts and face-up cards' needs (None = unknown)."""

    bucket: dict[str, int] | None
    open_cards: tuple[tuple[int, dict[str, int]], ...] | None


def unfit_shells(bucket: dict[str, int], cards: list[dict[str, int]] | tuple[dict[str, int], ...]) -> int:
    """Shells left in the bucket that find no space on the face-up cards (placed optimally).

    fitted = Σ_colour min(have, coloured spaces) + min(wildcard spaces, leftover shells).
    Source: shared/rules/strand-unter.md §End scoring 2.

    >>> unfit_shells({"white": 3, "black": 1}, [{"white": 2, "gray": 1, "any": 1}])
    1
    >>> unfit_shells({"white": 2}, [])
    2
    >>> unfit_shells({"brown": 1, "gray": 1}, [{"brown": 1}, {"gray": 1}])
    0
    """
    spaces = {c: sum(card.get(c, 0) for card in cards) for c in COLOURS}
    wild = sum(card.get("any", 0) for card in cards)
    have = sum(bucket.get(c, 0) for c in COLOURS)
    coloured = sum(min(bucket.get(c, 0), spaces[c]) for c in COLOURS)
    return have - coloured - min(wild, have - coloured)


def read_state(state: dict, setup: dict | None = None) -> tuple[int, int | None, list[Castle], dict[str, Hand], bool]:
    """Check the state (and setup); return sea front, sandpiper, castles, hands, multiply.

    Raises:
        InvalidStateError: listing every problem.
    """
    p = Problems()
    sea = p.need_int(state.get("sea_front"), "sea_front", lo=1, hi=GROOVES + 1)
    bird = state.get("sandpiper")
    if bird is not None:
        bird = p.need_int(bird, "sandpiper", lo=1, hi=GROOVES)
        if bird is not None and sea is not None and bird >= sea:
            p.add(f"sandpiper: groove {bird} is under the sea (sea_front {sea})")
    castles: list[Castle] = []
    numbers: list[int] = []
    shells = {c: 0 for c in COLOURS}
    if "grooves" not in state:
        p.add("grooves: missing; list every visible groove (1 … sea_front−1), in order, even when empty")
    raw_grooves = p.need_list(state.get("grooves"), "grooves") if "grooves" in state else None
    for i, g in enumerate(raw_grooves or []):
        where = f"grooves[{i}]"
        if p.need_dict(g, where) is None:
            continue
        n = p.need_int(g.get("number"), f"{where}.number", lo=1, hi=GROOVES)
        if n is not None:
            if n in numbers:
                p.add(f"{where}.number: groove {n} listed twice")
            elif sea is not None and n >= sea:
                p.add(f"{where}: groove {n} is under the sea (sea_front {sea}) and cannot be seen")
            else:
                numbers.append(n)
        if "shells" in g:
            here = counts_dict(p, g["shells"], f"{where}.shells", COLOURS, hi=SHELLS_PER_COLOUR)
            for colour, k in (here or {}).items():
                shells[colour] += k
        for j, c in enumerate(p.need_list(g.get("castles", []), f"{where}.castles") or []):
            if p.need_dict(c, f"{where}.castles[{j}]") is None:
                continue
            who = p.need_name(c.get("player"), f"{where}.castles[{j}].player")
            value = p.need_int(c.get("value"), f"{where}.castles[{j}].value", lo=0, hi=3)
            if who is not None and value is not None and n is not None:
                twin = next((x for x in castles if x.player == who and x.value == value), None)
                if twin:
                    p.add(f"{where}.castles[{j}]: {who} has only one castle of value {value}; "
                          f"it already stands in groove {twin.groove}")
                else:
                    castles.append(Castle(who, value, n))
    if raw_grooves is not None and sea is not None:
        _check_groove_list(p, numbers, sea)
    hands = _read_hands(p, state, setup, castles)
    for hand in hands.values():
        for colour, k in (hand.bucket or {}).items():
            shells[colour] += k
    for colour, k in shells.items():
        if k > SHELLS_PER_COLOUR:
            p.add(f"shells: {k} {colour} counted in the grooves and buckets; the game has {SHELLS_PER_COLOUR} of each colour")
    multiply = False
    house = state["house_rules"] if "house_rules" in state else (setup or {}).get("house_rules")
    if house is not None and p.need_dict(house, "house_rules") is not None:
        multiply = bool(p.need_bool(house.get("multiply", False), "house_rules.multiply"))
    p.raise_if_any()
    return sea, bird, castles, hands, multiply


def _check_groove_list(p: Problems, numbers: list[int], sea: int) -> None:
    """Every visible groove 1 … sea−1 listed once, in order (``numbers``: the valid ones seen)."""
    missing = [n for n in range(1, sea) if n not in numbers]
    if missing:
        p.add(f"grooves: groove{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} missing; "
              f"list every visible groove 1 … {sea - 1} (sea_front {sea}), even when empty")
    if numbers != sorted(numbers):
        p.add(f"grooves: listed in the order {numbers}; list them in order from groove 1")


def _read_hands(p: Problems, state: dict, setup: dict | None, castles: list[Castle]) -> dict[str, Hand]:
    """Merge players' off-board facts: per player and field, the state wins over the setup."""
    sources = []
    for name, obj in (("players", state.get("players")), ("setup.players", (setup or {}).get("players"))):
        sources.append((name, p.need_dict(obj, name) if obj is not None else {}))
    hands: dict[str, Hand] = {}
    for who in dict.fromkeys(k for _, d in sources for k in (d or {})):
        if p.need_name(who, f"players[{show(who)}]") is None:
            continue
        fields: dict[str, object] = {}
        for name, d in sources:
            raw = (d or {}).get(who)
            if raw is None or p.need_dict(raw, f"{name}.{who}") is None:
                continue
            for key in ("bucket", "open_cards"):
                if key in raw and key not in fields:
                    fields[key] = (raw[key], f"{name}.{who}.{key}")
        bucket = None
        if "bucket" in fields:
            bucket = counts_dict(p, *fields["bucket"], COLOURS, hi=SHELLS_PER_COLOUR)
        cards = None
        if "open_cards" in fields:
            cards = _read_cards(p, *fields["open_cards"], who, castles)
        hands[who] = Hand(bucket, cards)
    return hands


def _read_cards(p: Problems, raw: object, where: str, who: str, castles: list[Castle]) -> tuple | None:
    out = []
    values = set()
    for k, card in enumerate(p.need_list(raw, where) or []):
        if p.need_dict(card, f"{where}[{k}]") is None:
            continue
        value = p.need_int(card.get("value"), f"{where}[{k}].value", lo=0, hi=3)
        needs = counts_dict(p, card.get("needs", {}), f"{where}[{k}].needs", NEEDS_KEYS, hi=CARD_NEEDS_MAX)
        if needs is not None and sum(needs.values()) > CARD_NEEDS_MAX:
            p.add(f"{where}[{k}].needs: {sum(needs.values())} shells; a card needs at most {CARD_NEEDS_MAX}")
            needs = None
        if value is not None:
            if value in values:
                p.add(f"{where}[{k}]: {who} has only one card of value {value}")
            values.add(value)
            standing = next((c for c in castles if c.player == who and c.value == value), None)
            if standing:
                p.add(f"{where}[{k}]: card {value} is face up but {who}'s castle {value} "
                      f"stands in groove {standing.groove}")
        if value is not None and needs is not None:
            out.append((value, needs))
    return tuple(out)


def validate(state: dict, setup: dict | None = None) -> None:
    """Check a Strand unter state (and setup) strictly.

    Checks: ``sea_front`` 1..12, ``sandpiper`` null or a visible groove, ``grooves`` given
    and listing every visible groove 1 … sea_front−1 once, in order, none under the sea;
    shell colours white/gray/brown/black, at most 20 of a colour in the grooves and buckets
    together; castles (player name, value 0..3) once per player and value; buckets and
    face-up cards (value 0..3, needs per colour or ``any``, at most 7 shells a card, no
    face-up card for a standing castle).

    Raises:
        InvalidStateError: with ``.problems`` listing every problem.

    >>> validate({"game": "strand-unter", "sea_front": 3, "grooves": [{"number": 1},
    ...     {"number": 3, "castles": [{"player": "red", "value": 4}]}]})
    Traceback (most recent call last):
    ...
    scoring.errors.InvalidStateError: invalid state: grooves[1]: groove 3 is under the sea (sea_front 3) and cannot be seen; grooves[1].castles[0].value: expected an integer 0..3, got 4; grooves: groove 2 missing; list every visible groove 1 … 2 (sea_front 3), even when empty
    """
    read_state(state, setup)


def score(state: dict, setup: dict | None = None) -> dict:
    """Score the beach: castle points, unfit shells, totals, ranking, winners, tie-break.

    Returns:
        ``{"players": [{"player", "castles": [{"groove", "value", "points"}], "castle_points",
        "unfit_shells", "total"}], "ranking": [[...]], "winners": [...], "tie_break": str|None,
        "ranked_by": "total"|"castle_points", "house_rules": {"multiply": bool}, "rules": [...]}``.
        Players appear in the order they are first named (``players`` of the state, setup
        players, then castles groove by groove).
    Raises:
        InvalidStateError: the state is invalid (see ``validate``).
    Source: shared/rules/strand-unter.md §End scoring.

    >>> grooves = [{"number": n, "castles": []} for n in range(1, 8)]
    >>> grooves[5]["castles"] = [{"player": "ann", "value": 1}, {"player": "bob", "value": 3}]
    >>> grooves[2]["castles"] = [{"player": "ann", "value": 3}]
    >>> out = score({"game": "strand-unter", "sea_front": 8, "grooves": grooves})
    >>> [(p["player"], p["castle_points"], p["total"]) for p in out["players"]]
    [('ann', 13, None), ('bob', 9, None)]
    >>> out["ranking"], out["ranked_by"]
    ([['ann'], ['bob']], 'castle_points')
    """
    sea, _, castles, hands, multiply = read_state(state, setup)
    players = list(dict.fromkeys(list(hands) + [c.player for c in sorted(castles, key=lambda c: c.groove)]))
    rows = []
    for who in players:
        mine = sorted((c for c in castles if c.player == who), key=lambda c: (-c.groove, -c.value))
        points = sum(c.points(multiply) for c in mine)
        hand = hands.get(who)
        unfit = None
        if hand and hand.bucket is not None and hand.open_cards is not None:
            unfit = unfit_shells(hand.bucket, [needs for _, needs in hand.open_cards])
        rows.append({
            "player": who,
            "castles": [{"groove": c.groove, "value": c.value, "points": c.points(multiply)} for c in mine],
            "castle_points": points, "unfit_shells": unfit,
            "total": None if unfit is None else points - unfit,
        })
    by_total = bool(rows) and all(r["total"] is not None for r in rows)
    key = "total" if by_total else "castle_points"
    value = {r["player"]: r[key] for r in rows}
    visible = (sea or GROOVES + 1) - 1
    ranking, notes = _rank(players, value, castles, visible, multiply)
    return {
        "players": rows, "ranking": ranking, "winners": ranking[0] if ranking else [],
        "tie_break": "; ".join(notes) or None, "ranked_by": key,
        "house_rules": {"multiply": multiply}, "rules": _rules(multiply, by_total),
    }


def groove_points(castles: list[Castle], player: str, groove: int, multiply: bool = False) -> int:
    """A player's beach points in one groove (castles standing there)."""
    return sum(c.points(multiply) for c in castles if c.player == player and c.groove == groove)


def _rank(players: list[str], value: dict[str, int], castles: list[Castle], visible: int,
          multiply: bool) -> tuple[list[list[str]], list[str]]:
    """Rank by value; split ties groove by groove from ``visible`` down to groove 1."""
    notes: list[str] = []
    ranking: list[list[str]] = []
    for group in rank_groups(players, value.__getitem__):
        ranking += _break(group, castles, visible, multiply, notes)
    return ranking, notes


def _break(group: list[str], castles: list[Castle], groove: int, multiply: bool, notes: list[str]) -> list[list[str]]:
    if len(group) == 1:
        return [group]
    while groove >= 1:
        here = {p: groove_points(castles, p, groove, multiply) for p in group}
        if len(set(here.values())) > 1:
            notes.append(f"groove {groove}: " + ", ".join(f"{p} {here[p]}" for p in sorted(group, key=lambda p: -here[p])))
            out = []
            for sub in rank_groups(group, here.__getitem__):
                out += _break(sub, castles, groove - 1, multiply, notes)
            return out
        groove -= 1
    notes.append(f"{', '.join(group)} still tied after groove 1: shared rank")
    return [group]


def _rules(multiply: bool, by_total: bool) -> list[str]:
    rules = ["castle points = groove × value (house rule)" if multiply else "castle points = groove + value",
             "unfit shells: bucket shells without a space on the face-up cards, placed optimally; 1 point each",
             "tie: compare the tied players' castle points groove by groove from the sea landwards; "
             "still tied after groove 1 → shared"]
    if not by_total:
        rules.append("unfit shells unknown for some player: ranked by castle points")
    return rules


def explain(state: dict, setup: dict | None = None) -> str:
    """A text a player can check at the table: where the sea front and the sandpiper stand, each
    castle's value, groove and points, the unfit shells, each player's beach points, the ranking.

    Words as the rulebook's: castle points = groove + value of every castle standing on the beach;
    beach points = castle points − unfit shells (the total that wins).

    >>> grooves = [{"number": n, "castles": [{"player": "ann", "value": 2}] if n == 4 else []} for n in range(1, 12)]
    >>> print(explain({"game": "strand-unter", "sea_front": 12, "sandpiper": 3, "grooves": grooves,
    ...     "players": {"ann": {"bucket": {"white": 1}, "open_cards": []}}}))
    Sea front: none, the sea covers no groove (all 11 on the beach); sandpiper in groove 3.
    ann: value-2 castle in groove 4 (4 + 2 = 6) → castle points 6; unfit shells 1 → 5 beach points
    Ranking (by beach points): 1. ann
    """
    out = score(state, setup)
    multiply = out["house_rules"]["multiply"]
    sea, bird = state.get("sea_front"), state.get("sandpiper")
    if sea == GROOVES + 1:
        front = f"Sea front: none, the sea covers no groove (all {GROOVES} on the beach)"
    else:
        front = f"Sea front: groove {sea} (the sea covers grooves {sea}–{GROOVES}; 1–{sea - 1} on the beach)" \
            if sea > 1 else "Sea front: groove 1 (the sea covers every groove)"
    lines = [front + (f"; sandpiper in groove {bird}." if bird is not None else "; no sandpiper on the board.")]
    sign = "×" if multiply else "+"
    for r in out["players"]:
        parts = [f"value-{c['value']} castle in groove {c['groove']} ({c['groove']} {sign} {c['value']} = {c['points']})"
                 for c in r["castles"]]
        built = ", ".join(parts) or "no castle on the beach"
        if r["unfit_shells"] is None:
            unfit, total = "unfit shells unknown (bucket or face-up cards not given)", "beach points unknown"
        else:
            unfit, total = f"unfit shells {r['unfit_shells']}", f"{r['total']} beach points"
        lines.append(f"{r['player']}: {built} → castle points {r['castle_points']}; {unfit} → {total}")
    basis = "beach points" if out["ranked_by"] == "total" else "castle points"
    lines.append(f"Ranking (by {basis}): " + "; ".join(f"{i}. {', '.join(g)}" for i, g in enumerate(out["ranking"], 1)))
    if out["tie_break"]:
        lines.append(f"Tie-break (castle points groove by groove from the sea): {out['tie_break']}")
    return "\n".join(lines)


def complete_state(state: dict, setup: dict | None = None) -> dict:
    """The state with the players' off-board facts the setup gives (bucket, face-up cards) merged
    in, the state winning per player and field; a copy.

    >>> complete_state({"game": "strand-unter"}, {"players": {"red": {"bucket": {"white": 1}}}})["players"]
    {'red': {'bucket': {'white': 1}}}
    """
    given = setup.get("players") if isinstance(setup, dict) else None
    if not isinstance(given, dict):
        return dict(state)
    own = state.get("players") if isinstance(state.get("players"), dict) else {}
    merged = {}
    for who in dict.fromkeys([*own, *given]):
        mine, theirs = own.get(who), given.get(who)
        fields = dict(theirs) if isinstance(theirs, dict) else {}
        fields.update(mine if isinstance(mine, dict) else {})
        merged[who] = fields
    return {**state, "players": merged}
