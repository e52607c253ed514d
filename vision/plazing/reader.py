"""The Plażing reader: a registered photo in, the contract's state, confidence and warnings out.

Stages (one module each; every number in :mod:`vision.plazing.config`):

1. :mod:`~vision.plazing.prepare` — rectified top view, light normalised against the printed
   frame, photo quality checked;
2. :mod:`~vision.plazing.terrain` — the terrain from the setup, or read from the photo;
   :mod:`~vision.plazing.checks` — cells unlike the whole calibrated board refuse the photo when
   they form a blob (something over the board, part of it out of view);
3. :mod:`~vision.plazing.prints` — printed ± marks painted over with their cell's own sand;
4. :mod:`~vision.plazing.tokens` — a posterior over bare sand, every token class and "unknown"
   for each free cell; a blob of unknown cells is a hand (``occluded``, naming the cells);
5. :mod:`~vision.plazing.pieces` (with :mod:`~vision.plazing.seams`,
   :mod:`~vision.plazing.patterns`, :mod:`~vision.plazing.screens`) — each player's cells split
   into catalogue pieces, screens' facings;
6. :mod:`~vision.plazing.ledger` — every decision's posterior; the confidence is the probability
   that all are right;
7. :mod:`~vision.plazing.revisit` — the next most likely readings, tried by the pipeline when the
   rules reject the first.
"""

from __future__ import annotations

import copy

import numpy as np

from vision.errors import BadInputError, UnreadableBoardError
from vision.plazing.cells import Grid
from vision.plazing.checks import big_blobs, largest_blob, light_named, terrain_warning, unlike_board, unlike_message
from vision.plazing.config import PATTERN, PRINTS, QUALITY, RECTIFY, REVISIT
from vision.plazing.ledger import Decision, Ledger, calibrated
from vision.plazing.model import ReaderModel
from vision.plazing.names import cell_name, cells_text
from vision.plazing.patterns import piece_scorer
from vision.plazing.pieces import catalogue_shapes, groups, split_group
from vision.plazing.prepare import even_on_sand, prepare
from vision.plazing.prints import MARKS, flat_share, remove_marks
from vision.plazing.revisit import alternatives, conditional_log_p
from vision.plazing.screens import facing_of
from vision.plazing.seams import edge_jogs, seam_contrasts
from vision.plazing.terrain import setup_terrain
from vision.plazing.tokens import EMPTY, UNKNOWN, classify_tokens, odd_cells
from vision.types import Photo, Reading

OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
#: Tokens that are solid objects, shaded and casting a shadow, never one flat ink (a flat cardboard
#: neutral marker and a white shell can look flat from above): meeples, amber, pebbles.
SOLID = ("meeple/", "resource/amber", "resource/pebble")


