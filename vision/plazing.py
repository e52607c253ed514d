"""Plażing reader: pieces, screen facings and tokens from one registered photo.

Pipeline (one module per idea, every tunable number in :mod:`vision.plazing_config`):

1. decode the photo at half size (:data:`DECODE_REDUCE`), rectify the grid (plus a margin) at
   :data:`~vision.plazing_config.RECTIFY` px/mm and the whole board small; refuse dark / glared /
   blurred photos (:mod:`vision.quality`); bring the lighting to the calibration's with the
   board's printed frame as the reference (:func:`lighting_gains`);
2. label every pixel with a learned colour (:mod:`vision.plazing_cells`), decide which player
   covers each placeable cell (terrain ``#`` is never a piece). The terrain comes from the setup,
   or — without one — is read from the photo (:mod:`vision.plazing_terrain`: the drawn objects
   learned from the calibration shot's own terrain, ``calib.setup.json``), reported in
   ``state["terrain"]`` with a warning; cells whose whole look is unlike every calibration cell
   refuse the photo when they form a blob (a flat patch hiding the board: ``board-out-of-view``;
   else ``occluded``, with the measured cause: colour cast, shadow, a setup terrain unlike the
   photo's);
3. classify the tokens on free cells (:mod:`vision.plazing_tokens`); refuse the photo when a
   blob of cells looks like nothing learned (a hand or an arm over the board);
4. split each player's touching cells into catalogue pieces by the cuts between them and by each
   kind's printed pattern learned at calibration (:mod:`vision.plazing_pieces`); read each
   screen's facing from its learned cross-profile (:mod:`vision.plazing_screens`);
5. confidence = product of every decision's posterior (cover per cell, split per group, facing
   per screen, token per free cell), so that one doubtful cell pulls the whole reading down.

Speed: every image operation works on the rectified grid (≈ 0.25 Mpx) with whole-image OpenCV
calls, cell statistics come from block means (:class:`~vision.plazing_cells.CellBlocks`), warps
and large scratch arrays are reused from scan to scan, and small matrix products stay below the
size at which numpy's BLAS starts threads.

Contract: ``shared/contracts/plazing.md``; rules: ``shared/rules/plazing.md``.
"""

from __future__ import annotations

import os
import threading

import cv2
import numpy as np

from beachscore.errors import BadInputError, UnreadableBoardError
from vision import quality
from vision.image_io import read_image
from vision.plazing_cells import (CellBlocks, ColourModel, Grid, colour_table, cover_posteriors, cover_shares,
                                  learn_colour, lut_index, mislabelled, player_masks, sample_colour)
from vision.plazing_config import PALETTE, PATTERN, QUALITY, RECTIFY, REGISTER, TOKENS
from vision.plazing_pieces import (FACINGS, PatternModel, catalogue_shapes, cell_windows, groups, pattern_maps,
                                   player_lightness, seam_contrasts, split_group)
from vision.plazing_screens import facing_of, learn_template, screen_cells
from vision.plazing_terrain import TerrainModel, terrain_features
from vision.plazing_tokens import (EMPTY, TokenModel, background_cells, cell_features, classify_tokens, learn_tokens,
                                   strangeness, token_mask)
from vision.registration import Registration
from vision.types import CalibrationShot, Photo, Reading

DIRECTIONS = ("N", "S", "E", "W")
RESOURCES = ("amber", "shell", "pebble")
TOKEN_LABELS = ("neutral", "trash", "surprise")
PALETTE_PICTURE = "plazing_labels.png"  #: the colour lookup table, kept so a scan need not rebuild it
FRAME_PICTURE = "plazing_board.png"  #: the calibration's small board view: the frame is the lighting reference
MODEL_VERSION = 2
#: Photos are decoded at 1/DECODE_REDUCE size; the pipeline scales the calibrated homography.
DECODE_REDUCE = RECTIFY.decode_reduce


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


_MAPS: dict = {}  #: remap tables of recent warps: a fixed camera gives the same homography scan after scan


class _Scratch:
    """Arrays reused from scan to scan by name: a fresh multi-megabyte array costs its page faults
    on every scan, a noticeable part of a 20 ms budget. One reading at a time (the station scans
    in one thread); calibration does not use it."""

    def __init__(self):
        self.arrays: dict = {}

    def __call__(self, name: str, shape, dtype) -> np.ndarray:
        a = self.arrays.get(name)
        if a is None or a.shape != tuple(shape) or a.dtype != np.dtype(dtype):
            a = self.arrays[name] = np.empty(tuple(shape), dtype)
        return a


_THREAD = threading.local()


def _scratch() -> _Scratch:
    """This thread's scratch arrays."""
    if not hasattr(_THREAD, "scratch"):
        _THREAD.scratch = _Scratch()
    return _THREAD.scratch


def _warp(image: np.ndarray, M: np.ndarray, size, dst: np.ndarray | None = None) -> np.ndarray:
    """``cv2.warpPerspective(image, M, size, WARP_INVERSE_MAP)`` (M: output px → image px), bilinear,
    borders replicated — through fixed-point remap tables cached per (M, size, image size)."""
    key = (np.round(M, 9).tobytes(), tuple(size), image.shape[:2])
    maps = _MAPS.get(key)
    if maps is None:
        w, h = size
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        den = M[2, 0] * xs + M[2, 1] * ys + M[2, 2]
        mx = ((M[0, 0] * xs + M[0, 1] * ys + M[0, 2]) / den).astype(np.float32)
        my = ((M[1, 0] * xs + M[1, 1] * ys + M[1, 2]) / den).astype(np.float32)
        maps = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        if len(_MAPS) >= 8:
            _MAPS.pop(next(iter(_MAPS)))
        _MAPS[key] = maps
    return cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, dst=dst, borderMode=cv2.BORDER_REPLICATE)


