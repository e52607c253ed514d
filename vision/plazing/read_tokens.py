"""Stage 4 of :func:`vision.plazing.reader.read` — what lies on each free cell.

Input: the prepared photo, the free cells' token features, the learned model. Output: the token
class of every free cell (bare sand is :data:`~vision.plazing.tokens.EMPTY`), with each decision
and its runner-up entered in the reading's :class:`~vision.plazing.ledger.Ledger`. Bare sand,
neutral markers and resources are weighed by how flat the cell's centre is
(:mod:`vision.plazing.flatness`), one resource against another by how dark the centre is
(:mod:`vision.plazing.darkness`), meeples and resources by how much of the cell their colour
covers (:mod:`vision.plazing.footprint`). A blob of cells that nothing learned explains is something over
the board (``occluded``); the cells are read again with the token prototypes moved by the colour
drift the photo's sure tokens show (:func:`~vision.plazing.drift.scene_drift`); tokens on
overexposed sand are doubted; a flat print where a solid token
was expected is a printed mark the calibration never showed free.
"""

from __future__ import annotations

import numpy as np

from vision.errors import UnreadableBoardError
from vision.plazing.checks import big_blobs, grown_blob, largest_blob, largest_blob_cells, light_named, unlike_message
from vision.plazing.config import FLATNESS, PRINTS, QUALITY, RECTIFY, REVISIT, TOKENS
from vision.plazing.drift import drifted, hold_unsure_odds, scene_drift
from vision.plazing.darkness import weigh_darkness
from vision.plazing.flatness import NEUTRAL, weigh_flatness
from vision.plazing.footprint import weigh_footprint
from vision.plazing.ledger import Decision, Ledger
from vision.plazing.measures import CellMeasures, channel_medians
from vision.plazing.names import cell_name, cells_text
from vision.plazing.prints import MARKS, flat_share
from vision.plazing.state_edits import set_token
from vision.plazing.tokens import EMPTY, classify_tokens, odd_cells
from vision.plazing.words import lazy_token_words

#: Tokens that are solid objects, shaded and casting a shadow, never one flat ink (a flat cardboard
#: neutral marker and a white shell can look flat from above): meeples, amber, pebbles.
SOLID = ("meeple/", "resource/amber", "resource/pebble")
#: A printed mark cell (``+ - x``) whose deviating pixels lie on one ink line for at least this share
#: before painting (:func:`~vision.plazing.prints.flat_share`; meeples and figures score ≤ 0.8,
#: docs/tuning.md "Printed marks") and that lies farther than ``QualityConfig.odd_distance`` from
#: everything seen at calibration after it may hold a print the painting left, a share …
PRINT_LEFT_SHARE = 0.8
#: … whose pixels deviating from sand are at most this many times the mark's bare witnesses' (the
#: print's area; ``prints.remove_marks``' ``areas``: bare mark cells ≤ 1.09 at the 99th percentile,
#: the print's leftovers read as tokens 1.01–1.22, tokens standing on a mark 1.29–1.91 —
#: ``scripts/plazing_odd_marks.py --areas``, docs/tuning.md), a ratio …
PRINT_LEFT_AREA = 1.25
#: … reads as bare sand where a token (not a neutral marker) was the most probable class, believed
#: this much, that token the runner-up (a probability: (bare + 1) / (all + 2) of such cells on the
#: development tables, ``scripts/plazing_odd_marks.py``, docs/tuning.md); beyond that area a token
#: read there is believed at most …
PRINT_LEFT_BARE_POSTERIOR = 0.889
#: … this much, bare sand the runner-up (the same share for tokens standing on the mark).
PRINT_ON_TOKEN_POSTERIOR = 0.5


