"""The Plażing reader: a registered photo in, the contract's state, confidence and warnings out.

Stages (one module each; every number in :mod:`vision.plazing.config`):

1. :mod:`~vision.plazing.prepare` — rectified top view, light normalised against the printed
   frame, photo quality checked;
2. :mod:`~vision.plazing.terrain` — the terrain from the setup, or read from the photo;
   :mod:`~vision.plazing.checks` — cells unlike the whole calibrated board refuse the photo when
   they form a blob (something over the board, part of it out of view);
3. :mod:`~vision.plazing.prints` — printed ± marks painted over with their cell's own sand;
4. :mod:`~vision.plazing.read_tokens` (with :mod:`~vision.plazing.tokens`) — a posterior over
   bare sand, every token class and "unknown" for each free cell; a blob of unknown cells is a
   hand (``occluded``, naming the cells);
5. :mod:`~vision.plazing.read_pieces` (with :mod:`~vision.plazing.pieces`,
   :mod:`~vision.plazing.seams`, :mod:`~vision.plazing.patterns`, :mod:`~vision.plazing.screens`)
   — each player's cells split into catalogue pieces, screens' facings;
6. :mod:`~vision.plazing.ledger` — every decision's posterior; the confidence is the probability
   that all are right;
7. :mod:`~vision.plazing.revisit` — the next most likely readings, tried by the pipeline when the
   rules reject the first.
"""

from __future__ import annotations

import numpy as np

from vision.errors import BadInputError, UnreadableBoardError
from vision.plazing.cells import Grid
from vision.plazing.checks import light_named, terrain_warning, unlike_board, wrong_walls
from vision.plazing.config import QUALITY, RECTIFY, TOKENS
from vision.plazing.ledger import Decision, Ledger, calibrated
from vision.plazing.model import ReaderModel
from vision.plazing.names import cell_name, cells_text
from vision.plazing.prepare import even_on_sand, fine_board, prepare
from vision.plazing.prints import remove_marks
from vision.plazing.read_pieces import read_pieces
from vision.plazing.read_tokens import read_tokens
from vision.plazing.rectify import photo_px_per_mm
from vision.plazing.revisit import alternatives, conditional_log_p
from vision.plazing.state_edits import put_token
from vision.plazing.terrain import setup_terrain
from vision.types import Photo, Reading


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
            ``board-out-of-view``, ``uneven-light``, ``terrain-mismatch`` (the setup's terrain puts
            closing terrain where the photo shows sand, tokens or pieces).
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
    centre_mm = [o + 0.5 * n * grid.cell_mm for o, n in zip(grid.origin_mm, (grid.cols, grid.rows))]
    ledger = Ledger.for_photo((grid.rows, grid.cols), photo_px_per_mm(photo.registration.H_px_from_mm, centre_mm))
    warnings: list[str] = []

    # 2. terrain, and cells unlike the whole calibrated board
    looks = view.looks() if model.terrain is not None else None
    try:
        unlike_board(looks, model, terrain, terrain_given, view.gains, view.owner)
    except UnreadableBoardError as e:
        raise light_named(e, prep) from None
    wrong_walls(looks, model, terrain, terrain_given)
    if not terrain_given:
        terrain, view = _read_terrain(prep, model, looks, ledger, warnings)
    owner = view.owner
    placeable = terrain != "#"
    _refuse_glare(prep.overexposed, placeable)
    where = np.argwhere(placeable)
    ledger.add_many("cover", where, view.cover_p[where[:, 0], where[:, 1]], owner[where[:, 0], where[:, 1]] >= 0)

    # 3. printed marks painted over: every free cell is then read as sand
    free_mask = (owner < 0) & placeable
    feats = view.features()
    mark_flat: dict = {}
    mark_area: dict = {}
    painted = remove_marks(view.board, local.boxes_px(ppm, 1.0), terrain, free_mask, model.mark_inks,
                           shares=mark_flat, areas=mark_area)[0]
    if painted:  # only those cells' features change
        feats = feats.copy()
        feats[tuple(np.array(painted).T)] = view.features_of(painted)

    # 4. tokens; a blob of cells that nothing learned explains is something over the board
    tokens = read_tokens(prep, view, local, feats, free_mask, model, grid, terrain, terrain_given, looks, ledger,
                         warnings, mark_flat, mark_area)
    # 5. pieces
    pieces = read_pieces(view, model, profile, local, ppm, ledger, warnings, fine=lambda: fine_board(photo, prep))
    return _reading(grid, pieces, tokens, terrain, terrain_given, placeable, free_mask, ledger, warnings)


def _read_terrain(prep, model: ReaderModel, looks, ledger: Ledger, warnings: list):
    """The terrain read from the photo (no ``terrain`` in the setup): each uncertain cell a
    decision in ``ledger``; the light then evened out on the sand it shows.

    Returns:
        (str (rows, cols) terrain, the prepared photo's new :class:`~vision.plazing.view.View`).
    """
    terrain, terrain_p, _ = model.terrain.classify(looks)
    even_on_sand(prep, model, terrain)  # now that the closing terrain is known
    view = prep.view
    view.owner[terrain == "#"] = -1
    warnings.append(terrain_warning(terrain, terrain_p, model.terrain.classes))
    for r, c in np.argwhere(terrain_p < 1.0).tolist():
        ledger.add(Decision("terrain", [(r, c)], float(terrain_p[r, c]), f"terrain {terrain[r, c]!r} at "
                            f"{cell_name((r, c))}", claim=((r, c), str(terrain[r, c]))))
    return terrain, view


def _refuse_glare(over, placeable: np.ndarray) -> None:
    """Refuse the photo (``glare``) when more than ``QUALITY.max_clipped_share`` of the placeable
    cells are overexposed (``over``: bool (rows, cols) or None)."""
    if over is not None and (over & placeable).sum() > QUALITY.max_clipped_share * placeable.sum():
        where = cells_text(np.argwhere(over & placeable), 4)
        raise UnreadableBoardError("glare", f"part of the board is too bright to read ({where} are overexposed: a "
                                   "lamp or the sun on the board); dim or move the light and take the photo again")


def _reading(grid, pieces, tokens, terrain, terrain_given, placeable, free_mask, ledger: Ledger,
             warnings: list) -> Reading:
    """The contract's state from the pieces and tokens read, with the per-cell summary, the
    doubtful tokens named, and the confidence of the whole (stage 6)."""
    state = {"game": "plazing", "rows": grid.rows, "cols": grid.cols, "pieces": pieces, "meeples": [],
             "neutral": [], "resources": [], "trash": [], "surprises": []}
    for cell, name in tokens.items():
        put_token(state, cell, name)
    if not terrain_given:
        state["terrain"] = ["".join(row) for row in terrain]
    cell_conf = np.where(placeable, ledger.cell_confidence(), 1.0)
    low = np.argwhere(placeable & (cell_conf < QUALITY.doubtful_cell)).tolist()
    n_place = int(placeable.sum())
    state["cell_confidence"] = {"min": round(float(cell_conf[placeable].min()), 4) if n_place else 1.0,
                                "mean": round(float(cell_conf[placeable].mean()), 4) if n_place else 1.0,
                                "doubtful": low[:QUALITY.doubtful_cells_listed]}
    doubts = [d for d in ledger.decisions if d.kind == "token" and d.p < TOKENS.doubt_below]
    if doubts:
        most = TOKENS.doubts_named
        warnings.append("not sure of " + "; ".join("{} (or {})".format(*d.words()) for d in doubts[:most])
                        + ("; …" if len(doubts) > most else ""))
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