class _Rectified:
    """The two top views a reading needs.

    Attributes:
        crop: the grid and a ``RECTIFY.margin_mm`` band around it at ``RECTIFY.px_per_mm``,
            BGR uint8 (H, W, 3); pixel (u, v) is at board point (x0 + (u + 0.5)/ppm,
            y0 + (v + 0.5)/ppm) mm.
        local: the grid in the crop's own millimetres (its origin is the margin).
        offset_mm: (x0, y0), board mm of the crop's top-left corner.
        small: the whole board at ``QUALITY.px_per_mm`` (photo checks, lighting), BGR uint8.
    """

    def __init__(self, image: np.ndarray, H: np.ndarray, profile: dict, grid: Grid, scratch: _Scratch | None = None):
        ppm = RECTIFY.px_per_mm
        m = int(np.ceil(RECTIFY.margin_mm * ppm))
        margin = m / ppm
        x0, y0 = grid.origin_mm[0] - margin, grid.origin_mm[1] - margin
        w = int(round(grid.cols * grid.cell_mm * ppm)) + 2 * m
        h = int(round(grid.rows * grid.cell_mm * ppm)) + 2 * m
        S = np.array([[1 / ppm, 0, x0 + 0.5 / ppm], [0, 1 / ppm, y0 + 0.5 / ppm], [0, 0, 1]])
        self.crop = _warp(image, H @ S, (w, h), scratch("crop", (h, w, 3), np.uint8) if scratch else None)
        self.local = Grid((margin, margin), grid.cell_mm, grid.rows, grid.cols)
        self.offset_mm = (x0, y0)
        q = QUALITY.px_per_mm
        bw, bh = profile["board_mm"]
        Sq = np.array([[1 / q, 0, 0.5 / q], [0, 1 / q, 0.5 / q], [0, 0, 1]])
        size = (int(round(bw * q)), int(round(bh * q)))
        self.small = _warp(image, H @ Sq, size, scratch("small", (size[1], size[0], 3), np.uint8) if scratch else None)

    def to_local(self, xy):
        """Board mm → the crop's mm."""
        return (xy[0] - self.offset_mm[0], xy[1] - self.offset_mm[1])


def _frame_mask(shape, grid: Grid, scale_px_per_mm: float) -> np.ndarray:
    """bool (H, W): the board outside the grid (frame, sea, dunes) — the same in every game, so its
    sharpness does not depend on how many pieces lie on the board."""
    m = np.ones(shape[:2], bool)
    x0, y0 = (int(v * scale_px_per_mm) for v in grid.origin_mm)
    x1 = int((grid.origin_mm[0] + grid.cols * grid.cell_mm) * scale_px_per_mm)
    y1 = int((grid.origin_mm[1] + grid.rows * grid.cell_mm) * scale_px_per_mm)
    m[y0:y1, x0:x1] = False
    return m


def _sharpness(gray: np.ndarray, grid: Grid) -> float:
    """Variance of the Laplacian of the small rectified grey board (uint8, ``QUALITY.px_per_mm``)
    over the frame outside the grid."""
    return quality.sharpness(gray, _frame_mask(gray.shape, grid, QUALITY.px_per_mm))


def _median_bgr(small: np.ndarray) -> np.ndarray:
    """Median B, G, R of the small whole-board view (BGR uint8), float32 (3,): the lighting
    reference (from each channel's histogram: no sort)."""
    n = small.shape[0] * small.shape[1]
    out = []
    for c in range(3):
        cum = cv2.calcHist([small], [c], None, [256], [0, 256]).ravel().cumsum()
        out.append(float(np.searchsorted(cum, n / 2.0)))
    return np.array(out, np.float32)


def lighting_gains(small: np.ndarray, reference: np.ndarray | None, frame: np.ndarray, fallback_median=None):
    """Per-channel gains that bring this photo's lighting to the calibration's.

    The board's frame (sea, dunes, score track: outside the grid) is printed artwork that no game
    changes, so the median ratio of the calibration's frame to this photo's, pixel by pixel, is
    the lighting change whatever lies on the grid (grey world restricted to the frame).

    Args:
        small: this photo's small whole-board view, BGR uint8 (h, w, 3).
        reference: the calibration's, same shape, or None (then the ratio of whole-board medians).
        frame: bool (h, w), the frame.
        fallback_median: (3,) the calibration's whole-board median BGR (used without reference).
    Returns:
        float32 (3,) gains, clipped to [0.25, 4].
    """
    if reference is None or reference.shape != small.shape:
        gains = np.asarray(fallback_median, np.float32) / np.maximum(_median_bgr(small), 1.0)
        return np.clip(gains, 0.25, 4.0).astype(np.float32)
    idx = np.flatnonzero(frame.ravel())[::QUALITY.lighting_stride]
    a = reference.reshape(-1, 3)[idx].astype(np.float32)
    b = small.reshape(-1, 3)[idx].astype(np.float32)
    ok = (a.min(axis=1) > 15) & (a.max(axis=1) < 245) & (b.min(axis=1) > 5) & (b.max(axis=1) < 250)
    if ok.sum() < 50:
        ok[:] = True
    gains = np.median(a[ok] / np.maximum(b[ok], 1.0), axis=0)
    return np.clip(gains, 0.25, 4.0).astype(np.float32)


