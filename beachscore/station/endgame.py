"""Game over at the station: what neither the photo nor the timeline knows, asked in the game's words.

A *question* is a JSON object the page shows as a counter or a choice:
``{"key", "player" (or None), "text", "kind": "count" | "choice", "value" (the default; None: a
choice the players must make),
"max" (counts), "choices" ([[value, words], ...], choices)}``. Answers are ``{key: value}``.

- Plażing: the weather die when the set-up does not give it; when the station joined a game
  already under way (its first accepted reading had pieces on the board), each player's areas
  closed and resources collected in the whole game (the timeline's counts as the defaults);
  otherwise, for each area whose closer the photos could not tell, who closed it (a choice among
  the players who may have, with no default; "nobody remembers" leaves their totals unknown).
- Strand unter: for each player whose total is not known, per colour, the shells left in the
  bucket that find no space on the face-up (unbuilt) castle cards (unfit shells); a counter with
  no default: left unset it is not given, and that player's total stays unknown.
- Sand Castles: nothing (the co-operative score needs no more).
"""

from __future__ import annotations

from beachscore.errors import BadInputError
from scoring.plazing_state import COLLECTED_KINDS, WEATHERS
from scoring.strand_unter import COLOURS
from scoring.timeline.plazing import area_place, public_facts, settle_closers, sure_closings, told_notes

#: The weather die's faces as the page names them.
WEATHER_WORDS = {"sun": "sun", "rain": "rain", "wind-N": "wind towards the sea (N)",
                 "wind-S": "wind towards the dune (S)", "wind-E": "wind to the east (E)",
                 "wind-W": "wind to the west (W)"}
#: Largest count a counter takes (areas, resources, shells of a colour).
MOST = 99
#: Strand unter's unfit shells as Game over asks them, in the rules' words (rules §End scoring 2).
UNFIT_WORDS = ("shells left in {owner} {bucket} that find no space on the face-up (unbuilt) castle cards "
               "(unfit shells)")
#: The answer "nobody remembers who closed this area" (those players' totals stay unknown).
UNKNOWN_CLOSER = "unknown"


def _count(key: str, player: str, text: str, value: int | None = 0) -> dict:
    """A counter question; ``value`` its default (None: not given until the players set it)."""
    return {"key": key, "player": player, "text": text, "kind": "count",
            "value": None if value is None else int(value), "max": MOST}


def _closer(n: int, doubted: dict) -> dict:
    """The question "who closed this area?" of the ``n``-th area whose closer the photos could not tell."""
    cells = doubted.get("cells") or []
    owner = doubted.get("owner")
    whose = "nobody's" if owner in (None, "neutral") else f"{owner}'s"
    who = [str(p) for p in doubted.get("candidates") or []]
    return {"key": f"closer/{n}", "player": None, "kind": "choice", "value": None,
            "text": f"Who closed the area at {area_place(cells)} ({len(cells)} square{'s' if len(cells) != 1 else ''}, "
                    f"{whose})?",
            "choices": [[p, p] for p in who] + [[UNKNOWN_CLOSER, "nobody remembers"]]}


def questions(game: str, setup: dict | None, score: dict | None, *, facts: dict | None = None,
              joined_mid_game: bool = False) -> list[dict]:
    """What the station asks at Game over (empty: every total is known already).

    Args:
        game: the game's name; setup: the game's set-up; score: the final reading's score with
            the timeline's facts; facts: the timeline's facts (Plażing: each of its
            ``doubted_closings`` is asked as "who closed it?"); joined_mid_game: the first accepted
            reading already had pieces on the board.
    """
    setup, facts = setup or {}, facts or {}
    players = [p.get("player") for p in (score or {}).get("players") or [] if isinstance(p, dict)]
    out: list[dict] = []
    if game == "plazing":
        if not setup.get("weather"):
            out.append({"key": "weather", "player": None, "text": "The weather die: which face is up?",
                        "kind": "choice", "value": None,  # rolled at the end: never taken as sun
                        "choices": [[w, WEATHER_WORDS[w]] for w in WEATHERS]})
        if joined_mid_game and not isinstance(setup.get("closings"), dict):
            for p in players:
                out.append(_count(f"{p}/closings", p, f"areas {p} closed in the whole game",
                                  sure_closings(facts).get(p, 0)))
                got = (facts.get("collected") or {}).get(p) or {}
                for kind in COLLECTED_KINDS:
                    out.append(_count(f"{p}/{kind}", p, f"{kind} {p} collected in the whole game", got.get(kind, 0)))
        elif not isinstance(setup.get("closings"), dict):
            out += [_closer(n, d) for n, d in enumerate(facts.get("doubted_closings") or [], 1)]
    elif game == "strand-unter":
        for row in (score or {}).get("players") or []:
            if isinstance(row, dict) and row.get("total") is None:
                p = row.get("player")
                for colour in COLOURS:
                    words = UNFIT_WORDS.format(owner=f"{p}'s", bucket="bucket")
                    out.append(_count(f"{p}/unfit/{colour}", p, f"{colour} {words}", None))
    return out


