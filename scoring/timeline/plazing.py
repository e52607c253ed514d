"""Plażing's timeline: what may change between two accepted readings, and what the game learns.

Rules (``shared/rules/plazing.md``): a placed piece never moves, turns or leaves; an area, once
closed, stays closed and nobody places pieces inside it; resources (and trash) only leave the
board, and only from closed areas: those that leave an owned area are collected by its owner,
those of a neutral area leave the game; a meeple or a neutral marker, once put in, stays. The
player whose piece closed an area gets the closing point.

The facts (the shapes of ``setup.json``, ``shared/contracts/plazing.md``): ``closings`` (areas
each player closed), ``collected`` (resources and trash each player took) and ``track`` (the
running score track: start + closings + the ±1 squares the player covers or owns).
"""

from __future__ import annotations

import itertools

from scoring.plazing_areas import Area, find_areas
from scoring.plazing_points import START_WITH_MINUS
from scoring.plazing_state import COLLECTED_KINDS, NEUTRAL, Board, Cell, Piece, cell_name, read_board
from scoring.timeline.common import Step, change, plural

#: Off-board facts the timeline supplies; the readings are compared without them.
TIMELINE_KEYS = ("closings", "collected", "track")
#: Words of the note on an area whose closer the photos cannot tell (the station looks for them).
UNSURE_WORDS = "cannot tell who placed the last piece"
#: Most new pieces whose placing orders are tried to find who closed an area (2**n orders of subsets).
MOST_PIECES_TRIED = 8
_N4 = ((-1, 0), (1, 0), (0, -1), (0, 1))


def initial_facts(players: list[str], start: int = 0) -> dict:
    """The facts before the first reading: nothing closed or collected, the track at ``start``.

    >>> initial_facts(["red"], 10)
    {'closings': {'red': 0}, 'collected': {'red': {'amber': 0, 'shell': 0, 'pebble': 0, 'trash': 0}},
     'track': {'red': 10}, 'doubted_closings': []}
    """
    return {"closings": {p: 0 for p in players},
            "collected": {p: {k: 0 for k in COLLECTED_KINDS} for p in players},
            "track": {p: start for p in players}, "doubted_closings": []}


def bare_setup(setup: dict | None) -> dict:
    """The setup without the facts the timeline supplies (what one photo is scored with)."""
    return {k: v for k, v in (setup or {}).items() if k not in TIMELINE_KEYS}


def compare(before: dict | None, after: dict, setup: dict | None = None, facts: dict | None = None) -> Step:
    """Compare a reading with the last accepted one under Plażing's rules.

    Args:
        before: the last accepted state (contract state), or None at the game's first reading (then
            every piece counts as placed now and the resources as they lie).
        after: the new state.
        setup: the game's setup (``terrain``, ``players`` …); its ``closings``, ``collected`` and
            ``track`` are ignored (the timeline keeps its own, ``facts``).
        facts: the timeline's facts so far (:func:`initial_facts` when None).
    Returns:
        :class:`Step` with the changes, the forbidden ones, and the facts once ``after`` is accepted.
    Raises:
        InvalidStateError: either state does not obey the single-photo rules (``scoring.validate``).
    """
    base = bare_setup(setup)
    new_board, _ = read_board(after, base)
    old_board = read_board(before, base)[0] if before is not None else None
    players = _players(setup, new_board, old_board, facts)
    start = START_WITH_MINUS if new_board.has_minus_squares() else 0
    facts = _copy_facts(facts or _given_facts(setup) or initial_facts(players, start), players, start)
    new_areas = find_areas(new_board)
    old_areas = find_areas(old_board) if old_board is not None else ()
    step = Step(facts=facts)
    new_pieces = _compare_pieces(old_board, new_board, old_areas, step)
    _closings(old_board, new_board, old_areas, new_areas, new_pieces, step)
    if old_board is not None:
        _tokens(old_board, new_board, new_areas, step)
        _markers(old_board, new_board, new_areas, step)
    else:
        _first_markers(new_board, new_areas, step)
        _first_closed_note(new_areas, step)
    facts["track"] = _track(new_board, new_areas, facts, players, start)
    return step


def _players(setup: dict | None, new: Board, old: Board | None, facts: dict | None) -> list[str]:
    listed = (setup or {}).get("players")
    out = list(listed) if isinstance(listed, list) else []
    for seen in (list((facts or {}).get("closings", {})), [p.player for p in (old.pieces if old else ())],
                 [p.player for p in new.pieces], [m[0] for m in new.meeples]):
        out += [p for p in seen if p not in out]
    return out