class _View:
    """One rectified board prepared for reading: normalised colours, labels, cover.

    Attributes:
        board: illumination-normalised grid crop, BGR uint8 (H, W, 3) at RECTIFY px/mm.
        gray: the same in grey, uint8 (H, W).
        masks: per-player colour masks, uint8 (H, W, P) (255 = the player's colour).
        cells: block layout of the grid (:class:`~vision.plazing_cells.CellBlocks`);
        player_blocks: block means of ``masks``.
        owner: int (rows, cols) covering player or −1; cover_p: float64 (rows, cols) posterior.
    """

    def __init__(self, rect: _Rectified, gains, table: np.ndarray, n_players: int, terrain: np.ndarray,
                 board: np.ndarray | None = None, scratch: _Scratch | None = None):
        grid = rect.local
        self.gains = np.asarray(gains, np.float32)
        hw = rect.crop.shape[:2]
        buf = scratch or (lambda name, shape, dtype: None)
        self.board = board if board is not None else cv2.transform(
            rect.crop, np.diag(self.gains).astype(np.float32), dst=buf("board", hw + (3,), np.uint8))
        self.gray = cv2.cvtColor(self.board, cv2.COLOR_BGR2GRAY, dst=buf("gray", hw, np.uint8))
        if scratch is None:
            self.labels = np.take(table, lut_index(self.board))
        else:
            q = np.right_shift(self.board, 8 - PALETTE.lut_bits, out=scratch("q8", hw + (3,), np.uint8))
            q16 = scratch("q16", hw + (3,), np.uint16)
            np.copyto(q16, q)
            b = PALETTE.lut_bits
            idx = cv2.transform(q16, np.array([[1 << (2 * b), 1 << b, 1]], np.float32),
                                dst=scratch("idx", hw, np.uint16))
            self.labels = np.take(table, idx, out=scratch("labels", hw, np.uint8))
        self.masks = player_masks(self.labels, n_players)
        self.scratch = scratch
        ppm = RECTIFY.px_per_mm
        self.cells = CellBlocks(grid, ppm)
        self.player_blocks = self.cells.blocks(self.masks).reshape(self.cells.size[1], self.cells.size[0], n_players)
        self.owner, self.cover_p = cover_posteriors(cover_shares(self.player_blocks, self.cells))
        self.owner[terrain == "#"] = -1
        self.grid = grid
        self.rect = rect
        self.n_players = n_players

    def features(self) -> np.ndarray:
        """Token features of every cell (:func:`~vision.plazing_tokens.cell_features`); the block
        means behind them are kept for :meth:`looks`."""
        self._blocks = {}
        return cell_features(self.board, self.gray, self.player_blocks, self.cells, scratch=self.scratch,
                             keep=self._blocks)

    def looks(self) -> np.ndarray:
        """Whole-cell looks (:func:`~vision.plazing_terrain.terrain_features`), after :meth:`features`."""
        if not getattr(self, "_blocks", None):
            self.features()
        return terrain_features(self._blocks["bgr"], self._blocks["sq"], self.cells)

    def windows(self, cells, ref_light_fallback, median_bgr):
        """Pattern windows (:func:`~vision.plazing_pieces.cell_windows`) of covered ``cells``, and
        the players' grey in this photo."""
        shares, light = pattern_maps(self.masks, self.gray, self.grid, RECTIFY.px_per_mm)
        ref = player_lightness(shares, light, ref_light_fallback)
        base = float(np.dot(np.asarray(median_bgr, np.float64), [0.114, 0.587, 0.299]))
        return cell_windows(cells, [int(self.owner[c]) for c in cells], shares, light, ref, base), ref


