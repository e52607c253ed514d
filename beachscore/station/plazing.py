"""Plażing at the station: the board's grid, from the calibration or the boxed board's."""

from __future__ import annotations

#: The Plażing grid (rows, cols) of the boxed board, used when no Plażing calibration says otherwise.
GRID = (12, 20)
#: Largest grid side the rules engine accepts (``scoring.plazing``).
MAX_GRID_SIDE = 200


def grid(cal) -> tuple[int, int]:
    """(rows, cols) of the Plażing board: the calibration's grid when it is a sane Plażing one,
    else :data:`GRID`.

    Args:
        cal: the station's calibration (``calibration.store.Calibration``, any game) or None.

    >>> grid(None)
    (12, 20)
    """
    found = cal.profile.get("grid") if cal is not None and cal.game == "plazing" else None
    if isinstance(found, dict):
        rows, cols = found.get("rows"), found.get("cols")
        if all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_GRID_SIDE for v in (rows, cols)):
            return rows, cols
    return GRID


def reads_terrain(cal) -> bool:
    """Whether the station's calibration reads a Plażing game's terrain from its photos: a Plażing
    calibration that learned how the terrain looks from a shot whose terrain was given
    (``calib.setup.json``) and that shows each of its printed marks bare. Without it a game's
    terrain must be entered on the Game page.

    >>> reads_terrain(None)
    False
    """
    if cal is None or getattr(cal, "game", None) != "plazing":
        return False
    learned = (getattr(cal, "model", None) or {}).get("terrain")
    return (isinstance(learned, dict) and bool(learned) and bool(learned.get("known", True))
            and not learned.get("unseen"))
