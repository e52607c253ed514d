"""Plażing reader: pieces, screen facings and tokens from one registered photo.

Pipeline (one module per idea, every tunable number in :mod:`vision.plazing.config`):

1. decode the photo at half size (:data:`DECODE_REDUCE`), rectify the grid (plus a margin) at
   :data:`~vision.plazing.config.RECTIFY` px/mm and the whole board small
   (:mod:`vision.plazing.rectify`); refuse dark / glared / blurred photos
   (:func:`~vision.plazing.checks.check_quality`); bring the lighting to the calibration's with the
   board's printed frame as the reference (:func:`~vision.plazing.lighting.lighting_gains`);
2. label every pixel with a learned colour (:mod:`vision.plazing.cells`, :mod:`vision.plazing.view`),
   decide which player covers each placeable cell (terrain ``#`` is never a piece). The terrain
   comes from the setup, or — without one — is read from the photo (:mod:`vision.plazing.terrain`:
   the drawn objects learned from the calibration shot's own terrain, ``calib.setup.json``),
   reported in ``state["terrain"]`` with a warning; cells whose whole look is unlike every
   calibration cell refuse the photo when they form a blob (a flat patch hiding the board:
   ``board-out-of-view``; else ``occluded``, with the measured cause: colour cast, shadow, a setup
   terrain unlike the photo's — :mod:`vision.plazing.checks`);
3. classify the tokens on free cells (:mod:`vision.plazing.tokens`); refuse the photo when a
   blob of cells looks like nothing learned (a hand or an arm over the board);
4. split each player's touching cells into catalogue pieces by the cuts between them
   (:mod:`vision.plazing.seams`) and by each kind's printed pattern learned at calibration
   (:mod:`vision.plazing.patterns`, :mod:`vision.plazing.pieces`); read each screen's facing from
   its learned cross-profile (:mod:`vision.plazing.screens`);
5. confidence = product of every decision's posterior (cover per cell, split per group, facing
   per screen, token per free cell), so that one doubtful cell pulls the whole reading down.

Calibration: :func:`learn` (:mod:`vision.plazing.learn`; the stored model:
:mod:`vision.plazing.model`). Registration: :func:`register` (:mod:`vision.plazing.register`).

Speed: every image operation works on the rectified grid (≈ 0.25 Mpx) with whole-image OpenCV
calls, cell statistics come from block means (:class:`~vision.plazing.cells.CellBlocks`), warps
and large scratch arrays are reused from scan to scan, and small matrix products stay below the
size at which numpy's BLAS starts threads.

Contract: ``shared/contracts/plazing.md``; rules: ``shared/rules/plazing.md``.
"""

from __future__ import annotations

import numpy as np

from beachscore.errors import BadInputError, UnreadableBoardError
from vision.plazing.cells import Grid
from vision.plazing.checks import check_quality, largest_blob, terrain_warning, unlike_board, unlike_message
from vision.plazing.config import QUALITY, RECTIFY, SEAM, TOKENS
from vision.plazing.learn import learn, parse_label
from vision.plazing.lighting import field_at, frame_mask, lighting_field, lighting_gains, uneven_light
from vision.plazing.model import MODEL_VERSION, ReaderModel
from vision.plazing.patterns import piece_scorer
from vision.plazing.pieces import catalogue_shapes, groups, split_group, weak_seam_decisions
from vision.plazing.rectify import DECODE_REDUCE, Rectified, scratch_arrays
from vision.plazing.prints import remove_marks
from vision.plazing.register import register
from vision.plazing.screens import facing_of
from vision.plazing.seams import seam_contrasts
from vision.plazing.terrain import setup_terrain
from vision.plazing.tokens import EMPTY, classify_tokens, strangeness, with_scan_marks
from vision.plazing.view import View
from vision.types import Photo, Reading

#: The reader interface (:mod:`beachscore.games`), and the names tests and tools use.
__all__ = ["DECODE_REDUCE", "MODEL_VERSION", "annotate", "learn", "lighting_gains", "parse_label", "read",
           "register"]