def _piece_scorer(model: PatternModel, cells, windows):
    """A ``piece_score(kind, cells) -> (log-likelihood, facing, facing posterior)`` for
    :func:`split_group`, from the pattern costs of the covered cells."""
    index = {c: i for i, c in enumerate(cells)}
    costs = model.cell_costs(windows) if len(cells) else {}
    untaught = model.untaught_cost()
    layouts: dict = {}

    def score(kind, placed):
        if kind in model.pooled:  # every cell of the kind looks alike, whatever the shape
            c = sum(costs[kind][index[cell], 0] if kind in costs else untaught for cell in placed)
            return -0.5 * c, None, 1.0
        r0 = min(r for r, _ in placed)
        c0 = min(c for _, c in placed)
        key = (kind, tuple((r - r0, c - c0) for r, c in placed))
        if key not in layouts:
            layouts[key] = model.placements(kind, placed)
        opts = layouts[key]
        if not opts:
            return -0.5 * untaught * len(placed), None, 1.0
        ll = []
        for k, idx in opts:
            c = 0.0
            for cell, i in zip(placed, idx):
                role = model.role(kind, i)
                c += costs[role][index[cell], k] if role in costs else untaught
            ll.append(-0.5 * c)
        ll = np.array(ll)
        best = int(ll.argmax())
        post = np.exp(ll - ll.max())
        m = float(ll.max() + np.log(post.mean()))  # log of the mean over rotations: the rotation is unknown
        face = FACINGS[opts[best][0]] if kind == "screen" else None
        return m, face, float(post[best] / post.sum())

    return score


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
    players = sorted({p[1] for p, _, _ in parsed if p[0] in ("piece", "screen")})
    if not players:
        raise BadInputError("missing-label", "calibration needs at least one piece/<player> or "
                            "screen/<player>/<dir> sample")
    for p, lab, xy in parsed:
        if p[0] == "meeple" and p[1] not in players:
            raise BadInputError("missing-label", f"meeple of {p[1]!r} but no piece/{p[1]} sample to learn its colour")
    setup = _calibration_setup(shot.request.image_path)
    terrain = _terrain(setup, grid)
    try:
        image = read_image(shot.request.image_path, reduce=DECODE_REDUCE)
    except BadInputError:
        image = shot.image
    if image.shape[1] != shot.image.shape[1]:
        k = image.shape[1] / shot.image.shape[1]
        H = np.diag([k, k, 1.0]) @ shot.H_px_from_mm
    else:
        H = shot.H_px_from_mm
    rect = _Rectified(image, H, profile, grid)
    raw = rect.crop
    _check_labels(raw, parsed, rect, ppm, grid.cell_mm)
    median = _median_bgr(rect.small)
    models = [learn_colour(raw, [rect.to_local(xy) for p, _, xy in parsed
                                 if p[0] in ("piece", "screen") and p[1] == pl], ppm, grid.cell_mm, pl)
              for pl in players]
    sand = [rect.to_local(xy) for p, _, xy in parsed if p[0] == "sand"]
    if sand:
        models.append(learn_colour(raw, sand, ppm, grid.cell_mm, "sand"))
    table = colour_table(models)
    P = len(players)
    view = _View(rect, np.ones(3, np.float32), table, P, terrain)
    local = rect.local
    feats = view.features()
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
    empty_cells = [(r, c) for r in range(grid.rows) for c in range(grid.cols)
                   if view.owner[r, c] < 0 and terrain[r, c] != "#" and (r, c) not in sample_cells]
    composites = _pasted_tokens(view, table, local, feats, token_samples, empty_cells, median, terrain)
    tokens = learn_tokens(feats, token_samples, empty_cells, "".join(terrain[rc] for rc in empty_cells), composites)
    fallback = [float(cv2.cvtColor(np.uint8([[np.clip(raw[0, 0], 0, 255)]]), cv2.COLOR_BGR2GRAY)[0, 0])] * P
    patterns, ref_light = _learn_patterns(profile, view, screens, fallback, median)
    template = learn_template(view.gray, [(cells, f) for _, cells, f in screens], local, ppm)
    # every cell's look (the board as calibrated); with the shot's own terrain, how terrain looks
    terrain_model = TerrainModel.learn(view.looks(), terrain,
                                       view.owner, known=bool(setup) and setup.get("terrain") is not None).to_json()
    shot.pictures[PALETTE_PICTURE] = table.reshape(-1, 256)
    shot.pictures[FRAME_PICTURE] = rect.small
    return {"version": MODEL_VERSION, "decode_reduce": DECODE_REDUCE,
            "classes": {lab: int(sum(1 for _, l2, _ in parsed if l2 == lab)) for _, lab, _ in parsed},
            "players": players, "colours": [m.to_json() for m in models], "median_bgr": median.round(2).tolist(),
            "px_per_mm": ppm, "tokens": tokens.to_json(), "patterns": patterns.to_json(),
            "screen_template": template.round(5).tolist(),
            "player_gray": np.round(ref_light, 2).tolist(),
            "sharpness": _sharpness(cv2.cvtColor(rect.small, cv2.COLOR_BGR2GRAY), grid),
            "palette_picture": PALETTE_PICTURE, "board_picture": FRAME_PICTURE, "terrain": terrain_model}


def _check_labels(raw: np.ndarray, parsed, rect: "_Rectified", ppm: float, cell_mm: float) -> None:
    """Refuse a calibration whose piece sample clearly shows another player's colour (leave-one-out
    against the medians of the classes: :func:`~vision.plazing_cells.mislabelled`). When every
    sample of two players is swapped nothing can tell, and nothing is said.

    Raises:
        BadInputError: ``bad-sample`` naming each such sample's label and board_mm.
    """
    rows = [(lab, xy, p[1]) for p, lab, xy in parsed if p[0] in ("piece", "screen")]
    colours = [sample_colour(raw, rect.to_local(xy), ppm, cell_mm) for _, xy, _ in rows]
    bad = mislabelled(colours, [pl for _, _, pl in rows], PALETTE.bad_sample_delta_e, PALETTE.bad_sample_ratio)
    if bad:
        text = "; ".join(f"sample {rows[i][0]!r} at board_mm [{rows[i][1][0]:g}, {rows[i][1][1]:g}] looks like "
                         f"{other} (colour ΔE {d_other:.0f} from the {other} samples, {d_own:.0f} from the other "
                         f"{rows[i][2]} samples)" for i, d_own, other, d_other in bad)
        raise BadInputError("bad-sample", f"{text}: fix the label (or the point) and calibrate again")


