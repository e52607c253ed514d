"""Stage 5 of :func:`vision.plazing.reader.read` — each player's covered cells split into pieces.

Input: the labelled view (who covers each cell), the learned model, the board profile's catalogue.
Output: the pieces ({player, kind, cells[, facing]}) with every split, facing, repair and hidden
print entered in the reading's :class:`~vision.plazing.ledger.Ledger` with its runner-up. The
splits come from :mod:`~vision.plazing.pieces` (with :mod:`~vision.plazing.seams` and
:mod:`~vision.plazing.patterns`), the facings from :mod:`~vision.plazing.screens`.
"""

from __future__ import annotations

import numpy as np

from vision.plazing.config import PATTERN, REVISIT
from vision.plazing.ledger import Decision, Ledger
from vision.plazing.names import cell_name, cells_text
from vision.plazing.patterns import piece_scorer
from vision.plazing.pieces import catalogue_shapes, groups, split_group
from vision.plazing.screens import facing_of
from vision.plazing.seam_config import SEAM
from vision.plazing.seams import edge_jogs, finest_dips, has_seams, print_log_ratios, print_offsets
from vision.plazing.state_edits import OPPOSITE, flip_facing, replace_pieces
from vision.plazing.words import facing_words, pieces_words


def read_pieces(view, model, profile, local, ppm: float, ledger: Ledger, warnings: list, fine=None) -> list:
    """The pieces on the board.

    Args:
        view: the labelled :class:`~vision.plazing.view.View` (``owner``: int (rows, cols), the
            player covering each cell, −1 none); model: the
            :class:`~vision.plazing.model.ReaderModel`; profile: the board profile (its catalogue);
            local: the grid crop's cell geometry; ppm: its px per mm; ledger, warnings: the
            reading's, appended to; fine: a call giving the board with the full-size photo's
            detail and its px per mm (:func:`~vision.plazing.prepare.fine_board`), where the seams'
            dips are measured too (:func:`~vision.plazing.seams.finest_dips`); None (or a call giving
            None): on ``view.board`` only.
    Returns:
        [{"player", "kind", "cells": [[row, col], …], "facing" (screens)}], group by group.
    """
    owner = view.owner
    shapes = catalogue_shapes(profile)
    seams = finest_dips(view.board, owner, local, ppm, fine() if fine is not None and has_seams(owner) else None)
    jogs = edge_jogs(view.masks, owner, local, ppm)
    covered = [tuple(x) for x in np.argwhere(owner >= 0).tolist()]
    windows, _ = view.windows(covered, model.player_gray, model.median)
    scorer = piece_scorer(model.patterns, covered, windows)
    # the print pitch per edge, weighed for the kinds whose cells share one print (gear)
    prints = print_log_ratios(measured_prints(view, model, scorer, covered, local, ppm))
    untaught = model.patterns.untaught()
    pieces = []
    for pi, cells in groups(owner):
        pieces += _read_group(model.players[pi], cells, seams, jogs, shapes, scorer, untaught, model, view, local,
                              ppm, ledger, warnings, prints)
    hidden_prints(pieces, scorer, ledger, warnings)
    return pieces


def measured_prints(view, model, scorer, covered, local, ppm: float) -> dict:
    """The print offsets (:func:`~vision.plazing.seams.print_offsets`, mm) of the edges between
    cells that look like a cell of a kind whose cells share one print (``model.patterns.pooled``:
    gear): their print cost under that kind (:func:`~vision.plazing.patterns.piece_scorer`'s
    ``per_cell``) at most what a kind never taught costs (``PatternModel.untaught_cost``: twice a
    matching cell's average). A screen's or a blanket's cell is not measured: its print is no dot,
    and the offset would only be read for gears. {} when the catalogue has no such kind."""
    pooled = model.patterns.pooled
    if not pooled or not covered:
        return {}
    limit = model.patterns.untaught_cost()
    alike = {c for c in covered if min(float(scorer.per_cell(k, [c])[0]) for k in pooled) <= limit}
    return print_offsets(view.board, view.owner, local, ppm, cells=alike)