def read_tokens(prep, view, local, feats: np.ndarray, free_mask: np.ndarray, model, grid, terrain: np.ndarray,
                terrain_given: bool, looks, ledger: Ledger, warnings: list, mark_flat: dict,
                mark_area: dict | None = None) -> dict:
    """The token class of every free cell.

    Args:
        prep: the :class:`~vision.plazing.prepare.Prepared` photo; view: its current
            :class:`~vision.plazing.view.View`; local: the grid crop's cell geometry.
        feats: float (rows, cols, F) token features (marks painted over).
        free_mask: bool (rows, cols), placeable cells no piece covers.
        model: the :class:`~vision.plazing.model.ReaderModel`; grid: the board's grid.
        terrain: str (rows, cols); terrain_given: whether the setup gave it (else read from the
            photo); looks: the cells' whole looks (for the refusal's message).
        ledger, warnings: the reading's, appended to.
        mark_flat: {(row, col): flat share} of the free mark cells before their print was painted
            over (:func:`~vision.plazing.prints.remove_marks`' ``shares``).
        mark_area: {(row, col): area ratio} of the free mark cells (``remove_marks``' ``areas``:
            deviating pixels over the mark's agreeing cells'); a cell without one is taken as a
            bare print (ratio ≤ :data:`PRINT_LEFT_AREA`).
    Returns:
        {(row, col): token class name} for every free cell.
    Raises:
        UnreadableBoardError: ``occluded`` (a blob of cells nothing learned explains).
    """
    free = [tuple(rc) for rc in np.argwhere(free_mask).tolist()]
    tokens = {}
    if not free:
        return tokens
    rc = np.array(free)
    x = feats[rc[:, 0], rc[:, 1]]
    dists = {}
    post = classify_tokens(x, model.tokens, keep=dists)
    boxes = local.boxes_px(RECTIFY.px_per_mm, 1.0)
    measures = CellMeasures(view.board, boxes)  # the cues' per-cell measurements, shared by both passes
    odd = odd_cells(x, model.tokens, QUALITY.odd_distance, dists)
    unknown = _refuse_occlusion(free, x, post, dists, prep, view, model, grid, terrain, terrain_given, looks,
                                measures, odd)
    if unknown:
        warnings.append(f"{cells_text(unknown)}: "
                        f"{'looks' if len(unknown) == 1 else 'look'} like nothing learned at calibration (a "
                        "smudge, a stray object?); check")
    _weigh_centres(post, free, view.board, boxes, model, measures)
    # the scene's sure tokens say how far its light has moved their colours: read again with the
    # prototypes moved as far, no class gaining on one whose own drift the photo does not show
    drift = {}
    shift = scene_drift(x, post, model.tokens, dists, keep=drift)
    if shift is not None:
        first, post = post, classify_tokens(x, drifted(model.tokens, shift))
        _weigh_centres(post, free, view.board, boxes, model, measures)
        if TOKENS.drift_hold:
            post.post[:] = hold_unsure_odds(post.post, first.post, drift["own"])
    # a meeple covers most of its cell, a resource is a lump: their colours' footprint tells them apart
    weigh_footprint(post.post, post.names_all, free, view.board, boxes, RECTIFY.px_per_mm, model.footprint)
    # terrain read from the photo, and a printed mark the calibration never showed free: a flat
    # print where a solid token (shaded, with a shadow: never one flat ink) was expected is that mark
    unseen = [] if terrain_given else [m for m in MARKS if m not in model.terrain.classes]
    left_prints, on_prints = print_leftover_cells(free, odd, terrain, mark_flat, mark_area)
    mark_like, clipped, left = _decide_cells(free, post, prep, view, boxes, unseen, ledger, tokens,
                                             left_prints, on_prints)
    if clipped:
        warnings.append(f"{cells_text(clipped)}: too bright to read (the camera's colours are clipped there: a "
                        "lamp or the sun); the tokens read there are guesses — dim the light or check them")
    if left:
        warnings.append(f"{cells_text(left)}: a printed mark that looks like nothing learned at calibration, read "
                        "as the print on bare sand; a token may stand there — check")
    on_tokens = sorted(c for c in on_prints if tokens.get(c) not in (EMPTY, NEUTRAL) and c not in clipped)
    if on_tokens:
        warnings.append(f"{cells_text(on_tokens)}: a token on a printed mark, unlike anything learned at "
                        "calibration — check")
    if mark_like:
        warnings.append(f"{cells_text(mark_like)}: a flat print where a token was expected, read as a printed "
                        f"{' or '.join(map(repr, unseen))} square (the calibration shot shows none free; it "
                        "cannot tell which); pass --setup with 'terrain' to be sure")
    return tokens