def _pasted_tokens(view: _View, table: np.ndarray, grid: Grid, feats: np.ndarray, token_samples, empty_cells,
                   median, terrain):
    """Every labelled token pasted onto the calibration's typical empty backgrounds
    (:func:`~vision.plazing_tokens.background_cells`), so a shell learned on plain sand is also
    known on a printed resource spot. Returns [(label, features (F,))]."""
    ppm = RECTIFY.px_per_mm
    bgs = background_cells(feats, empty_cells)
    boxes = grid.boxes_px(ppm, 1.0)
    out = []
    cut = []
    for label, (r, c) in token_samples:
        if label == "sand":
            continue
        u0, v0, u1, v1 = boxes[r, c]
        patch = view.board[v0:v1, u0:u1]
        cut.append((label, (u0, v0, u1, v1), patch, token_mask(patch)))
    largest = {}
    for label, _, _, mask in cut:
        largest[label] = max(largest.get(label, 0), int(mask.sum()))
    for label, (u0, v0, u1, v1), patch, mask in cut:
        # a token barely different from the sand it lies on cannot be cut out whole (only its
        # shadow would be pasted); a better-contrasted sample of the class teaches the backgrounds
        if not mask.any() or mask.sum() < TOKENS.min_cut_share * largest[label]:
            continue
        board = view.board.copy()
        for br, bc in bgs:
            a0, b0, a1, b1 = boxes[br, bc]
            h, w = min(b1 - b0, v1 - v0), min(a1 - a0, u1 - u0)
            dst = board[b0:b0 + h, a0:a0 + w]
            dst[mask[:h, :w]] = patch[:h, :w][mask[:h, :w]]
        f = _View(view.rect, view.gains, table, view.n_players, terrain, board=board).features()
        out += [(label, f[b]) for b in bgs]
    return out


def _learn_patterns(profile, view: _View, screens, fallback, median):
    """Returns (PatternModel, players' grey (P,))."""
    """Each kind's printed cell pattern from the calibration: labelled screens (their facing gives
    the rotation), and every other piece whose split by seams alone is sure
    (``PATTERN.min_teach_posterior``)."""
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
        split = split_group(cells, seams, shapes)
        if not split.exact or split.posterior < PATTERN.min_teach_posterior:
            continue
        for kind, placed, _, _ in split.pieces:
            opts = model.placements(kind, placed) if kind not in model.pooled else [(0, [0] * len(placed))]
            if not opts:
                continue
            instances.append((kind, windows_of(placed), None, opts))
    model.learn(instances)
    return model, ref_light


class _Model:
    """The learned model, parsed once per calibration (the lookup table costs a few ms)."""

    _cache: dict = {}  #: (id, folder) → (calibration, model); the calibration is kept so its id is not reused

    def __init__(self, d: dict):
        if d.get("version") != MODEL_VERSION:
            raise BadInputError("calibration-outdated", "this calibration was made by an older Plażing reader; "
                                "run beachscore calibrate again")
        self.players = list(d["players"])
        self.colours = [ColourModel.from_json(c) for c in d["colours"]]
        self.median = np.array(d["median_bgr"], np.float32)
        self.tokens = TokenModel.from_json(d["tokens"])
        self.patterns = PatternModel.from_json(d["patterns"])
        self.template = np.array(d["screen_template"], np.float64)
        self.player_gray = list(d["player_gray"])
        self.sharpness = float(d.get("sharpness", 0.0))
        self.terrain = TerrainModel.from_json(d.get("terrain"))
        self.table = None
        self.registration_levels: dict = {}
        self.last_refined: dict = {}  #: photo size → the last refined Registration
        self.reference_small = None

    @classmethod
    def of(cls, cal) -> "_Model":
        """The parsed model of a loaded calibration (cached).

        Raises:
            BadInputError: ``calibration-outdated`` for a model of another reader version.
        """
        key = (id(cal), cal.folder)
        hit = cls._cache.get(key)
        if hit is not None and hit[0] is cal:
            return hit[1]
        m = cls(cal.model)
        pic = cal.image(cal.model.get("palette_picture", PALETTE_PICTURE)) if cal.folder else None
        n = 1 << (3 * PALETTE.lut_bits)
        m.table = pic.reshape(-1) if pic is not None and pic.size == n else colour_table(m.colours)
        m.reference_small = cal.image(cal.model.get("board_picture", FRAME_PICTURE)) if cal.folder else None
        if len(cls._cache) >= 4:
            cls._cache.pop(next(iter(cls._cache)))
        cls._cache[key] = (cal, m)
        return m


def _check_quality(small: np.ndarray, view_gains: np.ndarray, model: _Model, grid: Grid) -> None:
    """Refuse dark or glared photos with :func:`vision.quality.check` and blurred ones against the
    calibration's sharpness (Pech-Pacheco et al. 2000).

    Raises:
        UnreadableBoardError: ``too-dark``, ``glare``, ``too-blurred``.
    """
    quality.check(small, gains=view_gains)
    if model.sharpness > 0:  # measured after the lighting correction: a dimmer photo is not a blurred one
        now = _sharpness(cv2.cvtColor(cv2.transform(small, np.diag(view_gains).astype(np.float32)),
                                      cv2.COLOR_BGR2GRAY), grid)
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
                      tokens.empty_marks + "".join(sorted(unseen)), tokens.protos, tokens.proto_class,
                      tokens.strict), unseen


