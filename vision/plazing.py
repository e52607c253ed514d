"""Plażing reader: pieces, screen facings and tokens from one registered photo.

Pipeline (one module per idea, every tunable number in :mod:`vision.plazing_config`):

1. rectify the board at :data:`~vision.plazing_config.RECTIFY` px/mm, normalise illumination to the
   calibration (grey world on the board), refuse dark / glared / blurred photos (:mod:`vision.quality`);
2. label every pixel with a learned colour (:mod:`vision.plazing_cells`), decide which player
   covers each placeable cell (terrain ``#`` from the setup is never a piece);
3. split each player's touching cells into catalogue pieces by their seams (:mod:`vision.plazing_pieces`);
4. read each screen's facing from a learned cross-profile (:mod:`vision.plazing_screens`);
5. classify the tokens on free cells (:mod:`vision.plazing_tokens`);
6. confidence = product of every decision's posterior (cover per cell, split per group, facing
   per screen, token per free cell), so that one doubtful cell pulls the whole reading down.

Contract: ``shared/contracts/plazing.md``; rules: ``shared/rules/plazing.md``.
"""

from __future__ import annotations

import json
import os

import cv2
import numpy as np

from beachscore.errors import BadInputError, UnreadableBoardError
from vision import quality
from vision.places import board_median_bgr, normalise_illumination
from vision.plazing_cells import (ColourModel, Grid, colour_table, cover_posteriors, cover_shares, learn_colour,
                                  look_up)
from vision.plazing_config import PALETTE, QUALITY, RECTIFY, TOKENS
from vision.plazing_pieces import catalogue_shapes, groups, seam_shares, split_group
from vision.plazing_screens import facing_of, learn_template, screen_cells
from vision.plazing_tokens import EMPTY, TokenModel, cell_features, classify_tokens, learn_tokens
from vision.registration import rectify
from vision.types import CalibrationShot, Photo, Reading

DIRECTIONS = ("N", "S", "E", "W")
RESOURCES = ("amber", "shell", "pebble")
TOKEN_LABELS = ("neutral", "trash", "surprise")
PALETTE_PICTURE = "plazing_palette.png"  # the colour lookup table, kept so a scan need not rebuild it


def parse_label(label: str) -> tuple:
    """Split a Plażing calibration label into its parts.

    Returns:
        ``("piece", player)``, ``("screen", player, dir)``, ``("meeple", player)``,
        ``("resource", kind)``, ``("neutral",)``, ``("trash",)``, ``("surprise",)`` or ``("sand",)``.
    Raises:
        BadInputError: ``unknown-label`` with the label quoted.

    >>> parse_label("screen/red/N")
    ('screen', 'red', 'N')
    """
    parts = label.split("/")
    ok = ((parts[0] in ("piece", "meeple") and len(parts) == 2 and parts[1])
          or (parts[0] == "screen" and len(parts) == 3 and parts[1] and parts[2] in DIRECTIONS)
          or (parts[0] == "resource" and len(parts) == 2 and parts[1] in RESOURCES)
          or (parts[0] in TOKEN_LABELS + ("sand",) and len(parts) == 1))
    if not ok:
        raise BadInputError("unknown-label", f"unknown Plażing label {label!r}; expected piece/<player>, "
                            "screen/<player>/<N|S|E|W>, meeple/<player>, neutral, resource/<amber|shell|pebble>, "
                            "trash, surprise or sand")
    return tuple(parts)


def _terrain(setup: dict | None, grid: Grid) -> np.ndarray:
    """Terrain characters as a (rows, cols) array of str; '.' everywhere when the setup gives none.

    Raises:
        BadInputError: ``invalid-setup`` when the terrain does not fit the grid.
    """
    t = np.full((grid.rows, grid.cols), ".", dtype="<U1")
    rows = (setup or {}).get("terrain")
    if rows is None:
        return t
    if (not isinstance(rows, list) or len(rows) != grid.rows
            or any(not isinstance(r, str) or len(r) != grid.cols for r in rows)):
        raise BadInputError("invalid-setup", f"setup terrain must be {grid.rows} strings of {grid.cols} "
                            "characters (the profile's grid)")
    for r, row in enumerate(rows):
        t[r] = list(row)
    return t


def _calibration_setup(image_path: str) -> dict | None:
    """The calibration shot's own setup (``<image stem>.setup.json`` beside it), if the user gave one."""
    path = os.path.splitext(image_path)[0] + ".setup.json"
    if not os.path.isfile(path):
        return None
    from calibration.files import load_object

    return load_object(path, "calibration setup")


