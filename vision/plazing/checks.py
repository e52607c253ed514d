"""Plażing refusals and doubts: photos that cannot be read, and cells that nothing learned explains.

Input: the prepared photo and the cells' looks. Output: nothing (the photo can be read), or an
``UnreadableBoardError`` that says what was measured and names the cells.

Idea: a photo is refused (``UnreadableBoardError``, exit 3) when it is dark, glared or blurred
(:func:`check_quality`), or when cells unlike everything seen at calibration form a blob — a flat
patch hiding the board (``board-out-of-view``) or something over it (``occluded``); the message
says what was measured and the causes the measurements point at (:func:`unlike_message`). A few
scattered odd cells only make the reading doubtful.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.image import quality
from vision.plazing.cells import Grid
from vision.plazing.config import QUALITY, TERRAIN
from vision.plazing.lighting import frame_sharpness, uneven_light
from vision.plazing.model import ReaderModel
from vision.plazing.names import cells_text


def check_quality(small: np.ndarray, view_gains: np.ndarray, model: ReaderModel, grid: Grid) -> None:
    """Refuse dark or glared photos with :func:`vision.image.quality.check` and blurred ones against the
    calibration's sharpness (Pech-Pacheco et al. 2000).

    With the calibration's sand known (``model.sand``) the share of blown-out pixels refuses nothing
    here: a lamp brighter than at calibration whitens sand that is still sand, and the cells judge
    it themselves (:func:`vision.plazing.prepare.prepare`: a cell whose sand is clipped beyond the
    calibration's is doubted, too many such cells refuse the photo as ``glare``).

    Raises:
        UnreadableBoardError: ``too-dark``, ``glare``, ``too-blurred``.
    """
    cfg = quality.QUALITY if model.sand is None else quality.QUALITY_WITHOUT_GLARE
    quality.check(small, gains=view_gains, cfg=cfg)
    if model.sharpness > 0:  # measured after the lighting correction: a dimmer photo is not a blurred one
        now = frame_sharpness(cv2.cvtColor(cv2.transform(small, np.diag(view_gains).astype(np.float32)),
                                      cv2.COLOR_BGR2GRAY), grid)
        if now < QUALITY.min_sharpness_ratio * model.sharpness:
            raise UnreadableBoardError("too-blurred", f"the photo is too blurred to read (sharpness {now:.0f} against "
                                       f"{model.sharpness:.0f} at calibration); hold the camera still and refocus")


def terrain_warning(terrain: np.ndarray, prob: np.ndarray, classes) -> str:
    """The warning of a scan whose terrain was read from the photo."""
    n_wall = int((terrain == "#").sum())
    marks = {m: int((terrain == m).sum()) for m in "+-x" if (terrain == m).any()}
    unseen = [m for m in "+-x" if m not in classes]
    doubtful = np.argwhere(prob < TERRAIN.doubt_below).tolist()
    text = (f"terrain read from the photo (no --setup terrain): {n_wall} closing cells"
            + "".join(f", {n} '{m}'" for m, n in marks.items())
            + "; marks under pieces cannot be seen and are taken as sand")
    if unseen:
        text += (f"; the calibration shot shows no free {' or '.join(repr(m) for m in unseen)} square, so such "
                 "squares are read as sand")
    if doubtful:
        text += "; doubtful cells " + cells_text(doubtful)
    return text + "; pass --setup with 'terrain' to be sure"


def unlike_message(cells, blob: int, model: ReaderModel, terrain: np.ndarray, terrain_given: bool, looks, gains,
                    flat: bool = False, washed: bool = False, darker: float = 1.0) -> str:
    """Say what was measured when cells look like nothing seen at calibration, and the likely
    causes the measurements point at (a flat patch, a colour cast, a setup terrain unlike the photo's)."""
    text = (f"something covers {cells_text(cells, 8)} ({len(cells)} touching cells look like nothing seen at "
            "calibration)")
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
                      + cells_text(says_sand) + " where the setup says sand")
            if says_wall:
                text_t += ", and none at " + cells_text(says_wall) + " where the setup puts closing terrain"
            causes.append(text_t + " (pass the terrain of this game, or leave it out to read it from the photo)")
    if not causes:
        causes.append("a hand or an object over the board (or pieces of a colour not labelled at calibration)?")
        return text + ": " + causes[0] + " Take the photo again with the view clear."
    body = "; ".join(causes)
    return text + ": " + body + ("" if body.endswith("?") else ".") + \
        " Take the photo again with the view clear (or fix --setup)."


def wrong_terrain(n_odd: int, n_wall: int, n_elsewhere: int) -> bool:
    """Whether a setup terrain is wrong: at least ``TERRAIN.wrong_wall_cells`` of its ``n_wall``
    closing cells lie in objects that look placeable (``n_odd``,
    :meth:`~vision.plazing.terrain.TerrainModel.placeable_walls`), and either all its closing
    objects do, or the photo shows closing terrain (``TerrainModel.classify``) on at least
    ``TERRAIN.wrong_wall_cells`` cells where the setup says sand (``n_elsewhere``): the objects are
    elsewhere, the terrain of another game. A right terrain with one odd-looking object (a dim
    corner, an object under a hand) has the photo's objects where it says (``docs/tuning.md``)."""
    if n_odd < TERRAIN.wrong_wall_cells:
        return False
    return n_odd == n_wall or n_elsewhere >= TERRAIN.wrong_wall_cells


def wrong_walls(looks, model: ReaderModel, terrain: np.ndarray, terrain_given: bool) -> None:
    """Refuse a setup terrain that puts closing terrain where the photo shows sand, tokens or pieces
    (:func:`wrong_terrain`). Else the reader would read nothing there, with full confidence.

    Raises:
        UnreadableBoardError: ``terrain-mismatch`` naming the cells.
    """
    if looks is None or not terrain_given or model.terrain is None or not model.terrain.known:
        return
    walls = terrain == "#"
    odd = model.terrain.placeable_walls(looks, walls)
    n_odd, n_wall = int(odd.sum()), int(walls.sum())
    if n_odd < TERRAIN.wrong_wall_cells:
        return
    read, _, _ = model.terrain.classify(looks)
    says_sand = np.argwhere((read == "#") & ~walls).tolist()
    if not wrong_terrain(n_odd, n_wall, len(says_sand)):
        return
    elsewhere = (", and closing terrain at " + cells_text(says_sand) + " where the setup says sand"
                 if says_sand else "")
    raise UnreadableBoardError(
        "terrain-mismatch", f"the setup's terrain may be wrong: it puts closing terrain '#' at "
        f"{cells_text(np.argwhere(odd).tolist(), 8)} ({n_odd} of its {n_wall} closing cells) where the photo "
        "shows sand, tokens or pieces (they look like the calibration shot's placeable cells, unlike any of "
        f"its closing terrain){elsewhere}. Pass the terrain of this game, or leave it out to read it from the "
        "photo.")


def unlike_board(looks, model: ReaderModel, terrain: np.ndarray, terrain_given: bool, gains, owner: np.ndarray) -> list:
    """Cells whose whole look (:func:`~vision.plazing.terrain.terrain_features`) is unlike every cell
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
    blob = largest_blob(cells, far.shape)
    if blob > QUALITY.max_unknown_blob_cells or len(cells) > QUALITY.max_unexplained_share * far.size:
        named = big_blobs(cells, far.shape, QUALITY.max_unknown_blob_cells) or cells
        sel = looks[far]
        sd = sel[:, 9:12].mean()  # sd of B, G, R within the cells
        spread = sel[:, :3].std(axis=0).max()  # how much the cells differ from one another
        bright = float(sel[:, 0].mean())
        rest = looks[~far][:, 0]
        ratio = bright / max(float(rest.mean()), 1.0) if rest.size else 1.0
        washed = bright > QUALITY.washed_out_level
        flat = bool(sd < QUALITY.flat_sd_bgr and spread < QUALITY.flat_sd_bgr) and not washed
        raise UnreadableBoardError("board-out-of-view" if flat else "occluded",
                                   unlike_message(named, blob, model, terrain, terrain_given, looks, gains, flat,
                                                   washed, ratio))
    return cells


def in_hot_spot(cells, white) -> bool:
    """Whether the blob ``cells`` [(r, c)] lies in a lamp's hot spot: some cell of it or touching it
    (corners too) has at least ``QUALITY.white_share`` of its pixels white, every channel at the
    sensor's top (``white``: float (rows, cols), :func:`~vision.plazing.prepare.white_share`; None:
    not known). No hand refused on the development tables had any such pixel near it."""
    if white is None or not len(cells):
        return False
    near = cv2.dilate(grid_mask(cells, white.shape), np.ones((3, 3), np.uint8)).astype(bool)
    return bool((white[near] >= QUALITY.white_share).any())


def light_named(err: UnreadableBoardError, prep, cells=None) -> UnreadableBoardError:
    """``err`` (``occluded``) as ``uneven-light`` when the printed frame shows the light uneven
    (:func:`~vision.plazing.lighting.uneven_light`): a shadow or a bright patch, not a hand; as
    ``glare`` when the blob ``cells`` [(r, c)] it names lies in an overexposed spot
    (:func:`in_hot_spot`): the colours there are clipped, not covered.

    Args:
        prep: the :class:`~vision.plazing.prepare.Prepared` photo.
        cells: the cells the error names, or None.
    """
    if err.code == "occluded" and cells is not None and in_hot_spot(cells, prep.white):
        return UnreadableBoardError("glare", f"{cells_text(sorted(cells), 6)} look like nothing seen at calibration "
                                    "and lie in an overexposed spot (a lamp or the sun on the board: the camera's "
                                    "colours are clipped there); dim or move the light and take the photo again")
    if err.code == "occluded" and uneven_light(prep.rect.small, prep.reference, prep.frame, prep.gains, prep.coef):
        return UnreadableBoardError("uneven-light", "the light is uneven across the board (a shadow or a bright "
                                    "patch: the printed frame is darker or brighter in part, in every colour alike), "
                                    "so cells look unlike calibration: " + err.message
                                    + " Light the board evenly and take the photo again.")
    return err


def grid_mask(cells, shape) -> np.ndarray:
    """uint8 ``shape`` (rows, cols): 1 at each of ``cells`` [(r, c)], 0 elsewhere."""
    m = np.zeros(shape, np.uint8)
    for r, c in cells:
        m[r, c] = 1
    return m


def big_blobs(cells, shape, most: int) -> list:
    """The cells of every 4-connected blob of ``cells`` larger than ``most`` cells, [(r, c)]."""
    if not cells:
        return []
    m = grid_mask(cells, shape)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=4)
    keep = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] > most]
    return [tuple(rc) for rc in np.argwhere(np.isin(lab, keep)).tolist()] if keep else []


def grown_blob(seeds, cells, shape) -> list:
    """The largest 4-connected blob of ``cells`` that holds a cell of ``seeds`` (hysteresis, as
    Canny's edges: strong cells start a blob, weaker ones only extend it).

    Args:
        seeds, cells: lists of (r, c), ``seeds`` a subset of ``cells``; shape: (rows, cols).
    Returns:
        [(r, c)] of that blob, sorted; [] when no seed.
    """
    if not seeds:
        return []
    m = grid_mask(cells, shape)
    _, labels = cv2.connectedComponents(m, connectivity=4)
    best = max({int(labels[r, c]) for r, c in seeds}, key=lambda k: int((labels == k).sum()))
    return [tuple(rc) for rc in np.argwhere(labels == best).tolist()]


def largest_blob(cells, shape, connectivity: int = 4) -> int:
    """Size of the largest blob of ``cells`` (list of (r, c)) on a grid of ``shape``, 4-connected
    (or 8-connected: ``connectivity`` 8, corners touching)."""
    return len(largest_blob_cells(cells, shape, connectivity))


def largest_blob_cells(cells, shape, connectivity: int = 8) -> list:
    """The cells of the largest blob of ``cells`` ([(r, c)]) on a grid of ``shape`` (8-connected
    unless ``connectivity`` is 4), sorted; [] when none."""
    if not cells:
        return []
    m = grid_mask(cells, shape)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=connectivity)
    if n < 2:
        return []
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return [tuple(rc) for rc in np.argwhere(labels == best).tolist()]