def _terrain_warning(terrain: np.ndarray, prob: np.ndarray, classes) -> str:
    """The warning of a scan whose terrain was read from the photo."""
    n_wall = int((terrain == "#").sum())
    marks = {m: int((terrain == m).sum()) for m in "+-x" if (terrain == m).any()}
    unseen = [m for m in "+-x" if m not in classes]
    doubtful = np.argwhere(prob < 0.9).tolist()
    text = (f"terrain read from the photo (no --setup terrain): {n_wall} closing cells"
            + "".join(f", {n} '{m}'" for m, n in marks.items())
            + "; marks under pieces cannot be seen and are taken as sand")
    if unseen:
        text += (f"; the calibration shot shows no free {' or '.join(repr(m) for m in unseen)} square, so such "
                 "squares are read as sand")
    if doubtful:
        text += "; doubtful cells " + ", ".join(f"[{r},{c}]" for r, c in doubtful[:6])
    return text + "; pass --setup with 'terrain' to be sure"


def _unlike_message(cells, blob: int, model: "_Model", terrain: np.ndarray, terrain_given: bool, looks, gains,
                    flat: bool = False, washed: bool = False, darker: float = 1.0) -> str:
    """Say what was measured when cells look like nothing seen at calibration, and the likely
    causes the measurements point at (a flat patch, a colour cast, a setup terrain unlike the photo's)."""
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    text = (f"{len(cells)} cells look unlike anything seen at calibration (largest touching group {blob}; rows "
            f"{min(rows) + 1}–{max(rows) + 1}, columns {min(cols) + 1}–{max(cols) + 1})")
    causes = []
    if washed:
        causes.append("they are washed out once the photo's light is matched to calibration's: the light is uneven "
                      "across the board (part of it in shadow, or a bright spot)")
    if darker < QUALITY.shadow_ratio and not flat:
        causes.append(f"they are {darker:.2f}× as bright as the rest of the board: a shadow over part of the board?")
    if flat:
        causes.append("they are one flat, even colour: part of the board is hidden or out of view")
    g = np.asarray(gains, np.float64)
    if np.abs(np.log(np.maximum(g, 1e-3))).max() > np.log(1.25):
        causes.append(f"the light is very different from calibration (colour gains B×{g[0]:.2f}, G×{g[1]:.2f}, "
                      f"R×{g[2]:.2f})")
    if (not causes and terrain_given and looks is not None and model.terrain is not None
            and model.terrain.known):  # a photo read as it should be: does its terrain match the setup's?
        read, _, _ = model.terrain.classify(looks)
        bad_set = set(map(tuple, cells))
        says_sand = [(r, c) for r, c in np.argwhere((read == "#") & (terrain != "#")).tolist()]
        says_wall = [(r, c) for r, c in np.argwhere((read != "#") & (terrain == "#")).tolist()]
        if says_sand and (bad_set & set(says_sand) or len(says_sand) >= 2):
            text_t = ("the setup's terrain may be wrong: the photo shows closing terrain at "
                      + ", ".join(f"[{r},{c}]" for r, c in says_sand[:6]) + " where the setup says sand")
            if says_wall:
                text_t += (", and none at " + ", ".join(f"[{r},{c}]" for r, c in says_wall[:6])
                           + " where the setup puts closing terrain")
            causes.append(text_t + " (pass the terrain of this game, or leave it out to read it from the photo)")
    if not causes:
        causes.append("a hand or an object over the board, light very different from calibration, pieces of a "
                      "colour not labelled at calibration, or a terrain that differs from the setup?")
    body = "; ".join(causes)
    return text + " — " + body + ("" if body.endswith("?") else ".") + \
        " Take the photo again with the view clear (or fix --setup)."


def _unlike_board(looks, model: "_Model", terrain: np.ndarray, terrain_given: bool, gains, owner: np.ndarray) -> list:
    """Cells whose whole look (:func:`~vision.plazing_terrain.terrain_features`) is unlike every cell
    of the calibration shot (``QUALITY.unlike_look``).

    Returns:
        [(r, c)] of a few such cells (each makes the reading doubtful).
    Raises:
        UnreadableBoardError: ``board-out-of-view`` (a flat, even patch: part of the board hidden)
            or ``occluded`` when they are too many or form a large blob.
    """
    if looks is None:
        return []
    # cells in a learned player colour are judged by the piece reader (a kind never labelled at
    # calibration has a print unlike any calibration cell, and is read with doubt there)
    far = (model.terrain.nearest(looks) > QUALITY.unlike_look) & (owner < 0)
    cells = [tuple(rc) for rc in np.argwhere(far).tolist()]
    if not cells:
        return []
    blob = _largest_blob(cells, far.shape)
    if blob > QUALITY.max_unexplained_blob_cells or len(cells) > QUALITY.max_unexplained_share * far.size:
        sel = looks[far]
        sd = sel[:, 9:12].mean()  # sd of B, G, R within the cells
        spread = sel[:, :3].std(axis=0).max()  # how much the cells differ from one another
        bright = float(sel[:, 0].mean())
        rest = looks[~far][:, 0]
        ratio = bright / max(float(rest.mean()), 1.0) if rest.size else 1.0
        washed = bright > QUALITY.washed_out_level
        flat = bool(sd < QUALITY.flat_sd_bgr and spread < QUALITY.flat_sd_bgr) and not washed
        raise UnreadableBoardError("board-out-of-view" if flat else "occluded",
                                   _unlike_message(cells, blob, model, terrain, terrain_given, looks, gains, flat,
                                                   washed, ratio))
    return cells


