"""Plażing calibration: learn every labelled class's appearance from the calibration shot.

Input: the calibration shot and its labelled points (and ``calib.setup.json``, its terrain).
Output: the JSON model the reader loads (:mod:`vision.plazing.model`) and the pictures stored with it.

Idea: the shot is read the way a scan reads a photo (same decode size, rectification and
labelling), so what is learned looks like what a scan sees. Player colours come from the piece
samples (refused when a sample clearly shows another player's colour: :func:`_check_labels`),
tokens from their samples and from each labelled token pasted onto the shot's typical empty
backgrounds, printed patterns from the labelled screens and the pieces whose split is sure, the
screens' cross-profile from the labelled screens, and every cell's look (with the shot's own
terrain, ``calib.setup.json``, how terrain looks).
"""

from __future__ import annotations

import os

import cv2
import numpy as np

from vision.errors import BadInputError, SampleError, sample_slot
from vision.files import load_object
from vision.image.decode import read_image
from vision.plazing.augment import augmented_boards
from vision.plazing.cells import Grid, colour_table, learn_colour, mislabelled, sample_colour
from vision.plazing.config import AUGMENT, FLATNESS, HELD_OUT, PALETTE, PATTERN, RECTIFY, TOKENS, AugmentConfig
from vision.plazing.darkness import dark_ratio, learn_darkness, sand_grey
from vision.plazing.flatness import centre_spread, learn_flatness
from vision.plazing.footprint import calibration_footprint
from vision.plazing.lighting import cell_sands, frame_sharpness, median_bgr
from vision.plazing.model import FRAME_PICTURE, MODEL_VERSION, PALETTE_PICTURE
from vision.plazing.patterns import PatternModel
from vision.plazing.pieces import FACINGS, catalogue_shapes, groups, split_group
from vision.plazing.prints import ink_directions, remove_marks
from vision.plazing.rectify import DECODE_REDUCE, Rectified, fine_view
from vision.plazing.screens import learn_template, screen_cells
from vision.plazing.seam_config import SEAM
from vision.plazing.seams import edge_jogs, finest_dips, joined_sd, seam_contrasts
from vision.plazing.terrain import TerrainModel, setup_terrain
from vision.plazing.tokens import EMPTY, background_cells, learn_tokens, token_mask
from vision.plazing.view import View
from vision.types import CalibrationShot

DIRECTIONS = ("N", "S", "E", "W")
RESOURCES = ("amber", "shell", "pebble")
TOKEN_LABELS = ("neutral", "trash", "surprise")


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


def _calibration_setup(image_path: str) -> dict | None:
    """The calibration shot's own setup (``<image stem>.setup.json`` beside it), if the user gave one."""
    path = os.path.splitext(image_path)[0] + ".setup.json"
    if not os.path.isfile(path):
        return None
    return load_object(path, "calibration setup")


