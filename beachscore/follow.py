"""One game, photo after photo: each photo read with the last accepted reading as its prior.

The reader's reading of a photo comes with its next most likely readings (``Reading.alternatives``).
With a previous reading, the game's timeline (:mod:`scoring.timeline`) says which of them the rules
allow after it: the first one allowed is taken (where the photo is unsure and the rules say the
place cannot have changed, the previous reading stands, and its warning says so), and its
confidence is its probability given that the readings the rules rule out are not on the table.
When no reading is allowed, the photo's own reading is kept and every forbidden change is reported
in ``impossible``, never silently undone; it is then not accepted, and the game goes on from the
last accepted reading. A photo the reader itself doubts (confidence below 0.5) shows no change for
sure: its differences are named in its warnings instead, and it is not accepted either. Nor is a
doubted first photo (a hand over the board, a bad read): it would be what every later photo is
compared with, so the game starts at the next trusted photo.
Contract: ``shared/contracts/README.md`` §One game, photo after photo.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass

import scoring
from beachscore.checks import UNRECOGNISED_BOARD_CONFIDENCE, UNRECOGNISED_BOARD_WARNING
from beachscore.errors import BadInputError
from beachscore.pipeline import ScanResult, scan_file
from scoring.plazing_state import cell_name
from scoring.timeline import GAMES as TIMELINES, Step, Timeline
from scoring.timeline.plazing import (area_place, doubted_closing_warnings, place_key, settle_closers, sure_closings,
                                      told_note, told_notes)
from scoring.timeline.plazing_terrain import TerrainMemory
from vision.files import load_json, parse_json_text, read_input_file

#: How a previous reading may be given (``--previous``).
PREVIOUS_SHAPES = "a 'scan --json' or 'game --json' line, or a bare state"
#: How large a ``--previous`` file may be, bytes.
MAX_PREVIOUS_BYTES = 8 * 1024 * 1024
#: A reading is trusted from this confidence on (below it, it is doubted).
TRUSTED = 0.5
#: The most a reading that breaks the rules against the last accepted one is trusted: this photo or
#: the game is wrong, and nothing tells which, so it is never trusted (below 0.5) until confirmed.
IMPOSSIBLE_CONFIDENCE = UNRECOGNISED_BOARD_CONFIDENCE


@dataclass
class Previous:
    """A previous reading handed in: the state and, when it came from ``game``, the timeline's facts."""

    state: dict
    facts: dict | None = None


def previous_from(doc: object, game: str, where: str, players: list[str] | None = None) -> Previous:
    """The previous reading held by one parsed JSON document.

    Args:
        doc: a ``scan --json`` / ``game --json`` line (with ``state``; a ``game`` line may carry
            ``timeline``), or a bare state (with ``game``).
        game: the calibrated game the new photo is read as.
        where: how to name the input in errors.
        players: the game's players (:func:`beachscore.checks.game_players`), None when unknown.
    Raises:
        BadInputError: ``invalid-previous`` (no reading in it: an error line, another shape, a
            piece of someone who is not a player of the game), ``previous-game`` (a reading of
            another game).
    """
    if not isinstance(doc, dict):
        raise BadInputError("invalid-previous", f"{where}: expected a JSON object ({PREVIOUS_SHAPES})")
    if "error" in doc and "state" not in doc:
        raise BadInputError("invalid-previous", f"{where}: holds an error, not a reading ({PREVIOUS_SHAPES})")
    if doc.get("accepted") is False:
        raise BadInputError("invalid-previous", f"{where}: this reading was not accepted (the rules forbid its "
                            "changes or the photo was unsure); pass the last accepted reading")
    state = doc.get("state") if "state" in doc else doc
    if not isinstance(state, dict) or not isinstance(state.get("game"), str):
        raise BadInputError("invalid-previous", f"{where}: no game state in it ({PREVIOUS_SHAPES})")
    if "state" in doc and "game" in doc and doc["game"] != state["game"]:
        raise BadInputError("invalid-previous", f"{where}: the line says {doc['game']!r} but its state is of "
                            f"{state['game']!r}")
    if state["game"] != game:
        raise BadInputError("previous-game", f"{where}: a reading of {state['game']!r}, but the calibration is of "
                            f"{game!r}; pass a previous reading of the same game on the same table")
    problems = scoring.problems(state)
    if problems:
        raise BadInputError("invalid-previous",
                            f"{where}: the state breaks the game's rules ({'; '.join(problems[:3])})")
    strangers = _strangers(state, players)
    if strangers:
        raise BadInputError("invalid-previous", f"{where}: {'; '.join(strangers[:3])}: not a player of this game "
                            f"({', '.join(players)}); pass a previous reading of this game")
    timeline = doc.get("timeline") if "state" in doc else None
    facts = None
    if isinstance(timeline, dict):
        facts = {k: v for k, v in timeline.items() if k not in ("readings", "notes")}
    return Previous(state=state, facts=facts or None)


