"""A game followed scan after scan at the station (``docs/game.md``, ``docs/station-game.md``).

Every scan of a game that has a timeline (Plażing, Strand unter, Sand Castles; not Seashells,
read one mat per scan) is read with the game's last accepted reading as its prior
(:class:`beachscore.follow.FollowedGame`); the store keeps each scan's step: its ``changes``,
``impossible``, whether it was ``accepted``, and the timeline after it. The scan's score is the
running score, scored with the timeline's facts (Plażing: ``closings``, ``collected``, ``track``).
A player's correction is a deliberate reading: it becomes the new accepted one
(:meth:`scoring.timeline.Timeline.accept`). At Game over the station asks for what neither the
photo nor the timeline knows (:mod:`beachscore.station.endgame`), then ends the game with every
total.

:class:`GameFollowing` is mixed into :class:`~beachscore.station.station.Station`: it uses the
station's ``store``, ``scorer``, ``events`` and the ``_answering`` lock.
"""

from __future__ import annotations

import dataclasses
import logging

from beachscore.errors import BadInputError
from beachscore.follow import FollowedGame, GamePhoto, Previous
from beachscore.station import endgame
from beachscore.station.store import StoreError
from beachscore.station.store import steps as game_steps
from beachscore.station.wording import in_game_order, settled_by_correction
from scoring.timeline import GAMES as TIMELINES, Timeline, game_module

log = logging.getLogger("beachscore.station")

#: Games the station follows scan after scan (Seashells is read one player's mat per scan).
FOLLOWED = tuple(g for g in TIMELINES if g != "seashells")


def _facts(timeline: dict | None) -> dict | None:
    """The timeline's facts alone (without ``readings`` and ``notes``)."""
    facts = {k: v for k, v in (timeline or {}).items() if k not in ("readings", "notes")}
    return facts or None


def _told(game: dict, timeline: dict | None, ending: dict | None) -> dict | None:
    """A Plażing game's stored timeline with the closers the players named at Game over settled."""
    answers = (ending or {}).get("answers") or {}
    if game.get("game") != "plazing" or not timeline or not any(k.startswith("closer/") for k in answers):
        return timeline
    facts = _facts(timeline)
    return dict(timeline, **endgame.settled_facts(facts, answers),
                notes=endgame.settled_notes(timeline.get("notes"), facts, answers))


def _restore(timeline: Timeline, stored: dict | None) -> Timeline:
    """``timeline`` with the count of readings and the notes of a stored timeline."""
    if stored:
        timeline.accepted = int(stored.get("readings") or timeline.accepted)
        timeline.notes = list(stored.get("notes") or [])
    return timeline


