"""Calibrate Strand unter: learn every labelled class's appearance from the calibration shot.

Input: a :class:`~vision.types.CalibrationShot` (calibration photo, optional empty-board photo,
homography board mm → px, labelled samples in board mm, the profile).
Output: the JSON model (class Lab Gaussians and their lookup table, shell area per colour,
castle cues per player and value, the sandpiper's description, the camera's nadir and height
with each value's parallax and the base's error, the stick, the surround's colours and
blur/noise figures) plus the pictures kept in the calibration folder.

Nothing about the pieces is hard-coded: colours (Lab Gaussians baked into a BGR lookup table),
shell size per colour, castle size, footprint and base offset per player and value, the
sandpiper's colour, lightness spread and size, and the width of the sea's stick all come from
the labelled samples and the empty-board shot; grooves come from the profile; the camera from
the homography (:func:`vision.strand_unter.geometry.camera_nadir`).
Source: ``shared/contracts/strand-unter.md`` §Calibration labels, ``shared/contracts/README.md``.
"""

from __future__ import annotations

import re
import warnings

import cv2
import numpy as np

from vision.errors import BadInputError, SampleError, sample_slot
from vision.strand_unter.sample_labels import check_labels
from vision.strand_unter import colour as colour
from vision.image.decode import read_image
from vision.strand_unter.bird import features as bird_features
from vision.strand_unter.blobs import foreground
from vision.strand_unter import castle_cues, castle_values
from vision.strand_unter.cloth_reach import cloth_edge_mm
from vision.strand_unter.config import APPEARANCE, CASTLES, READING, REGISTRATION
from vision.strand_unter.geometry import (camera_nadir, disc, groove_map, groove_polygons, reduce_homography,
                                         warp_board)
from vision.strand_unter.lighting import side_colours
from vision.strand_unter.surround import strip_colour, strip_inside, surround_detail, surround_noise
from vision.types import CalibrationShot

SHELL_COLOURS = ("white", "gray", "brown", "black")  # the state's keys (contract), not appearances
CASTLE_VALUES = (0, 1, 2, 3)
MODEL_VERSION = 4
_CASTLE = re.compile(r"^castle/([a-z][a-z0-9_-]*)/([0-9]+)$")

#: What helps when the light makes a piece look like the sand (said when a sample shows nothing else).
LIGHT_REMEDY = "more or whiter light helps, or a lamp moved so its reflection is off the board"

#: file names of the pictures kept in CAL_DIR
EMPTY_PNG, REF_PNG, LUT_PNG = "strand_empty.png", "strand_registration.png", "strand_classes.png"


def parse_label(label: str) -> tuple[str, str | None, int | None]:
    """Split a calibration label into (kind, name, value).

    >>> parse_label("castle/red/2")
    ('castle', 'red', 2)
    >>> parse_label("shell/gray")
    ('shell', 'gray', None)

    Raises:
        BadInputError: ``unknown-label`` naming the label.
    """
    if label in ("sandpiper", "sea", "sand"):
        return label, None, None
    if label.startswith("shell/") and label[6:] in SHELL_COLOURS:
        return "shell", label[6:], None
    m = _CASTLE.match(label)
    if m and int(m.group(2)) in CASTLE_VALUES:
        return "castle", m.group(1), int(m.group(2))
    raise BadInputError("unknown-label", f"unknown label {label!r}; Strand unter labels are shell/<"
                        f"{'|'.join(SHELL_COLOURS)}>, castle/<player>/<0-3>, sandpiper, sea, sand")