def read(photo: Photo) -> Reading:
    """Read a Plażing board from a registered photo.

    Args:
        photo: registered photo (BGR uint8, decoded at 1/``DECODE_REDUCE`` or full size; the
            registration's homography is for that size); ``photo.setup["terrain"]`` (optional)
            marks ``#`` cells that no piece can cover.
    Returns:
        :class:`Reading` with the contract's state (plus ``cell_confidence``: a per-cell summary),
        the confidence (the probability that the whole state is right), warnings, the next most
        likely readings (``alternatives``, for the rules to choose from) and details for
        :func:`~vision.plazing.draw.draw`.
    Raises:
        UnreadableBoardError: ``too-dark``, ``glare``, ``too-blurred`` (photo quality),
            ``occluded`` (something no learned class explains over the board: a hand, an arm),
            ``board-out-of-view``, ``uneven-light``.
        BadInputError: ``invalid-setup`` when the setup's terrain does not fit the grid;
            ``terrain-missing``; ``calibration-outdated`` for a model of an older reader.
    """
    cal = photo.calibration
    profile = cal.profile
    grid = Grid.from_profile(profile)
    ppm = RECTIFY.px_per_mm
    model = ReaderModel.of(cal)
    terrain = setup_terrain(photo.setup, grid)
    terrain_given = (photo.setup or {}).get("terrain") is not None
    if not terrain_given and (model.terrain is None or not model.terrain.known):
        raise BadInputError("terrain-missing", "Plażing needs the terrain: pass --setup SETUP.json with 'terrain' "
                            "(or calibrate with calib.setup.json, the calibration shot's terrain, beside the "
                            "calibration photo so that the terrain can be read from photos)")
    prep = prepare(photo, model, grid, terrain, on_sand=terrain_given)
    view, local = prep.view, prep.rect.local
    ledger = Ledger((grid.rows, grid.cols))
    warnings: list[str] = []

    # 2. terrain, and cells unlike the whole calibrated board
    looks = view.looks() if model.terrain is not None else None
    try:
        unlike_board(looks, model, terrain, terrain_given, view.gains, view.owner)
    except UnreadableBoardError as e:
        raise light_named(e, prep) from None
    if not terrain_given:
        terrain, terrain_p, _ = model.terrain.classify(looks)
        even_on_sand(prep, model, terrain)  # now that the closing terrain is known
        view = prep.view
        view.owner[terrain == "#"] = -1
        warnings.append(terrain_warning(terrain, terrain_p, model.terrain.classes))
        for r, c in np.argwhere(terrain_p < 1.0).tolist():
            ledger.add(Decision("terrain", [(r, c)], float(terrain_p[r, c]), f"terrain {terrain[r, c]!r} at "
                                f"{cell_name((r, c))}", claim=((r, c), str(terrain[r, c]))))
    owner = view.owner
    placeable = terrain != "#"
    over = prep.overexposed
    if over is not None and (over & placeable).sum() > QUALITY.max_clipped_share * placeable.sum():
        where = cells_text(np.argwhere(over & placeable), 4)
        raise UnreadableBoardError("glare", f"part of the board is too bright to read ({where} are overexposed: a "
                                   "lamp or the sun on the board); dim or move the light and take the photo again")
    where = np.argwhere(placeable)
    ledger.add_many("cover", where, view.cover_p[where[:, 0], where[:, 1]], owner[where[:, 0], where[:, 1]] >= 0)

    # 3. printed marks painted over: every free cell is then read as sand
    free_mask = (owner < 0) & placeable
    feats = view.features()
    painted = remove_marks(view.board, local.boxes_px(ppm, 1.0), terrain, free_mask, model.mark_inks)[0]
    if painted:  # only those cells' features change
        feats = feats.copy()
        feats[tuple(np.array(painted).T)] = view.features_of(painted)

    # 4. tokens; a blob of cells that nothing learned explains is something over the board
    free = [tuple(rc) for rc in np.argwhere(free_mask).tolist()]
    tokens = {}
    if free:
        rc = np.array(free)
        x = feats[rc[:, 0], rc[:, 1]]
        dists = {}
        post = classify_tokens(x, model.tokens, keep=dists)
        unknown = [c for c, pu in zip(free, post.p_unknown) if pu > 0.5]
        odd = [c for c, o in zip(free, odd_cells(x, model.tokens, QUALITY.odd_distance, dists)) if o]
        glare = prep.clipped if prep.clipped is not None else np.zeros(terrain.shape, bool)
        strange = sorted(c for c in set(odd) | set(unknown) if not glare[c])  # overexposed: explained, doubted below
        blob = largest_blob(strange, (grid.rows, grid.cols))
        if blob > QUALITY.max_unknown_blob_cells:
            raise light_named(UnreadableBoardError("occluded", unlike_message(
                big_blobs(strange, (grid.rows, grid.cols), QUALITY.max_unknown_blob_cells), blob, model, terrain,
                terrain_given, looks, view.gains)), prep) from None
        if unknown:
            warnings.append(f"{cells_text(unknown)}: "
                            f"{'looks' if len(unknown) == 1 else 'look'} like nothing learned at calibration (a "
                            "smudge, a stray object?); check")
        # terrain read from the photo, and a printed mark the calibration never showed free: a flat
        # print where a solid token (shaded, with a shadow: never one flat ink) was expected is that mark
        unseen = [] if terrain_given else [m for m in MARKS if m not in model.terrain.classes]
        boxes = local.boxes_px(ppm, 1.0)
        mark_like = []
        sure = []
        clipped = []
        # each cell's most probable known class and its runner-up; "unknown" mass is doubt about it
        known = post.post[:, :-1]
        order = np.argsort(-known, axis=1)[:, :2]
        top_p = np.take_along_axis(known, order, axis=1).tolist()
        order = order.tolist()
        two = known.shape[1] > 1
        for i, cell in enumerate(free):
            name, p = post.names_all[order[i][0]], top_p[i][0]
            alt = post.names_all[order[i][1]] if two else name
            alt_p = top_p[i][1] if two else 0.0
            if name != EMPTY and prep.clipped is not None and prep.clipped[cell]:
                # overexposed: the colour that named the token is lost; it may be glare on sand
                clipped.append(cell)
                p = min(p, 0.5)
                alt, alt_p = EMPTY, max(alt_p, 1.0 - p) if alt == EMPTY else 1.0 - p
            elif name == EMPTY and two and ((prep.at_top is not None and prep.at_top[cell]
                                             and alt_p >= p * REVISIT.negligible_odds)
                                            or (prep.white is not None and prep.white[cell] >= QUALITY.white_share)):
                # bare sand on clipped sand with a token not ruled out, or with white in it: the colour
                # that tells a light token (a shell, a marker) from sand is what the clipping lost
                clipped.append(cell)
                p = min(p, 0.5)
                alt_p = max(alt_p, 1.0 - p)
            if unseen and name.startswith(SOLID):  # a solid object is shaded and casts a shadow
                u0, v0, u1, v1 = boxes[cell]
                f = flat_share(view.board[v0:v1, u0:u1])
                if f is not None and f >= PRINTS.flat_print_share:
                    mark_like.append(cell)
                    ledger.add(Decision("terrain", [cell], 1.0 / (len(unseen) + 1), f"a printed "
                                        f"{' or '.join(map(repr, unseen))} square, or sand, at {cell_name(cell)}",
                                        claim=(cell, ".")))
                    name, p, alt, alt_p = EMPTY, 1.0, name, 0.0
            tokens[cell] = name
            if alt_p < p * REVISIT.negligible_odds:  # nothing to revisit: only its posterior counts
                sure.append((cell, p, name))
            else:
                ledger.add(Decision("token", [cell], p, _words(name, cell), alt_p, _words(alt, cell),
                                    _set_token(cell, alt), claim=(cell, name)))

        if sure:
            ledger.add_many("token", [c for c, _, _ in sure], [p for _, p, _ in sure], [n for _, _, n in sure])
        if clipped:
            warnings.append(f"{cells_text(clipped)}: too bright to read (the camera's colours are clipped there: a "
                            "lamp or the sun); the tokens read there are guesses — dim the light or check them")
        if mark_like:
            warnings.append(f"{cells_text(mark_like)}: a flat print where a token was expected, read as a printed "
                            f"{' or '.join(map(repr, unseen))} square (the calibration shot shows none free; it "
                            "cannot tell which); pass --setup with 'terrain' to be sure")

    # 5. pieces
    shapes = catalogue_shapes(profile)
    seams = seam_contrasts(view.board, owner, local, ppm)
    jogs = edge_jogs(view.masks, owner, local, ppm)
    covered = [tuple(x) for x in np.argwhere(owner >= 0).tolist()]
    windows, _ = view.windows(covered, model.player_gray, model.median)
    scorer = piece_scorer(model.patterns, covered, windows)
    untaught = model.patterns.untaught()
    pieces = []
    for pi, cells in groups(owner):
        player = model.players[pi]
        split = split_group(cells, seams, shapes, scorer, joined_sd_bgr=model.seam_sd, jogs=jogs,
                            jog_sd_mm=model.jog_sd)
        if not split.exact:
            warnings.append(f"{player} cells {cells_text(cells)} fit no piece of the catalogue")
        if split.exact and split.runner_up is not None and split.kinds & untaught:
            # a kind whose print was never seen could explain these cells: as likely as not
            split.posterior = min(split.posterior, 0.5)
            warnings.append(f"{player} cells {cells_text(cells)}: no {'/'.join(sorted(split.kinds & untaught))} was labelled "
                            "at calibration, so its print is unknown; add one to the calibration shot")
        elif split.posterior <= 0.5 and split.runner_up is not None:
            warnings.append(f"{player} cells {cells_text(cells)}: the split into pieces is ambiguous "
                            f"(p = {split.posterior:.2f}); check them")
        mine = []
        for kind, cs, _, _ in split.pieces:
            piece = {"player": player, "kind": kind, "cells": [list(c) for c in cs]}
            if kind == "screen":
                piece["facing"], p_face = facing_of(view.gray, cs, model.template, local, ppm)
                ledger.add(Decision("facing", list(cs), p_face, _facing_words(player, cs, piece["facing"]), 1.0 - p_face,
                                    f"facing {OPPOSITE[piece['facing']]}", _flip_facing(list(cs)),
                                    claim=(sorted(cs), piece["facing"])))
            mine.append(piece)
        pieces += mine
        alt_p = split.alt_posterior if split.runner_up is not None else 0.0
        runner = split.runner_up or []

        def alt_pieces(runner=runner, player=player):  # written only when the runner-up is tried
            out = []
            for kind, cs in runner:
                piece = {"player": player, "kind": kind, "cells": [list(c) for c in cs]}
                if kind == "screen":
                    piece["facing"] = facing_of(view.gray, cs, model.template, local, ppm)[0]
                out.append(piece)
            return out

        ledger.add(Decision("split", sorted(cells), split.posterior,
                            lambda cells=cells, player=player, mine=mine:
                            f"{player} cells {cells_text(cells)} split as " + _pieces_words(mine), alt_p,
                            lambda runner=runner: _pieces_words([{"kind": k} for k, _ in runner]),
                            _replace_pieces(mine, alt_pieces) if runner else None,
                            claim=[(p["kind"], sorted(map(tuple, p["cells"]))) for p in mine]))
        if not split.exact:  # some cell's cover must be wrong: the groups without its least sure cells
            impossible = ledger.decisions[-1]
            for cell, p_cov in _repairs(cells, view.cover_p):
                fixed = _split_without(cells, cell, player, seams, jogs, shapes, scorer, model, view, local, ppm)
                if fixed is not None:
                    pieces_fixed, log_split = fixed
                    # the runner-up frees the cell and replaces the impossible split by the new one
                    gain = np.log(max(1.0 - p_cov, 1e-12)) - np.log(p_cov) + log_split - np.log(impossible.p)
                    ledger.add(Decision("cover", [cell], p_cov, f"{cell_name(cell)} covered by {player}", 1.0 - p_cov,
                                        f"{cell_name(cell)} free", _replace_pieces(mine, pieces_fixed),
                                        alt_log_ratio=float(gain), claim=(cell, True)))

    _hidden_prints(pieces, scorer, ledger, warnings)

    state = {"game": "plazing", "rows": grid.rows, "cols": grid.cols, "pieces": pieces, "meeples": [],
             "neutral": [], "resources": [], "trash": [], "surprises": []}
    for cell, name in tokens.items():
        _put_token(state, cell, name)
    if not terrain_given:
        state["terrain"] = ["".join(row) for row in terrain]
    cell_conf = np.where(placeable, ledger.cell_confidence(), 1.0)
    low = np.argwhere(placeable & (cell_conf < 0.9)).tolist()
    n_place = int(placeable.sum())
    state["cell_confidence"] = {"min": round(float(cell_conf[placeable].min()), 4) if n_place else 1.0,
                                "mean": round(float(cell_conf[placeable].mean()), 4) if n_place else 1.0,
                                "doubtful": low[:20]}
    doubts = [d for d in ledger.decisions if d.kind == "token" and d.p < 0.9]
    if doubts:
        warnings.append("not sure of " + "; ".join("{} (or {})".format(*d.words()) for d in doubts[:4])
                        + ("; …" if len(doubts) > 4 else ""))
    log_p = ledger.log_p()
    confidence = calibrated(log_p, ledger.cfg)  # = ledger.confidence(), the sum taken once
    details = {"cell_conf": cell_conf, "grid": grid, "reader_confidence": confidence, "log_p": log_p,
               "free": free_mask, "ledger": ledger}
    return Reading(state=state, confidence=confidence, warnings=warnings, details=details,
                   alternatives=Alternatives(state, ledger, warnings, details))