class GameFollowing:
    """The station's half that follows a game: steps, the running score, corrections, Game over."""

    @staticmethod
    def follows(game: dict | None) -> bool:
        """Whether the station follows ``game`` scan after scan."""
        return bool(game) and game["game"] in FOLLOWED

    # -- scans ------------------------------------------------------------------------------
    def follow_reading(self, game: dict | None, cal, result, player: str | None = None):
        """Read a scan's result as ``game``'s next reading.

        Returns:
            (the result to keep: the reading the rules allow, scored with the timeline's facts,
            and the :class:`~beachscore.follow.GamePhoto` to keep with it), or (``result``, None)
            when the game is not followed or cannot be (the scan is kept as read alone).
        """
        if player is not None or not self.follows(game) or cal is None or game["game"] != cal.game:
            return result, None
        try:
            last = game_steps.last_accepted(self.store, game["id"])
            previous = Previous(last["state"], _facts(last["timeline"])) if last else None
            followed = FollowedGame(cal, game["setup"] or None, previous)
            _restore(followed.timeline, last["timeline"] if last else None)
            photo = followed.follow(result)
        except Exception:  # noqa: BLE001 - a reading the timeline cannot take is kept as read alone
            log.exception("game %s: the scan could not be compared with the last accepted reading", game["id"])
            return result, None
        try:
            score = self.scorer(photo.result.state, photo.setup)
        except Exception:  # noqa: BLE001 - the station's scorer refuses it: keep the rules engine's score
            score = photo.result.score
        # the pipeline's own warnings (checks of the photo, not of the reading) stay with the scan
        own = [w for w in result.warnings if w not in (result.reading.warnings or ()) and w not in photo.result.warnings]
        return dataclasses.replace(photo.result, score=score, warnings=list(photo.result.warnings) + own), photo

    def keep_step(self, game_id: int, scan_id: int, photo: GamePhoto | None) -> None:
        """Keep the step a stored scan made (nothing when it was not followed)."""
        if photo is None:
            return
        try:
            game_steps.add_step(self.store, game_id=game_id, scan_id=scan_id, state=photo.result.reading.state,
                                accepted=photo.accepted, changes=photo.step.changes,
                                impossible=photo.step.impossible, timeline=photo.timeline)
        except StoreError as err:
            log.warning("scan %d: its step in game %d was not kept: %s", scan_id, game_id, err.message)

    def _correction(self, scan: dict, state: dict):
        """(game, timeline, step) of a correction of ``scan`` compared with the last accepted reading
        before that scan; None when the game is not followed or the rules engine refuses the state."""
        game = self.store.game(scan["game_id"]) if scan.get("game_id") is not None else None
        if not self.follows(game) or game["game"] != scan.get("game"):
            return None
        last = game_steps.last_accepted(self.store, game["id"], before_scan=scan["id"])
        timeline = _restore(Timeline(game["game"], game["setup"] or None, last=last["state"] if last else None,
                                     facts=_facts(last["timeline"]) if last else None),
                            last["timeline"] if last else None)
        try:
            return game, timeline, timeline.propose_correction(state)
        except Exception:  # noqa: BLE001 - the rules engine refuses the corrected state: the timeline stays
            log.warning("scan %d: the correction could not be compared with the last accepted reading", scan["id"])
            return None

    def correction_setup(self, scan: dict, state: dict, setup: dict | None) -> dict | None:
        """The setup a correction of ``scan`` is scored with: ``setup`` with the timeline's facts once
        the corrected state is accepted and, for the scan a finished game ended with, Game over's
        answers (``setup`` itself when the game is not followed)."""
        found = self._correction(scan, state)
        if found is None:
            return setup
        game, _, step = found
        out = game_module(game["game"]).with_facts(setup, step.facts)
        ending = game_steps.ending(self.store, game["id"])
        if ending is not None and ending["answers"] is not None and ending["scan_id"] == scan["id"]:
            out = endgame.final_setup(game["game"], out, ending["answers"], step.facts)
        return out

    def accept_correction(self, scan: dict, state: dict, revision_id: int) -> None:
        """A player's correction of ``scan`` becomes the game's new accepted reading (compared with
        the last accepted one before that scan; its forbidden changes are kept, not refused)."""
        found = self._correction(scan, state)
        if found is None:
            return
        game, timeline, step = found
        timeline.accept(state, step)
        game_steps.add_step(self.store, game_id=game["id"], scan_id=scan["id"], revision_id=revision_id, state=state,
                            accepted=True, changes=step.changes, impossible=step.impossible,
                            timeline=timeline.to_json())
        ending = game_steps.ending(self.store, game["id"])
        if ending is not None and ending["answers"] is not None:  # a finished game: its final score again
            self._settle(game, ending, ending["answers"])

    # -- the page ---------------------------------------------------------------------------
    def follow_view(self, game: dict | None, scan: dict | None) -> dict | None:
        """What the live page shows of a followed game for ``scan``: its ``step`` (or None), the
        ``timeline`` after the last accepted reading, ``accepted_scan_id``, and for a step with
        forbidden changes the two photos (``previous_photo_id``, ``photo_id``); the ``ending``; while
        the game runs, ``needed_at_end``: what Game over will ask, in the players' words."""
        if not self.follows(game):
            return None
        last = game_steps.last_accepted(self.store, game["id"])
        step = game_steps.of_scan(self.store, scan["id"]) if scan and scan.get("game_id") == game["id"] else None
        ending = game_steps.ending(self.store, game["id"])
        out = {"step": step, "timeline": _told(game, (last or {}).get("timeline"), ending),
               "accepted_scan_id": last["scan_id"] if last else None, "ending": ending,
               "needed_at_end": self.needed_at_end(game, last, ending)}
        if step and step["impossible"]:
            before = game_steps.last_accepted(self.store, game["id"], before_scan=scan["id"])
            out["photo_id"] = scan.get("photo_id")
            out["previous_scan_id"] = before["scan_id"] if before else None
            try:
                out["previous_photo_id"] = self.store.scan(before["scan_id"])["photo_id"] if before else None
            except StoreError:
                out["previous_photo_id"] = None
        return out

    def told_scan(self, scan: dict | None) -> dict | None:
        """``scan`` as the pages show it: in a Plażing game whose players named at Game over who
        closed areas the photos could not tell, its warnings about those areas replaced by what the
        players said; in a corrected scan, the warnings the correction settled moved to
        ``settled_warnings`` (:func:`beachscore.station.wording.settled_by_correction`). The stored
        scan is left as read."""
        if not scan:
            return scan
        if scan.get("revisions"):
            still, settled = settled_by_correction(scan.get("warnings"), scan.get("state"), scan.get("current_state"))
            scan = {**scan, "warnings": still, "settled_warnings": settled}
        if scan.get("game_id") is None:
            return scan
        game = self.store.game(scan["game_id"])
        ending = game_steps.ending(self.store, game["id"])
        answers = (ending or {}).get("answers") or {}
        if game.get("game") != "plazing" or not any(k.startswith("closer/") for k in answers):
            return scan
        last = game_steps.last_accepted(self.store, game["id"])
        facts = _facts(last["timeline"]) if last else None
        return {**scan, "warnings": endgame.settled_notes(scan.get("warnings"), facts, answers)}

    def game_ending(self, game_id: int) -> dict | None:
        """The end of a followed game: questions, answers, final reading and score (None: none)."""
        return game_steps.ending(self.store, game_id)

    # -- Game over --------------------------------------------------------------------------
    def ask_at_end(self, game_id: int, scan_id: int) -> bool:
        """At Game over of a followed game: keep its final reading and score; True when the
        players must answer questions first (the game then stays open, ``game-questions``)."""
        game = self.store.game(game_id)
        if not self.follows(game):
            return False
        last = game_steps.last_accepted(self.store, game_id)
        if last is None:
            return False
        facts = _facts(last["timeline"])
        setup = game_module(game["game"]).with_facts(game["setup"] or None, facts)
        try:
            score = self.scorer(last["state"], setup)
        except Exception:  # noqa: BLE001 - asked below as for an unknown total
            score = None
        asked = self._questions(game, score, facts)
        if not asked:
            game_steps.set_ending(self.store, game_id, scan_id, [], answers={}, state=last["state"], setup=setup,
                                  score=score)
            return False
        game_steps.set_ending(self.store, game_id, scan_id, asked)
        self.events.publish("game-questions", {"game_id": game_id, "scan_id": scan_id})
        return True

    def _questions(self, game: dict, score: dict | None, facts: dict | None) -> list[dict]:
        """What Game over asks for ``game`` whose last accepted reading scored ``score`` with the
        timeline's ``facts`` (:func:`beachscore.station.endgame.questions`)."""
        first = game_steps.first_accepted(self.store, game["id"])
        joined = bool(first and first["state"].get("pieces"))
        asked = endgame.questions(game["game"], game["setup"], score, facts=facts, joined_mid_game=joined)
        return in_game_order(asked, game.get("display"))

    def needed_at_end(self, game: dict, last: dict | None, ending: dict | None) -> list[str]:
        """While ``game`` runs: what Game over would ask the players now, in their words
        (:func:`beachscore.station.endgame.asked_in_words`), from the running score of the last
        accepted reading ``last``; empty before the first accepted reading and once Game over asks
        or the game is over."""
        if last is None or ending is not None or game.get("ended_at"):
            return []
        try:
            score = self.store.scan(last["scan_id"])["current_score"]
        except StoreError:
            return []
        return endgame.asked_in_words(self._questions(game, score, _facts(last["timeline"])))

    def answer_questions(self, game_id: int, answers: object) -> dict:
        """The players' answers to Game over's questions: the final score, and the game ends.

        Returns:
            ``{"score": the final score}``.
        Raises:
            BadInputError: ``no-questions`` (nothing is asked now), ``invalid-answers``.
            StoreError: the store cannot be written (the game stays open).
        """
        with self._answering:  # two pages answering at once: the second finds the game over
            game = self.store.game(game_id)
            ending = game_steps.ending(self.store, game_id)
            if game["ended_at"] or ending is None or ending["answers"] is not None:
                raise BadInputError("no-questions", f"game {game_id} asks nothing now: "
                                    + ("it is over, its questions answered" if game["ended_at"] else
                                       "press Game over to end it"))
            got = endgame.answered(ending["questions"], answers)
            score = self._settle(game, ending, got)
            self.store.end_game(game_id, ending["scan_id"])
        self.events.publish("game-over", {"game_id": game_id, "scan_id": ending["scan_id"]})
        return {"score": score}

    def _settle(self, game: dict, ending: dict, answers: dict) -> dict | None:
        """Score the game's last accepted reading with its facts and ``answers``; keep it as its end."""
        last = game_steps.last_accepted(self.store, game["id"])
        facts = _facts(last["timeline"])
        setup = game_module(game["game"]).with_facts(game["setup"] or None, facts)
        setup = endgame.final_setup(game["game"], setup, answers, facts)
        try:
            score = self.scorer(last["state"], setup)
        except Exception:  # noqa: BLE001 - kept without a score: the page and the hall say so
            log.exception("game %s: the final reading could not be scored", game["id"])
            score = None
        game_steps.set_ending(self.store, game["id"], ending["scan_id"], ending["questions"], answers=answers,
                              state=last["state"], setup=setup, score=score)
        return score