def learn(shot: CalibrationShot, cfg=APPEARANCE, reg=REGISTRATION) -> dict:
    """Learn the Strand unter appearance model from a calibration shot.

    Args:
        shot: calibration photo (BGR uint8), optional empty-board photo, homography board mm →
            photo px, labelled samples (board mm).
    Returns:
        JSON-serialisable model: ``class_names`` (order of the lookup table's classes),
        ``classes`` (Lab Gaussians), ``shell_area_px2`` per colour, ``castles`` per player and
        value (tower area px², blob area px², base offset px, footprint radius px, the platform's and
        the footprint's radius and the tower count: :func:`vision.strand_unter.castle_cues.measure`),
        ``shell_shape`` (the shells' footprint and texture as the castle cues see them,
        :func:`vision.strand_unter.castle_values.shell_shape`),
        ``sandpiper`` (area, class composition, base offset, radius), ``stick_mm``,
        ``sand_bgr``, ``surround_bgr``; pictures for CAL_DIR are added to ``shot.pictures``
        (rectified empty board, registration reference, class lookup table).
    Raises:
        BadInputError: ``unknown-label``; ``missing-label`` when sea, a shell colour or every
        castle is missing; ``bad-sample`` when a sample shows nothing distinct from the sand.
    """
    req = shot.request
    parsed = [(parse_label(label), (float(xy[0]), float(xy[1]))) for label, xy in req.samples]
    _check_kinds(parsed)
    profile, board = req.profile, req.profile["board_mm"]
    gmap = groove_map(profile, cfg.ppm)  # validates the grooves
    r = reg.decode_reduce
    image = read_image(req.image_path, reduce=r)
    empty = read_image(req.empty_image_path, reduce=r) if req.empty_image_path else None
    H = reduce_homography(shot.H_px_from_mm, r)
    ppm = cfg.ppm
    C = warp_board(image, H, board, ppm)
    CL0 = colour.lab(C)
    px = lambda xy: (xy[0] * ppm - 0.5, xy[1] * ppm - 0.5)  # noqa: E731  (board mm → work px)
    if empty is not None:
        E = warp_board(empty, H, board, ppm)
        ext_src = empty
    else:  # paint the samples, the cloth and its stick out of the calibration shot
        E = _painted_empty(C, CL0, parsed, profile, px, cfg)
        ext_src = image
    CL = CL0

    # sand: bare grooves of the empty board (or the sand samples)
    sand_samples = [xy for (k, _, _), xy in parsed if k == "sand"]
    sand_bgr = np.median(E[gmap > 0][::7], axis=0)
    basis = colour.change_basis(sand_bgr)
    fg, _ = foreground(C, E, basis)
    if sand_samples:
        sand_px = np.concatenate([CL[disc(CL.shape, px(xy), cfg.sand_radius_mm * ppm)] for xy in sand_samples])
    else:
        sand_px = colour.lab(E)[gmap > 0][::5]
    classes: dict[str, dict] = {"sand": colour.gaussian(sand_px, cfg.min_std)}
    sand_ab = np.asarray(classes["sand"]["mean"])[1:]
    sea_px = np.concatenate([CL[disc(CL.shape, px(xy), cfg.sea_radius_mm * ppm)]
                             for (k, _, _), xy in parsed if k == "sea"])
    classes["sea"] = colour.gaussian(sea_px, cfg.min_std)

    blobs = _SampleBlobs(fg, px, cfg, [xy for (k, _, _), xy in parsed if k in ("shell", "castle", "sandpiper")])
    _learn_shells(parsed, blobs, CL, classes, cfg)
    players = _learn_players(parsed, blobs, CL, sand_ab, classes, cfg)
    names, lut, cls, stick_mm = _learn_sea_and_stick(C, CL, classes, sea_px, fg, gmap, cfg)
    shell_area, shell_l_std, castles, shell_cues, bird = _measure_pieces(parsed, blobs, C, CL, classes, names, cls,
                                                                         players)

    nadir_mm, camera_mm = camera_nadir(shot.H_px_from_mm, (shot.image.shape[1], shot.image.shape[0]))
    parallax = parallax_model(castles, px(nadir_mm), camera_mm)
    view_tans = castle_values.castle_view_tans(castles, parallax, ppm)
    model = {"version": MODEL_VERSION, "ppm": ppm, "decode_reduce": r, "lut_bits": cfg.lut_bits,
             "class_names": names, "classes": classes, "shell_colours": list(SHELL_COLOURS), "players": players,
             "shell_area_px2": {c: float(np.median(a)) for c, a in shell_area.items()},
             "shell_areas_px2": {c: [int(x) for x in a] for c, a in shell_area.items()},
             "shell_l_std": {c: round(float(np.median(v)), 3) for c, v in shell_l_std.items()},
             "castles": castles,
             "castle_model": castle_values.castle_model(castles, view_tans=view_tans),
             "shell_shape": castle_values.shell_shape(shell_cues), "sand_bgr": sand_bgr.tolist(),
             "parallax": parallax,
             "base_sigma_mm": round(max(parallax["base_rms_px"] / ppm, CASTLES.base_sigma_floor_mm), 3)}
    if bird is not None:
        model["sandpiper"] = bird

    model["stick_mm"] = stick_mm
    _add_references(model, shot, image, ext_src, E, H, board, lut, names, cfg, reg)
    return model


