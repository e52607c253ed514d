"""Generic grid reading: nothing to score (``shared/contracts/grid.md``); shape checks only."""

from __future__ import annotations

from scoring.checks import Problems, show

GRID_MAX = 200  # rows or columns: a photographed board has far fewer places


def validate(state: dict, setup: dict | None = None) -> None:
    """Check ``rows``, ``cols`` (1..200) and that ``cells`` (and ``confidence`` if given) are rows×cols.

    Raises:
        InvalidStateError: with ``.problems`` listing every problem.

    >>> validate({"game": "grid", "rows": 1, "cols": 2, "cells": [["empty", 3]]})
    Traceback (most recent call last):
    ...
    scoring.errors.InvalidStateError: invalid state: cells[0][1]: expected a non-empty string, got 3
    """
    p = Problems()
    rows = p.need_int(state.get("rows"), "rows", lo=1, hi=GRID_MAX)
    cols = p.need_int(state.get("cols"), "cols", lo=1, hi=GRID_MAX)
    for key in ("cells", "confidence"):
        if key == "confidence" and key not in state:
            continue
        grid = p.need_list(state.get(key), key) or []
        if rows is not None and len(grid) != rows:
            p.add(f"{key}: {len(grid)} rows, expected {rows}")
        for r, row in enumerate(grid):
            row = p.need_list(row, f"{key}[{r}]")
            if row is None:
                continue
            if cols is not None and len(row) != cols:
                p.add(f"{key}[{r}]: {len(row)} cells, expected {cols}")
            for c, v in enumerate(row):
                if key == "cells":
                    p.need_str(v, f"cells[{r}][{c}]")
                elif not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v <= 1:
                    p.add(f"confidence[{r}][{c}]: expected a number 0..1, got {show(v)}")
    p.raise_if_any()


def score(state: dict, setup: dict | None = None) -> dict:
    """A grid has no score: returns ``{}`` after checking the state."""
    validate(state, setup)
    return {}


def explain(state: dict, setup: dict | None = None) -> str:
    """Counts of each class on the grid.

    >>> print(explain({"game": "grid", "rows": 1, "cols": 3, "cells": [["empty", "black", "black"]]}))
    1×3 grid: black 2, empty 1
    """
    validate(state, setup)
    counts: dict[str, int] = {}
    for row in state["cells"]:
        for v in row:
            counts[v] = counts.get(v, 0) + 1
    return f"{state['rows']}×{state['cols']} grid: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