def print_leftover_cells(free, odd, terrain: np.ndarray, mark_flat: dict, mark_area: dict | None) -> tuple[set, set]:
    """The free printed mark cells (``+ - x``) that may hold a print the painting left: nearly one
    flat ink before painting (``mark_flat`` ≥ :data:`PRINT_LEFT_SHARE`) and unlike everything learned
    after it (``odd``). Most often that is the print's leftovers (a seam or the board's edge inside a
    cell placed a little off kept its flat share under ``PRINTS.flat_print_share``), unless more of
    the cell deviates from sand than the print does elsewhere (``mark_area`` >
    :data:`PRINT_LEFT_AREA`): a token stands on it.

    Args:
        free: the free cells, [(row, col)]; odd: bool per free cell, farther than
            ``QualityConfig.odd_distance`` from everything learned; terrain: str (rows, cols);
        mark_flat, mark_area: {(row, col): flat share, area ratio} (:func:`read_tokens`' arguments).
    Returns:
        ``(leftovers, on_prints)``: the cells read as the print's leftovers, those with a token on
        the print; two disjoint sets of (row, col).
    """
    flagged = {c for c, o in zip(free, odd)
               if o and str(terrain[c]) in MARKS and mark_flat.get(c, 0.0) >= PRINT_LEFT_SHARE}
    on_prints = {c for c in flagged if (mark_area or {}).get(c, 0.0) > PRINT_LEFT_AREA}
    return flagged - on_prints, on_prints


def _weigh_centres(post, free, board: np.ndarray, boxes: np.ndarray, model, measures: CellMeasures) -> None:
    """Weigh, in place, the posteriors ``post`` of the ``free`` cells by their centre's flatness
    (:func:`~vision.plazing.flatness.weigh_flatness`), then their darkness
    (:func:`~vision.plazing.darkness.weigh_darkness`); ``board``: BGR uint8 (H, W, 3); ``boxes``:
    int (rows, cols, 4) px; ``measures``: the reading's memoised cell measurements of ``board``."""
    weigh_flatness(post.post, post.names_all, free, board, boxes, model.flatness, FLATNESS.centre_share,
                   measures=measures)
    weigh_darkness(post.post, post.names_all, free, board, boxes, model.darkness, measures=measures)


def _refuse_occlusion(free, x, post, dists, prep, view, model, grid, terrain, terrain_given, looks,
                      measures: CellMeasures, odd: np.ndarray) -> list:
    """Refuse the photo (``occluded``) when the free cells that nothing learned explains (unknown or
    odd, overexposed cells left out) form a blob, or the faintly odd ones do (``QUALITY.faint_distance``:
    a hand whose skin a light makes look like a pale token is no cell of calibration's either,
    and it spans many touching cells, their edges too, where tokens in another light or out of
    focus stand inside their cells with bare sand around them: :func:`band_sand_distances`), or those grown
    through the touching cells a little odd do and are no brighter than the rest
    (``QUALITY.faint_grow_distance``: a blurred hand's rim, not a lamp's hot spot), or, with
    ``QUALITY.faint_span_on``, the faint cells something spans, corners touching, do
    (:func:`_spanned`: a hand over pieces); else the unknown cells. ``odd``: bool (N,) per free cell,
    :func:`~vision.plazing.tokens.odd_cells` at ``QUALITY.odd_distance``."""
    unknown = [c for c, pu in zip(free, post.p_unknown) if pu > TOKENS.unknown_posterior]
    odd = [c for c, o in zip(free, odd) if o]
    glare = prep.clipped if prep.clipped is not None else np.zeros(terrain.shape, bool)
    strange = sorted(c for c in set(odd) | set(unknown) if not glare[c])  # overexposed: explained, doubted below
    blob = largest_blob(strange, (grid.rows, grid.cols))
    if blob <= QUALITY.max_unknown_blob_cells:
        nearest2 = nearest_distance2(dists)
        faint = sorted(c for c, d2 in zip(free, nearest2) if d2 > QUALITY.faint_distance ** 2 and not glare[c])
        # the banded cells are some of the faint ones: measured only when the faint ones form a blob
        covering = (_unlike_sand_around(faint, free, post, prep, view, measures)
                    if largest_blob(faint, (grid.rows, grid.cols)) > QUALITY.max_unknown_blob_cells else [])
        covered = largest_blob(covering, (grid.rows, grid.cols))
        spanned = []
        if covered <= QUALITY.max_unknown_blob_cells and QUALITY.faint_span_on:
            spanned = _spanned(faint, free, post, prep, view, (grid.rows, grid.cols), measures)
        if covered > QUALITY.max_unknown_blob_cells:
            strange, blob = covering, covered
        elif len(spanned) > QUALITY.max_unknown_blob_cells:
            strange, blob = spanned, len(spanned)
        else:
            weak = {c for c, d2 in zip(free, nearest2) if d2 > QUALITY.faint_grow_distance ** 2 and not glare[c]}
            grown = grown_blob(faint, sorted(weak | set(faint)), (grid.rows, grid.cols))
            if len(grown) > QUALITY.max_faint_grown_cells and not _brighter_than_the_rest(grown, free, looks):
                strange, blob = grown, len(grown)
    if blob > QUALITY.max_unknown_blob_cells:
        named = big_blobs(strange, (grid.rows, grid.cols), QUALITY.max_unknown_blob_cells) or strange
        raise light_named(UnreadableBoardError("occluded", unlike_message(
            named, blob, model, terrain, terrain_given, looks, view.gains)), prep, named) from None
    return unknown