class Alternatives:
    """The next most likely readings (:mod:`vision.plazing.revisit`), worked out only when someone
    iterates over them (the pipeline does when the rules reject the reading)."""

    def __init__(self, state: dict, ledger: Ledger, warnings: list, details: dict):
        self._args = (state, ledger, warnings, details)
        self._readings = None

    def __iter__(self):
        if self._readings is None:
            state, ledger, warnings, details = self._args
            alts = alternatives(state, ledger)
            self._readings = []
            for (st, _, changes), lp in zip(alts, conditional_log_p([a[1] for a in alts], ledger.log_p())):
                conf = calibrated(lp, ledger.cfg)
                self._readings.append(Reading(
                    state=st, confidence=conf, warnings=warnings + [
                        f"read with {'; '.join(changes)}: the more likely reading breaks the game's rules; check it"],
                    details=dict(details, reader_confidence=conf, log_p=lp)))
        return iter(self._readings)

    def __bool__(self) -> bool:
        return True


def _repairs(cells, cover_p: np.ndarray) -> list:
    """The cells of an untileable group whose cover is least sure, with their cover posterior."""
    ranked = sorted(cells, key=lambda c: cover_p[c])
    return [(c, float(cover_p[c])) for c in ranked[:REVISIT.decisions]]


def _split_without(cells, cell, player, seams, jogs, shapes, scorer, model, view, local, ppm):
    """The pieces of a group once ``cell`` is taken out of it (read as free) and the log of their
    splits' posteriors, or None when what is left still fits no piece of the catalogue."""
    rest = set(cells) - {cell}
    out, log_p = [], 0.0
    while rest:  # the 4-connected parts of what is left
        part, todo = set(), [next(iter(rest))]
        while todo:
            c = todo.pop()
            if c in rest:
                rest.discard(c)
                part.add(c)
                todo += [(c[0] + 1, c[1]), (c[0] - 1, c[1]), (c[0], c[1] + 1), (c[0], c[1] - 1)]
        split = split_group(part, seams, shapes, scorer, joined_sd_bgr=model.seam_sd, jogs=jogs,
                            jog_sd_mm=model.jog_sd)
        if not split.exact:
            return None
        log_p += float(np.log(max(split.posterior, 1e-12)))
        for kind, cs, _, _ in split.pieces:
            piece = {"player": player, "kind": kind, "cells": [list(c) for c in cs]}
            if kind == "screen":
                piece["facing"] = facing_of(view.gray, cs, model.template, local, ppm)[0]
            out.append(piece)
    return out, log_p