def _together(words: list[str]) -> str:
    """``["red", "blue", "green"]`` → ``"red, blue and green"``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def asked_in_words(questions_: list[dict]) -> list[str]:
    """What :func:`questions` would ask at Game over, said ahead in the players' words: one phrase
    per fact to have ready at the end (a running game's hint), the players of one kind of question
    named together.

    >>> asked_in_words(questions("strand-unter", None, {"players": [{"player": "red", "total": None},
    ...     {"player": "blue", "total": 4}, {"player": "green", "total": None}]}))
    ["the shells left in red's and green's buckets that find no space on the face-up (unbuilt) castle cards (unfit shells), counted per colour"]
    >>> asked_in_words(questions("plazing", {}, None)), asked_in_words([])
    (['which face of the weather die is up'], [])
    """
    def asked_of(part: str) -> list[str]:
        return list(dict.fromkeys(str(q["player"]) for q in questions_ if part in q["key"]))

    out = []
    if any(q["key"] == "weather" for q in questions_):
        out.append("which face of the weather die is up")
    out += [q["text"][0].lower() + q["text"][1:].rstrip("?") for q in questions_ if q["key"].startswith("closer/")]
    if counted := asked_of("/closings"):
        each = "each" if len(counted) > 1 else "they"
        out.append(f"the areas {_together(counted)} closed and what {each} collected "
                   f"({', '.join(COLLECTED_KINDS)}) in the whole game")
    if unfit := asked_of("/unfit/"):
        owners = _together([p + "'s" for p in unfit])
        buckets = "buckets" if len(unfit) > 1 else "bucket"
        out.append("the " + UNFIT_WORDS.format(owner=owners, bucket=buckets) + ", counted per colour")
    return out


def answered(questions_: list[dict], answers: object) -> dict:
    """Every question's answer (its default when not given), checked. A counter without a default
    (Strand unter's unfit shells) left unset, or answered None, is not given and left out: the
    player's unfit shells and total then stay unknown, as without the bucket at set-up (contract).

    Raises:
        BadInputError: ``invalid-answers`` (not an object, a count out of 0..99, a choice not offered,
            a key not asked).
    """
    if not isinstance(answers, dict):
        raise BadInputError("invalid-answers", "the answers must be a JSON object {question: value}")
    asked = {q["key"]: q for q in questions_}
    unknown = [k for k in answers if k not in asked]
    if unknown:
        raise BadInputError("invalid-answers", f"{str(unknown[0])[:40]!r} was not asked")
    out = {}
    for key, q in asked.items():
        value = answers.get(key, q["value"])
        if value is None and q["kind"] == "count":
            continue
        if value is None and q["kind"] == "choice":
            raise BadInputError("invalid-answers", f"{q['text'].rstrip('?:.')}: choose one of "
                                f"{', '.join(c[1] for c in q['choices'])}")
        if q["kind"] == "count":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= q["max"]:
                raise BadInputError("invalid-answers", f"{q['text']}: expected a whole number 0 to {q['max']}")
        elif value not in [c[0] for c in q["choices"]]:
            raise BadInputError("invalid-answers", f"{q['text'].rstrip('?:.')}: expected one of "
                                f"{', '.join(c[0] for c in q['choices'])}")
        out[key] = value
    return out


def named_closers(facts: dict | None, answers: dict) -> dict[str, str]:
    """``{place: player}`` of the doubted areas (the timeline's ``doubted_closings``, in the order
    they were asked) whose closer the players named (``closer/N`` answers other than "nobody
    remembers"); the place as :func:`scoring.timeline.plazing.area_place` names it."""
    named = {}
    for n, d in enumerate((facts or {}).get("doubted_closings") or [], 1):
        who = answers.get(f"closer/{n}", UNKNOWN_CLOSER)
        if who != UNKNOWN_CLOSER:
            named[area_place(d.get("cells") or [[0, 0]])] = who
    return named


def settled_facts(facts: dict | None, answers: dict) -> dict:
    """The timeline's facts (public shape) with the doubted areas whose closer the players named
    (:func:`named_closers`) settled (:func:`scoring.timeline.plazing.settle_closers`)."""
    return public_facts(settle_closers(facts, named_closers(facts, answers))[0])


def settled_notes(notes: list[str], facts: dict | None, answers: dict) -> list[str]:
    """``notes`` (a timeline's notes or a scan's warnings) with each one saying the photos cannot
    tell who closed an area the players named replaced by what they said
    (:func:`scoring.timeline.plazing.told_notes`)."""
    return told_notes(list(notes or []), named_closers(facts, answers))


def final_setup(game: str, setup: dict, answers: dict, facts: dict | None = None) -> dict:
    """The setup the final score is computed with: ``setup`` (the game's, with the timeline's
    facts), the timeline's ``facts`` and the answers. Who closed each doubted area settles its
    closer's closings and track (:func:`scoring.timeline.plazing.settle_closers`); when the
    closings of the whole game were counted instead, the running ``track`` is dropped (the score
    then counts start + closings + fields, as the track does)."""
    out = dict(setup)
    if game == "plazing":
        if "weather" in answers:
            out["weather"] = answers["weather"]
        closings = {k.split("/")[0]: v for k, v in answers.items() if k.endswith("/closings")}
        if any(k.startswith("closer/") for k in answers):
            settled = settled_facts(facts, answers)
            out["closings"], out["track"] = settled["closings"], settled["track"]
        elif closings:
            out["closings"] = {**(out.get("closings") or {}), **closings}
            out.pop("track", None)
        collected = {k.split("/")[0] for k in answers if k.split("/")[-1] in COLLECTED_KINDS}
        if collected:
            out["collected"] = {**(out.get("collected") or {}),
                                **{p: {kind: answers.get(f"{p}/{kind}", 0) for kind in COLLECTED_KINDS}
                                   for p in collected}}
    elif game == "strand-unter":
        hands: dict = {}
        for key, value in answers.items():
            player, _, colour = key.split("/")
            hands.setdefault(player, {"bucket": {c: 0 for c in COLOURS}, "open_cards": []})["bucket"][colour] = value
        if hands:
            out["players"] = {**(out.get("players") or {}), **hands}
    return out
