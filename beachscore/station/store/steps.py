"""A followed game's steps and its end in the store: tables ``game_steps`` and ``game_endings``.

A *step* is one reading of a game compared with the last accepted one (``docs/game.md``): its
``changes``, ``impossible``, whether it was ``accepted`` and the timeline after it. A scan makes
one step; a player's correction of a scan makes another (accepted: a deliberate correction is the
new accepted reading). A game's *ending* holds the questions the station asks at Game over, the
players' answers, and the final score they give.
"""

from __future__ import annotations

import json

from beachscore.station.store.db import Store, _id, _loads, dumps, now_iso


def add_step(store: Store, *, game_id: int, scan_id: int, state: dict, accepted: bool, changes: list,
             impossible: list, timeline: dict, revision_id: int | None = None) -> int:
    """Keep one step of game ``game_id``; returns its id.

    Raises:
        StoreError: ``disk-full``, ``read-only``, ``data-folder-missing``.
    """
    row = (game_id, scan_id, revision_id, now_iso(), 1 if accepted else 0, dumps(state), dumps(changes),
           dumps(impossible), dumps(timeline))
    with store._writing(), store._tx() as db:
        # a new reading of the game withdraws the questions of a Game over that was not answered
        db.execute("DELETE FROM game_endings WHERE game_id=? AND answers_json IS NULL", (game_id,))
        return db.execute("INSERT INTO game_steps(game_id, scan_id, revision_id, created_at, accepted, state_json, "
                          "changes_json, impossible_json, timeline_json) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                          row).lastrowid


def _step_dict(row) -> dict:
    d = dict(row)
    return {"id": d["id"], "game_id": d["game_id"], "scan_id": d["scan_id"], "revision_id": d["revision_id"],
            "created_at": d["created_at"], "accepted": bool(d["accepted"]), "state": json.loads(d["state_json"]),
            "changes": json.loads(d["changes_json"]), "impossible": json.loads(d["impossible_json"]),
            "timeline": json.loads(d["timeline_json"])}


def last_accepted(store: Store, game_id: int, before_scan: int | None = None) -> dict | None:
    """The game's last accepted step (before scan ``before_scan`` when given), or None."""
    sql = "SELECT * FROM game_steps WHERE game_id=? AND accepted=1"
    args: tuple = (_id(game_id, "game"),)
    if before_scan is not None:
        sql += " AND scan_id<?"
        args += (_id(before_scan, "scan"),)
    with store._lock:
        row = store._db.execute(sql + " ORDER BY id DESC LIMIT 1", args).fetchone()
    return _step_dict(row) if row else None


def first_accepted(store: Store, game_id: int) -> dict | None:
    """The game's first accepted step, or None."""
    with store._lock:
        row = store._db.execute("SELECT * FROM game_steps WHERE game_id=? AND accepted=1 ORDER BY id LIMIT 1",
                                (_id(game_id, "game"),)).fetchone()
    return _step_dict(row) if row else None


def of_scan(store: Store, scan_id: int) -> dict | None:
    """The latest step made by scan ``scan_id`` (its reading, or a correction of it), or None."""
    with store._lock:
        row = store._db.execute("SELECT * FROM game_steps WHERE scan_id=? ORDER BY id DESC LIMIT 1",
                                (_id(scan_id, "scan"),)).fetchone()
    return _step_dict(row) if row else None


def set_ending(store: Store, game_id: int, scan_id: int, questions: list, *, answers: dict | None = None,
               state: dict | None = None, setup: dict | None = None, score: dict | None = None) -> None:
    """Keep (or replace) the end of game ``game_id``: its questions, and once answered the answers,
    the final reading, its setup and score.

    Raises:
        StoreError: ``disk-full``, ``read-only``, ``data-folder-missing``.
    """
    row = (game_id, scan_id, now_iso(), dumps(questions), None if answers is None else dumps(answers),
           None if state is None else dumps(state), None if setup is None else dumps(setup),
           None if score is None else dumps(score))
    with store._writing(), store._tx() as db:
        db.execute("INSERT INTO game_endings(game_id, scan_id, created_at, questions_json, answers_json, state_json, "
                   "setup_json, score_json) VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(game_id) DO UPDATE SET "
                   "scan_id=excluded.scan_id, created_at=excluded.created_at, questions_json=excluded.questions_json, "
                   "answers_json=excluded.answers_json, state_json=excluded.state_json, "
                   "setup_json=excluded.setup_json, score_json=excluded.score_json", row)


def ending(store: Store, game_id: int) -> dict | None:
    """The end of game ``game_id`` (``questions``, ``answers`` or None while asked, ``state``,
    ``setup``, ``score``, ``scan_id``), or None when it has none."""
    with store._lock:
        row = store._db.execute("SELECT * FROM game_endings WHERE game_id=?", (_id(game_id, "game"),)).fetchone()
    if row is None:
        return None
    d = dict(row)
    return {"game_id": d["game_id"], "scan_id": d["scan_id"], "created_at": d["created_at"],
            "questions": json.loads(d["questions_json"]), "answers": _loads(d["answers_json"]),
            "state": _loads(d["state_json"]), "setup": _loads(d["setup_json"]), "score": _loads(d["score_json"])}
