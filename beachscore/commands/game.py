"""``beachscore game``: photos read in order as one game, and ``scan --previous``."""

from __future__ import annotations

import json
import re

import scoring
from beachscore.checks import check_setup
from beachscore.commands.common import EXIT_OK, emit_error, load_setup
from beachscore.errors import BadInputError, BeachscoreError
from beachscore.follow import FollowedGame, GamePhoto
from beachscore.inputs import check_calibration_dir
from vision.confidence import confidence_percent
from calibration import store
from scoring.timeline.plazing import area_place, place_key


def photo_text(path: str, photo: GamePhoto) -> str:
    """The scan's text block, then what changed since the last accepted reading and what is forbidden."""
    result = photo.result
    lines = [f"{path}: {result.game}, confidence {confidence_percent(result.confidence)}%"]
    lines += [f"  warning: {w}" for w in result.warnings]
    if result.score:
        lines += ["  " + line for line in scoring.explain(result.state, photo.setup).splitlines()]
    # an unaccepted photo's differences are what it shows, not what the game takes as changed
    changed = "changed" if photo.accepted else "differs (not accepted)"
    lines += [f"  {changed}: {c['text']}" for c in photo.step.changes]
    lines += [f"  IMPOSSIBLE: {c['text']}" for c in photo.step.impossible]
    return "\n".join(lines)


def fact_text(key: str, value, facts: dict) -> str:
    """One timeline fact as the final block prints it: its JSON, or words when it is empty.

    An empty ``closings`` or ``track`` beside ``doubted_closings`` is every player's figure in doubt,
    not nobody's closing.

    >>> fact_text("closings", {}, {"doubted_closings": []}), fact_text("track", {"red": 1}, {})
    ('none', '{"red": 1}')
    >>> fact_text("closings", {}, {"doubted_closings": [{"candidates": ["red", "blue"]}]})
    'none sure (see doubted_closings)'
    """
    if not isinstance(value, (dict, list)) or value:
        return json.dumps(value)
    if key in ("closings", "track") and facts.get("doubted_closings"):
        return "none sure (see doubted_closings)"
    return "none"


def final_text(game: FollowedGame) -> str:
    """The game's end: the timeline's facts and the last accepted reading scored with them."""
    facts = game.timeline.to_json()
    lines = [f"game: {game.cal.game}, {facts['readings']} photo(s) accepted"]
    lines += [f"  {key}: {fact_text(key, value, facts)}" for key, value in facts.items()
              if key not in ("readings", "notes")]
    lines += [f"  note: {n}" for n in facts["notes"]]
    warnings = game.final_warnings()
    lines += [f"  warning: {w}" for w in warnings + game.told_problems + game.terrain_note()]
    if warnings and game.timeline.last is not None:
        spans = [f"{p} {'?' if r is None else (r[0] if r[0] == r[1] else f'{r[0]}–{r[1]}')}"
                 for p, r in game.totals_range().items()]
        lines.append("  possible totals, by who closed the doubted areas: " + ", ".join(spans))
        if game.doubted_accepted or game.terrain_note():
            lines.append(f"  (those ranges take the photos as read; {game.doubted_accepted} accepted photo(s) "
                         "were doubted" + (" and the terrain is not sure" if game.terrain_note() else "")
                         + ", so the true totals may lie outside them)")
        lines += closer_hint(game.timeline.facts)
    if game.timeline.last is not None:
        text = scoring.explain(game.timeline.last, game.timeline.score_setup())
        lines += ["  " + line for line in text.splitlines()]
    return "\n".join(lines)


def closer_hint(facts: dict | None) -> list[str]:
    """How to name the closers the photos could not tell: one line with a ``--closer`` per doubted area.

    >>> closer_hint({"doubted_closings": [{"cells": [[0, 10]], "candidates": ["blue", "green"]},
    ...                                  {"cells": [[8, 13], [8, 16]], "candidates": ["red", "blue"]}]})
    ['  to get every total, say who closed each of those areas: --closer K1=PLAYER (blue or green), --closer N9-Q9=PLAYER (red or blue)']
    >>> closer_hint({"doubted_closings": []})
    []
    """
    doubted = (facts or {}).get("doubted_closings") or []
    if not doubted:
        return []
    def who(names: list[str]) -> str:
        return " or ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " or " + names[-1]
    flags = ", ".join(f"--closer {area_place(d.get('cells', [])).replace('–', '-')}=PLAYER ({who(d.get('candidates', []))})"
                      for d in doubted)
    return [f"  to get every total, say who closed each of those areas: {flags}"]


def follow(game: FollowedGame, images: list[str], as_json: bool, annotate=None) -> int:
    """Read ``images`` in order into ``game``, one line (or block) each; returns the worst exit code."""
    worst = EXIT_OK
    for i, path in enumerate(images):
        try:
            photo = game.read_file(path)
            if annotate:
                annotate(i, photo.result)
        except BeachscoreError as err:
            emit_error(err, as_json, path)
            worst = max(worst, err.exit_code)
            continue
        print(json.dumps(photo.to_json()) if as_json else photo_text(path, photo), flush=True)
    return worst


#: ``--closer``: a square (``N5``) or a first and last square (``N5-N7``), ``=``, a player's colour.
CLOSER = re.compile(r"^([A-Za-z]+[0-9]+(?:[-–][A-Za-z]+[0-9]+)?)=([A-Za-z0-9_-]{1,40})$")


def told_closers(values: list[str]) -> dict[str, str]:
    """``--closer PLACE=PLAYER`` values as ``{place: player}``.

    Raises:
        BadInputError: ``invalid-closer``, a value not shaped PLACE=PLAYER.
    """
    out: dict[str, str] = {}
    for value in values:
        m = CLOSER.match(value.strip())
        if not m:
            raise BadInputError("invalid-closer", f"--closer {value[:40]!r}: expected PLACE=PLAYER, e.g. N5-N7=red "
                                "(the area's place as the game's lines name it)")
        place, who = place_key(m.group(1)), m.group(2)
        if out.get(place, who) != who:
            raise BadInputError("invalid-closer", f"--closer {place}: named twice, for {out[place]} and for {who}")
        out[place] = who
    return out


def run(args) -> int:
    """``beachscore game``: every photo with the accepted reading before it as its prior, then the final line."""
    told = told_closers(args.closer)
    check_calibration_dir(args.calibration)
    cal = store.load(args.calibration)
    setup = load_setup(args.setup)
    check_setup(setup, cal)  # once, before any photo: a bad setup is one error, not one per photo
    game = FollowedGame(cal, setup)
    worst = follow(game, args.images, args.json)
    if told:
        game.settle_closers(told)
    print(json.dumps(game.final_json()) if args.json else final_text(game), flush=True)
    return worst
