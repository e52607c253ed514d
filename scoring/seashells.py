"""Seashells — final scoring (simple / advanced), Sun-shell tie-break, and the bucket's moves.

Shapes: ``shared/contracts/seashells.md``. Rules: ``shared/rules/seashells.md``.

State fields (all optional except ``players``): ``scoring`` (``"simple"`` default, or
``"advanced"``), ``shapes`` / ``colours`` (the vocabulary; default the 7 + 7 of the
contract), ``sun`` ``{"shape", "colour"}``, ``players`` (list of mats), ``beach`` (a board
scan during play), ``stroll`` (stroll mode's ring, see below).

Setup fields (fill what the state lacks; the state wins): ``scoring``, ``sun``, ``player``
(the name of a single scanned mat named ``"mat"``), ``secret`` (that player's secret cards),
``secrets`` (``{player: {"shapes": [...], "colours": [...]}}``). A player whose secret cards
are unknown is scored with none (``secrets_known: false``).

Stroll mode (our own small shape, optional)::

    "stroll": {"items": [{"item": "shell", "shape": "conch", "colour": "blue"},
                         {"item": "sand_dollar"}, ...],
               "shovels_at": 5, "shovels": 3}

``items``: the ring clockwise, starting with the item just after the bucket.
``shovels_at``: how many items the bucket moves over before it reaches the shovel pile
(``len(items)`` when the bucket stands on the pile). ``shovels``: shovels left (0..3). A move
of ``s`` steps (1..4) lands on ``items[s-1]`` and passes the pile when ``s > shovels_at``;
passing it with one shovel left ends the game.

Item vocabulary (beach and stroll): ``shell`` (with ``shape`` and ``colour``),
``fossil_head``, ``fossil_tail``, ``sand_dollar``, ``bottle``.

Zero ruling: a player holding none of a category earns no coin for it; a category nobody
holds scores nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.checks import Problems, show
from scoring.ranking import rank_groups

SHAPES = ("scallop", "conch", "whelk", "cowrie", "oyster", "starfish", "shape7")
COLOURS = ("yellow", "blue", "green", "orange", "pink", "white", "violet")
ITEMS = ("shell", "fossil_head", "fossil_tail", "sand_dollar", "bottle")
BOX = {"fossil_heads": 3, "fossil_tails": 3, "sand_dollars": 5, "bottles": 4}
BASKET = ("fossil_heads", "fossil_tails", "sand_dollars", "bottles")
ITEM_OF = {"fossil_heads": "fossil_head", "fossil_tails": "fossil_tail", "sand_dollars": "sand_dollar", "bottles": "bottle"}
STROLL_STEPS = 4
VOCAB_MAX = 7  # 7 shapes × 7 colours = 49 shells, one of each
BEACH_SIZE = 8  # the beach board is 8×8 = 64 spaces
RING_MAX = 64  # a stroll ring holds at most every item of the box
SECRETS_MAX = 2  # secret cards per player and kind (2 only in a 2-player game)


@dataclass(frozen=True)
class Mat:
    """One player's collection at the end of the game."""

    player: str
    shells: tuple[tuple[str, str], ...]
    fossil_heads: int
    fossil_tails: int
    sand_dollars: int
    bottles: int
    secret_shapes: tuple[str, ...]
    secret_colours: tuple[str, ...]
    secrets_known: bool

    def holds(self, kind: str, name: str) -> int:
        """How many of a category (``kind`` "shape" or "colour") the player has, secret cards included.

        >>> Mat("ana", (("conch", "pink"), ("whelk", "pink")), 0, 0, 0, 0, ("conch",), (), True).holds("shape", "conch")
        2
        """
        i = 0 if kind == "shape" else 1
        secret = self.secret_shapes if kind == "shape" else self.secret_colours
        return sum(1 for s in self.shells if s[i] == name) + secret.count(name)