def _board(image: np.ndarray, H: np.ndarray, profile: dict) -> np.ndarray:
    return rectify(image, H, profile["board_mm"], RECTIFY.px_per_mm)


def learn(shot: CalibrationShot) -> dict:
    """Learn the appearance of every labelled Plażing class from the calibration shot.

    Args:
        shot: calibration shot; samples are labelled points (board mm) with the labels of
            ``shared/contracts/plazing.md`` §Calibration labels.
    Returns:
        JSON-serialisable model: player colours (Lab Gaussians), sand colour, screen-facing
        template, token classes and empty prototypes, reference board statistics.
    Raises:
        BadInputError: ``unknown-label``; ``missing-label`` when no piece colour is labelled;
            ``sample-off-grid`` for a piece/token sample outside the grid.
    """
    profile = shot.request.profile
    grid = Grid.from_profile(profile)
    ppm = RECTIFY.px_per_mm
    parsed = [(parse_label(lab), lab, xy) for lab, xy in shot.request.samples]
    players = sorted({p[1] for p, _, _ in parsed if p[0] in ("piece", "screen")})
    if not players:
        raise BadInputError("missing-label", "calibration needs at least one piece/<player> or screen/<player>/<dir> sample")
    for p, lab, xy in parsed:
        if p[0] == "meeple" and p[1] not in players:
            raise BadInputError("missing-label", f"meeple of {p[1]!r} but no piece/{p[1]} sample to learn its colour")
    setup = _calibration_setup(shot.request.image_path)
    terrain = _terrain(setup, grid)
    board = _board(shot.image, shot.H_px_from_mm, profile)
    median = board_median_bgr(board)
    models = [learn_colour(board, [xy for p, _, xy in parsed if p[0] in ("piece", "screen") and p[1] == pl], ppm,
                           grid.cell_mm, pl) for pl in players]
    sand = [xy for p, _, xy in parsed if p[0] == "sand"]
    if sand:
        models.append(learn_colour(board, sand, ppm, grid.cell_mm, "sand"))
    table = colour_table(models)
    labels, lab = look_up(board, table)
    owner, _ = cover_posteriors(cover_shares(labels, len(players), grid, ppm))
    owner[terrain == "#"] = -1
    feats = cell_features(lab, labels, len(players), grid, ppm)
    token_samples, sample_cells, screens = [], set(), []
    shapes = dict((k, v[0]) for k, v in profile.get("pieces", {}).items())
    for p, label, (x, y) in parsed:
        cell = grid.cell_of(x, y)
        if cell is None:
            raise BadInputError("sample-off-grid", f"sample {label!r} at {x:g},{y:g} mm is outside the grid")
        sample_cells.add(cell)
        if p[0] in ("meeple", "resource") or p[0] in TOKEN_LABELS or p[0] == "sand":
            token_samples.append((label, cell))
        elif p[0] == "screen" and "screen" in shapes:
            screens.append((screen_cells(cell, p[2], [tuple(c) for c in shapes["screen"]]), p[2]))
    empty_cells = [(r, c) for r in range(grid.rows) for c in range(grid.cols)
                   if owner[r, c] < 0 and terrain[r, c] != "#" and (r, c) not in sample_cells]
    tokens = learn_tokens(feats, token_samples, empty_cells, "".join(terrain[rc] for rc in empty_cells))
    template = learn_template(lab[..., 0], screens, grid, ppm)
    shot.pictures[PALETTE_PICTURE] = table.reshape(-1, 256, 4)
    return {"classes": {lab: int(sum(1 for _, l2, _ in parsed if l2 == lab)) for _, lab, _ in parsed},
            "players": players, "colours": [m.to_json() for m in models], "median_bgr": median.round(2).tolist(),
            "px_per_mm": ppm, "tokens": tokens.to_json(), "screen_template": template.round(5).tolist(),
            "sharpness": _sharpness(board, grid), "palette_picture": PALETTE_PICTURE}