def learn(shot: CalibrationShot) -> dict:
    """Learn the appearance of every labelled Plażing class from the calibration shot.

    The shot is decoded again at the scan's reduced size (:data:`DECODE_REDUCE`) so that what is
    learned looks like what a scan sees.

    Args:
        shot: calibration shot; samples are labelled points (board mm) with the labels of
            ``shared/contracts/plazing.md`` §Calibration labels.
    Returns:
        JSON-serialisable model: player colours (Lab Gaussians), sand colour, printed patterns of
        the piece kinds, token classes and empty prototypes, reference board statistics.
    Raises:
        BadInputError: ``unknown-label``; ``missing-label`` when no piece colour is labelled;
            ``sample-off-grid`` for a piece/token sample outside the grid.
    """
    profile = shot.request.profile
    grid = Grid.from_profile(profile)
    ppm = RECTIFY.px_per_mm
    parsed = [(parse_label(lab), lab, xy) for lab, xy in shot.request.samples]
    players = _players(parsed)
    setup = _calibration_setup(shot.request.image_path)
    terrain = setup_terrain(setup, grid)
    image, H = _decoded_as_scanned(shot)
    rect = Rectified(image, H, profile, grid)
    raw = rect.crop
    _check_labels(raw, parsed, rect, ppm, grid.cell_mm)
    median = median_bgr(rect.small)
    models = [learn_colour(raw, [rect.to_local(xy) for p, _, xy in parsed
                                 if p[0] in ("piece", "screen") and p[1] == pl], ppm, grid.cell_mm, pl)
              for pl in players]
    sand = [rect.to_local(xy) for p, _, xy in parsed if p[0] == "sand"]
    if sand:
        models.append(learn_colour(raw, sand, ppm, grid.cell_mm, "sand"))
    table = colour_table(models)
    P = len(players)
    view = View(rect, np.ones(3, np.float32), table, P, terrain)
    local = rect.local
    sand = {"bgr": np.round(cell_sands(view.board, view.cells), 1).tolist(),
            "bare": ((view.owner < 0) & (terrain != "#")).tolist()}
    # every cell's look as photographed (marks and all): how terrain looks, for reading it from photos
    looks = view.looks()
    # the printed marks painted over with their cell's sand, as a scan does before reading tokens
    # (every free cell, the labelled tokens' too); a labelled token's cell shows the token, not the
    # print, so it is no witness of the ink (a flat marker on the only free mark cell would else be
    # learned as the mark's ink and painted away)
    token_samples, sample_cells, screens = _sample_cells(parsed, grid, players, profile)
    free = (view.owner < 0) & (terrain != "#")
    bare = free.copy()
    for label, (r, c) in token_samples:
        bare[r, c] &= label == "sand"
    boxes = local.boxes_px(ppm, 1.0)
    inks = ink_directions(view.board, boxes, terrain, bare)
    if remove_marks(view.board, boxes, terrain, free, inks, witness=bare)[0]:
        view.refresh()
    feats = view.features()
    empty_cells = [(r, c) for r in range(grid.rows) for c in range(grid.cols)
                   if view.owner[r, c] < 0 and terrain[r, c] != "#" and (r, c) not in sample_cells]
    # how flat each labelled token's centre is, and each bare cell's (a "sand" sample is one)
    looked = [(EMPTY if label == "sand" else label, rc) for label, rc in token_samples] + \
        [(EMPTY, rc) for rc in empty_cells]
    spreads = [(label, x) for (label, _), x in zip(looked, centre_spread(
        view.board, boxes, [rc for _, rc in looked], FLATNESS.centre_share))]
    # how dark each labelled resource's centre is against the bare cells' sand
    resources = [(label, rc) for label, rc in token_samples if label.startswith("resource/")]
    darks = dark_ratio(view.board, boxes, [rc for _, rc in resources],
                       sand_grey(view.board, boxes, [rc for rc in empty_cells if bare[rc]]))
    composites = _pasted_tokens(view, table, local, feats, token_samples, empty_cells, median, terrain,
                                spreads=spreads)
    tests = _held_out_tokens(view, table, local, feats, token_samples, empty_cells, median, terrain)
    tokens = learn_tokens(feats, token_samples, empty_cells, composites, tests)

    fallback = [float(cv2.cvtColor(np.uint8([[np.clip(raw[0, 0], 0, 255)]]), cv2.COLOR_BGR2GRAY)[0, 0])] * P
    # the seams' dips as a scan measures them (the calibration's light needs no gains)
    seam_sd, jog_sd = _edge_noise(view, local, ppm, screens, fine_view(shot.image, image.shape, H, grid))
    patterns, ref_light = _learn_patterns(profile, view, screens, fallback, median, seam_sd)
    template = learn_template(view.gray, [(cells, f) for _, cells, f in screens], local, ppm)
    # every cell's look (the board as calibrated); with the shot's own terrain, how terrain looks
    terrain_model = TerrainModel.learn(looks, terrain,
                                       view.owner, known=bool(setup) and setup.get("terrain") is not None).to_json()
    shot.pictures[PALETTE_PICTURE] = table.reshape(-1, 256)
    shot.pictures[FRAME_PICTURE] = rect.small
    return {"version": MODEL_VERSION, "decode_reduce": DECODE_REDUCE,
            "classes": {lab: int(sum(1 for _, l2, _ in parsed if l2 == lab)) for _, lab, _ in parsed},
            "players": players, "colours": [m.to_json() for m in models], "median_bgr": median.round(2).tolist(),
            "px_per_mm": ppm, "tokens": tokens.to_json(), "patterns": patterns.to_json(),
            "screen_template": template.round(5).tolist(),
            "player_gray": np.round(ref_light, 2).tolist(),
            "sharpness": frame_sharpness(cv2.cvtColor(rect.small, cv2.COLOR_BGR2GRAY), grid),
            "palette_picture": PALETTE_PICTURE, "board_picture": FRAME_PICTURE, "terrain": terrain_model,
            "sand": sand, "flatness": learn_flatness(spreads),
            "darkness": learn_darkness([(label, x) for (label, _), x in zip(resources, darks.tolist())]),
            "footprint": calibration_footprint(view.board, boxes, token_samples, ppm), "seam_sd": round(seam_sd, 3),
            "jog_sd": round(jog_sd, 3), "mark_inks": inks}