def _given_facts(setup: dict | None) -> dict | None:
    """The setup's own ``closings`` and ``collected`` (players who joined the timeline mid-game), or None."""
    given = {k: (setup or {}).get(k) for k in ("closings", "collected")}
    if not all(isinstance(v, dict) for v in given.values()):
        return None
    return {"closings": dict(given["closings"]), "collected": {p: dict(v) for p, v in given["collected"].items()},
            "track": {}}


def _copy_facts(facts: dict, players: list[str], start: int) -> dict:
    """A copy of the facts kept inside the timeline (also from :func:`public_facts`' shape: the
    sure ``closings_at_least`` of every player stand for ``closings``)."""
    out = {"closings": dict(sure_closings(facts)),
           "collected": {p: dict(v) for p, v in facts.get("collected", {}).items()},
           "track": dict(facts.get("track_at_least") or facts.get("track") or {}),
           "doubted_closings": [dict(d) for d in facts.get("doubted_closings") or []]}
    for p in players:
        out["closings"].setdefault(p, 0)
        out["collected"].setdefault(p, {k: 0 for k in COLLECTED_KINDS})
        out["track"].setdefault(p, start)
    return out


def area_place(cells) -> str:
    """Where an area lies, in the board's square names: its first and last square (``"N5–N7"``).

    >>> area_place([(6, 13), (4, 13), (5, 13)])
    'N5–N7'
    """
    cells = sorted(tuple(c) for c in cells)
    return cell_name(cells[0]) if len(cells) == 1 else f"{cell_name(cells[0])}–{cell_name(cells[-1])}"


#: How far (squares, any direction) a piece of the same colour and kind may lie to be called moved, not gone.
MOVED_WITHIN = 2


def _near(a, b) -> bool:
    return min(max(abs(r1 - r2), abs(c1 - c2)) for r1, c1 in a for r2, c2 in b) <= MOVED_WITHIN


def _compare_pieces(old: Board | None, new: Board, old_areas: tuple[Area, ...], step: Step) -> list[Piece]:
    """Pieces placed since ``old`` (returned), and every piece that moved, turned, changed or left."""
    if old is None:
        for p in new.pieces:
            step.changes.append(change("placed", f"{p.player} placed a {p.kind} on {area_place(p.cells)}",
                                       player=p.player, piece=p.kind, cells=[list(c) for c in sorted(p.cells)]))
        return list(new.pieces)
    now = {frozenset(p.cells): p for p in new.pieces}
    was = {frozenset(p.cells): p for p in old.pieces}
    for key, p in was.items():
        q = now.get(key)
        cells = [list(c) for c in sorted(p.cells)]
        if q is None:
            moved = [x for x in new.pieces if frozenset(x.cells) not in was and x.player == p.player
                     and x.kind == p.kind and _near(x.cells, p.cells)]
            kind, how = ("moved", f"moved to {area_place(moved[0].cells)}") if moved else ("removed", "is gone")
            step.impossible.append(change(kind, f"{p.player}'s {p.kind} on {area_place(p.cells)} {how}: a placed "
                                          "piece never moves or leaves", player=p.player, piece=p.kind, cells=cells))
        elif (q.player, q.kind) != (p.player, p.kind):
            step.impossible.append(change("changed", f"the {p.player} {p.kind} on {area_place(p.cells)} is now a "
                                          f"{q.player} {q.kind}: a placed piece never changes", player=p.player,
                                          piece=p.kind, cells=cells))
        elif q.facing != p.facing:
            step.impossible.append(change("turned", f"{p.player}'s screen on {area_place(p.cells)} turned from "
                                          f"{p.facing} to {q.facing}: a placed piece never turns", player=p.player,
                                          piece=p.kind, cells=cells))
    closed_cells = {c: a for a in old_areas if a.closed for c in a.cells}
    placed = []
    for key, p in now.items():
        if key in was:
            continue
        placed.append(p)
        cells = [list(c) for c in sorted(p.cells)]
        inside = [c for c in p.cells if c in closed_cells]
        if inside:
            step.impossible.append(change("placed", f"{p.player} placed a {p.kind} on {area_place(p.cells)}, inside an "
                                          "area closed before: nobody places pieces in a closed area",
                                          player=p.player, piece=p.kind, cells=cells))
        else:
            step.changes.append(change("placed", f"{p.player} placed a {p.kind} on {area_place(p.cells)}",
                                       player=p.player, piece=p.kind, cells=cells))
    return placed