def _check_kinds(parsed) -> None:
    """Refuse a calibration without the sea, a shell of every colour and at least one castle.

    Raises:
        BadInputError: ``missing-label`` naming what is missing.
    """
    kinds = {(k, n) for (k, n, _), _ in parsed}
    missing = [f"shell/{c}" for c in SHELL_COLOURS if ("shell", c) not in kinds]
    if not any(k == "sea" for k, _ in kinds):
        missing.append("sea")
    if not any(k == "castle" for k, _ in kinds):
        missing.append("castle/<player>/<value>")
    if missing:
        raise BadInputError("missing-label", f"calibration needs at least one sample of: {', '.join(missing)}")


def _painted_empty(C: np.ndarray, CL0: np.ndarray, parsed, profile: dict, px, cfg) -> np.ndarray:
    """The empty board made from the calibration shot (no empty-board photo): the samples, the cloth
    and its stick painted out with row medians (:func:`_fill_rows`).

    Args:
        C: the rectified shot, BGR uint8 (H, W, 3); CL0: its Lab image; px: board mm → work px.
    Returns:
        BGR uint8 (H, W, 3).
    """
    ppm = cfg.ppm
    mask = np.zeros(C.shape[:2], np.uint8)
    for _, (x, y) in parsed:
        cv2.circle(mask, (int(x * ppm), int(y * ppm)), int(cfg.inpaint_radius_mm * ppm), 255, -1)
    sea_model = colour.gaussian(np.concatenate([CL0[disc(CL0.shape, px(xy), cfg.sea_radius_mm * ppm)]
                                                for (k, _, _), xy in parsed if k == "sea"]), cfg.min_std)
    sea0 = colour.mahalanobis(CL0.reshape(-1, 3), [sea_model])[:, 0].reshape(C.shape[:2]) < cfg.lut_max_dist
    edge0 = colour.cloth_edge(sea0, READING.cloth_edge_window_px)
    rows0 = np.arange(C.shape[0])[:, None]
    mask[rows0 < (edge0 + cfg.stick_search_mm * ppm)[None, :]] = 255
    heights = [float(np.ptp(p[:, 1])) for p in groove_polygons(profile).values()]
    return _fill_rows(C, mask > 0, period_px=float(np.median(heights)) * ppm)


class _SampleBlobs:
    """The foreground's connected components (8-connected) of the rectified shot, the blob each
    labelled sample points at, and each piece sample's share of its blob (``points``: every piece
    sample's board mm)."""

    def __init__(self, fg: np.ndarray, px, cfg, points=()):
        self.fg, self.px, self.cfg = fg, px, cfg
        self.n, self.comp, self.stats, self.cent = cv2.connectedComponentsWithStats(fg.astype(np.uint8),
                                                                                     connectivity=8)
        self.point_blob = {tuple(xy): self._blob_or_none(xy) for xy in points}

    def piece(self, xy, what: str) -> tuple[np.ndarray, int]:
        """(bool mask of the sample's piece, its blob): the blob the sample points at
        (:meth:`blob_at`), or, when other piece samples point at the same blob (pieces touching,
        or a castle's shadow reaching its neighbour), the part of it nearer to this sample's point
        than to theirs."""
        i = self.point_blob.get(tuple(xy))
        i = self.blob_at(xy, what) if i is None else i     # (not found: blob_at says why)
        mask = self.comp == i
        others = [o for o, j in self.point_blob.items() if o != tuple(xy) and j == i]
        if not others:
            return mask, i
        ys, xs = np.nonzero(mask)
        d = lambda q: np.hypot(xs - self.px(q)[0], ys - self.px(q)[1])   # noqa: E731
        mine = d(xy) <= np.min([d(o) for o in others], axis=0)
        out = np.zeros_like(mask)
        out[ys[mine], xs[mine]] = True
        return out, i

    def _blob_or_none(self, xy) -> int | None:
        try:
            return self.blob_at(xy, "")
        except BadInputError:
            return None

    def blob_at(self, xy, what: str) -> int:
        """The foreground blob nearest the sample point within the search radius."""
        cfg, comp = self.cfg, self.comp
        near = disc(self.fg.shape, self.px(xy), cfg.sample_search_mm * cfg.ppm) & (comp > 0)
        if not near.any():
            raise SampleError("bad-sample", [(what, xy)], f"{sample_slot(0)}: nothing distinct from the sand there; "
                              f"check where the sample is; if it is on the piece, the light makes it look like the "
                              f"sand: {LIGHT_REMEDY}")
        ids, cnt = np.unique(comp[near], return_counts=True)
        return int(ids[np.argmax(cnt)])