def _read_group(player, cells, seams, jogs, shapes, scorer, untaught, model, view, local, ppm, ledger: Ledger,
                warnings: list, prints: dict) -> list:
    """The pieces of one player's group of touching cells, its split and facings (and, when the
    group fits no piece, the repairs that free one of its cells) entered in ``ledger``; ``prints``:
    the print pitch evidence per edge (:func:`~vision.plazing.seams.print_log_ratios`)."""
    pooled = model.patterns.pooled
    split = split_group(cells, seams, shapes, scorer, joined_sd_bgr=model.seam_sd, jogs=jogs,
                        jog_sd_mm=model.jog_sd, prints=prints, print_kinds=pooled)
    if not split.exact:
        warnings.append(f"{player} cells {cells_text(cells)} fit no piece of the catalogue")
    if split.exact and split.runner_up is not None and split.kinds & untaught:
        # a kind whose print was never seen could explain these cells: as likely as not
        split.posterior = min(split.posterior, SEAM.untaught_split)
        warnings.append(f"{player} cells {cells_text(cells)}: no {'/'.join(sorted(split.kinds & untaught))} "
                        "was labelled at calibration, so its print is unknown; add one to the calibration shot")
    elif split.posterior <= SEAM.ambiguous_split and split.runner_up is not None:
        warnings.append(f"{player} cells {cells_text(cells)}: the split into pieces is ambiguous "
                        f"(p = {split.posterior:.2f}); check them")
    mine = []
    for kind, cs, _, _ in split.pieces:
        piece = {"player": player, "kind": kind, "cells": [list(c) for c in cs]}
        if kind == "screen":
            piece["facing"], p_face = facing_of(view.gray, cs, model.template, local, ppm)
            ledger.add(Decision("facing", list(cs), p_face, facing_words(player, cs, piece["facing"]), 1.0 - p_face,
                                f"facing {OPPOSITE[piece['facing']]}", flip_facing(list(cs)),
                                claim=(sorted(cs), piece["facing"])))
        mine.append(piece)
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
                        f"{player} cells {cells_text(cells)} split as " + pieces_words(mine), alt_p,
                        lambda runner=runner: pieces_words([{"kind": k} for k, _ in runner]),
                        replace_pieces(mine, alt_pieces) if runner else None,
                        claim=[(p["kind"], sorted(map(tuple, p["cells"]))) for p in mine]))
    if not split.exact:  # some cell's cover must be wrong: the groups without its least sure cells
        impossible = ledger.decisions[-1]
        for cell, p_cov in _repairs(cells, view.cover_p):
            fixed = _split_without(cells, cell, player, seams, jogs, shapes, scorer, model, view, local, ppm, prints)
            if fixed is not None:
                pieces_fixed, log_split = fixed
                # the runner-up frees the cell and replaces the impossible split by the new one
                gain = np.log(max(1.0 - p_cov, 1e-12)) - np.log(p_cov) + log_split - np.log(impossible.p)
                ledger.add(Decision("cover", [cell], p_cov, f"{cell_name(cell)} covered by {player}", 1.0 - p_cov,
                                    f"{cell_name(cell)} free", replace_pieces(mine, pieces_fixed),
                                    alt_log_ratio=float(gain), claim=(cell, True)))
    return mine


def _repairs(cells, cover_p: np.ndarray) -> list:
    """The cells of an untileable group whose cover is least sure, with their cover posterior."""
    ranked = sorted(cells, key=lambda c: cover_p[c])
    return [(c, float(cover_p[c])) for c in ranked[:REVISIT.decisions]]


def _split_without(cells, cell, player, seams, jogs, shapes, scorer, model, view, local, ppm, prints: dict):
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
                            jog_sd_mm=model.jog_sd, prints=prints, print_kinds=model.patterns.pooled)
        if not split.exact:
            return None
        log_p += float(np.log(max(split.posterior, 1e-12)))
        for kind, cs, _, _ in split.pieces:
            piece = {"player": player, "kind": kind, "cells": [list(c) for c in cs]}
            if kind == "screen":
                piece["facing"] = facing_of(view.gray, cs, model.template, local, ppm)[0]
            out.append(piece)
    return out, log_p


def hidden_prints(pieces: list, scorer, ledger: Ledger, warnings: list) -> None:
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
        if hidden > PATTERN.hidden_doubt:
            ledger.add(Decision("print", cells, 1.0 - hidden, f"nothing on the {p['player']} {p['kind']} on "
                                f"{cells_text(cells)}", claim=cells))
        if hidden > PATTERN.hidden_warn:
            warnings.append(f"the print of the {p['player']} {p['kind']} on {cells_text(cells)} is hidden in part: "
                            "is a meeple or a token standing on it? Check it and the cells around it")