def _strangers(state: dict, players: list[str] | None) -> list[str]:
    """``pieces[3].player 'purple'`` for every entry of the state's lists whose player is not one of
    ``players`` (none when ``players`` is None)."""
    if not players:
        return []
    out = []
    for key, items in state.items():
        for i, item in enumerate(items if isinstance(items, list) else []):
            who = item.get("player") if isinstance(item, dict) else None
            if isinstance(who, str) and who not in players:
                out.append(f"{key}[{i}].player {who!r}")
    return out


def load_previous(path: str, game: str, players: list[str] | None = None) -> Previous:
    """Read ``--previous``: one JSON object, or JSON lines (the output of ``game --json``: the last
    accepted line with a state is taken).

    Raises:
        BadInputError: ``file-missing``, ``invalid-json`` (a truncated or broken file),
            ``invalid-previous``, ``previous-game``.
    """
    where = f"--previous {path}"
    raw = read_input_file(path, MAX_PREVIOUS_BYTES, "previous reading", "invalid-json")
    lines = [line for line in raw.decode("utf-8", errors="replace").splitlines() if line.strip()]
    if len(lines) <= 1:
        return previous_from(load_json(path, "previous reading"), game, where, players)
    docs = [parse_json_text(line, f"{where} line {i + 1}") for i, line in enumerate(lines)]
    readings = [d for d in docs if isinstance(d, dict) and "state" in d and d.get("accepted") is not False]
    if not readings:
        raise BadInputError("invalid-previous", f"{where}: no line holds a reading ({PREVIOUS_SHAPES})")
    return previous_from(readings[-1], game, where, players)


@dataclass
class GamePhoto:
    """One photo read as part of a game: the scan (with the reading the prior chose), the step
    from the last accepted reading, and whether it was accepted."""

    result: ScanResult
    step: Step
    accepted: bool
    timeline: dict
    #: the setup the reading was scored with (the game's, with the timeline's facts)
    setup: dict | None = None

    def to_json(self) -> dict:
        """The scan object with ``changes``, ``impossible`` and (extra) ``accepted``, ``timeline``."""
        return dict(self.result.to_json(), changes=self.step.changes, impossible=self.step.impossible,
                    accepted=self.accepted, timeline=self.timeline)