def _learn_shells(parsed, blobs: _SampleBlobs, CL: np.ndarray, classes: dict, cfg) -> None:
    """Each shell colour's class from the whole blob of each sample (eroded by one pixel against the
    blurred rim), added to ``classes``; mislabelled samples refused (:func:`check_labels`)."""
    k3 = np.ones((3, 3), np.uint8)
    shell_samples = []
    for c in SHELL_COLOURS:
        pix = []
        for (k, nm, _), xy in parsed:
            if k == "shell" and nm == c:
                m = cv2.erode(blobs.piece(xy, f"shell/{c}")[0].astype(np.uint8), k3) > 0
                pix.append(CL[m])
                shell_samples.append((f"shell/{c}", xy, CL[m]))
        classes[f"shell/{c}"] = colour.gaussian(np.concatenate(pix), cfg.shell_min_std)
    check_labels(shell_samples, cfg.shell_min_std, cfg.label_max_distance)


def _learn_players(parsed, blobs: _SampleBlobs, CL: np.ndarray, sand_ab: np.ndarray, classes: dict, cfg) -> list:
    """Each player's class from the chromatic pixels of its castle samples' blobs, added to
    ``classes``.

    Returns:
        The players, sorted.
    Raises:
        BadInputError: ``bad-sample`` (a castle labelled twice, no colour distinct from the sand,
            a mislabelled sample).
    """
    players = sorted({nm for (k, nm, _), _ in parsed if k == "castle"})
    seen: dict = {}
    for (k, nm, v), xy in parsed:                 # a player has one castle of each value
        if k == "castle" and (nm, v) in seen:
            raise SampleError("bad-sample", [(f"castle/{nm}/{v}", seen[nm, v]), (f"castle/{nm}/{v}", xy)],
                              f"{sample_slot(0)} and {sample_slot(1)} carry one label; a player has one castle of "
                              "each value: check both labels")
        seen[nm, v] = xy
    castle_samples = []
    for p in players:
        pix = []
        for (k, nm, v), xy in parsed:
            if k == "castle" and nm == p:
                region = CL[blobs.piece(xy, f"castle/{p}/{v}")[0]]
                pix.append(region[np.hypot(*(region[:, 1:] - sand_ab).T) > cfg.castle_chroma_min])
                if len(pix[-1]) >= cfg.min_castle_px:
                    castle_samples.append((f"castle/{p}/{v}", xy, pix[-1]))
        pix = np.concatenate(pix)
        if len(pix) < cfg.min_castle_px:
            raise BadInputError("bad-sample", f"castle/{p}: the samples show no colour distinct from the sand; "
                                f"check their board_mm positions; if they are right, the light makes them look like "
                                f"the sand: {LIGHT_REMEDY}")
        ab = pix[:, 1:]
        dist = np.hypot(*(ab - np.median(ab, axis=0)).T)
        keep = dist < cfg.player_spread * max(2.0, float(np.median(dist)))
        classes[f"castle/{p}"] = colour.gaussian(pix[keep], cfg.min_std)

    check_labels(castle_samples, cfg.min_std, cfg.label_max_distance, kind=lambda label: label.rsplit("/", 1)[0])
    return players