def category_coins(counts: dict[str, int], scoring: str) -> dict[str, int]:
    """Coins of one shape or colour category, per player.

    Simple: the player(s) with most earn 3. Advanced: a single leader earns 3 and the
    player(s) tied for second earn 1; several tied for most earn 1 each and nobody earns a
    second-place coin. A player with 0 earns nothing (our zero ruling).
    Source: shared/rules/seashells.md §Scoring.

    >>> category_coins({"a": 3, "b": 1, "c": 1}, "advanced")
    {'a': 3, 'b': 1, 'c': 1}
    >>> category_coins({"a": 2, "b": 2, "c": 1}, "advanced")
    {'a': 1, 'b': 1, 'c': 0}
    >>> category_coins({"a": 2, "b": 2, "c": 1}, "simple")
    {'a': 3, 'b': 3, 'c': 0}
    >>> category_coins({"a": 1, "b": 0}, "advanced")
    {'a': 3, 'b': 0}
    """
    out = {p: 0 for p in counts}
    groups = rank_groups([p for p in counts if counts[p] > 0], counts.__getitem__)
    if not groups:
        return out
    first = groups[0]
    if scoring == "simple":
        for p in first:
            out[p] = 3
    elif len(first) > 1:
        for p in first:
            out[p] = 1
    else:
        out[first[0]] = 3
        for p in groups[1] if len(groups) > 1 else []:
            out[p] = 1
    return out


def _vocab(p: Problems, raw: object, where: str, default: tuple[str, ...]) -> tuple[str, ...]:
    if raw is None:
        return default
    raw = p.need_list(raw, where)
    if raw is not None and not 1 <= len(raw) <= VOCAB_MAX:
        p.add(f"{where}: expected 1..{VOCAB_MAX} names (the game has 7), got {len(raw)}")
        return default
    items = [p.need_str(x, f"{where}[{i}]") for i, x in enumerate(raw or [])]
    if len(set(items)) != len(items):
        p.add(f"{where}: names must be unique, got {show(items)}")
    return tuple(x for x in items if x) or default


def _pick(key: str, state: dict, setup: dict | None):
    return state[key] if state.get(key) is not None else (setup or {}).get(key)


def read_state(state: dict, setup: dict | None = None) -> dict:
    """Check a Seashells state (and setup); return its parts as plain Python objects.

    Returns:
        ``{"scoring", "shapes", "colours", "sun", "mats", "beach", "stroll"}``.
    Raises:
        InvalidStateError: listing every problem.
    """
    p = Problems()
    raw_scoring = _pick("scoring", state, setup)
    scoring = "simple" if raw_scoring is None else p.need_str(raw_scoring, "scoring", ("simple", "advanced")) or "simple"
    shapes = _vocab(p, state.get("shapes"), "shapes", SHAPES)
    colours = _vocab(p, state.get("colours"), "colours", COLOURS)
    sun = None
    raw_sun = _pick("sun", state, setup)
    if raw_sun is not None and p.need_dict(raw_sun, "sun") is not None:
        s = p.need_str(raw_sun.get("shape"), "sun.shape", shapes)
        c = p.need_str(raw_sun.get("colour"), "sun.colour", colours)
        sun = (s, c) if s and c else None
    mats = _read_mats(p, state, setup, shapes, colours, sun)
    beach = _read_beach(p, state.get("beach"), shapes, colours, mats, sun)
    stroll = _read_stroll(p, state.get("stroll"), shapes, colours)
    _check_box(p, mats, beach, stroll)
    p.raise_if_any()
    return {"scoring": scoring, "shapes": shapes, "colours": colours, "sun": sun, "mats": mats,
            "beach": beach, "stroll": stroll}


def _read_item(p: Problems, raw: object, where: str, shapes, colours) -> dict | None:
    if p.need_dict(raw, where) is None:
        return None
    kind = p.need_str(raw.get("item"), f"{where}.item", ITEMS)
    if kind == "shell":
        s = p.need_str(raw.get("shape"), f"{where}.shape", shapes)
        c = p.need_str(raw.get("colour"), f"{where}.colour", colours)
        return {"item": "shell", "shape": s, "colour": c} if s and c else None
    return {"item": kind} if kind else None