class FollowedGame:
    """A game read photo after photo on one calibrated table.

    Args:
        cal: the loaded calibration; setup: the game's setup.json dict (or None);
        previous: a reading to start from (``scan --previous``), or None (the game's first photo).
    Raises:
        BadInputError: ``unknown-game`` for a game without a timeline (the plain grid).
    """

    def __init__(self, cal, setup: dict | None = None, previous: Previous | None = None):
        self.cal, self.setup = cal, setup
        #: the confidence of the last accepted reading (None before one)
        self.last_confidence: float | None = None
        #: photos read but not accepted while the game has no start yet (doubted, or against the rules)
        self.unstarted = 0
        #: accepted readings the product doubted (confidence below :data:`TRUSTED`)
        self.doubted_accepted = 0
        #: what the players said (``--closer``) that the timeline could not take
        self.told_problems: list[str] = []
        #: Plażing without a setup terrain: the terrain each square showed uncovered (None otherwise)
        self.terrain = TerrainMemory() if cal.game == "plazing" and not (setup or {}).get("terrain") else None
        if cal.game not in TIMELINES:
            raise BadInputError("unknown-game", f"{cal.game!r} has no game rules to follow photo after photo; "
                                f"'game' and 'scan --previous' read {', '.join(TIMELINES)}")
        self.timeline = Timeline(cal.game, setup, last=previous.state if previous else None,
                                 facts=previous.facts if previous else None)
        if previous is not None and previous.facts is None:
            self.timeline.notes.append("the timeline starts at the previous reading: what happened before it "
                                       "(areas closed, resources collected, castles built) is not counted")

    def read_file(self, path: str) -> GamePhoto:
        """Read one photo file as the game's next.

        Raises:
            BeachscoreError: as :func:`beachscore.pipeline.scan_file` (the game is unchanged).
        """
        return self.follow(scan_file(path, self.cal, self.setup))

    def follow(self, result: ScanResult) -> GamePhoto:
        """Take a single-photo scan as the game's next reading (see the module docstring)."""
        chosen, step, confidence, note, accepted = self._choose(result)
        if accepted:
            self.timeline.accept(chosen.state, step)
            if self.terrain is not None:
                self.terrain.remember(chosen.state)
        facts_setup = self.timeline.score_setup()
        try:
            score = scoring.score(chosen.state, facts_setup)
        except scoring.InvalidStateError:  # the timeline's facts do not fit this reading: scored as one photo
            facts_setup, score = self.setup, result.score
        warnings = list(result.registration.warnings) + list(chosen.warnings)
        if note:
            warnings.append(note)
        if step.impossible:
            warnings.append("not accepted: " + "; ".join(c["text"] for c in step.impossible[:3])
                            + "; the game goes on from the last accepted reading")
        warnings += step.notes
        if UNRECOGNISED_BOARD_WARNING in result.warnings:
            confidence = min(confidence, UNRECOGNISED_BOARD_CONFIDENCE)
        if accepted:
            self.last_confidence = confidence
            self.doubted_accepted += confidence < TRUSTED
        elif self.timeline.last is None:
            self.unstarted += 1
        out = dataclasses.replace(result, state=scoring.complete_state(chosen.state, facts_setup), score=score,
                                  confidence=confidence, warnings=list(dict.fromkeys(warnings)), reading=chosen)
        return GamePhoto(out, step, accepted, self.timeline.to_json(), facts_setup)

    def _remembered(self, reading):
        """``reading`` with the terrain under its pieces and tokens as the game's earlier photos showed it."""
        if self.terrain is None:
            return reading
        state = self.terrain.fill(reading.state)
        return reading if state is reading.state else dataclasses.replace(reading, state=state)

    def _choose(self, result: ScanResult):
        """The first of the photo's readings the rules allow after the last accepted one (before any
        accepted one: the photo's own reading, when it is trusted and lawful).

        Returns:
            (reading, step, confidence, warning or None, whether it is accepted).
        """
        primary = self._remembered(result.reading)
        if self.timeline.last is None:
            first = self.timeline.propose(primary.state)
            if result.confidence < TRUSTED:
                return _doubted_first(primary, first, result.confidence)
            if not first.lawful:
                return _unlawful(primary, first, result.confidence)
            return primary, first, result.confidence, None, True
        candidates = [primary] + [self._remembered(alt) for alt in result.reading.alternatives or ()]
        probs = _probabilities([primary.confidence] + [c.confidence for c in candidates[1:]])
        steps: list[Step | None] = []
        for reading in candidates:
            if scoring.problems(reading.state, self.setup):
                steps.append(None)
                continue
            steps.append(self.timeline.propose(reading.state))
        lawful = [i for i, s in enumerate(steps) if s is not None and s.lawful]
        if not lawful:
            return self._previous_stands(primary, steps[0] or self.timeline.propose(primary.state),
                                         result.confidence)
        k = lawful[0]
        ruled_out = sum(p for i, (p, s) in enumerate(zip(probs, steps)) if s is not None and not s.lawful)
        confidence = min(1.0, probs[k] / max(1e-12, 1.0 - ruled_out)) if ruled_out else candidates[k].confidence
        if k == 0:
            note = None if not ruled_out else (
                f"the previous reading rules out {sum(1 for s in steps if s is not None and not s.lawful)} other "
                "reading(s) of this photo")
            return primary, steps[0], confidence, note, True
        changed = _changed_words(candidates[k])
        note = (f"the previous reading stands where this photo is unsure ({changed}): the rules say it cannot "
                "have changed")
        reading = dataclasses.replace(candidates[k], warnings=[w for w in candidates[k].warnings
                                                                if not w.startswith("read with ")])
        return reading, steps[k], confidence, note, True

    def _previous_stands(self, reading, step: Step, confidence: float):
        """No reading of the photo is allowed: where the photo is unsure (its doubtful cells) and a
        piece of the last accepted reading is missing, that piece stands; if the rules then allow the
        reading it is taken (the warning names the places), else the photo's own reading is kept with
        its forbidden changes and a confidence of at most :data:`IMPOSSIBLE_CONFIDENCE`.

        An unsure photo (confidence below :data:`TRUSTED`) that still breaks the rules is not
        accepted either, but its differences are not called impossible: the photo does not show that
        anything changed; its warning lists them.

        Returns:
            (reading, step, confidence, warning or None, whether it is accepted).
        """
        restored, places = restore_unsure(self.timeline.last, reading.state, step.impossible)
        if places:
            again = self.timeline.propose(restored) if not scoring.problems(restored, self.setup) else None
            if again is not None and again.lawful:
                note = (f"the previous reading stands where this photo is unsure ({', '.join(places)}): the "
                        "rules say it cannot have changed")
                return dataclasses.replace(reading, state=restored), again, confidence, note, True
        return _unlawful(reading, step, confidence)

    def settle_closers(self, told: dict[str, str]) -> None:
        """The players' word on who closed areas the photos could not tell (``{place: player}``,
        ``scoring.timeline.plazing.settle_closers``): those areas count for them in the final line;
        a place naming no such area, or a player who cannot have closed it, becomes a final warning."""
        if self.cal.game != "plazing" or self.timeline.last is None:
            self.told_problems = ["--closer: " + ("only Plażing games have areas to close" if self.cal.game != "plazing"
                                                  else "no photo was accepted") + "; ignored"]
            return
        before = [area_place(d["cells"]) for d in (self.timeline.facts or {}).get("doubted_closings") or []]
        self.timeline.facts, problems = settle_closers(self.timeline.facts, told)
        left = {area_place(d["cells"]) for d in self.timeline.facts.get("doubted_closings") or []}
        named = {place_key(place): who for place, who in told.items()}
        said = {p: named[p] for p in before if p not in left}
        kept = told_notes(self.timeline.notes, said)
        self.timeline.notes = kept + [told_note(p, who) for p, who in said.items() if told_note(p, who) not in kept]
        self.told_problems = [f"--closer {p}; ignored" for p in problems]

    def final_json(self) -> dict:
        """The game's last line: ``{"game", "final": true, "timeline", "score", "state", "confidence",
        "warnings"}`` (the score of the last accepted reading with the timeline's facts; ``state``: that
        reading; ``confidence``: the last accepted photo's, at most :data:`IMPOSSIBLE_CONFIDENCE` when
        the timeline doubts a fact the totals need; ``warnings``: those doubts)."""
        last = self.timeline.last
        score = scoring.score(last, self.timeline.score_setup()) if last is not None else None
        warnings = self.final_warnings()
        confidence = self.last_confidence
        if warnings and confidence is not None:
            confidence = min(confidence, IMPOSSIBLE_CONFIDENCE)
        out = {"game": self.cal.game, "final": True, "timeline": self.timeline.to_json(), "score": score,
               "state": last, "confidence": confidence, "warnings": warnings + self.told_problems + self.terrain_note()}
        if warnings and last is not None:
            out["totals_range"] = self.totals_range()
        return out

    def totals_range(self) -> dict:
        """Plażing, with areas whose closer the photos could not tell: each player's lowest and
        highest possible total ``{player: [low, high]}`` (low: none of those areas closed by the
        player; high: every one of them where the player is a candidate), None where the total
        needs another missing fact."""
        facts = self.timeline.facts or {}
        sure = dict(self.setup or {}, **{k: facts[k] for k in ("collected", "track") if k in facts},
                    closings=sure_closings(facts))
        low = {p["player"]: p["total"] for p in scoring.score(self.timeline.last, sure)["players"]}
        may = Counter(p for d in facts.get("doubted_closings") or [] for p in d.get("candidates", []))
        return {p: None if t is None else [t, t + may.get(p, 0)] for p, t in low.items()}

    def terrain_note(self) -> list[str]:
        """Plażing without a setup terrain: how the game's terrain was read (one sentence), else nothing."""
        if self.terrain is None or self.timeline.last is None:
            return []
        return ["terrain read from the photos (no setup terrain): each square keeps what the first photo that "
                "showed it uncovered read there, and a mark already covered then is taken as sand; pass --setup "
                "with 'terrain' to be sure"]

    def final_warnings(self) -> list[str]:
        """What the timeline doubts that the totals need (Plażing: areas whose closer the photos could
        not tell; those players' totals are then unknown), one sentence each; or, when photos were read
        but none started the game, that there is no final score."""
        if self.timeline.last is None and self.unstarted:
            return [f"no photo started the game ({self.unstarted} read, none both trusted and allowed by the "
                    "rules): no final score; take the photos again"]
        return doubted_closing_warnings(self.timeline.facts)