def _learn_sea_and_stick(C: np.ndarray, CL: np.ndarray, classes: dict, sea_px: np.ndarray, fg: np.ndarray,
                         gmap: np.ndarray, cfg):
    """The class lookup table, with the sea learned again from the whole cloth the shot shows and the
    sea's stick (rows under the cloth edge that are foreground across the board) made a class of its
    own, so that nothing under the cloth edge is taken for a piece.

    Returns:
        (class names in the table's order, the lookup table, the shot's class image, the stick's
        width in mm (0: none found)).
    """
    ppm = cfg.ppm
    names = list(classes)
    lut = colour.build_lut([classes[k] for k in names], cfg.lut_bits, cfg.lut_max_dist)
    cls = colour.classify(C, lut, cfg.lut_bits)

    # the sea's stick: rows under the cloth edge that are foreground across the board; its colour
    # becomes a class of its own so that nothing under the cloth edge is taken for a piece
    sea = colour.cloth_region(cls == names.index("sea"), READING.cloth_edge_window_px)
    # the sea's colour from the whole cloth the shot shows (its shading from side to side), not only
    # around the sample: a softer lens or a smaller sample spot would leave a side of it unclassified
    m = int(round(cfg.sea_fit_margin_mm * ppm))
    whole = cv2.erode(sea.astype(np.uint8), np.ones((2 * m + 1, 2 * m + 1), np.uint8)) > 0
    whole[:, :m] = whole[:, -m:] = False
    if whole.sum() > sea_px.shape[0]:
        classes["sea"] = colour.gaussian(np.concatenate([sea_px, CL[whole][::3]]), cfg.min_std)
        lut = colour.build_lut([classes[k] for k in names], cfg.lut_bits, cfg.lut_max_dist)
        cls = colour.classify(C, lut, cfg.lut_bits)
        sea = colour.cloth_region(cls == names.index("sea"), READING.cloth_edge_window_px)
    stick_mm = _stick_width(sea, fg, cfg)
    if stick_mm > 0:
        rows = np.arange(C.shape[0])[:, None]
        edge = sea.sum(axis=0)[None, :]
        band = (rows >= edge) & (rows < edge + int(round(stick_mm * ppm))) & fg & (gmap > 0)
        if band.sum() >= cfg.min_stick_px:
            classes["stick"] = colour.gaussian(CL[band], cfg.min_std)
            names = list(classes)
            lut = colour.build_lut([classes[k] for k in names], cfg.lut_bits, cfg.lut_max_dist)
            cls = colour.classify(C, lut, cfg.lut_bits)
    return names, lut, cls, stick_mm