def _read_secret(p: Problems, raw: object, where: str, shapes, colours) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if p.need_dict(raw, where) is None:
        return (), ()
    out = []
    for kind, names in (("shapes", shapes), ("colours", colours)):
        cards = p.need_list(raw.get(kind, []), f"{where}.{kind}") or []
        if len(cards) > SECRETS_MAX:
            p.add(f"{where}.{kind}: {len(cards)} secret cards; a player has at most {SECRETS_MAX}")
            cards = []
        got = [p.need_str(x, f"{where}.{kind}[{i}]", names) for i, x in enumerate(cards)]
        if len(set(got)) != len(got):
            p.add(f"{where}.{kind}: the same secret card twice, got {show(got)}")
        out.append(tuple(x for x in got if x))
    return out[0], out[1]


def _read_mats(p: Problems, state: dict, setup: dict | None, shapes, colours, sun) -> list[Mat]:
    raw_players = p.need_list(state.get("players"), "players") or []
    setup = setup or {}
    secrets = setup.get("secrets")
    if secrets is None or p.need_dict(secrets, "setup.secrets") is None:
        secrets = {}
    setup_name = p.need_name(setup["player"], "setup.player") if "player" in setup else None
    mats: list[Mat] = []
    owners: dict[tuple[str, str], str] = {}
    for i, raw in enumerate(raw_players):
        where = f"players[{i}]"
        if p.need_dict(raw, where) is None:
            continue
        name = p.need_name(raw.get("player"), f"{where}.player")
        if name == "mat" and len(raw_players) == 1 and setup_name:
            name = setup_name
        if name is None:
            continue
        if any(m.player == name for m in mats):
            p.add(f"{where}.player: {show(name)} listed twice")
        shells = []
        for j, s in enumerate(p.need_list(raw.get("shells", []), f"{where}.shells") or []):
            if not isinstance(s, (list, tuple)) or len(s) != 2:
                p.add(f"{where}.shells[{j}]: expected [shape, colour], got {show(s)}")
                continue
            shape = p.need_str(s[0], f"{where}.shells[{j}] shape", shapes)
            colour = p.need_str(s[1], f"{where}.shells[{j}] colour", colours)
            if not (shape and colour):
                continue
            if (shape, colour) in owners:
                p.add(f"{where}.shells[{j}]: there is one {colour} {shape}; {owners[(shape, colour)]} holds it already")
                continue
            if sun == (shape, colour):
                p.add(f"{where}.shells[{j}]: the {colour} {shape} lies on the Sun tile")
            owners[(shape, colour)] = name
            shells.append((shape, colour))
        basket = {k: p.need_int(raw.get(k, 0), f"{where}.{k}", lo=0, hi=BOX[k]) or 0 for k in BASKET}
        raw_secret = raw.get("secret")
        if raw_secret is None:
            raw_secret = secrets.get(name, setup.get("secret") if len(raw_players) == 1 else None)
        known = raw_secret is not None
        s_shapes, s_colours = _read_secret(p, raw_secret, f"{where}.secret", shapes, colours) if known else ((), ())
        for kind, cards in (("shape", s_shapes), ("colour", s_colours)):
            for card in cards:
                other = next((m.player for m in mats if card in (m.secret_shapes if kind == "shape" else m.secret_colours)), None)
                if other is not None:
                    p.add(f"{where}.secret: there is one {card} {kind} card; {other} holds it already")
        mats.append(Mat(name, tuple(shells), basket["fossil_heads"], basket["fossil_tails"], basket["sand_dollars"],
                        basket["bottles"], s_shapes, s_colours, known))
    return mats