#: The warning of a doubted photo that would have started the game.
DOUBTED_FIRST_WARNING = "doubted: not taken as the game's start; the next trusted photo starts the game"


def _doubted_first(reading, step: Step, confidence: float):
    """A doubted reading (below :data:`TRUSTED`) before any accepted one: it would become what every
    later photo is compared with, so it is not accepted; the game starts at the next trusted photo.
    The photo shows no change for sure: ``changes`` and ``impossible`` stay empty, and the rules it
    breaks (if any) are named in its warning.

    Returns:
        (reading, an empty step, confidence, warning, False).
    """
    note = DOUBTED_FIRST_WARNING
    if step.impossible:
        note += " (the rules also forbid: " + "; ".join(c["text"] for c in step.impossible[:3]) + ")"
    return reading, Step(), confidence, note, False


def _unlawful(reading, step: Step, confidence: float):
    """A reading the rules forbid after the last accepted one, not accepted: a sure one keeps its
    forbidden changes, its confidence at most :data:`IMPOSSIBLE_CONFIDENCE`; an unsure one (below
    :data:`TRUSTED`) shows no change for sure, so they go to its warning instead.

    Returns:
        (reading, step, confidence, warning or None, False).
    """
    if confidence < TRUSTED:
        note = ("this photo is unsure, and where it differs from the accepted reading the rules say nothing "
                "can have changed (" + "; ".join(c["text"] for c in step.impossible[:3]) + "): not accepted, "
                "the game goes on from the last accepted reading; take the photo again")
        return reading, dataclasses.replace(step, impossible=[]), confidence, note, False
    return reading, step, min(confidence, IMPOSSIBLE_CONFIDENCE), None, False