def _hidden_prints(pieces: list, scorer, ledger: Ledger, warnings: list) -> None:
    """Doubt the pieces whose print is hidden in part: something (a meeple pushed off its cell, a
    token) may stand on them, and it is then missing from the reading.

    A cell's print cost (:func:`~vision.plazing.patterns.piece_scorer`) against the photo's typical
    piece cell (the median) is the evidence: the probability that something covers the print is
    logistic in the log of that ratio around ``PATTERN.hidden_ratio``.
    """
    known = [(p, sorted(map(tuple, p["cells"]))) for p in pieces if p["kind"] != "unknown"]
    per = [scorer.per_cell(p["kind"], cells) for p, cells in known]
    if not per:
        return
    typical = max(float(np.median(np.concatenate(per))), PATTERN.min_typical_cost)
    for (p, cells), costs in zip(known, per):
        ratio = float(costs.max()) / typical
        hidden = 1.0 / (1.0 + (PATTERN.hidden_ratio / max(ratio, 1e-9)) ** PATTERN.hidden_slope)
        if hidden > 0.01:
            ledger.add(Decision("print", cells, 1.0 - hidden, f"nothing on the {p['player']} {p['kind']} on "
                                f"{cells_text(cells)}", claim=cells))
        if hidden > 0.5:
            warnings.append(f"the print of the {p['player']} {p['kind']} on {cells_text(cells)} is hidden in part: "
                            "is a meeple or a token standing on it? Check it and the cells around it")