def _closings(old: Board | None, new: Board, old_areas, new_areas, placed: list[Piece], step: Step) -> None:
    """Every area closed since ``old``: who closed it (the player whose piece closed it) gets the point.

    When new pieces of several players may have closed it the photos cannot tell who did: the
    point goes to nobody, the area joins ``doubted_closings`` with its candidates, and the
    candidates' closings and track are unknown until the players say (:func:`public_facts`).
    """
    was_closed = [frozenset(a.cells) for a in old_areas if a.closed]
    for area in new_areas:
        if not area.closed or any(frozenset(area.cells) <= c for c in was_closed):
            continue
        candidates = closers(new, area, placed)
        owner = "neutral" if area.owner == NEUTRAL else area.owner
        where = area_place(area.cells)
        cells = [list(c) for c in area.cells]
        if not candidates:  # closed by terrain and the sea alone: it became an area when a piece touched it
            candidates = {p.player: p for p in placed if p.index in area.ring}
        elif old is None and len(placed) - 1 > MOST_PIECES_TRIED:
            candidates = _ring_players(area, placed, candidates)
        if not candidates:
            step.impossible.append(change("closed", f"the area at {where} is closed, but no piece placed "
                                          "since the last reading closes it", cells=cells))
            continue
        size = plural(len(area.cells), "square")
        if len(candidates) > 1:
            who = sorted(candidates)
            step.notes.append(f"the area at {where} was closed by {' or '.join(who)}: the photos {UNSURE_WORDS}; "
                              "its closing point is given to nobody until the players say")
            step.facts["doubted_closings"].append({"cells": cells, "owner": area.owner, "candidates": who})
            step.changes.append(change("closed", f"{' or '.join(who)} closed the area at {where} ({size}, "
                                       f"{owner}'s): the photos cannot tell who", player=None, candidates=who,
                                       owner=area.owner, cells=cells))
            continue
        closer = next(iter(candidates))
        step.facts["closings"][closer] = step.facts["closings"].get(closer, 0) + 1
        step.changes.append(change("closed", f"{closer} closed the area at {where} ({size}, {owner}'s)",
                                   player=closer, owner=area.owner, cells=cells))


def _ring_players(area: Area, placed: list[Piece], found: dict[str, Piece]) -> dict[str, Piece]:
    """``found`` (from a search of some placing orders only) with every other player who has a piece
    on the area's ring: the last piece that closed an area touches it, so these are all who may
    have closed it; at the game's first reading nothing tells which order was played."""
    out = dict(found)
    for p in placed:
        if p.index in area.ring:
            out.setdefault(p.player, p)
    return dict(sorted(out.items()))


def _first_closed_note(areas: tuple[Area, ...], step: Step) -> None:
    """At the game's first reading, a note on the areas already closed on it: the photos did not see
    them close, and what was taken from them before is not counted."""
    closed = [a for a in areas if a.closed]
    if not closed:
        return
    where = ", ".join(area_place(a.cells) for a in closed)
    them = "it" if len(closed) == 1 else "them"
    step.notes.append(f"the timeline starts at a board with {plural(len(closed), 'area')} already closed ({where}): "
                      f"the photos did not see {them} close, so who closed {them} is told from the pieces around "
                      f"{them} alone (doubted where more than one player may have), and resources taken from {them} "
                      "before are not counted")


def closers(board: Board, area: Area, placed: list[Piece]) -> dict[str, Piece]:
    """Who may have closed ``area``: each player with a newly placed piece that closes it in some
    placing order, and one such piece of that player.

    A piece P closes the area in some order when some set S of the other new pieces leaves it open
    while S + P closes it. With more than :data:`MOST_PIECES_TRIED` new pieces only the sets "all
    others" are tried. Pieces placed before ``placed`` stay. When several players may have closed
    it the photos cannot tell who placed the last piece (:func:`_closings`); the players come in
    name order.

    >>> from scoring.plazing_state import Board, Piece
    >>> old = (Piece(0, "red", "screen", ((1, 1), (1, 2), (1, 3)), "S"), Piece(1, "red", "gear", ((0, 0),)))
    >>> new = Piece(2, "blue", "gear", ((0, 4),))
    >>> b = Board(3, 5, None, old + (new,))
    >>> list(closers(b, find_areas(b)[0], [new]))
    ['blue']
    """
    cells = set(area.cells)
    new_ids = {p.index for p in placed}
    kept = [p for p in board.pieces if p.index not in new_ids]
    found: dict[str, Piece] = {}
    for p in placed:
        others = [q for q in placed if q is not p]
        subsets = [others] if len(others) > MOST_PIECES_TRIED else \
            (list(s) for k in range(len(others), -1, -1) for s in itertools.combinations(others, k))
        for s in subsets:
            if _group(board, kept + list(s), cells) == "open" and _group(board, kept + list(s) + [p], cells) == "exact":
                found.setdefault(p.player, p)
                break
    return dict(sorted(found.items()))