def restore_unsure(before: dict, after: dict, impossible: list[dict]) -> tuple[dict, list[str]]:
    """The reading ``after`` with the pieces of ``before`` that it lost put back where it is unsure.

    A piece counts when one of its cells is among the reading's doubtful cells
    (``state["cell_confidence"]["doubtful"]``, the reader's own list) and the rules call its
    leaving impossible; what the reading put on its cells is taken away.

    Returns:
        (the state, the places restored in words); the state unchanged and [] when nothing counts.
    """
    doubtful = {tuple(c) for c in ((after.get("cell_confidence") or {}).get("doubtful") or [])}
    lost = [c for c in impossible if c.get("kind") in ("removed", "moved") and c.get("piece")]
    back = [p for p in before.get("pieces", []) for c in lost
            if sorted(map(list, p["cells"])) == c.get("cells") and doubtful & {tuple(x) for x in p["cells"]}]
    if not back:
        return after, []
    cells = {tuple(x) for p in back for x in p["cells"]}
    state = dict(after)
    state["pieces"] = [p for p in after.get("pieces", []) if not cells & {tuple(x) for x in p["cells"]}] + \
        [dict(p) for p in back]
    for key in ("meeples", "resources"):
        state[key] = [t for t in after.get(key, []) if tuple(t["cell"]) not in cells]
    for key in ("neutral", "trash", "surprises"):
        state[key] = [t for t in after.get(key, []) if tuple(t) not in cells]
    places = [f"{p['player']} {p['kind']} on {', '.join(scoring_cell_names(p['cells']))}" for p in back]
    return state, places


def scoring_cell_names(cells) -> list[str]:
    """Cell names as players read them (``A1``: column letter, row from the sea)."""
    return [cell_name(tuple(c)) for c in sorted(map(tuple, cells))]


def _probabilities(confidences: list[float]) -> list[float]:
    """Unconditional probabilities of a reading and its alternatives from their confidences (each
    alternative's is given that the ones before it were ruled out).

    >>> [round(p, 3) for p in _probabilities([0.6, 0.5, 0.5])]
    [0.6, 0.2, 0.1]
    """
    out = [float(confidences[0])]
    rest = 1.0 - out[0]
    for c in confidences[1:]:
        p = max(0.0, float(c) * rest)
        out.append(p)
        rest -= p
    return out


def _changed_words(reading) -> str:
    """What an alternative reading changed, from its own warning (``read with X instead of Y: …``)."""
    for w in reading.warnings:
        if w.startswith("read with "):
            return w[len("read with "):].split(": the more likely", 1)[0]
    return "another reading"