def _facing_words(player: str, cells, facing: str):
    """A function giving a screen's facing in words (written only when someone reads it)."""
    return lambda: f"the {player} screen on {cells_text(cells)} facing {facing}"


def _words(name: str, cell):
    """A function giving :func:`_token_words` (written only when someone reads it)."""
    return lambda: _token_words(name, cell)


def _token_words(name: str, cell) -> str:
    """A token decision in words: ``a red meeple on D3``, ``bare sand on D3``."""
    where = cell_name(cell)
    parts = name.split("/")
    if name == EMPTY:
        return f"bare sand on {where}"
    if parts[0] == "meeple":
        return f"a {parts[1]} meeple on {where}"
    if parts[0] == "resource":
        return f"{'an' if parts[1][0] in 'aeiou' else 'a'} {parts[1]} on {where}"
    return f"a {'neutral marker' if name == 'neutral' else name} on {where}"


def _pieces_words(pieces: list) -> str:
    """Pieces in words: ``a screen and a gear``."""
    kinds = [p["kind"] for p in pieces]
    words = [f"{'an' if k[0] in 'aeiou' else 'a'} {k}" for k in kinds]
    return " and ".join(words) if len(words) < 3 else ", ".join(words[:-1]) + " and " + words[-1]


def _put_token(state: dict, cell, name: str) -> None:
    r, c = int(cell[0]), int(cell[1])
    parts = name.split("/")
    if parts[0] == "meeple":
        state["meeples"].append({"player": parts[1], "cell": [r, c]})
    elif parts[0] == "resource":
        state["resources"].append({"kind": parts[1], "cell": [r, c]})
    elif name == "neutral":
        state["neutral"].append([r, c])
    elif name == "trash":
        state["trash"].append([r, c])
    elif name == "surprise":
        state["surprises"].append([r, c])