def _group(board: Board, pieces: list[Piece], cells: set[Cell]) -> str:
    """The group of free squares holding ``cells`` when only ``pieces`` lie on the board:
    ``"open"`` (it reaches the left, right or dune edge), ``"exact"`` (closed, exactly ``cells``) or
    ``"bigger"`` (closed, more squares: ``cells`` would be cut out of an area closed before)."""
    walls = {c for p in pieces for c in p.cells}
    if board.terrain:
        walls |= {(r, c) for r, row in enumerate(board.terrain) for c, ch in enumerate(row) if ch == "#"}
    start = next(iter(cells))
    if start in walls:
        return "bigger"
    seen, stack = {start}, [start]
    while stack:
        r, c = stack.pop()
        if c == 0 or c == board.cols - 1 or r == board.rows - 1:
            return "open"
        for dr, dc in _N4:
            nb = (r + dr, c + dc)
            if 0 <= nb[0] < board.rows and 0 <= nb[1] < board.cols and nb not in walls and nb not in seen:
                seen.add(nb)
                stack.append(nb)
    return "exact" if seen == cells else "bigger"


def _area_of(areas: tuple[Area, ...], cell: Cell) -> Area | None:
    return next((a for a in areas if cell in a.cells), None)


def _tokens(old: Board, new: Board, new_areas: tuple[Area, ...], step: Step) -> None:
    """Resources and trash: they only leave, from closed areas; the owner collects them."""
    was = {cell: kind for kind, cell in old.resources} | {cell: "trash" for cell in old.trash}
    now = {cell: kind for kind, cell in new.resources} | {cell: "trash" for cell in new.trash}
    for cell, kind in now.items():
        if cell not in was:
            step.impossible.append(change("appeared", f"a {kind} appeared on {cell_name(cell)}: resources only leave "
                                          "the board", cell=list(cell), token=kind))
        elif was[cell] != kind:
            step.impossible.append(change("changed", f"the {was[cell]} on {cell_name(cell)} is now a {kind}",
                                          cell=list(cell), token=kind))
    for cell, kind in was.items():
        if cell in now:
            continue
        area = _area_of(new_areas, cell)
        if area is None or not area.closed:
            why = "is covered by a piece" if area is None else "left an open area"
            step.impossible.append(change("removed", f"the {kind} on {cell_name(cell)} {why}: resources only leave "
                                          "closed areas", cell=list(cell), token=kind))
        elif area.owner == NEUTRAL:
            step.changes.append(change("removed", f"the {kind} on {cell_name(cell)} left the game (neutral area)",
                                       cell=list(cell), token=kind))
        else:
            got = step.facts["collected"].setdefault(area.owner, {k: 0 for k in COLLECTED_KINDS})
            got[kind] = got.get(kind, 0) + 1
            step.changes.append(change("collected", f"{area.owner} collected the {kind} on {cell_name(cell)}",
                                       player=area.owner, cell=list(cell), token=kind))


def _markers(old: Board, new: Board, new_areas: tuple[Area, ...], step: Step) -> None:
    """Meeples and neutral markers stay once put in; new ones go in closed areas."""
    was = [(who, cell) for who, cell in old.meeples] + [(NEUTRAL, cell) for cell in old.neutral]
    now = [(who, cell) for who, cell in new.meeples] + [(NEUTRAL, cell) for cell in new.neutral]
    for who, cell in was:
        if (who, cell) not in now:
            what = "neutral marker" if who == NEUTRAL else f"{who} meeple"
            step.impossible.append(change("removed", f"the {what} on {cell_name(cell)} is gone: markers stay once "
                                          "put in", cell=list(cell), player=who))
    for who, cell in now:
        if (who, cell) not in was:
            _new_marker(who, cell, new_areas, step)