def _measure_pieces(parsed, blobs: _SampleBlobs, C: np.ndarray, CL: np.ndarray, classes: dict, names: list,
                    cls: np.ndarray, players: list):
    """Sizes: shells per colour, castles per player and value, the sandpiper.

    Returns:
        ({colour: [blob area px²]}, {colour: [lightness sd]}, {player: {value: castle cues}},
        [(colour, radial sizes, tower count)] of the shells, the sandpiper's description or None).
    Raises:
        BadInputError: ``bad-sample`` (a castle sample shows none of its player's colour).
    """
    stats, cent, fg, px = blobs.stats, blobs.cent, blobs.fg, blobs.px
    gray = cv2.cvtColor(C, cv2.COLOR_BGR2GRAY)
    K = len(names)
    shell_area: dict[str, list] = {c: [] for c in SHELL_COLOURS}
    shell_l_std: dict[str, list] = {c: [] for c in SHELL_COLOURS}
    castles: dict[str, dict] = {p: {} for p in players}
    shell_cues = []
    bird = None
    for (k, nm, v), xy in parsed:
        if k == "shell":
            blob, j = blobs.piece(xy, f"shell/{nm}")
            area = int(blob.sum())
            if area == stats[j, cv2.CC_STAT_AREA]:
                cx, cy = float(cent[j][0]), float(cent[j][1])
            else:                                   # its share of a blob with another piece
                ys, xs = np.nonzero(blob)
                cx, cy = float(xs.mean()), float(ys.mean())
            shell_area[nm].append(area)
            shell_l_std[nm].append(float(CL[blob][:, 0].std()))
            sizes = castle_cues.radial_sizes(C, fg, cx, cy, float(np.sqrt(area / np.pi)), classes["sand"]["mean"],
                                             classes[f"shell/{nm}"]["mean"])
            shell_cues.append((nm, sizes, castle_cues.count_towers(gray, blob)))
        elif k == "castle":
            blob, _ = blobs.piece(xy, f"castle/{nm}/{v}")
            core = _largest(cv2.morphologyEx((blob & (cls == names.index(f"castle/{nm}"))).astype(np.uint8),
                                             cv2.MORPH_CLOSE, _disc_kernel(CASTLES.close_px)))
            if core.sum() < APPEARANCE.min_castle_core_px:
                raise SampleError("bad-sample", [(f"castle/{nm}/{v}", xy)],
                                  f"{sample_slot(0)}: no {nm} colour found there")
            cues = castle_cues.measure(C, gray, fg, core, (0, 0), classes["sand"]["mean"],
                                       classes[f"castle/{nm}"]["mean"], float(blob.sum()))
            castles[nm][str(v)] = {**_piece_shape(blob, core, px(xy)),
                                   **{k: (round(x, 3) if isinstance(x, float) else x) for k, x in cues.items()
                                      if k not in ("x", "y")}}
        elif k == "sandpiper":
            blob, _ = blobs.piece(xy, "sandpiper")
            hist = np.bincount(np.minimum(cls[blob], K), minlength=K + 1).astype(np.float64)
            bird = {**_piece_shape(blob, blob, px(xy)), "composition": (hist / hist.sum()).round(4).tolist(),
                    "features": bird_features(C[blob]).round(3).tolist()}
    return shell_area, shell_l_std, castles, shell_cues, bird


def _add_references(model: dict, shot: CalibrationShot, image: np.ndarray, ext_src: np.ndarray, E: np.ndarray,
                    H: np.ndarray, board, lut: np.ndarray, names: list, cfg, reg) -> None:
    """Lighting and registration references (the table strip under the board, the cloth edge, the
    shot's blur and noise figures) added to ``model``; the pictures kept with the calibration added to
    ``shot.pictures``."""
    ext = warp_board(ext_src, H, board, reg.ppm, reg.margin_mm)
    # the blur reference: the calibration shot's fine detail around the board (as a scan measures it)
    ext_shot = ext if ext_src is image else warp_board(image, H, board, reg.ppm, reg.margin_mm)
    shot_cloth = cloth_edge_mm(ext_shot, np.ones(3), lut, names.index("sea"), cfg.lut_bits, board, reg)
    model["detail_ratio"] = round(surround_detail(ext_shot, board, max(shot_cloth[:2]), reg), 4)
    model["noise_sigma"] = round(surround_noise(ext_shot, board, reg), 4)
    inside = strip_inside(H, (ext_src.shape[1], ext_src.shape[0]), board, reg)   # the strip within the photo
    model["surround_bgr"] = strip_colour(ext, board, inside, reg)
    model["side_bgr"] = {k: np.round(v, 2).tolist() for k, v in side_colours(ext_src, H, board).items()}
    model["reference_cloth_mm"] = list(cloth_edge_mm(ext, np.ones(3), lut, names.index("sea"), cfg.lut_bits,
                                                     board, reg))
    shot.pictures[EMPTY_PNG] = E
    shot.pictures[REF_PNG] = cv2.cvtColor(ext, cv2.COLOR_BGR2GRAY)
    shot.pictures[LUT_PNG] = colour.lut_to_image(lut)
    model["pictures"] = {"empty": EMPTY_PNG, "registration": REF_PNG, "classes": LUT_PNG}