def _largest_blob(cells, shape) -> int:
    """Size of the largest 4-connected blob of ``cells`` (list of (r, c)) on a grid of ``shape``."""
    if not cells:
        return 0
    m = np.zeros(shape, np.uint8)
    for r, c in cells:
        m[r, c] = 1
    n, _, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=4)
    return int(stats[1:, cv2.CC_STAT_AREA].max()) if n > 1 else 0


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
    model = _Model.of(cal)
    terrain = _terrain(photo.setup, grid)
    terrain_given = (photo.setup or {}).get("terrain") is not None
    if not terrain_given and (model.terrain is None or not model.terrain.known):
        raise BadInputError("terrain-missing", "Plażing needs the terrain: pass --setup SETUP.json with 'terrain' "
                            "(or calibrate with calib.setup.json, the calibration shot's terrain, beside the "
                            "calibration photo so that the terrain can be read from photos)")
    scratch = _scratch()
    rect = _Rectified(photo.image, photo.registration.H_px_from_mm, profile, grid, scratch)
    P = len(model.players)
    frame = _frame_mask(rect.small.shape, grid, QUALITY.px_per_mm)
    view = _View(rect, lighting_gains(rect.small, model.reference_small, frame, model.median), model.table, P, terrain,
                 scratch=scratch)
    _check_quality(rect.small, view.gains, model, grid)
    local = rect.local
    warnings: list[str] = []
    terrain_p = None
    feats = view.features()
    looks = view.looks() if model.terrain is not None else None
    far = _unlike_board(looks, model, terrain, terrain_given, view.gains, view.owner)
    if not terrain_given:
        terrain, terrain_p, _ = model.terrain.classify(looks)
        view.owner[terrain == "#"] = -1
        warnings.append(_terrain_warning(terrain, terrain_p, model.terrain.classes))
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

    # tokens first: a blob of unexplained cells (an arm) refuses the photo before pieces are split
    free = np.argwhere((owner < 0) & placeable)
    tokens_found = []
    unexplained = []
    if len(free):
        tokens, unseen = _with_scan_marks(model.tokens, feats, free, terrain)
        names, probs, dist = classify_tokens(feats[free[:, 0], free[:, 1]], tokens)
        odd = [tuple(rc) for rc, d in zip(free.tolist(), strangeness(feats[free[:, 0], free[:, 1]], tokens))
               if d > QUALITY.odd_distance]
        blob = _largest_blob(odd, (grid.rows, grid.cols))
        if blob > QUALITY.max_odd_blob_cells:
            raise UnreadableBoardError("occluded", _unlike_message(odd, blob, model, terrain, terrain_given, looks,
                                                                   view.gains))
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
            if name != EMPTY:
                tokens_found.append((name, r, c))
        if mark_like:
            marks = " or ".join(repr(m) for m in hidden_marks)
            warnings.append(f"cells {', '.join(f'[{r},{c}]' for r, c in mark_like[:6])} match a learned token only "
                            f"loosely: a printed {marks} square (never seen free at calibration)? "
                            "Read as sand; check them, or pass --setup with 'terrain'")
    n_place = int(placeable.sum())
    blob = _largest_blob(unexplained, (grid.rows, grid.cols))
    if len(unexplained) > QUALITY.max_unexplained_share * n_place or blob > QUALITY.max_unexplained_blob_cells:
        raise UnreadableBoardError("occluded", _unlike_message(unexplained, blob, model, terrain, terrain_given,
                                                               looks, view.gains))
    if unexplained:
        warnings.append(f"{len(unexplained)} cells look like nothing learned at calibration: "
                        + ", ".join(f"[{r},{c}]" for r, c in unexplained[:6]))

    # pieces
    shapes = catalogue_shapes(profile)
    seams = seam_contrasts(view.board, owner, local, ppm)
    covered = [tuple(x) for x in np.argwhere(owner >= 0).tolist()]
    windows, _ = view.windows(covered, model.player_gray, model.median)
    scorer = _piece_scorer(model.patterns, covered, windows)
    pieces, details_pieces, conf = [], [], 1.0
    untaught = model.patterns.untaught()
    for pi, cells in groups(owner):
        split = split_group(cells, seams, shapes, scorer)
        if split.exact and split.runner_up is not None and split.kinds & untaught:
            # a kind whose print was never seen could explain these cells: the split is a guess
            split.posterior *= 0.5
            warnings.append(f"{model.players[pi]} cells {sorted(map(list, cells))}: no "
                            f"{'/'.join(sorted(split.kinds & untaught))} was labelled at calibration, so its "
                            "print is unknown; add one to the calibration shot")
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
            pieces.append(piece)
            details_pieces.append(p_piece)
            for r, c in cs:
                cell_conf[r, c] *= p_piece

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