def _read_beach(p: Problems, raw: object, shapes, colours, mats: list[Mat], sun) -> dict | None:
    if raw is None or p.need_dict(raw, "beach") is None:
        return None
    rows = p.need_int(raw.get("rows", BEACH_SIZE), "beach.rows", lo=1, hi=BEACH_SIZE)
    cols = p.need_int(raw.get("cols", BEACH_SIZE), "beach.cols", lo=1, hi=BEACH_SIZE)
    if rows is None or cols is None:
        return None
    held = {s for m in mats for s in m.shells}
    items: dict[tuple[int, int], dict] = {}
    for i, it in enumerate(p.need_list(raw.get("items", []), "beach.items") or []):
        where = f"beach.items[{i}]"
        item = _read_item(p, it, where, shapes, colours)
        cell = p.need_cell(it.get("cell") if isinstance(it, dict) else None, f"{where}.cell", rows, cols)
        if item is None or cell is None:
            continue
        if cell in items:
            p.add(f"{where}: cell {list(cell)} already holds an item")
            continue
        if item["item"] == "shell" and ((item["shape"], item["colour"]) in held or (item["shape"], item["colour"]) == sun):
            p.add(f"{where}: the {item['colour']} {item['shape']} at {list(cell)} is already collected, "
                  "on the beach or on the Sun tile")
        elif item["item"] == "shell":
            held.add((item["shape"], item["colour"]))
        items[cell] = item
    bucket = p.need_cell(raw.get("bucket"), "beach.bucket", rows, cols)
    if bucket is not None and bucket in items:
        p.add(f"beach.bucket: the bucket stands on an item at {list(bucket)}")
    return {"rows": rows, "cols": cols, "items": items, "bucket": bucket}


def _read_stroll(p: Problems, raw: object, shapes, colours) -> dict | None:
    if raw is None or p.need_dict(raw, "stroll") is None:
        return None
    raw_items = p.need_list(raw.get("items", []), "stroll.items") or []
    if len(raw_items) > RING_MAX:
        p.add(f"stroll.items: {len(raw_items)} items; the box has {RING_MAX}")
        raw_items = []
    items = [_read_item(p, it, f"stroll.items[{i}]", shapes, colours) for i, it in enumerate(raw_items)]
    items = [x for x in items if x]
    at = p.need_int(raw.get("shovels_at", len(items)), "stroll.shovels_at", lo=0, hi=len(items))
    left = p.need_int(raw.get("shovels", 3), "stroll.shovels", lo=0, hi=3)
    return {"items": items, "shovels_at": at if at is not None else len(items), "shovels": left if left is not None else 0}


def _check_box(p: Problems, mats: list[Mat], beach: dict | None, stroll: dict | None) -> None:
    """The box holds 3 fossil heads, 3 tails, 5 sand dollars, 4 bottles."""
    for key, most in BOX.items():
        n = sum(getattr(m, key) for m in mats)
        for place in ([beach["items"].values()] if beach else []) + ([stroll["items"]] if stroll else []):
            n += sum(1 for it in place if it["item"] == ITEM_OF[key])
        if n > most:
            p.add(f"{key}: {n} counted in all, the box has {most}")


def validate(state: dict, setup: dict | None = None) -> None:
    """Check a Seashells state (and setup) strictly.

    Checks: scoring mode, vocabulary, each shell a known [shape, colour] held once in all
    (and not the Sun shell), basket counts 0..box size and their sum over players (and
    beach), secret cards in the vocabulary, the beach (cells on the grid, one item per cell,
    bucket on an empty cell) and the stroll ring.

    Raises:
        InvalidStateError: with ``.problems`` listing every problem.

    >>> validate({"game": "seashells", "players": [{"player": "a", "shells": [["conch", "teal"]], "sand_dollars": 6}]})
    Traceback (most recent call last):
    ...
    scoring.errors.InvalidStateError: invalid state: players[0].shells[0] colour: unknown value 'teal'; expected one of yellow, blue, green, orange, pink, white, violet; players[0].sand_dollars: expected an integer 0..5, got 6
    """
    read_state(state, setup)


