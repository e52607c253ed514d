"""``beachscore score``."""

from __future__ import annotations

import json
import time

import scoring
from beachscore.commands.common import EXIT_OK, load_setup
from scoring.seashells_mats import merge_mats
from vision.files import load_object


def run(args) -> int:
    """Score one state, or merge several Seashells mats (``scoring.seashells_mats.merge_mats``) and score them.

    Each STATE.json is a state or a ``scan --json`` output (its ``state`` is used). With several,
    every one must be a Seashells mat; ``--setup`` may name unnamed mats (``players``) and give
    ``scoring`` / ``sun``. Errors: missing file or invalid JSON → exit 2; states that cannot be
    merged or scored (another game, a player on two mats) → exit 2 ``invalid-state``.
    """
    paths = args.state if isinstance(args.state, list) else [args.state]
    docs = [load_object(path, "state file") for path in paths]
    states = [doc["state"] if isinstance(doc.get("state"), dict) else doc for doc in docs]
    setup = load_setup(args.setup)
    if len(states) == 1:
        state = states[0]
    else:
        state = merge_mats(states, setup)
    t0 = time.perf_counter()
    result = scoring.score(state, setup)  # validates first: InvalidStateError lists every problem
    score_ms = round((time.perf_counter() - t0) * 1e3, 2)
    if args.json:
        out = {"game": state.get("game"), "state": scoring.complete_state(state, setup), "score": result,
               "confidence": 1.0, "warnings": [],
               "timing_ms": {"decode": 0.0, "register": 0.0, "detect": 0.0, "score": score_ms}}
        if args.explain:
            out["explanation"] = scoring.explain(state, setup)
        print(json.dumps(out))
    else:
        print(scoring.explain(state, setup))
    return EXIT_OK