def _spanned(faint, free, post, prep, view, shape, measures: CellMeasures | None = None) -> list:
    """The largest blob, corners touching, of the ``faint`` cells whose outer band lies farther than
    ``QUALITY.faint_span_bgr`` from bare sand (:func:`band_sand_distances`): something spans their
    edges. A hand over pieces leaves the free cells it covers meeting only at corners; tokens stand
    inside their cells with sand around them. Returns [(r, c)] (sorted)."""
    far = band_sand_distances(faint, free, post, prep, view, measures=measures) if faint else []
    return largest_blob_cells([c for c, d in zip(faint, far) if d > QUALITY.faint_span_bgr], shape, 8)


def _unlike_sand_around(cells, free, post, prep, view, measures: CellMeasures | None = None) -> list:
    """The ``cells`` whose outer band is not bare sand (:func:`band_sand_distances` beyond
    ``QUALITY.faint_band_sand_bgr``): something over the board covers the edges between the cells
    it spans; tokens in another light stand inside their cells with sand around them."""
    far = band_sand_distances(cells, free, post, prep, view, measures=measures)
    return [c for c, d in zip(cells, far) if d > QUALITY.faint_band_sand_bgr]


def band_sand_distances(cells, free, post, prep, view, *, measures: CellMeasures | None = None) -> list:
    """How far each cell's outer band (``QUALITY.faint_band_mm`` wide) is from bare sand: the BGR
    distance of its median colour from the median band of the ``free`` cells read as bare sand
    (``post``: their posteriors, :func:`~vision.plazing.tokens.classify_tokens`). ``measures``: the
    reading's memoised cell measurements of ``view.board``, when given (each band measured once).

    Returns:
        [float] per cell of ``cells``, BGR levels on the light-normalised board; infinite for
        every cell when no free cell is read bare.
    """
    bare = [c for c, k in zip(free, np.argmax(post.post, axis=1).tolist()) if post.names_all[k] == EMPTY]
    if not cells or not bare:
        return [float("inf")] * len(cells)
    boxes = prep.rect.local.boxes_px(RECTIFY.px_per_mm, 1.0)
    band = max(1, int(round(QUALITY.faint_band_mm * RECTIFY.px_per_mm)))
    if measures is None:
        colours = lambda some: band_colours(view.board, boxes, some, band)  # noqa: E731
    else:
        colours = measures.memo(("band_bgr", band), lambda some: band_colours(measures.board, measures.boxes, some, band)).get
    sand = np.median(colours(bare), axis=0)
    return [float(d) for d in np.linalg.norm(colours(cells) - sand, axis=1)]


def band_colours(board: np.ndarray, boxes, cells, band: int) -> np.ndarray:
    """float32 (len(cells), 3): the median BGR of each cell's outer band, ``band`` px wide, on
    ``board`` (BGR uint8 (H, W, 3)); ``boxes``: per cell ``(u0, v0, u1, v1)`` px. Cells of one box
    size are taken together (one median over a stack instead of one per cell)."""
    out = np.zeros((len(cells), 3), np.float32)
    by_size: dict[tuple[int, int], list[int]] = {}
    for i, cell in enumerate(cells):
        u0, v0, u1, v1 = boxes[cell]
        by_size.setdefault((int(v1 - v0), int(u1 - u0)), []).append(i)
    for (h, w), rows in by_size.items():
        outer = np.ones((h, w), bool)
        outer[band:-band, band:-band] = False
        patches = np.stack([board[boxes[cells[i]][1]:boxes[cells[i]][1] + h,
                                  boxes[cells[i]][0]:boxes[cells[i]][0] + w] for i in rows])
        out[rows] = channel_medians(patches[:, outer])  # np.median of the float32 levels, by counting
    return out