def _set_token(cell, name: str):
    """``state -> state`` with the token on ``cell`` replaced by ``name`` (or removed for sand)."""
    where = [int(cell[0]), int(cell[1])]

    def apply(state: dict) -> dict:
        st = copy.deepcopy(state)
        st["meeples"] = [m for m in st["meeples"] if m["cell"] != where]
        st["resources"] = [m for m in st["resources"] if m["cell"] != where]
        for k in ("neutral", "trash", "surprises"):
            st[k] = [c for c in st[k] if list(c) != where]
        _put_token(st, where, name)
        return st

    return apply


def _flip_facing(cells: list):
    """``state -> state`` with the screen on ``cells`` facing the other way."""
    key = sorted(map(tuple, cells))

    def apply(state: dict) -> dict:
        st = copy.deepcopy(state)
        for p in st["pieces"]:
            if p["kind"] == "screen" and sorted(map(tuple, p["cells"])) == key:
                p["facing"] = OPPOSITE[p["facing"]]
                return st
        raise KeyError("screen not in the state")

    return apply


def _replace_pieces(old: list, new):
    """``state -> state`` with the pieces ``old`` replaced by ``new`` (a list, or a function giving it)."""
    keys = [(p["player"], p["kind"], sorted(map(tuple, p["cells"]))) for p in old]

    def apply(state: dict) -> dict:
        st = copy.deepcopy(state)
        kept = [p for p in st["pieces"] if (p["player"], p["kind"], sorted(map(tuple, p["cells"]))) not in keys]
        if len(kept) != len(st["pieces"]) - len(old):
            raise KeyError("pieces not in the state")
        st["pieces"] = kept + copy.deepcopy(new() if callable(new) else new)
        return st

    return apply
