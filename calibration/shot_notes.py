"""What a calibration cannot learn from its shot, said once at calibration (not a light problem).

Input: the model the reader learned. Output: sentences for ``calibrate``'s ``warnings``, kept in
the calibration folder (``extra["notes"]``). The notes: a Plażing shot whose given terrain has a
printed mark that lies under pieces on every square (``model["terrain"]["unseen"]``,
:class:`vision.plazing.terrain.TerrainModel`), so photos cannot be read for it; clicked corners
that calibration moved onto the board's edges (:func:`corners_moved_note`).
"""

from __future__ import annotations


def shot_notes(model: dict) -> list[str]:
    """The notes on ``model`` (empty for a calibration that learned all it needs)."""
    terrain = model.get("terrain") if isinstance(model, dict) else None
    unseen = terrain.get("unseen") if isinstance(terrain, dict) else None
    return [unseen_marks_advice(unseen)] if unseen else []


def unseen_marks_advice(unseen: str) -> str:
    """What to do when the calibration shot shows no square of some printed terrain marks bare (Plażing).

    >>> unseen_marks_advice("-").split(",")[0]
    "the calibration shot shows no bare '-' square (the terrain has them"
    """
    marks = " or ".join(repr(m) for m in unseen)
    return (f"the calibration shot shows no bare {marks} square (the terrain has them, all under pieces), so "
            f"this calibration cannot read them from photos: enter each game's terrain (the station's Game page, "
            f"or --setup with 'terrain'), or calibrate again with a shot that shows one of each bare")


def corners_moved_note(moved_mm: float) -> str:
    """What to check when calibration moved the clicked corners onto the board's edges by up to
    ``moved_mm`` (board mm).

    >>> corners_moved_note(8.26).split(";")[0]
    "the clicked corners were up to 8 mm off the board's edges in the shot and were moved onto them"
    """
    return (f"the clicked corners were up to {moved_mm:.0f} mm off the board's edges in the shot and were moved "
            "onto them; if the outline drawn on the calibration's pictures does not follow the board, click the "
            "corners again")