def _players(parsed) -> list:
    """The players whose pieces or screens are labelled, sorted.

    Raises:
        BadInputError: ``missing-label`` when there is none, or a meeple's player has none.
    """
    players = sorted({p[1] for p, _, _ in parsed if p[0] in ("piece", "screen")})
    if not players:
        raise BadInputError("missing-label", "calibration needs at least one piece/<player> or "
                            "screen/<player>/<dir> sample")
    for p, lab, xy in parsed:
        if p[0] == "meeple" and p[1] not in players:
            raise BadInputError("missing-label", f"meeple of {p[1]!r} but no piece/{p[1]} sample to learn its colour")
    return players


def _decoded_as_scanned(shot: CalibrationShot):
    """The calibration shot decoded at the scan's reduced size (:data:`DECODE_REDUCE`; the shot as
    given when its file cannot be read again), and its homography board mm → those px (3×3)."""
    try:
        image = read_image(shot.request.image_path, reduce=DECODE_REDUCE)
    except BadInputError:
        image = shot.image
    if image.shape[1] != shot.image.shape[1]:
        k = image.shape[1] / shot.image.shape[1]
        H = np.diag([k, k, 1.0]) @ shot.H_px_from_mm
    else:
        H = shot.H_px_from_mm
    return image, H


def _sample_cells(parsed, grid: Grid, players: list, profile: dict):
    """The labelled samples by cell.

    Returns:
        ([(token label, cell)] of the token and sand samples, {every sample's cell},
        [(player index, the labelled screen's cells, its facing)]).
    Raises:
        BadInputError: ``sample-off-grid``.
    """
    token_samples, sample_cells, screens = [], set(), []
    shapes = {k: v[0] for k, v in profile.get("pieces", {}).items() if v}
    for p, label, (x, y) in parsed:
        cell = grid.cell_of(x, y)
        if cell is None:
            raise BadInputError("sample-off-grid", f"sample {label!r} at {x:g},{y:g} mm is outside the grid")
        sample_cells.add(cell)
        if p[0] in ("meeple", "resource") or p[0] in TOKEN_LABELS or p[0] == "sand":
            token_samples.append((label, cell))
        elif p[0] == "screen" and "screen" in shapes:
            screens.append((players.index(p[1]), screen_cells(cell, p[2], [tuple(c) for c in shapes["screen"]]), p[2]))
    return token_samples, sample_cells, screens


