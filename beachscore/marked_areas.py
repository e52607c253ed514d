"""Plażing: a closed area read without the marker the rules put in it.

When an area closes, its owner puts a meeple in it; a tie makes it neutral: a neutral marker goes
in and its resources leave the game. So a board at rest shows every neutral area marked and empty
of resources, and an owned area unmarked only for a moment (or when resources fill every square).
A reading that shows otherwise has more likely read a marker as a resource:

- a neutral area unmarked or holding resources: the rules do not leave it so, and it is treated
  like a reading the rules reject: the reader's next most likely reading that clears it (and makes
  no such area elsewhere) is taken; when none does, the reading is kept, doubted;
- an owned area with room but no marker, where the reader doubts one of its cells (a cell in the
  state's ``cell_confidence.doubtful``): the reading is kept, doubted (a meeple read as a resource
  and an owner who has not yet put the meeple in look the same).
"""

from __future__ import annotations

import dataclasses

import scoring
from scoring.timeline.plazing import area_place
from vision.types import Reading

#: The most a reading with an area the rules would have marked may be trusted (below the 0.5 from
#: which a player trusts a reading).
UNMARKED_CONFIDENCE = 0.4


def unmarked_neutral(score: dict) -> list[dict]:
    """The closed neutral areas of a Plażing score (``scoring.score``'s ``areas``) that show no
    neutral marker or still hold resources."""
    return [a for a in score.get("areas") or [] if a.get("closed") and a.get("owner") == "neutral"
            and (a.get("marked") is None or any((a.get("resources") or {}).values()))]


def unmarked_owned(score: dict, state: dict) -> list[dict]:
    """The closed owned areas of a Plażing reading with a square free of resources but no marker,
    where the reader doubts one of the area's cells (``state["cell_confidence"]["doubtful"]``)."""
    doubtful = {tuple(c) for c in ((state.get("cell_confidence") or {}).get("doubtful") or [])}
    held = {tuple(r["cell"]) for r in state.get("resources") or []}
    out = []
    for a in score.get("areas") or []:
        cells = {tuple(c) for c in a.get("cells") or []}
        if (a.get("closed") and a.get("owner") not in (None, "neutral") and a.get("marked") is None
                and cells - held and cells & doubtful):
            out.append(a)
    return out


def _clears(score: dict, suspects: list[dict]) -> bool:
    """Whether ``score`` has no unmarked neutral area, and shows each suspect area's squares marked."""
    if unmarked_neutral(score):
        return False
    marked = {frozenset(map(tuple, a["cells"])) for a in score.get("areas") or [] if a.get("marked") is not None}
    return all(frozenset(map(tuple, a["cells"])) in marked for a in suspects)


def _lawful(alternatives, setup: dict | None):
    """(alternative, its score) of each alternative reading the rules accept, in order."""
    for alt in alternatives or ():
        try:
            yield alt, scoring.score(alt.state, setup)
        except scoring.InvalidStateError:
            continue


def _doubted(reading: Reading, areas: list[dict], words: str) -> Reading:
    where = ", ".join(area_place(a["cells"]) for a in areas)
    return dataclasses.replace(reading, confidence=min(float(reading.confidence), UNMARKED_CONFIDENCE),
                               warnings=[*reading.warnings, f"the area at {where} {words}: is a token there its "
                                         "marker, read as a resource? Check this reading"])


def settle_unmarked(reading: Reading, score: dict, setup: dict | None) -> tuple[Reading, dict]:
    """The reading of a Plażing photo, and its score, with its unmarked areas settled (module doc).

    Args:
        reading: the reading the rules accept; score: its score (``scoring.score``); setup: the
            setup it was scored with.
    Returns:
        (reading, score): unchanged; or the first alternative that clears the unmarked neutral
        areas, with its score; or (either of them) with its confidence at most
        :data:`UNMARKED_CONFIDENCE` and a warning naming the areas it doubts.
    """
    if reading.state.get("game") != "plazing":
        return reading, score
    neutral = unmarked_neutral(score)
    if neutral:
        cleared = next(((alt, alt_score) for alt, alt_score in _lawful(reading.alternatives, setup)
                        if _clears(alt_score, neutral)), None)
        if cleared is None:
            return _doubted(reading, neutral, "is neutral (a tie) but shows no neutral marker, or still holds "
                            "resources"), score
        reading, score = cleared
    owned = unmarked_owned(score, reading.state)
    if owned:
        return _doubted(reading, owned, "is closed but shows no meeple"), score
    return reading, score