def castle_value_ks(castles: dict[str, dict[str, dict]], nadir_px, cfg=APPEARANCE) -> dict[str, list[float]]:
    """Each calibration castle's parallax k (its coloured part's effective height over the camera's),
    per value: its labelled-centre-to-colour offset projected on the ray from the nadir, over the
    ray's length (:func:`parallax_model`). Castles nearer the nadir than ``cfg.min_nadir_lever_px``
    give none.

    Args:
        castles: ``{player: {value: {"offset_px", "centre_px", …}}}`` (work px).
        nadir_px: (x, y) the camera's nadir in work px.
    Returns:
        ``{value: [k, …]}`` (dimensionless; values without a castle far enough from the nadir absent).
    """
    n = np.asarray(nadir_px, np.float64)
    ks: dict[str, list] = {}
    for per_value in castles.values():
        for v, c in per_value.items():
            off = np.asarray(c["offset_px"], np.float64)
            ray = np.asarray(c["centre_px"], np.float64) - off - n
            if float(ray @ ray) < cfg.min_nadir_lever_px ** 2:     # too near the nadir: no lever on k
                continue
            ks.setdefault(v, []).append(float(-(off @ ray) / (ray @ ray)))
    return ks


def parallax_model(castles: dict[str, dict[str, dict]], nadir_px, camera_mm: float | None,
                   cfg=APPEARANCE) -> dict:
    """How far a castle's coloured part is seen from its base, per value, from the camera geometry.

    A point at height z over board point p is seen (in the rectified board) at
    p' = N + (p − N)·Z / (Z − z), N the camera's nadir, Z its height; so the base is
    p = p' − k·(p' − N) with k = z / Z, one number per castle value (the coloured part's
    effective height over the camera's). Each calibration castle gives k by projecting its
    labelled-centre-to-colour offset on the direction from the nadir; the values' k is the median
    over players. Far from the nadir (a castle at the far edge) the correction grows, where one
    fixed offset per value would leave the base a groove off.

    A value's k must be physical: 0 ≤ k ≤ ``cfg.castle_height_max_mm / cfg.camera_height_min_mm``
    (a coloured part cannot stand below the board, nor higher than the tallest piece under the
    lowest camera). Outside (misplaced calibration corners move the castles as much as their
    parallax: 720p wide copies fitted −0.026 and 0.062), the value keeps no k and its fixed
    offset is used; its fitted k is kept under ``"k_refused"`` for information.

    Args:
        castles: ``{player: {value: {"offset_px": base − colour centroid (x, y), "core_px2", …}}}``
            from :func:`_piece_shape` (work px).
        nadir_px: (x, y) the camera's nadir in work px (:func:`vision.strand_unter.geometry.camera_nadir`).
        camera_mm: the camera's height over the board (for information), or None.
    Returns:
        JSON ``{"nadir_px": [x, y], "camera_mm": Z or None, "k": {value: k}, "k_refused": {value: k},
        "base_rms_px"}``; a value whose castles stand too near the nadir to show a displacement, or
        whose k is not physical, gets no k (its fixed offset is used).
    """
    n = np.asarray(nadir_px, np.float64)
    ks = castle_value_ks(castles, n, cfg)
    k_all = {v: float(np.median(k)) for v, k in ks.items()}
    k_max = cfg.castle_height_max_mm / cfg.camera_height_min_mm
    k_v = {v: k for v, k in k_all.items() if 0.0 <= k <= k_max}
    refused = {v: k for v, k in k_all.items() if v not in k_v}
    # the base's error: each calibration castle's labelled centre against the base predicted from its
    # coloured part (the k of its value, else the fixed offset of its value), along and across the grooves
    errs = []
    offsets: dict[str, list] = {}
    for per_value in castles.values():
        for v, c in per_value.items():
            offsets.setdefault(v, []).append(np.asarray(c["offset_px"], np.float64))
    for per_value in castles.values():
        for v, c in per_value.items():
            base = np.asarray(c["centre_px"], np.float64)
            core = base - np.asarray(c["offset_px"], np.float64)
            pred = core - k_v[v] * (core - n) if v in k_v else core + np.median(offsets[v], axis=0)
            errs.append(pred - base)
    rms = float(np.sqrt(np.mean(np.square(errs)))) if errs else 0.0
    return {"nadir_px": n.round(2).tolist(), "camera_mm": None if camera_mm is None else round(camera_mm, 1),
            "k": {v: round(k, 5) for v, k in sorted(k_v.items())},
            "k_refused": {v: round(k, 5) for v, k in sorted(refused.items())}, "base_rms_px": round(rms, 3)}