def _edge_noise(view: View, local, ppm: float, screens: list, fine) -> tuple[float, float]:
    """The dip across an edge inside one piece (BGR levels, the larger on the board and on ``fine``,
    the full-size shot's crop and scale of :func:`~vision.plazing.rectify.fine_view`, or None) and
    the outline's jog there (mm), measured on the labelled screens' inner edges (defaults and
    floors from :data:`SEAM`)."""
    seams = finest_dips(view.board, view.owner, local, ppm, fine)
    inside = [v for (a, b), v in seams.items() for _, cells, _ in screens if a in cells and b in cells]
    seam_sd = joined_sd(inside)
    jogs = edge_jogs(view.masks, view.owner, local, ppm)
    inside_jogs = [v for (a, b), v in jogs.items() for _, cells, _ in screens if a in cells and b in cells]
    jog_sd = max(float(np.sqrt(np.median(np.square(inside_jogs)) / 0.4549)) if inside_jogs else SEAM.default_jog_sd_mm,
                 SEAM.min_jog_sd_mm)
    return seam_sd, jog_sd


def _check_labels(raw: np.ndarray, parsed, rect: Rectified, ppm: float, cell_mm: float) -> None:
    """Refuse a calibration whose piece sample clearly shows another player's colour (leave-one-out
    against the medians of the classes: :func:`~vision.plazing.cells.mislabelled`). When every
    sample of two players is swapped nothing can tell, and nothing is said.

    Raises:
        BadInputError: ``bad-sample`` naming each such sample's label and board_mm.
    """
    rows = [(lab, xy, p[1]) for p, lab, xy in parsed if p[0] in ("piece", "screen")]
    colours = [sample_colour(raw, rect.to_local(xy), ppm, cell_mm) for _, xy, _ in rows]
    bad = mislabelled(colours, [pl for _, _, pl in rows], PALETTE.bad_sample_delta_e, PALETTE.bad_sample_ratio)
    if bad:
        text = "; ".join(f"{sample_slot(k)} looks like {other} (colour ΔE {d_other:.0f} from the {other} samples, "
                         f"{d_own:.0f} from the other {rows[i][2]} samples)"
                         for k, (i, d_own, other, d_other) in enumerate(bad))
        raise SampleError("bad-sample", [rows[i][:2] for i, *_ in bad],
                          f"{text}: fix the label (or the point) and calibrate again",
                          naming=lambda label, xy: f"sample {label!r} at board_mm [{xy[0]:g}, {xy[1]:g}]")


def _held_out_tokens(view: View, table: np.ndarray, grid: Grid, feats: np.ndarray, token_samples, empty_cells,
                     median, terrain):
    """The bare cells and the labelled tokens pasted in the held-out ways
    (:data:`~vision.plazing.config.HELD_OUT`), in the held-out light: the whole board a little
    brighter or darker (``TOKENS.test_brightness``), the tokens alone in another tint
    (``TOKENS.test_token_gains_bgr``). Returns [(label or ``sand``, features (F,))]."""
    out = []
    lights = [(b, (1.0, 1.0, 1.0)) for b in TOKENS.test_brightness] + [(1.0, g) for g in TOKENS.test_token_gains_bgr]
    for bright, tint in lights:
        board = view.board if bright == 1.0 else cv2.convertScaleAbs(view.board, alpha=bright)
        lit = View(view.rect, view.gains, table, view.n_players, terrain, board=board)
        if tint == (1.0, 1.0, 1.0):
            out += [("sand", x) for x in lit.features()[tuple(np.array(empty_cells).T)]] if empty_cells else []
        out += [(label, x) for label, x, _ in _pasted_tokens(lit, table, grid, feats, token_samples, empty_cells,
                                                             median, terrain, HELD_OUT, tint)]
    return out


