"""A table's result from the rules engine's score: each player's game points and rank.

The rules engines (``scoring``) name players as the game does (piece colours such as ``red``);
a table names them by their event ids. :func:`match_seats` links the two, :func:`table_result`
turns a score into a :class:`~tournament.event.Result`:

- Strand unter: ``total`` (``castle_points`` when the score is ranked by them because buckets or
  cards are unknown) and the score's ``ranking`` (the sea-first tie-break already applied).
- Plażing: ``total``; a total the score cannot give (a missing off-board fact) is refused. Ties
  share a rank (the rules know no tie-break).
- Seashells: the players' mats merged (``scoring.seashells_mats.merge_mats``) and scored, with the
  Sun-shell tie-break of the score's ``ranking`` (:func:`seashells_result`).
- Sand Castles (co-operative): the table is a team; every player gets the score's ``points``.
"""

from __future__ import annotations

from tournament.errors import InvalidEventError
from tournament.event import MAX_POINTS, Result, _number, ranks_from_points
from tournament.games import is_co_op
import scoring
from scoring.seashells_mats import merge_mats


def _norm(text) -> str:
    return " ".join(str(text).split()).casefold()


def match_seats(game_players: list[str], table: list[tuple[str, str]], *, names: dict | None = None,
                seats: dict | None = None) -> dict[str, str]:
    """Link the game's player names (piece colours) to the table's players.

    Args:
        game_players: names the score uses (``red``, ``blue`` …).
        table: the table's players as ``(id, name)``.
        names: optional game name -> the name a player typed at the station (``{"red": "Ana"}``).
        seats: optional game name -> event id chosen explicitly (wins over everything).
    Returns:
        game name -> event id for every game player that could be matched: by ``seats``, by the
        game name being an id or a name of the table, else by ``names``; case and spacing ignored.

    >>> match_seats(["red", "blue"], [("p1", "Ana"), ("p2", "Bo")], names={"red": "ana", "blue": "Bo "})
    {'red': 'p1', 'blue': 'p2'}
    """
    by_key: dict[str, str] = {}
    for pid, name in table:
        by_key.setdefault(_norm(pid), pid)
        by_key.setdefault(_norm(name), pid)
    ids = {pid for pid, _ in table}
    out: dict[str, str] = {}
    for g in game_players:
        chosen = (seats or {}).get(g)
        if chosen in ids:
            out[g] = chosen
        elif _norm(g) in by_key:
            out[g] = by_key[_norm(g)]
        elif names and names.get(g) and _norm(names[g]) in by_key:
            out[g] = by_key[_norm(names[g])]
    return out


def table_result(game: str, score: dict, players: list[str], seats: dict[str, str] | None = None) -> Result:
    """The result of a table from the rules engine's final score.

    Args:
        game: the event's game.
        score: the rules engine's score of the table's final state (``scoring.score``).
        players: the table's players (event ids).
        seats: game player name -> event id (:func:`match_seats`); not needed for co-operative games.
    Raises:
        InvalidEventError: a game player not matched to a table player (or the reverse), a score
            without the points a result needs, points that are not finite or beyond ``MAX_POINTS``.

    >>> score = {"players": [{"player": "red", "total": 13}, {"player": "blue", "total": 13}],
    ...          "ranking": [["blue"], ["red"]]}
    >>> table_result("strand-unter", score, ["p1", "p2"], {"red": "p1", "blue": "p2"})
    Result(game_points={'p1': 13, 'p2': 13}, ranks={'p1': 2, 'p2': 1})
    >>> table_result("sand-castles", {"points": 6, "outcome": "playing"}, ["p1", "p2"])
    Result(game_points={'p1': 6, 'p2': 6}, ranks=None)
    """
    if not isinstance(score, dict):
        raise InvalidEventError("score: expected the rules engine's score object")
    if is_co_op(game):
        points = score.get("points")
        if not _number(points):
            raise InvalidEventError(f"score: a Sand Castles score needs its points (a number of at most {MAX_POINTS:.0e}), "
                                    f"got {str(points)[:40]}")
        return Result({p: points for p in players}, None)
    rows = [r for r in score.get("players") or [] if isinstance(r, dict)]
    seats = seats or {}
    key = "castle_points" if score.get("ranked_by") == "castle_points" else "total"
    unmatched = [r.get("player") for r in rows if r.get("player") not in seats]
    if unmatched:
        raise InvalidEventError(f"say who played {', '.join(map(str, unmatched))}: no player of the table matches")
    missing = [p for p in players if p not in seats.values()]
    if missing:
        raise InvalidEventError(f"{', '.join(missing)} sat at the table but the score has no player for them")
    points = {}
    for r in rows:
        value = r.get(key)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            lacks = ", ".join(score.get("missing") or []) or "facts the photo cannot show"
            raise InvalidEventError(f"{r.get('player')}'s total is not known (the score needs {lacks}); "
                                    "complete the game set-up or enter the result by hand")
        if not _number(value):
            raise InvalidEventError(f"{r.get('player')}'s {key} {str(value)[:40]} is not a possible score: "
                                    "enter the result by hand")
        points[seats[r["player"]]] = value
    ranking = score.get("ranking")
    if isinstance(ranking, list) and ranking:
        ranks, place = {}, 1
        for group in ranking:
            for g in group:
                if g in seats:
                    ranks[seats[g]] = place
            place += len(group)
        if set(ranks) != set(points):
            ranks = ranks_from_points(points)
    else:
        ranks = ranks_from_points(points)
    return Result({p: points[p] for p in players}, {p: ranks[p] for p in players})


def seashells_result(mats: list[dict], players: list[str], seats: dict[str, str], setup: dict | None = None) -> Result:
    """A Seashells table's result from its players' mats combined.

    Args:
        mats: one Seashells state per mat (as a mat scan reads it, or corrected).
        players, seats: as :func:`table_result`.
        setup: the game's set-up (``scoring``, ``sun``, ``secrets``).
    Raises:
        InvalidEventError; scoring's InvalidStateError for mats that cannot be merged or scored.

    >>> mats = [{"game": "seashells", "players": [{"player": "ana", "shells": [["conch", "pink"]]}]},
    ...         {"game": "seashells", "players": [{"player": "bo", "shells": []}]}]
    >>> seashells_result(mats, ["p1", "p2"], {"ana": "p1", "bo": "p2"}).ranks
    {'p1': 1, 'p2': 2}
    """
    setup = setup or {}
    merged = merge_mats(mats, {k: setup[k] for k in ("scoring", "sun") if k in setup})
    return table_result("seashells", scoring.score(merged, setup), players, seats)