def _first_markers(new: Board, new_areas: tuple[Area, ...], step: Step) -> None:
    for who, cell in [(who, cell) for who, cell in new.meeples] + [(NEUTRAL, cell) for cell in new.neutral]:
        _new_marker(who, cell, new_areas, step)


def _new_marker(who: str, cell: Cell, new_areas: tuple[Area, ...], step: Step) -> None:
    what = "a neutral marker" if who == NEUTRAL else f"a {who} meeple"
    area = _area_of(new_areas, cell)
    if area is None or not area.closed:
        step.impossible.append(change("marked", f"{what} was put on {cell_name(cell)}, outside any closed area",
                                      cell=list(cell), player=who))
    else:
        step.changes.append(change("marked", f"{what} was put on {cell_name(cell)}", cell=list(cell), player=who))


def _track(board: Board, areas: tuple[Area, ...], facts: dict, players: list[str], start: int) -> dict:
    """The score track: start + closing points + ±1 squares covered or inside owned areas."""
    value = {"+": 1, "-": -1}
    fields = {p: 0 for p in players}
    for piece in board.pieces:
        fields[piece.player] = fields.get(piece.player, 0) + sum(value.get(board.terrain_at(c), 0)
                                                                 for c in piece.cells)
    for area in areas:
        if area.closed and area.owner in fields:
            fields[area.owner] += area.fields
    return {p: start + facts["closings"].get(p, 0) + fields.get(p, 0) for p in players}


def doubted_players(facts: dict | None) -> list[str]:
    """The players who may have closed an area whose closer the photos could not tell."""
    return sorted({p for d in (facts or {}).get("doubted_closings") or [] for p in d.get("candidates", [])})


def sure_closings(facts: dict | None) -> dict:
    """Every player's closings the photos are sure of: ``closings_at_least`` where the facts have
    it (:func:`public_facts`' shape), else ``closings``.

    >>> sure_closings({"closings": {"red": 1}, "closings_at_least": {"red": 1, "blue": 2}})
    {'red': 1, 'blue': 2}
    """
    facts = facts or {}
    return facts.get("closings_at_least") or facts.get("closings") or {}


def doubted_closing_warnings(facts: dict | None) -> list[str]:
    """One sentence per area whose closer the photos could not tell (``doubted_closings``): those
    players' totals are unknown until they say who closed it."""
    out = []
    for d in (facts or {}).get("doubted_closings") or []:
        cells = [tuple(c) for c in d.get("cells", [])]
        who = d.get("candidates", [])
        out.append(f"the area at {area_place(cells)} ({plural(len(cells), 'square')}) was closed by {' or '.join(who)}: "
                   f"the photos {UNSURE_WORDS}; {', '.join(who)}: no total until the players say who closed it")
    return out


def place_key(place: str) -> str:
    """A place as a player writes it (``"n5-n7"``), as :func:`area_place` names it (``"N5–N7"``).

    >>> place_key("n5-n7")
    'N5–N7'
    """
    return place.replace("-", "–").upper()