def register(image: np.ndarray, cal) -> Registration:
    """Find the board in a photo: the calibrated corners, refined by ECC when the board moved.

    Same method as :func:`beachscore.pipeline.register` (edge images of the photo and of the
    calibration shot correlated over a band along the board's outline, Evangelidis & Psarakis
    2008), with the cheap "has it moved?" correlation cached per calibration, the last refined
    alignment tried next (a bumped board stays where it was bumped: find it once, re-check cheaply),
    and the moved-board alignment run on the reference shrunk ``REGISTER.coarse_factor`` times more
    (a few ms instead of tens; ≈ 0.5 mm at the board, well inside a 20 mm cell).

    Args:
        image: photo, BGR uint8 (H, W, 3), decoded at full or reduced size.
        cal: loaded calibration.
    Returns:
        :class:`Registration` (source ``"corners"`` or ``"refined"``; H maps board mm → ``image`` px).
    Raises:
        UnreadableBoardError: ``registration-lost`` when a moved board cannot be aligned.
    """
    from beachscore.pipeline import MOVED_MM, photo_homography
    from vision import registration as reg_mod

    H0 = photo_homography(cal, image)
    if cal.reference is None:
        return Registration(H0, "corners")
    model = _Model.of(cal)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    board_mm = cal.profile["board_mm"]
    band = 0.06 * max(board_mm)
    levels = model.registration_levels.get(image.shape[:2])
    if levels is None:  # edge images and outline masks of the reference, at two sizes
        levels = []
        for f in (1, REGISTER.coarse_factor):
            ref = cal.reference if f == 1 else cv2.resize(cal.reference, (cal.reference.shape[1] // f,
                                                                          cal.reference.shape[0] // f),
                                                          interpolation=cv2.INTER_AREA)
            s = ref.shape[1] / image.shape[1]
            S = np.diag([s, s, 1.0])
            levels.append((ref.shape, reg_mod._edges(ref), reg_mod._outline_mask(ref.shape, S @ H0, board_mm, band), S))
        model.registration_levels[image.shape[:2]] = levels
    (shape, a, mask, S) = levels[0]
    small = cv2.resize(gray, (shape[1], shape[0]), interpolation=cv2.INTER_AREA)
    edges = reg_mod._edges(small)
    still = cv2.computeECC(a, edges, mask)
    if still >= reg_mod.UNMOVED_ECC:
        return Registration(H0, "corners", score=float(still))
    last = model.last_refined.get(image.shape[:2])
    if last is not None:  # a bumped board usually stays where it was bumped: check the last alignment first
        W = S @ last.H_px_from_mm @ np.linalg.inv(S @ H0)  # reference px → photo px, at this level
        back = cv2.warpPerspective(edges, W, (shape[1], shape[0]), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        again = cv2.computeECC(a, back, mask)
        if again >= reg_mod.UNMOVED_ECC:
            return Registration(last.H_px_from_mm, "refined", shift_mm=last.shift_mm, rotation_deg=last.rotation_deg,
                                score=float(again), warnings=list(last.warnings))
    (shape, a, mask, S) = levels[1]
    b = reg_mod._edges(cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_AREA))
    warp = np.eye(2, 3, dtype=np.float32)
    # a bump is a rigid move: a Euclidean warp, started from the phase-correlation shift so that
    # boards pushed a centimetre or more are found too
    (dx, dy), response = cv2.phaseCorrelate(a * (mask > 0), b * (mask > 0))
    if response > REGISTER.min_phase_response:
        warp[:, 2] = (dx, dy)
    try:
        score, warp = cv2.findTransformECC(a, b, warp, cv2.MOTION_EUCLIDEAN, (cv2.TERM_CRITERIA_EPS
                                           | cv2.TERM_CRITERIA_COUNT, REGISTER.iterations, REGISTER.epsilon), mask, 3)
    except cv2.error:
        raise UnreadableBoardError("registration-lost", "the board moved and could not be found again; "
                                   "put it back or recalibrate") from None
    if score < REGISTER.min_score:
        raise UnreadableBoardError("registration-lost", f"the board could not be aligned with the calibration shot "
                                   f"(ECC {score:.2f}); is it in view and unobstructed?")
    H = np.linalg.inv(S) @ np.vstack([warp, [0, 0, 1]]).astype(np.float64) @ S @ H0
    w, h = board_mm
    centre = np.array([[w / 2, h / 2], [w / 2 + 100, h / 2]])
    before, after = reg_mod.project(H0, centre), reg_mod.project(H, centre)
    ppm = np.linalg.norm(before[1] - before[0]) / 100
    shift = float(np.linalg.norm(after[0] - before[0]) / ppm)
    ang = lambda p: np.degrees(np.arctan2(p[1, 1] - p[0, 1], p[1, 0] - p[0, 0]))  # noqa: E731
    rotation = float(ang(after) - ang(before))
    if shift < MOVED_MM and abs(rotation) < 0.2:
        return Registration(H0, "corners", shift_mm=shift, rotation_deg=rotation, score=float(score))
    reg = Registration(H, "refined", shift_mm=shift, rotation_deg=rotation, score=float(score),
                       warnings=[f"the board moved {shift:.1f} mm / {rotation:+.1f}° since calibration; "
                                 "registration corrected from the photo"])
    model.last_refined[image.shape[:2]] = reg
    return reg


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
    from vision.plazing_draw import draw

    return draw(photo, reading)