def read(photo: Photo) -> Reading:
    """Read a Plażing board from a registered photo.

    Args:
        photo: registered photo (BGR uint8, decoded at 1/:data:`DECODE_REDUCE` or full size; the
            registration's homography is for that size); ``photo.setup["terrain"]`` (optional)
            marks ``#`` cells that no piece can cover.
    Returns:
        :class:`Reading` with the contract's state (plus ``cell_confidence``: a per-cell summary),
        the confidence (product of every decision's posterior), warnings and details for
        :func:`annotate`.
    Raises:
        UnreadableBoardError: ``too-dark``, ``glare``, ``too-blurred`` (photo quality) or
            ``occluded`` (cells that no learned class explains: a hand or an arm over the board).
        BadInputError: ``invalid-setup`` when the setup's terrain does not fit the grid;
            ``calibration-outdated`` for a model of an older reader.
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
    scratch = scratch_arrays()
    rect = Rectified(photo.image, photo.registration.H_px_from_mm, profile, grid, scratch)
    P = len(model.players)
    frame = frame_mask(rect.small.shape, grid, QUALITY.px_per_mm)
    gains = lighting_gains(rect.small, model.reference_small, frame, model.median)
    # uneven light (a lamp to one side, a vignette, a soft shadow): a smooth gain field fitted on
    # the printed frame evens it out before any cell is judged
    coef = lighting_field(rect.small, model.reference_small, frame, gains)
    board, small = None, rect.small
    if coef is not None:
        fld = field_at(coef, rect.crop.shape, rect.offset_mm, ppm, profile["board_mm"])
        board = np.clip(rect.crop * (np.asarray(gains, np.float32) * fld[..., None]), 0, 255).astype(np.uint8)
        fq = field_at(coef, rect.small.shape, (0.0, 0.0), QUALITY.px_per_mm, profile["board_mm"])
        small = np.clip(rect.small * fq[..., None], 0, 255).astype(np.uint8)
    view = View(rect, gains, model.table, P, terrain, board=board, scratch=scratch)
    check_quality(small, view.gains, model, grid)
    local = rect.local
    warnings: list[str] = []
    terrain_p = None
    feats = view.features()
    looks = view.looks() if model.terrain is not None else None
    try:
        far = unlike_board(looks, model, terrain, terrain_given, view.gains, view.owner)
    except UnreadableBoardError as e:
        raise _light_named(e, rect.small, model.reference_small, frame, gains, coef) from None
    if not terrain_given:
        terrain, terrain_p, _ = model.terrain.classify(looks)
        view.owner[terrain == "#"] = -1
        warnings.append(terrain_warning(terrain, terrain_p, model.terrain.classes))
    owner = view.owner
    placeable = terrain != "#"
    cell_conf = np.where(placeable, view.cover_p, 1.0)  # per cell, for people: every decision touching it
    decision_p = cell_conf.copy()  # per cell, cover and token decisions only (pieces counted once below)
    terrain_conf = 1.0
    if terrain_p is not None:
        cell_conf *= terrain_p
        terrain_conf = float(np.prod(terrain_p))
    if far:
        for r, c in far:
            cell_conf[r, c] *= 0.5
        terrain_conf *= 0.5 ** len(far)
        warnings.append(f"{len(far)} cells look unlike anything seen at calibration: "
                        + ", ".join(f"[{r},{c}]" for r, c in far[:6]) + "; check them")

    # printed marks painted over with their cell's sand: every free cell is then read as sand
    cleaned, _ = remove_marks(view.board, local.boxes_px(ppm, 1.0), terrain, (owner < 0) & placeable)
    if cleaned:
        view.refresh()
        feats = view.features()
    # tokens first: a blob of unexplained cells (an arm) refuses the photo before pieces are split
    free = np.argwhere((owner < 0) & placeable)
    tokens_found = []
    unexplained = []
    unsure_tokens = []  # free cells whose token (or sand) is a near thing: a meeple half on a piece
    token_p = {}  # free cell → (token name, posterior of its token and of its being free)
    if len(free):
        tokens, unseen = with_scan_marks(model.tokens, feats, free, terrain)
        names, probs, dist = classify_tokens(feats[free[:, 0], free[:, 1]], tokens)
        odd = [tuple(rc) for rc, d in zip(free.tolist(), strangeness(feats[free[:, 0], free[:, 1]], tokens))
               if d > QUALITY.odd_distance]
        blob = largest_blob(odd, (grid.rows, grid.cols))
        if blob > QUALITY.max_odd_blob_cells:
            raise _light_named(UnreadableBoardError("occluded", unlike_message(odd, blob, model, terrain, terrain_given,
                                                                                looks, view.gains)),
                               rect.small, model.reference_small, frame, gains, coef)
        hidden_marks = [] if terrain_given else [m for m in "+-x" if m not in model.terrain.classes]
        mark_like = []
        for (r, c), name, p, d in zip(free.tolist(), names, probs, dist):
            if terrain[r, c] in unseen and name != EMPTY:
                p *= 0.5  # a token on a printed mark the calibration never showed: doubtful
            if hidden_marks and name != EMPTY and d > TOKENS.unseen_mark_distance:
                # terrain read from the photo, and a printed mark the calibration shot never showed
                # free: a loosely matching "token" may be that mark — read as sand, and doubtful
                mark_like.append((r, c))
                name, p, d = EMPTY, min(p, 0.5), 0.0
            if d > TOKENS.max_distance:
                unexplained.append((r, c))
                p = min(p, 0.5)
            cell_conf[r, c] *= p
            decision_p[r, c] *= p
            if p < TOKENS.unsure_token_p:
                unsure_tokens.append((r, c))
            token_p[r, c] = (name, p * float(view.cover_p[r, c]))
            if name != EMPTY:
                tokens_found.append((name, r, c))
        if mark_like:
            marks = " or ".join(repr(m) for m in hidden_marks)
            warnings.append(f"cells {', '.join(f'[{r},{c}]' for r, c in mark_like[:6])} match a learned token only "
                            f"loosely: a printed {marks} square (never seen free at calibration)? "
                            "Read as sand; check them, or pass --setup with 'terrain'")
    n_place = int(placeable.sum())
    blob = largest_blob(unexplained, (grid.rows, grid.cols))
    if len(unexplained) > QUALITY.max_unexplained_share * n_place or blob > QUALITY.max_unexplained_blob_cells:
        raise _light_named(UnreadableBoardError("occluded", unlike_message(unexplained, blob, model, terrain,
                                                                            terrain_given, looks, view.gains)),
                           rect.small, model.reference_small, frame, gains, coef)
    if unexplained:
        warnings.append(f"{len(unexplained)} cells look like nothing learned at calibration: "
                        + ", ".join(f"[{r},{c}]" for r, c in unexplained[:6]))

    # pieces
    shapes = catalogue_shapes(profile)
    seams = seam_contrasts(view.board, owner, local, ppm)
    covered = [tuple(x) for x in np.argwhere(owner >= 0).tolist()]
    windows, _ = view.windows(covered, model.player_gray, model.median)
    scorer = piece_scorer(model.patterns, covered, windows)
    pieces, details_pieces, conf = [], [], 1.0
    print_ll = []  # (piece index, kind, cells, print log-likelihood per cell)
    untaught = model.patterns.untaught()
    for pi, cells in groups(owner):
        split = split_group(cells, seams, shapes, scorer)
        if split.exact and split.runner_up is not None and split.kinds & untaught:
            # a kind whose print was never seen could explain these cells: the split is a guess
            split.posterior *= 0.5
            warnings.append(f"{model.players[pi]} cells {sorted(map(list, cells))}: no "
                            f"{'/'.join(sorted(split.kinds & untaught))} was labelled at calibration, so its "
                            "print is unknown; add one to the calibration shot")
        weak = weak_seam_decisions(split, seams)
        if weak and split.posterior > SEAM.weak_seam_posterior:
            # cut or joined on a faint dip (JPEG blocks, a crease): which of the two is a guess
            split.posterior = SEAM.weak_seam_posterior
            warnings.append(f"{model.players[pi]} cells {sorted(map(list, cells))}: whether the pieces are cut at "
                            + ", ".join(f"{list(a)}|{list(b)}" for a, b in weak[:3])
                            + " rests on faint seam evidence; check them")
        if not split.exact:
            warnings.append(f"{model.players[pi]} cells {sorted(map(list, cells))} fit no piece of the catalogue")
        elif split.posterior <= 0.5 and split.runner_up is not None:
            warnings.append(f"{model.players[pi]} cells {sorted(map(list, cells))}: the split into pieces is "
                            f"ambiguous (p = {split.posterior:.2f})")
        conf *= split.posterior
        for kind, cs, facing, p_face in split.pieces:
            piece = {"player": model.players[pi], "kind": kind, "cells": [list(c) for c in cs]}
            p_piece = split.posterior
            if kind == "screen":
                piece["facing"], p_face = facing_of(view.gray, cs, model.template, local, ppm)
                conf *= p_face
                p_piece *= p_face
            if kind != "unknown":
                print_ll.append((len(pieces), kind, cs, scorer(kind, cs)[0] / len(cs)))
            pieces.append(piece)
            details_pieces.append(p_piece)
            for r, c in cs:
                cell_conf[r, c] *= p_piece
    conf *= _covered_pieces(print_ll, pieces, details_pieces, cell_conf, token_p, warnings)

    meeples, neutral, resources, trash, surprises = [], [], [], [], []
    for name, r, c in tokens_found:
        kind = name.split("/")
        if kind[0] == "meeple":
            meeples.append({"player": kind[1], "cell": [r, c]})
        elif kind[0] == "resource":
            resources.append({"kind": kind[1], "cell": [r, c]})
        elif name == "neutral":
            neutral.append([r, c])
        elif name == "trash":
            trash.append([r, c])
        elif name == "surprise":
            surprises.append([r, c])
    confidence = float(np.prod(decision_p[placeable])) * conf * terrain_conf
    if unsure_tokens:
        # a token decision this close (a meeple standing half on a piece shows half in its cell) may be
        # wrong: the reading is not sure
        warnings.append("token or sand hard to tell at " + ", ".join(f"[{r},{c}]" for r, c in unsure_tokens[:6])
                        + " (a token at a cell's edge, or half on a piece?)")
        confidence = min(confidence, TOKENS.unsure_reading_conf)
    low = np.argwhere(placeable & (cell_conf < 0.9)).tolist()
    state = {"game": "plazing", "rows": grid.rows, "cols": grid.cols, "pieces": pieces, "meeples": meeples,
             "neutral": neutral, "resources": resources, "trash": trash, "surprises": surprises,
             "cell_confidence": {"min": round(float(cell_conf[placeable].min()), 4) if n_place else 1.0,
                                 "mean": round(float(cell_conf[placeable].mean()), 4) if n_place else 1.0,
                                 "doubtful": low[:20]}}
    if not terrain_given:
        state["terrain"] = ["".join(row) for row in terrain]
    details = {"cell_conf": cell_conf, "grid": grid, "piece_conf": details_pieces,
               "reader_confidence": float(np.clip(confidence, 0.0, 1.0))}
    return Reading(state=state, confidence=float(np.clip(confidence, 0.0, 1.0)), warnings=warnings, details=details)


def _covered_pieces(print_ll, pieces, piece_p, cell_conf, token_p, warnings) -> float:
    """Pieces whose print looks covered — a meeple standing on a piece's edge — made doubtful.

    A piece's print log-likelihood per cell far below its kind's median in this photo
    (``TOKENS.covered_print_rel``) and below ``TOKENS.covered_print_ll``, or below
    ``TOKENS.edge_print_ll`` (and ``covered_print_rel`` / 2 under the median) beside a free cell
    read with doubt (``TOKENS.edge_token_p``: the rest of the meeple), caps the piece's posterior at
    ``TOKENS.unsure_reading_conf``. Updates ``piece_p``, ``cell_conf`` and ``warnings`` in place.

    Returns:
        the factor the reading's confidence is multiplied by.
    """
    factor = 1.0
    medians = {k: float(np.median([x for _, kk, _, x in print_ll if kk == k])) for _, k, _, _ in print_ll}
    for i, kind, cs, ll in print_ll:
        med = medians[kind]
        covered = ll < TOKENS.covered_print_ll and ll < med - TOKENS.covered_print_rel
        edge = ll < TOKENS.edge_print_ll and ll < med - TOKENS.covered_print_rel / 2 and any(
            token_p.get(nb, ("", 1.0))[1] < TOKENS.edge_token_p
            for r, c in cs for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)))
        if not (covered or edge) or piece_p[i] <= TOKENS.unsure_reading_conf:
            continue
        warnings.append(f"{pieces[i]['player']} {kind} at {[list(c) for c in cs]}: its print looks covered "
                        f"(log-likelihood {ll:.0f} per cell against {med:.0f}; a meeple or a token standing on "
                        "its edge?); check it and the cells around it")
        step = TOKENS.unsure_reading_conf / piece_p[i]
        factor *= step
        piece_p[i] = TOKENS.unsure_reading_conf
        for r, c in cs:
            cell_conf[r, c] *= step
    return factor


def _light_named(err: UnreadableBoardError, small, reference, frame, gains, coef) -> UnreadableBoardError:
    """``err`` (``occluded``) as ``uneven-light`` when the printed frame shows the light uneven
    (:func:`~vision.plazing.lighting.uneven_light`): a shadow or a bright patch, not a hand."""
    if err.code == "occluded" and uneven_light(small, reference, frame, gains, coef):
        return UnreadableBoardError("uneven-light", "the light is uneven across the board (a shadow or a bright "
                                    "patch: the printed frame is darker or brighter in part, in every colour alike), "
                                    "so cells look unlike calibration: " + err.message
                                    + " Light the board evenly and take the photo again.")
    return err


def annotate(photo: Photo, reading: Reading) -> np.ndarray:
    """Draw the reading on the photo, at the calibration shot's full size, for a person to check.

    Every cell is projected through the registration homography: closed areas filled with their
    owner's colour (grey, crossed, for neutral), pieces outlined in their player's colour (thick
    for ring pieces) and labelled with their number and kind in words (screens with their facing),
    tokens written in words, disputes crossed in red, doubtful cells boxed in red; a legend strip
    below gives the confidence, what the marks mean, the players and the first warnings.

    Returns:
        BGR uint8 image: the photo (calibration size) over the legend strip.
    """
    from vision.plazing.draw import draw

    return draw(photo, reading)