def _fill_rows(image: np.ndarray, hole: np.ndarray, period_px: float) -> np.ndarray:
    """Paint the pieces and the cloth out of the calibration shot when no empty-board photo is given.

    The beach's grooves run across the board, so bare sand mostly varies with the row: every
    masked pixel takes the median colour of the unmasked pixels of its own row. A row masked
    across the whole board (under the cloth) takes the row one groove pitch (``period_px``)
    further towards the players, repeatedly, until one has bare sand.

    Args:
        image: rectified board, BGR uint8 (H, W, 3); hole: bool (H, W) pixels to replace.
        period_px: the grooves' pitch in rows (from the profile).
    Returns:
        BGR uint8 (H, W, 3).
    """
    out = image.copy()
    f = image.astype(np.float32)
    f[hole] = np.nan
    h = len(f)
    full = hole.sum(axis=1) > 0.9 * hole.shape[1]
    f[full] = np.nan
    with warnings.catch_warnings():          # rows with every pixel masked have no median: NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        med = np.nanmedian(f, axis=1)                                  # (H, 3)
    step = max(1, int(round(period_px)))
    for y in range(h - 1, -1, -1):
        if np.isnan(med[y, 0]):
            src = y + step
            while src < h and np.isnan(med[src, 0]):
                src += step
            if src < h:
                med[y] = med[src]
    ok = ~np.isnan(med[:, 0])
    if not ok.any():
        return out
    rows = np.arange(h)
    for c in range(3):
        med[:, c] = np.interp(rows, rows[ok], med[ok, c])
    fill = hole | full[:, None]
    ys, _ = np.nonzero(fill)
    out[fill] = np.clip(np.round(med[ys]), 0, 255).astype(np.uint8)
    return out


def _disc_kernel(r: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


def _largest(mask: np.ndarray) -> np.ndarray:
    """The largest 8-connected component of a uint8/bool (H, W) mask, bool (H, W)."""
    n, lab, st, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    return lab == (1 + int(np.argmax(st[1:, cv2.CC_STAT_AREA]))) if n > 1 else np.zeros(mask.shape, bool)


def _piece_shape(blob: np.ndarray, core: np.ndarray, centre_px) -> dict:
    """Size and footprint of one piece in the calibration shot.

    Args:
        blob: bool (H, W), the piece's foreground blob.
        core: bool (H, W), its characteristic pixels (towers of a castle; the whole blob otherwise).
        centre_px: the labelled centre of the piece on the board, work px (x, y).
    Returns:
        JSON ``{"area_px2", "core_px2", "offset_px": base centre − core centroid (x, y),
        "radius_px": the 95th percentile distance of blob pixels from the base centre,
        "bottom_px": blob's lowest row − base centre row}``.
    """
    ys, xs = np.nonzero(core)
    cx, cy = float(xs.mean()), float(ys.mean())
    by, bx = np.nonzero(blob)
    rad = np.hypot(bx - centre_px[0], by - centre_px[1])
    return {"area_px2": int(blob.sum()), "core_px2": int(core.sum()),
            "centre_px": [round(float(centre_px[0]), 2), round(float(centre_px[1]), 2)],
            "offset_px": [round(centre_px[0] - cx, 2), round(centre_px[1] - cy, 2)],
            "radius_px": round(float(np.percentile(rad, 95)), 2),
            "bottom_px": round(float(by.max() - centre_px[1]), 2)}


def _stick_width(sea: np.ndarray, fg: np.ndarray, cfg) -> float:
    """Width (mm) of the band under the cloth edge that is foreground across the board (the stick)."""
    h, w = sea.shape
    edge = sea.sum(axis=0)
    cols = np.nonzero((edge > 0) & (edge < h - int(cfg.stick_search_mm * cfg.ppm)))[0]
    if len(cols) < w // 4:
        return 0.0
    width = 0
    for d in range(int(cfg.stick_search_mm * cfg.ppm)):
        if fg[edge[cols] + d, cols].mean() < cfg.stick_row_fraction:
            break
        width = d + 1
    return round(width / cfg.ppm, 2)