def score(state: dict, setup: dict | None = None) -> dict:
    """Score the mats: category coins, fossil pairs, sand dollars, ranking with the Sun tie-break.

    Returns:
        ``{"players": [{"player", "categories", "fossil_pairs", "fossil_points",
        "sand_dollar_points", "total", "sun_matches", "secrets_known"}], "ranking",
        "winners", "tie_break", "scoring", "game_over", "legal_moves", "stroll", "rules"}``.
        ``categories`` keeps only non-zero coins (``"shape:conch"``, ``"colour:pink"``);
        ``sun_matches`` is null when the Sun shell is unknown; ``game_over`` /
        ``legal_moves`` are null without a ``beach`` (``stroll`` null without a ring).
    Raises:
        InvalidStateError: the state is invalid (see ``validate``).
    Source: shared/rules/seashells.md §Scoring.

    >>> out = score({"game": "seashells", "scoring": "advanced", "sun": {"shape": "conch", "colour": "pink"},
    ...     "players": [{"player": "ana", "shells": [["scallop", "blue"], ["whelk", "pink"]], "sand_dollars": 1},
    ...                 {"player": "ben", "shells": [["scallop", "white"]], "fossil_heads": 1, "fossil_tails": 1}]})
    >>> [(x["player"], x["categories"], x["total"], x["sun_matches"]) for x in out["players"]]
    [('ana', {'shape:scallop': 1, 'shape:whelk': 3, 'colour:blue': 3, 'colour:pink': 3}, 11, 1), ('ben', {'shape:scallop': 1, 'colour:white': 3}, 7, 0)]
    """
    parts = read_state(state, setup)
    mats: list[Mat] = parts["mats"]
    coins = {m.player: {} for m in mats}
    for kind, names in (("shape", parts["shapes"]), ("colour", parts["colours"])):
        for name in names:
            won = category_coins({m.player: m.holds(kind, name) for m in mats}, parts["scoring"])
            for who, n in won.items():
                if n:
                    coins[who][f"{kind}:{name}"] = n
    rows = []
    for m in mats:
        pairs = min(m.fossil_heads, m.fossil_tails)
        total = sum(coins[m.player].values()) + 3 * pairs + m.sand_dollars
        sun = parts["sun"]
        matches = None if sun is None else m.holds("shape", sun[0]) + m.holds("colour", sun[1])
        rows.append({"player": m.player, "categories": coins[m.player], "fossil_pairs": pairs,
                     "fossil_points": 3 * pairs, "sand_dollar_points": m.sand_dollars, "total": total,
                     "sun_matches": matches, "secrets_known": m.secrets_known})
    ranking, note = _rank(rows)
    beach = parts["beach"]
    moves = legal_moves(beach) if beach else None
    stroll = stroll_moves(parts["stroll"]) if parts["stroll"] else None
    game_over = (not moves) if beach else (stroll["game_over"] if stroll else None)
    return {"players": rows, "ranking": ranking, "winners": ranking[0] if ranking else [], "tie_break": note,
            "scoring": parts["scoring"], "game_over": game_over, "legal_moves": moves, "stroll": stroll,
            "rules": _rules(parts["scoring"])}


def _rank(rows: list[dict]) -> tuple[list[list[str]], str | None]:
    total = {r["player"]: r["total"] for r in rows}
    sun = {r["player"]: r["sun_matches"] for r in rows}
    ranking, notes = [], []
    for group in rank_groups(total, total.__getitem__):
        if len(group) > 1 and all(sun[p] is not None for p in group):
            split = rank_groups(group, sun.__getitem__)
            if len(split) > 1:
                notes.append("Sun shell matches: " + ", ".join(f"{p} {sun[p]}" for g in split for p in g))
            ranking += split
        else:
            if len(group) > 1:
                notes.append(f"{', '.join(group)} tied; Sun shell unknown: shared")
            ranking.append(group)
    return ranking, "; ".join(notes) or None


def _rules(scoring: str) -> list[str]:
    first = ("simple: most of a shape / colour earns 3 (all tied players)" if scoring == "simple" else
             "advanced: a single leader earns 3 and those tied for second 1; several tied for most earn 1 each")
    return [first, "secret cards count as one more of their shape / colour",
            "a player with none of a category earns nothing for it",
            "fossil pair (head + tail) 3, sand dollar 1",
            "tie: most shells matching the Sun shell's shape plus its colour; still tied → shared"]


def legal_moves(beach: dict) -> list[list[int]]:
    """Cells the bucket may move to: every item in its row or column, any distance.

    >>> legal_moves({"items": {(0, 3): {"item": "bottle"}, (2, 2): {"item": "bottle"}, (4, 0): {"item": "bottle"}},
    ...              "bucket": (4, 3)})
    [[0, 3], [4, 0]]
    """
    br, bc = beach["bucket"]
    return [list(cell) for cell in sorted(beach["items"]) if cell[0] == br or cell[1] == bc]