def _pasted_tokens(view: View, table: np.ndarray, grid: Grid, feats: np.ndarray, token_samples, empty_cells,
                   median, terrain, cfg: AugmentConfig = AUGMENT, tint=(1.0, 1.0, 1.0), spreads: list | None = None):
    """Every labelled token cut out and pasted onto the calibration's typical bare cells
    (:func:`~vision.plazing.tokens.background_cells`), turned, scaled, shifted and shadowed as a scene
    can show it (:mod:`vision.plazing.augment`, the ways ``cfg`` lists), so a shell learned on plain
    sand is also known on a printed resource spot, off the centre, turned, in a lamp's shadow.
    ``tint``: B, G, R gains on the cut-out tokens; ``spreads``: a list that receives (label, its
    centre's spread) of every pasted token (:func:`~vision.plazing.flatness.centre_spread`).
    Returns [(label, features (F,), index of the sample)]."""
    ppm = RECTIFY.px_per_mm
    bgs = background_cells(feats, empty_cells)
    boxes = grid.boxes_px(ppm, 1.0)
    cut = []
    for i, (label, (r, c)) in enumerate(token_samples):
        if label == "sand":
            continue
        u0, v0, u1, v1 = boxes[r, c]
        patch = view.board[v0:v1, u0:u1].copy()
        if tuple(tint) != (1.0, 1.0, 1.0):
            patch = cv2.multiply(patch, np.full(patch.shape, 1.0, np.float32) * np.float32(tint), dtype=cv2.CV_8U)
        cut.append(((label, i), patch, token_mask(patch)))
    largest = {}
    for (label, _), _, mask in cut:
        largest[label] = max(largest.get(label, 0), int(mask.sum()))
    # a token barely different from the sand it lies on cannot be cut out whole (only its shadow
    # would be pasted); a better-contrasted sample of the class teaches the backgrounds
    cut = [(key, patch, mask) for key, patch, mask in cut
           if mask.any() and mask.sum() >= TOKENS.min_cut_share * largest[key[0]]]
    out = []
    for board, filled in augmented_boards(view.board, boxes, cut, bgs, ppm, cfg):
        f = View(view.rect, view.gains, table, view.n_players, terrain, board=board).features()
        out += [(label, f[rc], i) for (label, i), rc in filled]
        if spreads is not None:
            spreads += zip([label for (label, _), _ in filled],
                           centre_spread(board, boxes, [rc for _, rc in filled], FLATNESS.centre_share))
    return out


def _learn_patterns(profile, view: View, screens, fallback, median, seam_sd: float):
    """Each kind's printed cell pattern from the calibration: labelled screens (their facing gives
    the rotation), and every other piece whose split by seams alone is sure
    (``PATTERN.min_teach_posterior``).

    Returns:
        (PatternModel, players' grey (P,)).
    """
    model = PatternModel.for_profile(profile)
    grid = view.grid
    instances = []
    owner = view.owner.copy()
    covered = [tuple(x) for x in np.argwhere(owner >= 0).tolist()]
    win, ref_light = view.windows(covered, fallback, median)
    at = {c: i for i, c in enumerate(covered)}

    def windows_of(cells):
        return win[[at[c] for c in cells]]

    for pi, cells, facing in screens:
        cells = [tuple(c) for c in cells]
        if not all(0 <= r < grid.rows and 0 <= c < grid.cols for r, c in cells):
            continue
        opts = dict(model.placements("screen", cells))
        k = FACINGS.index(facing)
        if k in opts and all(c in at for c in cells):
            instances.append(("screen", windows_of(cells), k, opts[k]))
        for r, c in cells:
            owner[r, c] = -1
    shapes = catalogue_shapes(profile)
    seams = seam_contrasts(view.board, owner, view.grid, RECTIFY.px_per_mm)
    for pi, cells in groups(owner):
        split = split_group(cells, seams, shapes, joined_sd_bgr=seam_sd)
        if not split.exact or split.posterior < PATTERN.min_teach_posterior:
            continue
        for kind, placed, _, _ in split.pieces:
            opts = model.placements(kind, placed) if kind not in model.pooled else [(0, [0] * len(placed))]
            if not opts:
                continue
            instances.append((kind, windows_of(placed), None, opts))
    model.learn(instances)
    return model, ref_light
