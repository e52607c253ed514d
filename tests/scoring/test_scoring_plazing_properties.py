"""Plażing invariants on random boards (hypothesis, derandomised and bounded to stay fast)."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scoring import score
from scoring.ranking import split_prizes

FAST = settings(max_examples=60, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
PLAYERS = ("red", "blue", "green")
SHAPES = [("screen", ((0, 0), (0, 1), (0, 2)), "NS"), ("screen", ((0, 0), (1, 0), (2, 0)), "EW"),
          ("blanket", ((0, 0), (0, 1), (1, 0), (1, 1)), ""), ("gear", ((0, 0),), ""),
          ("gear", ((0, 0), (0, 1)), ""), ("gear", ((0, 0), (1, 0)), "")]


@st.composite
def boards(draw, max_rows=8, max_cols=10, dense=False, sparse=False):
    """A valid state + setup: random terrain, then pieces placed greedily where they fit.

    ``dense`` tries many placements so that most boards hold closed areas; ``sparse`` places
    a few pieces on open sand, so that pieces often lie inside an area (not in its ring).
    """
    rows = draw(st.integers(3, max_rows))
    cols = draw(st.integers(3, max_cols))
    chars = "..........+-" if sparse else "......#+-"
    terrain = ["".join(draw(st.lists(st.sampled_from(chars), min_size=cols, max_size=cols)))
               for _ in range(rows)]
    placements = draw(st.lists(st.tuples(st.integers(0, len(SHAPES) - 1), st.integers(0, rows - 1),
                                         st.integers(0, cols - 1), st.sampled_from(PLAYERS), st.booleans()),
                               min_size=rows * cols // 2 if dense else 0,
                               max_size=rows * cols if dense else 4 if sparse else rows * cols // 3))
    taken: set[tuple[int, int]] = set()
    pieces = []
    for shape_i, r, c, who, flip in placements:
        kind, shape, facings = SHAPES[shape_i]
        cells = [(r + dr, c + dc) for dr, dc in shape]
        if any(not (0 <= rr < rows and 0 <= cc < cols) or (rr, cc) in taken or terrain[rr][cc] == "#"
               for rr, cc in cells):
            continue
        taken.update(cells)
        p = {"player": who, "kind": kind, "cells": [list(x) for x in cells]}
        if facings:
            p["facing"] = facings[int(flip)]
        pieces.append(p)
    state = {"game": "plazing", "rows": rows, "cols": cols, "pieces": pieces}
    return state, {"terrain": terrain, "players": list(PLAYERS), "weather": "wind-E"}


def verdicts(out):
    """Area verdicts keyed by their cells."""
    return {tuple(map(tuple, a["cells"])): (a["closed"], tuple(a["ring"]), a["counts"], a["owner"])
            for a in out["areas"]}


@FAST
@given(boards(dense=True), st.data())
def test_a_piece_added_outside_a_closed_area_never_changes_its_verdict(board, data):
    state, setup = board
    before = score(state, setup)
    closed = [a for a in before["areas"] if a["closed"]]
    assume(closed)
    area = data.draw(st.sampled_from(closed))
    inside = {tuple(c) for c in area["cells"]}
    taken = {tuple(c) for p in state["pieces"] for c in p["cells"]}
    free = [(r, c) for r in range(state["rows"]) for c in range(state["cols"])
            if (r, c) not in inside and (r, c) not in taken and setup["terrain"][r][c] != "#"]
    assume(free)
    cell = data.draw(st.sampled_from(free))
    grown = {**state, "pieces": state["pieces"] + [{"player": "blue", "kind": "gear", "cells": [list(cell)]}]}
    after = verdicts(score(grown, setup))
    key = tuple(map(tuple, area["cells"]))
    assert after[key] == verdicts(before)[key]


@FAST
@given(st.one_of(boards(), boards(dense=True)))
def test_mirroring_the_board_left_right_mirrors_every_verdict(board):
    state, setup = board
    cols = state["cols"]
    swap = {"E": "W", "W": "E", "N": "N", "S": "S"}
    mirrored = {**state, "pieces": [{**p, "cells": [[r, cols - 1 - c] for r, c in p["cells"]],
                                     **({"facing": swap[p["facing"]]} if "facing" in p else {})}
                                    for p in state["pieces"]]}
    msetup = {**setup, "terrain": [row[::-1] for row in setup["terrain"]], "weather": "wind-W"}
    got = verdicts(score(mirrored, msetup))
    want = {tuple(sorted((r, cols - 1 - c) for r, c in cells)): v for cells, v in verdicts(score(state, setup)).items()}
    assert got == want
    players = lambda out: {p["player"]: p for p in out["players"]}  # noqa: E731
    assert players(score(mirrored, msetup)) == players(score(state, setup))


@FAST
@given(st.one_of(boards(), boards(dense=True), boards(sparse=True)))
def test_the_ring_is_exactly_the_edge_adjacent_pieces_not_shut_inside_the_area(board):
    state, setup = board
    rows, cols = state["rows"], state["cols"]
    owner_of = {tuple(c): i for i, p in enumerate(state["pieces"]) for c in p["cells"]}
    for area in score(state, setup)["areas"]:
        cells = {tuple(c) for c in area["cells"]}
        adjacent = {owner_of[(r + dr, c + dc)] for r, c in cells for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0))
                    if (r + dr, c + dc) in owner_of}
        assert set(area["ring"]) <= adjacent
        for i in adjacent:
            # flood from the piece through squares outside the area: does it reach a board edge?
            seen = {tuple(state["pieces"][i]["cells"][0])}
            stack = list(seen)
            reaches_edge = False
            while stack:
                r, c = stack.pop()
                reaches_edge |= r in (0, rows - 1) or c in (0, cols - 1)
                for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= nb[0] < rows and 0 <= nb[1] < cols and nb not in cells and nb not in seen:
                        seen.add(nb)
                        stack.append(nb)
            assert (i in area["ring"]) == reaches_edge
        assert area["size"] == len(area["ring"]) == sum(area["counts"].values())


@FAST
@given(st.one_of(boards(), boards(dense=True)), st.randoms(use_true_random=False))
def test_scores_do_not_depend_on_the_order_of_pieces(board, rnd):
    state, setup = board
    order = list(range(len(state["pieces"])))
    rnd.shuffle(order)
    shuffled = {**state, "pieces": [state["pieces"][i] for i in order]}
    a, b = score(state, setup), score(shuffled, setup)
    for x, y in zip(a["areas"], b["areas"]):
        assert sorted(order[j] for j in y["ring"]) == x["ring"]
        assert {k: v for k, v in x.items() if k != "ring"} == {k: v for k, v in y.items() if k != "ring"}
    assert a["players"] == b["players"]


@FAST
@given(st.dictionaries(st.sampled_from("abcdef"), st.integers(0, 6), min_size=1),
       st.sampled_from([(12, 6, 3), (12, 6)]))
def test_tie_split_points_never_exceed_the_prize_pool(values, prizes):
    got = split_prizes(values, prizes)
    assert sum(got.values()) <= sum(prizes)
    for p in values:
        for q in values:
            if values[p] > values[q]:
                assert got[p] >= got[q]
            if values[p] == values[q]:
                assert got[p] == got[q]
        if values[p] == 0:
            assert got[p] == 0