def stroll_moves(ring: dict) -> dict:
    """Stroll mode: the items the bucket can land on (1..4 steps clockwise) and the game end.

    >>> out = stroll_moves({"items": [{"item": "bottle"}, {"item": "sand_dollar"}], "shovels_at": 1, "shovels": 1})
    >>> out["game_over"], [(m["steps"], m["passes_shovels"], m["ends_game"]) for m in out["moves"]]
    (False, [(1, False, False), (2, True, True)])
    """
    items, at, left = ring["items"], ring["shovels_at"], ring["shovels"]
    over = left == 0 or not items
    moves = []
    if not over:
        for s in range(1, min(STROLL_STEPS, len(items)) + 1):
            passes = s > at
            moves.append({"steps": s, "item": items[s - 1], "passes_shovels": passes, "ends_game": passes and left == 1})
    return {"game_over": over, "shovels": left, "moves": moves}


def explain(state: dict, setup: dict | None = None) -> str:
    """Text a player can check: counts and coins per category, fossils, totals, ranking."""
    parts = read_state(state, setup)
    out = score(state, setup)
    mats = parts["mats"]
    lines = [f"Seashells, {parts['scoring']} scoring."]
    for kind, names in (("shape", parts["shapes"]), ("colour", parts["colours"])):
        for name in names:
            held = ", ".join(f"{m.player} {m.holds(kind, name)}" for m in mats)
            won = ", ".join(f"{r['player']} +{r['categories'][f'{kind}:{name}']}" for r in out["players"]
                            if f"{kind}:{name}" in r["categories"]) or "nobody"
            lines.append(f"{name}: {held} → {won}")
    for r in out["players"]:
        secret = "" if r["secrets_known"] else " (secret cards unknown: counted as none)"
        lines.append(f"{r['player']}: categories {sum(r['categories'].values())}, fossil pairs {r['fossil_pairs']} × 3, "
                     f"sand dollars {r['sand_dollar_points']} → {r['total']} coins{secret}")
    lines.append("Ranking: " + "; ".join(f"{i}. {', '.join(g)}" for i, g in enumerate(out["ranking"], 1)))
    if out["tie_break"]:
        lines.append(f"Tie-break: {out['tie_break']}")
    if out["game_over"] is not None:
        lines.append("Game over: no item in the bucket's row or column." if out["game_over"]
                     else f"Bucket can move to {len(out['legal_moves'] or [])} item(s).")
    return "\n".join(lines)


def complete_state(state: dict, setup: dict | None = None) -> dict:
    """The state with what the setup fills in: ``scoring``, ``sun``, a lone mat's player name and
    each player's ``secret`` cards, where the state has none; a copy.

    >>> complete_state({"game": "seashells", "players": [{"player": "mat", "shells": []}]},
    ...                {"player": "ana", "scoring": "advanced"})["players"][0]["player"]
    'ana'
    """
    setup = setup if isinstance(setup, dict) else {}
    out = dict(state)
    for key in ("scoring", "sun"):
        if out.get(key) is None and setup.get(key) is not None:
            out[key] = setup[key]
    players = out.get("players")
    if not isinstance(players, list):
        return out
    secrets = setup.get("secrets") if isinstance(setup.get("secrets"), dict) else {}
    filled = []
    for raw in players:
        raw = dict(raw) if isinstance(raw, dict) else raw
        if isinstance(raw, dict):
            if raw.get("player") == "mat" and len(players) == 1 and isinstance(setup.get("player"), str):
                raw["player"] = setup["player"]
            if raw.get("secret") is None:
                secret = secrets.get(raw.get("player")) if isinstance(raw.get("player"), str) else None
                if secret is None and len(players) == 1:
                    secret = setup.get("secret")
                if secret is not None:
                    raw["secret"] = secret
        filled.append(raw)
    out["players"] = filled
    return out