class _Model:
    """The learned model, parsed once per calibration (the lookup table costs a few ms)."""

    _cache: dict = {}

    def __init__(self, d: dict):
        self.players = list(d["players"])
        self.colours = [ColourModel.from_json(c) for c in d["colours"]]
        self.median = np.array(d["median_bgr"], np.float32)
        self.tokens = TokenModel.from_json(d["tokens"])
        self.template = np.array(d["screen_template"], np.float64)
        self.sharpness = float(d.get("sharpness", 0.0))
        self.table = None

    @classmethod
    def of(cls, cal) -> "_Model":
        key = (id(cal), cal.folder)
        if key not in cls._cache:
            m = cls(cal.model)
            pic = cal.image(cal.model.get("palette_picture", PALETTE_PICTURE)) if cal.folder else None
            n = 1 << (3 * PALETTE.lut_bits)
            m.table = pic.reshape(-1, 4) if pic is not None and pic.size == 4 * n else colour_table(m.colours)
            cls._cache[key] = m
        return cls._cache[key]


def _small(board: np.ndarray) -> np.ndarray:
    return cv2.resize(board, None, fx=QUALITY.check_scale, fy=QUALITY.check_scale, interpolation=cv2.INTER_AREA)


def _frame_mask(shape, grid: Grid, scale_px_per_mm: float) -> np.ndarray:
    """bool (H, W): the board outside the grid (frame, sea, dunes) — the same in every game, so its
    sharpness does not depend on how many pieces lie on the board."""
    m = np.ones(shape[:2], bool)
    x0, y0 = (int(v * scale_px_per_mm) for v in grid.origin_mm)
    x1 = int((grid.origin_mm[0] + grid.cols * grid.cell_mm) * scale_px_per_mm)
    y1 = int((grid.origin_mm[1] + grid.rows * grid.cell_mm) * scale_px_per_mm)
    m[y0:y1, x0:x1] = False
    return m


def _sharpness(board: np.ndarray, grid: Grid) -> float:
    """Variance of the Laplacian over the board frame (outside the grid) at the quality-check scale."""
    small = _small(board)
    return quality.sharpness(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY),
                             _frame_mask(small.shape, grid, RECTIFY.px_per_mm * QUALITY.check_scale))


def _check_quality(raw_board: np.ndarray, model: _Model, grid: Grid) -> None:
    """Refuse dark or glared photos with :func:`vision.quality.check` (on a reduced board, for
    speed) and blurred ones against the calibration's sharpness (Pech-Pacheco et al. 2000).

    Raises:
        UnreadableBoardError: ``too-dark``, ``glare``, ``too-blurred``.
    """
    small = _small(raw_board)
    gains = model.median / np.maximum(board_median_bgr(raw_board), 1.0)
    quality.check(small, gains=gains)
    if model.sharpness > 0:
        now = _sharpness(raw_board, grid)
        if now < QUALITY.min_sharpness_ratio * model.sharpness:
            raise UnreadableBoardError("too-blurred", f"the photo is too blurred to read (sharpness {now:.0f} against "
                                       f"{model.sharpness:.0f} at calibration); hold the camera still and refocus")


def _with_scan_marks(tokens: TokenModel, feats: np.ndarray, free: np.ndarray, terrain: np.ndarray):
    """Add empty prototypes for printed marks (± squares, crossed sticks) the calibration shot never
    showed free: the median look of this photo's free cells bearing that mark (most are empty).

    Returns:
        (token model to use, set of marks that had no calibration prototype).
    """
    unseen = set()
    extra = []
    for mark in "+-x":
        if mark in tokens.empty_marks:
            continue
        cells = [tuple(rc) for rc in free.tolist() if terrain[rc[0], rc[1]] == mark]
        if cells:
            unseen.add(mark)
            extra.append(np.median(np.array([feats[rc] for rc in cells]), axis=0))
    if not extra:
        return tokens, unseen
    return TokenModel(tokens.classes, tokens.means, np.vstack([tokens.empties] + extra), tokens.precision,
                      tokens.empty_marks + "".join(sorted(unseen))), unseen