def _brighter_than_the_rest(cells, free, looks) -> bool:
    """Whether ``cells`` are on average brighter than the other free cells (``looks``' brightness,
    light-normalised): a lamp's hot spot is, a hand between the light and the board is not. True
    when there are no looks to tell."""
    if looks is None:
        return True
    inside = set(cells)
    rest = [looks[c][0] for c in free if c not in inside]
    return not rest or float(np.mean([looks[c][0] for c in cells])) >= float(np.mean(rest))


def nearest_distance2(dists: dict) -> np.ndarray:
    """float (N,): each cell's squared distance (Mahalanobis, in the base metric, which allows for
    the light's brightness drift: a lamp's hot spot is no object) to the nearest bare cell or token
    prototype of the calibration (``dists``: :func:`~vision.plazing.tokens.token_distances`'s
    ``keep``, squared distances)."""
    da, dp = dists["empties"], dists["protos"]
    nearest = np.full(max(len(da), len(dp)), np.inf)
    for d in (da, dp):
        if d.size:
            nearest = np.minimum(nearest, d.min(axis=1))
    return nearest


def faint_cells(dists: dict, limit: float) -> np.ndarray:
    """bool (N,): the cells farther than ``limit`` from everything seen at calibration
    (:func:`nearest_distance2`)."""
    return nearest_distance2(dists) > float(limit) ** 2


def _decide_cells(free, post, prep, view, boxes, unseen, ledger: Ledger, tokens: dict,
                  left_prints=frozenset(), on_prints=frozenset()) -> tuple[list, list, list]:
    """Each free cell's most probable known class, written into ``tokens`` and ``ledger``:

    - doubted where its colour was clipped;
    - on ``left_prints`` (the print's leftovers, :func:`print_leftover_cells`), where a token other
      than a neutral marker is most probable, replaced by bare sand, believed
      :data:`PRINT_LEFT_BARE_POSTERIOR`, that token the runner-up;
    - on ``on_prints`` (a token standing on the print), a token other than a neutral marker is
      believed at most :data:`PRINT_ON_TOKEN_POSTERIOR`, bare sand the runner-up;
    - made a printed mark where a solid token reads as one flat ink.

    ``boxes``: int (rows, cols, 4) every cell's rectified px box.

    Returns:
        (cells read as a printed mark, cells whose token is doubted for clipping, ``left_prints``
        cells read as the print's leftovers on bare sand where a token was most probable).
    """
    mark_like = []
    sure = []
    clipped = []
    left = []
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
            p = min(p, TOKENS.clipped_posterior)
            alt, alt_p = EMPTY, max(alt_p, 1.0 - p) if alt == EMPTY else 1.0 - p
        elif name not in (EMPTY, NEUTRAL) and cell in left_prints:
            # most often the print's leftovers are what reads as a token (a flat cardboard marker is
            # as flat as a print: kept)
            left.append(cell)
            name, p, alt, alt_p = EMPTY, PRINT_LEFT_BARE_POSTERIOR, name, 1.0 - PRINT_LEFT_BARE_POSTERIOR
        elif name not in (EMPTY, NEUTRAL) and cell in on_prints:
            # a token standing on the print (more deviates than its area), unlike anything learned
            p = min(p, PRINT_ON_TOKEN_POSTERIOR)
            alt, alt_p = EMPTY, 1.0 - p
        elif name == EMPTY and two and ((prep.at_top is not None and prep.at_top[cell]
                                         and alt_p >= p * REVISIT.negligible_odds)
                                        or (prep.white is not None and prep.white[cell] >= QUALITY.white_share)):
            # bare sand on clipped sand with a token not ruled out, or with white in it: the colour
            # that tells a light token (a shell, a marker) from sand is what the clipping lost
            clipped.append(cell)
            p = min(p, TOKENS.clipped_posterior)
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
            ledger.add(Decision("token", [cell], p, lazy_token_words(name, cell), alt_p, lazy_token_words(alt, cell),
                                set_token(cell, alt), claim=(cell, name)))

    if sure:
        ledger.add_many("token", [c for c, _, _ in sure], [p for _, p, _ in sure], [n for _, _, n in sure])
    return mark_like, clipped, left