def settle_closers(facts: dict | None, told: dict[str, str]) -> tuple[dict, list[str]]:
    """The facts once the players said who closed some areas whose closer the photos could not tell.

    Args:
        facts: the timeline's facts (kept, or :func:`public_facts`' shape).
        told: ``{place: player}``, the place of a ``doubted_closings`` area as :func:`area_place`
            names it (``"N5–N7"``; a hyphen stands for the dash), the player who closed it.
    Returns:
        (a copy of the facts where each told area has left ``doubted_closings`` and counts in its
        player's closings and track, the problems: one sentence per place that names no doubted
        area, a player who is not among its candidates, or two players; those are left as they were).

    >>> f = dict(initial_facts(["red", "blue"]), doubted_closings=[
    ...     {"cells": [[1, 1], [1, 2]], "owner": "red", "candidates": ["blue", "red"]}])
    >>> settled, problems = settle_closers(f, {"B2-C2": "blue"})
    >>> settled["closings"], settled["track"], settled["doubted_closings"], problems
    ({'red': 0, 'blue': 1}, {'red': 0, 'blue': 1}, [], [])
    >>> settle_closers(f, {"B2-C2": "green", "A1": "red"})[1]
    ['B2–C2: green is not among who may have closed it (blue or red)', 'A1: no area there whose closer the photos could not tell']
    >>> settle_closers(f, {"B2-C2": "blue", "b2–c2": "red"})[1]
    ['B2–C2: named twice, for blue and for red']
    """
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in (facts or {}).items()}
    problems = []
    named: dict[str, str] = {}
    for place, who in told.items():
        place = place_key(place)
        if place in named and named[place] != who:
            if named[place] is not None:
                problems.append(f"{place}: named twice, for {named[place]} and for {who}")
            who = None
        named[place] = who
    told = named
    public = "closings_at_least" in out
    left = []
    for doubted in out.get("doubted_closings") or []:
        place = area_place(doubted.get("cells") or [[0, 0]])
        if place not in told:
            left.append(dict(doubted))
            continue
        who = told.pop(place)
        candidates = doubted.get("candidates") or []
        if who is not None and who not in candidates:
            problems.append(f"{place}: {who} is not among who may have closed it ({' or '.join(candidates)})")
            who = None
        if who is None:
            left.append(dict(doubted))
            continue
        counts = out["closings_at_least"] if public else out.setdefault("closings", {})
        counts[who] = counts.get(who, 0) + 1
        track = out.get("track_at_least" if public else "track") or {}
        if who in track:
            track[who] += 1
    out["doubted_closings"] = left
    problems += [f"{place}: no area there whose closer the photos could not tell" for place in told]
    return out, problems


def told_note(place: str, who: str) -> str:
    """What the timeline says once the players named ``who`` closed the area at ``place``."""
    return f"the players said {who} closed the area at {place}"


def told_notes(notes: list[str], told: dict[str, str]) -> list[str]:
    """``notes`` (the timeline's notes, or a reading's warnings) with each one saying the photos
    cannot tell who closed an area the players have named (``told``: ``{place: player}``, the place
    as :func:`area_place` names it) replaced by what they said; the others kept, in order, once each.

    >>> told_notes(["the area at C10 was closed by blue or red: the photos cannot tell who placed the "
    ...             "last piece; its closing point is given to nobody until the players say", "other"],
    ...            {"C10": "red"})
    ['the players said red closed the area at C10', 'other']
    """
    out = []
    for note in notes:
        place = next((p for p in told if note.startswith(f"the area at {p} ") and UNSURE_WORDS in note), None)
        out.append(note if place is None else told_note(place, told[place]))
    return list(dict.fromkeys(out))


def public_facts(facts: dict) -> dict:
    """The facts as the timeline shows them (contract ``timeline``): ``closings`` and ``track`` hold
    only the players whose counts are sure; the candidates of a ``doubted_closings`` area are left
    out (their figures are unknown, never guessed); ``closings_at_least`` and ``track_at_least``
    give every player's figures counting the sure closings only. Takes the kept facts or this shape
    again (the same result).

    >>> f = dict(initial_facts(["red", "blue", "green"]), doubted_closings=[
    ...     {"cells": [[1, 1]], "owner": "red", "candidates": ["blue", "red"]}])
    >>> p = public_facts(f)
    >>> p["closings"], p["track"], p["closings_at_least"], p["track_at_least"]
    ({'green': 0}, {'green': 0}, {'red': 0, 'blue': 0, 'green': 0}, {'red': 0, 'blue': 0, 'green': 0})
    >>> public_facts(p) == p
    True
    """
    unsure = set(doubted_players(facts))
    sure = dict(sure_closings(facts))
    track = dict(facts.get("track_at_least") or facts.get("track") or {})
    out = dict(facts)
    out["closings"] = {p: n for p, n in sure.items() if p not in unsure}
    out["track"] = {p: n for p, n in track.items() if p not in unsure}
    out["closings_at_least"] = sure
    out["track_at_least"] = track
    out["doubted_closings"] = [dict(d) for d in facts.get("doubted_closings") or []]
    return out


def with_facts(setup: dict | None, facts: dict | None) -> dict:
    """The setup with the timeline's ``closings``, ``collected`` and ``track`` (what the final score
    uses); a player who may have closed an area the photos could not tell has no ``closings`` nor
    ``track`` in it, so that player's total is unknown (null), not guessed."""
    out = dict(setup or {})
    if facts:
        shown = public_facts(facts)
        out.update({k: shown[k] for k in TIMELINE_KEYS if k in shown})
    return out