def read(photo: Photo) -> Reading:
    """Read a Plażing board from a registered photo.

    Args:
        photo: registered photo; ``photo.setup["terrain"]`` (optional) marks ``#`` cells that no
            piece can cover.
    Returns:
        :class:`Reading` with the contract's state (plus ``cell_confidence``: a per-cell summary),
        the confidence (product of every decision's posterior), warnings and details for
        :func:`annotate`.
    Raises:
        UnreadableBoardError: ``too-dark``, ``glare``, ``too-blurred`` (photo quality) or
            ``occluded`` (too many cells that no learned class explains: a hand over the board).
        BadInputError: ``invalid-setup`` when the setup's terrain does not fit the grid.
    """
    cal = photo.calibration
    profile = cal.profile
    grid = Grid.from_profile(profile)
    ppm = RECTIFY.px_per_mm
    model = _Model.of(cal)
    terrain = _terrain(photo.setup, grid)
    raw = _board(photo.image, photo.registration.H_px_from_mm, profile)
    _check_quality(raw, model, grid)
    board = normalise_illumination(raw, model.median)
    labels, lab = look_up(board, model.table)
    P = len(model.players)
    shares = cover_shares(labels, P, grid, ppm)
    owner, cover_p = cover_posteriors(shares)
    placeable = terrain != "#"
    owner[~placeable] = -1
    cell_conf = np.where(placeable, cover_p, 1.0)  # per cell, for people: every decision touching it
    decision_p = cell_conf.copy()  # per cell, cover and token decisions only (pieces counted once below)
    warnings: list[str] = []

    # pieces
    shapes = catalogue_shapes(profile)
    seams = seam_shares(labels, owner, grid, ppm)
    pieces, details_pieces, conf = [], [], 1.0
    for pi, cells in groups(owner):
        split = split_group(cells, seams, shapes)
        if not split.exact:
            warnings.append(f"{model.players[pi]} cells {sorted(map(list, cells))} fit no piece of the catalogue")
        conf *= split.posterior
        for kind, cs in split.pieces:
            piece = {"player": model.players[pi], "kind": kind, "cells": [list(c) for c in cs]}
            p_piece = split.posterior
            if kind == "screen":
                piece["facing"], p_face = facing_of(lab[..., 0], cs, model.template, grid, ppm)
                conf *= p_face
                p_piece *= p_face
            pieces.append(piece)
            details_pieces.append(p_piece)
            for r, c in cs:
                cell_conf[r, c] *= p_piece

    # tokens
    feats = cell_features(lab, labels, P, grid, ppm)
    free = np.argwhere((owner < 0) & placeable)
    meeples, neutral, resources, trash, surprises = [], [], [], [], []
    unexplained = []
    if len(free):
        tokens, unseen = _with_scan_marks(model.tokens, feats, free, terrain)
        names, probs, dist = classify_tokens(feats[free[:, 0], free[:, 1]], tokens)
        for (r, c), name, p, d in zip(free.tolist(), names, probs, dist):
            if terrain[r, c] in unseen and name != EMPTY:
                p *= 0.5  # a token on a printed mark the calibration never showed: doubtful
            if d > TOKENS.max_distance:
                unexplained.append((r, c))
                p = min(p, 0.5)
            cell_conf[r, c] *= p
            decision_p[r, c] *= p
            if name == EMPTY:
                continue
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
    n_place = int(placeable.sum())
    if len(unexplained) > QUALITY.max_unexplained_share * n_place:
        raise UnreadableBoardError("occluded", f"{len(unexplained)} cells look like nothing learned at calibration "
                                   "(a hand over the board?); take the photo again with the view clear")
    if unexplained:
        warnings.append(f"{len(unexplained)} cells look like nothing learned at calibration: "
                        + ", ".join(f"[{r},{c}]" for r, c in unexplained[:6]))
    confidence = float(np.prod(decision_p[placeable])) * conf
    low = np.argwhere(placeable & (cell_conf < 0.9)).tolist()
    state = {"game": "plazing", "rows": grid.rows, "cols": grid.cols, "pieces": pieces, "meeples": meeples,
             "neutral": neutral, "resources": resources, "trash": trash, "surprises": surprises,
             "cell_confidence": {"min": round(float(cell_conf[placeable].min()), 4) if n_place else 1.0,
                                 "mean": round(float(cell_conf[placeable].mean()), 4) if n_place else 1.0,
                                 "doubtful": low[:20]}}
    details = {"cell_conf": cell_conf, "grid": grid, "piece_conf": details_pieces}
    return Reading(state=state, confidence=float(np.clip(confidence, 0.0, 1.0)), warnings=warnings, details=details)


def annotate(photo: Photo, reading: Reading) -> np.ndarray:
    """Draw the reading on the rectified board for a person to check.

    Closed areas are filled with their owner's colour (hatched grey for neutral), ring pieces
    outlined, disputes marked with a red cross, every piece labelled with its index and kind
    (screens with their facing), tokens written in their cell. Areas come from
    ``scoring.score`` when the scoring engine is installed.

    Returns:
        BGR uint8 image of the rectified board at the reader's resolution (px/mm of
        :data:`~vision.plazing_config.RECTIFY`).
    """
    from vision.plazing_draw import draw

    return draw(photo, reading)
