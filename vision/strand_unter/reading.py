"""Read a Strand unter board from a registered photo: sea front, sandpiper, shells, castles.

Steps (all on the rectified board at the calibration's px/mm, no colour-space conversion):
1. undo the lighting change: uneven light (a vignette, a lamp on one side, a soft shadow) by a
   smooth brightness field measured on the bare sand, the cloth and the table against the
   calibration (:func:`_light_field`); then per-channel gains (table strip, then bare sand);
   far too uneven light is refused (``uneven-light``), as is a dark/bright patch under uneven light;
2. classify every pixel through the calibration's BGR lookup table (learned Lab Gaussians);
3. sea: the cloth hangs from the sea side; it is found on colours averaged over 5 × 5 px (noise),
   each column's edge by a step fit (a hand lying on the cloth does not end it), median-filtered;
   a groove is covered when most of its core is cloth; the learned stick width under it is ignored;
4. foreground against the rectified empty board → blobs (:mod:`vision.strand_unter.blobs`);
   once castles and the bird (5–6) have claimed their footprints, a blob whose thick remainder
   is not cloth-coloured and covers > 2% of the board is a hand or an arm (``occluded``);
5. castles: player-coloured parts of blobs; value from size cues and the tower count compared
   with the calibration's castles (:mod:`vision.strand_unter.castles`), one castle per value and
   player; groove by the *base*: the coloured part's centroid moved towards the camera's nadir
   by the parallax learned per value (camera geometry from the homography, see
   :func:`vision.strand_unter.calibrate.parallax_model`);
6. sandpiper: the blob whose class composition and size best match the learned ones;
7. shells: what is left of each blob, by majority shell colour; count = area / learned area,
   but only for a blob that looks like shells: about one shell thick (however many lie side by
   side) and with a mean colour within the learned spread. Anything else is not counted; one
   that is ≥ 3 shells large may hide pieces: ``occluded``.
Before reading, a photo much noisier than the calibration shot is refused (``too-noisy``).
A board read without any cloth needs positive evidence: bare sand at the back groove. A piece
within a few mm of a groove border is a doubt. Every doubt lowers the confidence. Source: ``shared/rules/strand-unter.md`` §Components,
``shared/contracts/strand-unter.md`` §state.
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from beachscore.errors import UnreadableBoardError
from vision import quality
from vision.strand_unter import castles as castles
from vision.strand_unter import colour as colour
from vision.strand_unter.blobs import blob_box, find_blobs, foreground
from vision.strand_unter.config import CASTLES, CONFIDENCE, READING, REGISTRATION
from vision.strand_unter.geometry import groove_map, groove_polygons, warp_board
from vision.strand_unter.calibrate import EMPTY_PNG, MODEL_VERSION
from vision.strand_unter.registration import (
    check_noise,
    class_table,
    cloth_edge_mm,
    surround_detail,
    surround_noise,
    surround_pixels,
)
from vision.types import Photo, Reading

_CACHE: dict = {}


class _Assets:
    """Per-calibration things computed once per process (empty board, groove maps, class table)."""

    def __init__(self, cal):
        m = cal.model
        if m.get("version") != MODEL_VERSION:
            raise UnreadableBoardError("calibration-incomplete", "the calibration was made by an older version; "
                                       "recalibrate")
        self.ppm = float(m["ppm"])
        self.board = cal.profile["board_mm"]
        empty = cal.image(m.get("pictures", {}).get("empty", EMPTY_PNG)) if cal.folder else None
        if empty is None:
            raise UnreadableBoardError("calibration-incomplete",
                                       "the calibration has no empty-board picture; recalibrate")
        self.empty = empty
        self.numbers = list(groove_polygons(cal.profile))
        self.gmap = groove_map(cal.profile, self.ppm)
        self.gcore = groove_map(cal.profile, self.ppm, shrink_mm=READING.sea_band_margin_mm)
        self.core_idx = {n: np.nonzero((self.gcore == n).ravel())[0] for n in self.numbers}
        self.on_grooves = self.gmap > 0
        self.board_px = float(self.on_grooves.sum())
        self.sand_idx = np.nonzero(self.on_grooves[::3, ::3].ravel())[0]
        self.lut = class_table(cal)
        self.bits = int(m["lut_bits"])
        self.names = list(m["class_names"])
        self.K = len(self.names)
        self.sea = self.names.index("sea")
        self.sand = self.names.index("sand")
        self.shell_k = [self.names.index(f"shell/{c}") for c in m["shell_colours"]]
        self.shell_inv = [(np.asarray(m["classes"][f"shell/{c}"]["mean"], np.float64),
                           np.linalg.inv(np.asarray(m["classes"][f"shell/{c}"]["cov"], np.float64)))
                          for c in m["shell_colours"]]
        self.player_k = {p: self.names.index(f"castle/{p}") for p in m["players"]}
        self.basis = colour.change_basis(m["sand_bgr"])
        self.ref_quality = None
        self.small = None                   # half-resolution empty board etc. for the light field
        sea_lab = np.clip(np.round(np.asarray(m["classes"]["sea"]["mean"], np.float64)), 0, 255).astype(np.uint8)
        self.sea_bgr = cv2.cvtColor(sea_lab.reshape(1, 1, 3), cv2.COLOR_Lab2BGR).reshape(3)
        self.sea_grey = int(cv2.cvtColor(self.sea_bgr.reshape(1, 1, 3), cv2.COLOR_BGR2GRAY)[0, 0])
        # groove borders (y, mm) for the base-near-border doubt
        self.borders = sorted({float(v) for p in groove_polygons(cal.profile).values() for v in p[:, 1]})


def _assets(cal) -> _Assets:
    key = (cal.folder, id(cal))
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = _Assets(cal)
    return _CACHE[key]


def _work_image(photo: Photo, A: _Assets):
    """Rectified board BGR (reusing the registration's warp when the board did not move) and gains."""
    reg = photo.registration
    ext = getattr(reg, "extended", None)
    gains = getattr(reg, "gains", None)
    if ext is not None and REGISTRATION.ppm == A.ppm:
        m = int(round(REGISTRATION.margin_mm * A.ppm))
        h, w = A.empty.shape[:2]
        B = ext[m:m + h, m:m + w]
    else:
        B = warp_board(photo.image, reg.H_px_from_mm, A.board, A.ppm)
    if gains is None:
        ext = warp_board(photo.image, reg.H_px_from_mm, A.board, REGISTRATION.ppm, REGISTRATION.margin_mm)
        gains = colour.channel_gains(surround_pixels(ext, A.board), photo.calibration.model["surround_bgr"])
    return np.ascontiguousarray(B), np.asarray(gains, np.float64)


def _light_field(photo: Photo, B: np.ndarray, gains: np.ndarray, A: _Assets, cfg=READING):
    """The photo's brightness relative to the empty board, a smooth field over the work image.

    Measured (:func:`vision.strand_unter.colour.illumination_field`, at half the work image's
    resolution) on the bare sand (pixels whose chromaticity, after the table strip's colour cast,
    matches the empty board's: the cloth and coloured pieces drop out), on the cloth (pixels of
    the learned sea colour's chromaticity, against that colour: the cloth is plain) and on the
    table and rails around the board (against the calibration's registration reference, the
    empty board's extended view), all but the sea side. A second pass leaves out the pixels the
    first field does not explain (pieces of the sand's hue).

    Returns:
        (field float32 B.shape[:2], figures ``{"range", "tiles", "rms"}``).
    """
    from vision.strand_unter.registration import _reference
    reg, cal = photo.registration, photo.calibration
    ref = _reference(cal)
    m = round(REGISTRATION.margin_mm * REGISTRATION.ppm)
    h, w = B.shape[:2]
    f = 2                                                            # the field is smooth: half resolution
    if A.small is None:
        A.small = {"empty": cv2.resize(A.empty, (w // f, h // f), interpolation=cv2.INTER_AREA),
                   "grooves": cv2.resize(A.on_grooves.astype(np.uint8), (w // f, h // f),
                                         interpolation=cv2.INTER_NEAREST) > 0}
        A.small["log_empty"] = np.log(A.small["empty"].astype(np.float32) + 1.0)
        A.small["grey_empty"] = cv2.cvtColor(A.small["empty"], cv2.COLOR_BGR2GRAY)
    cast = gains / float(np.exp(np.mean(np.log(np.maximum(gains, 1e-3)))))
    Bs = cv2.resize(B, (w // f, h // f), interpolation=cv2.INTER_AREA)
    logB = cv2.log(cv2.transform(Bs.astype(np.float32), np.diag(cast.astype(np.float32))) + 1.0)

    def chroma_match(log_ref) -> np.ndarray:
        """Log-chromaticity unchanged: the spread of the three channels' log ratios is small."""
        if log_ref.shape[:2] == (1, 1):                       # a plain colour
            d = [ch - float(k) for ch, k in zip(cv2.split(logB), log_ref.reshape(3))]
        else:
            d = cv2.split(cv2.subtract(logB, log_ref))
        spread = cv2.max(cv2.max(d[0], d[1]), d[2]) - cv2.min(cv2.min(d[0], d[1]), d[2])
        return spread < 1.5 * cfg.light_chroma_tol

    sand_ok = chroma_match(A.small["log_empty"]) & A.small["grooves"]
    sea_ok = chroma_match(np.log(A.sea_bgr.astype(np.float32) + 1.0).reshape(1, 1, 3)) & ~sand_ok
    now_g = cv2.cvtColor(Bs, cv2.COLOR_BGR2GRAY)
    ref_g = A.small["grey_empty"].copy()
    ref_g[sea_ok] = A.sea_grey
    board_ok = sand_ok | sea_ok
    ms = m // f
    hs, ws = now_g.shape
    if ref is not None and REGISTRATION.ppm == A.ppm and ref.shape[0] == h + 2 * m and ref.shape[1] == w + 2 * m:
        ext = getattr(reg, "extended", None)
        size = (ref.shape[1] // f, ref.shape[0] // f)
        if ext is None or ext.shape[:2] != ref.shape:
            now_e = cv2.cvtColor(warp_board(photo.image, reg.H_px_from_mm, A.board, REGISTRATION.ppm / f,
                                            REGISTRATION.margin_mm), cv2.COLOR_BGR2GRAY)
            if now_e.shape[::-1] != size:
                now_e = cv2.resize(now_e, size, interpolation=cv2.INTER_AREA)
        else:
            now_e = cv2.resize(cv2.cvtColor(ext, cv2.COLOR_BGR2GRAY), size, interpolation=cv2.INTER_AREA)
        if A.small.get("ref_ext") is None:
            A.small["ref_ext"] = cv2.resize(ref, size, interpolation=cv2.INTER_AREA)
        ref_e = A.small["ref_ext"].copy()
        now_e[ms:ms + hs, ms:ms + ws] = now_g
        ref_e[ms:ms + hs, ms:ms + ws] = ref_g
        valid = (ref_e > 10) & (ref_e < 250)
        valid[:ms] = False                                  # the sea side: the cloth hangs there
        valid[ms:ms + hs, ms:ms + ws] = board_ok
        valid &= (now_e > 4) & (now_e < 252)
        crop = (slice(ms, ms + hs), slice(ms, ms + ws))
    else:
        now_e, ref_e, crop = now_g, ref_g, (slice(0, hs), slice(0, ws))
        valid = board_ok & (now_g > 4) & (now_g < 252)
    tile = max(2, cfg.light_tile_px // f)
    o = crop[0].start % tile                                # the tile grid starts at the board's corner
    lr = cv2.log(now_e.astype(np.float32) + 1.0) - cv2.log(ref_e.astype(np.float32) + 1.0)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    valid = cv2.erode(valid.astype(np.uint8), k) > 0             # mixed pixels at pieces' edges
    for rnd in range(2):
        F, fig = colour.illumination_field(lr[o:], valid[o:], (lr.shape[0] - o, lr.shape[1]), tile_px=tile)
        F = np.vstack([np.repeat(F[:1], o, 0), F]) if o else F
        if rnd == 0:
            # second pass without whatever the first field does not explain (pieces of sand's hue)
            off = np.abs(lr - np.log(F)) > cfg.light_residual_tol
            valid &= cv2.dilate(off.astype(np.uint8), k) == 0
    field = cv2.resize(np.ascontiguousarray(F[crop]), (w, h), interpolation=cv2.INTER_LINEAR)
    return np.maximum(field, 1e-3).astype(np.float32), fig


def _occluder_fraction(unexplained: np.ndarray, blobs, A: _Assets, cfg=READING) -> tuple[float, int]:
    """The largest blob's thick unexplained part, as a fraction of the grooves' area.

    Args:
        unexplained: bool (H, W) foreground pixels no piece explains (outside every castle's
            learned footprint and the bird, not cloth-coloured).
        blobs: the scan's :class:`~vision.strand_unter.blobs.Blobs`.
    Returns:
        (max over blobs of (unexplained pixels left after an erosion of ``cfg.occluder_erode_mm``)
        / grooves' px, that blob's index); (0.0, 0) without blobs.
    """
    if blobs.n <= 1:
        return 0.0, 0
    r = max(1, int(round(cfg.occluder_erode_mm * A.ppm)))
    thick = cv2.erode(unexplained.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2))
    counts = np.bincount(blobs.labels[thick > 0], minlength=blobs.n)
    i = 1 + int(np.argmax(counts[1:]))
    return float(counts[i]) / A.board_px, i


def _castle_base(x: float, y: float, value: str, model: dict) -> tuple[float, float]:
    """A castle's base (work px) from the centroid (x, y) of its coloured part.

    The coloured part stands above the base, so the camera sees it shifted away from its nadir by
    k·(base − nadir)/(1 − k) (:func:`vision.strand_unter.calibrate.parallax_model`); without a learned
    k for the value, the calibration's fixed offset per value is used.
    """
    par = model.get("parallax") or {}
    k = (par.get("k") or {}).get(value)
    if k is not None:
        nx, ny = par["nadir_px"]
        return x - k * (x - nx), y - k * (y - ny)
    off = model["castle_model"]["offset_px"][value]
    return x + off[0], y + off[1]


def _grooves_phrase(numbers) -> str:
    """``"groove 7"``, ``"grooves 7 and 8"``, ``"grooves 7, 8 and 9"``."""
    n = [str(v) for v in numbers]
    return f"groove {n[0]}" if len(n) == 1 else f"grooves {', '.join(n[:-1])} and {n[-1]}"


def _surround_figures(photo: Photo, A: _Assets) -> tuple[float, float]:
    """The photo's fine detail and pixel noise around the board
    (:func:`vision.strand_unter.registration.surround_detail`, :func:`~vision.strand_unter.registration.surround_noise`).

    Taken from the registration when it measured them; else (e.g. a board found by its markers)
    measured here on the photo rectified (once) with the registration's homography.
    """
    reg = photo.registration
    detail, noise = getattr(reg, "detail", None), getattr(reg, "noise", None)
    if detail is None or noise is None:
        ext = warp_board(photo.image, reg.H_px_from_mm, A.board, REGISTRATION.ppm, REGISTRATION.margin_mm)
        if detail is None:
            cloth = cloth_edge_mm(ext, np.ones(3), A.lut, A.sea, A.bits, A.board)
            detail = surround_detail(ext, A.board, max(cloth[:2]))
        if noise is None:
            noise = surround_noise(ext, A.board)
    return float(detail), float(noise)


def _thickness(j: int, labels: np.ndarray, stats: np.ndarray, shell_area_px2: float) -> float:
    """How many shells thick blob ``j`` is: the radius of the largest disc inside it (the maximum of
    its distance transform) over one learned shell's radius.

    Shells side by side, however many, stay about one shell thick (samples 0.74–1.04); a hand, a
    card or a phone is many shells thick (8 × 5 cm hands: 2.5–3.3).

    Args:
        j: the blob's label in ``labels`` (int32 (H, W)); stats: ``connectedComponentsWithStats`` rows.
        shell_area_px2: the learned area of one shell of the blob's colour.
    """
    x, y, w, h, _ = stats[j]
    crop = np.pad((labels[y:y + h, x:x + w] == j).astype(np.uint8), 1)
    return float(cv2.distanceTransform(crop, cv2.DIST_L2, 5).max()) / max(np.sqrt(shell_area_px2 / np.pi), 1.0)


def _colour_distances(labels: np.ndarray, sel: np.ndarray, n: int, image_bgr: np.ndarray, A: _Assets) -> np.ndarray:
    """Mahalanobis distance (float (n, n_shell_colours)) of every blob's mean colour from each learned shell class.

    A class's spread covers single pixels; a blob's *mean* sits near the class mean, while a
    look-alike material (skin falling in a shell's lookup cells) sits off it consistently.
    """
    lab_ = labels[sel]
    area = np.maximum(np.bincount(lab_, minlength=n), 1)
    mean = np.stack([np.bincount(lab_, weights=image_bgr[..., ch][sel], minlength=n) / area for ch in range(3)], -1)
    L = colour.lab(np.clip(np.round(mean), 0, 255).astype(np.uint8)[None]).reshape(-1, 3).astype(np.float64)
    out = np.empty((n, len(A.shell_inv)))
    for k, (mu, inv) in enumerate(A.shell_inv):
        d = L - mu
        out[:, k] = np.sqrt(np.maximum(np.einsum("ni,ij,nj->n", d, inv, d), 0.0))
    return out


def read(photo: Photo, cfg=READING, conf_cfg=CONFIDENCE) -> Reading:
    """Read the Strand unter state from a registered photo.

    Args:
        photo: BGR uint8 photo (decoded at the calibration's reduction), its registration
            (board mm → this image's px), the calibration with the learned model.
    Returns:
        :class:`~vision.types.Reading` with the contract's ``state`` (sea_front 1–12, sandpiper
        groove or None, every visible groove with shells per colour and castles), a confidence
        in [0, 1], warnings, and ``details`` (positions in work px) for the annotator.
    Raises:
        UnreadableBoardError: ``too-dark``, ``too-blurred``, ``glare`` (see :mod:`vision.quality`),
            ``too-noisy``, ``occluded`` (messages say what was measured and where);
            ``calibration-incomplete``.
    """
    cal = photo.calibration
    A = _assets(cal)
    model = cal.model
    B, gains = _work_image(photo, A)
    doubts: list[str] = []

    # 1–2. lighting: a smooth brightness field (uneven light) from the unchanged scene; under
    # (nearly) even light one gain per channel (table strip); then gains fine-tuned on the bare sand
    field, light = _light_field(photo, B, gains, A, cfg)
    light["board_range"] = float(field.max() / max(float(field.min()), 1e-3))
    if light["board_range"] > cfg.light_max_range:
        raise UnreadableBoardError("uneven-light", f"the light is too uneven across the board (one part "
                                   f"{light['board_range']:.1f}x brighter than another); light the board evenly "
                                   "(no lamp from one side, no shadow over it) and take the photo again")
    if light["board_range"] < cfg.light_apply_range:
        field = None                                    # even light: the per-channel gains suffice
    else:
        gains = gains / float(np.exp(np.mean(np.log(np.maximum(gains, 1e-3)))))   # the strip's colour cast only
    sand_now = (B[::3, ::3].reshape(-1, 3)[A.sand_idx] * gains[None, :]).astype(np.float32)
    if field is not None:
        sand_now /= field[::3, ::3].reshape(-1)[A.sand_idx][:, None]
    sand_ref = A.empty[::3, ::3].reshape(-1, 3)[A.sand_idx]
    bare = np.abs(sand_now - sand_ref).max(axis=1) < cfg.fine_gain_max_change
    if bare.sum() > 100:
        gains = gains * np.median(sand_ref[bare] / np.maximum(sand_now[bare], 1), axis=0)
    Bc = colour.apply_gains(B, gains) if field is None else colour.apply_field(B, field, gains)
    if light["board_range"] > cfg.light_doubt_range:
        doubts.append(f"the light is uneven across the board (one part {light['board_range']:.1f}x brighter than "
                      "another); it was evened out, but check the reading")
    cls = colour.classify(Bc, A.lut, A.bits)
    # the cloth edge on every other column (it is median-filtered across many columns anyway)
    half = colour.sea_pixels(Bc[:, ::2], A.lut, A.bits, A.sea, cfg.sea_smooth_px)
    edge = np.repeat(colour.cloth_edge(half, cfg.cloth_edge_window_px // 2), 2)[:Bc.shape[1]]
    rows = np.arange(cls.shape[0])[:, None]
    sea = rows < edge[None, :]
    if A.ref_quality is None:   # the empty board's glare and sharpness, once per calibration
        A.ref_quality = {"glare": quality.glare_fraction(A.empty, A.on_grooves),
                         "sharpness": quality.sharpness(cv2.cvtColor(A.empty, cv2.COLOR_BGR2GRAY), A.on_grooves)}
    figures = quality.check(B, gains=gains, board_mask=~sea & A.on_grooves, reference_figures=A.ref_quality)
    figures["detail"], figures["noise"] = _surround_figures(photo, A)
    quality.check_blur(figures["detail"], model.get("detail_ratio"), cfg.min_detail_share)
    check_noise(figures["noise"], model.get("noise_sigma"), cfg)
    if model.get("noise_sigma") is not None and \
            figures["noise"] > cfg.noise_doubt_ratio * max(float(model["noise_sigma"]), cfg.noise_floor):
        doubts.append(f"the photo is grainy (pixel noise {figures['noise']:.1f} grey levels beside the board against "
                      f"{float(model['noise_sigma']):.1f} at calibration); small pieces may be misread")

    # 3. sea front
    sea_flat = sea.ravel()
    coverage = {n: float(sea_flat[idx].mean()) if len(idx) else 0.0 for n, idx in A.core_idx.items()}
    covered = [n for n in A.numbers if coverage[n] > cfg.sea_coverage]
    front = min(covered) if covered else max(A.numbers) + 1
    for n in A.numbers:
        if abs(coverage[n] - cfg.sea_coverage) < conf_cfg.sea_margin:
            doubts.append(f"groove {n} is only partly under the sea cloth ({coverage[n]:.0%}); "
                          "check where the sea front is")
    holes = [n for n in A.numbers if n > front and coverage[n] <= cfg.sea_coverage]
    if holes:
        doubts.append(f"{_grooves_phrase(holes)} beyond the sea front (groove {front}) "
                      f"{'looks' if len(holes) == 1 else 'look'} uncovered; straighten the sea cloth")
    visible = [n for n in A.numbers if n < front]
    cap = 1.0
    if not covered:
        # no cloth anywhere: only plausible when the back grooves' sand is seen bare (positive evidence)
        back = max(A.numbers)
        idx = A.core_idx[back]
        sand_share = float((cls.ravel()[idx] == A.sand).mean()) if len(idx) else 0.0
        if sand_share < cfg.empty_back_sand:
            cap = conf_cfg.unsure_cap
            doubts.append(f"the sea cloth was not found, yet groove {back} at the back does not look like bare sand "
                          f"({sand_share:.0%} sand-coloured); check the sea front and the light")

    # 4. foreground blobs below the cloth and its stick
    # (a castle standing just in front of the stick rises into its band: only player colours count there)
    below = rows >= edge[None, :]
    stick_px = (float(model.get("stick_mm", 0.0)) + cfg.stick_extra_mm) * A.ppm
    fg, noise = foreground(Bc, A.empty, A.basis, valid=A.on_grooves & below, cfg=cfg,
                           sample=A.on_grooves & (rows >= (edge + stick_px)[None, :]))
    if edge.max() > 0:
        top = int(max(edge.min(), 0))
        bottom = int(min(edge.max() + stick_px + 1, fg.shape[0]))
        band = below[top:bottom] & (rows[top:bottom] < (edge + stick_px)[None, :])
        fg[top:bottom] &= ~band | np.isin(cls[top:bottom], list(A.player_k.values()))
    blobs = find_blobs(fg, cls, A.K)
    shell_areas = model["shell_area_px2"]
    min_area = cfg.min_blob_fraction * min(shell_areas.values())

    state_grooves = {n: {"number": n, "shells": {c: 0 for c in model["shell_colours"]}, "castles": []}
                     for n in visible}
    details = {"sea": sea, "coverage": coverage, "castles": [], "shells": [], "bird": None,
               "gains": gains.tolist(), "noise": noise, "quality": figures, "light": light}

    def groove_at(x: float, y: float) -> int:
        return int(A.gmap[min(max(int(round(y)), 0), A.gmap.shape[0] - 1),
                          min(max(int(round(x)), 0), A.gmap.shape[1] - 1)])

    def near_border(y_px: float) -> bool:
        return min(abs(y_px / A.ppm - b) for b in A.borders) < conf_cfg.groove_margin_mm

    def where(x: float, y: float) -> str:
        """Where a work-px point lies, in words a player follows."""
        g = groove_at(x, y)
        across = f"{x / A.ppm / 10:.0f} cm from the left edge"
        return f"groove {g}, {across}" if g else f"{across}, {y / A.ppm / 10:.0f} cm from the sea side"

    # 5. castles: player-coloured parts of blobs, valued by their learned cues
    cm = model["castle_model"]
    ccfg = CASTLES
    min_core = ccfg.min_core_fraction * min(cm["core_px2"].values()) * min(
        sc["core_px2"] for sc in cm["scale"].values())
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * ccfg.close_px + 1,) * 2)
    gray = cv2.cvtColor(Bc, cv2.COLOR_BGR2GRAY)
    owned = np.zeros(fg.shape, bool)                     # pixels explained by a castle or the bird
    found: dict[str, list] = {p: [] for p in model["players"]}
    for i in range(1, blobs.n):
        if blobs.stats[i, cv2.CC_STAT_AREA] < min_area:
            continue
        for p, k in A.player_k.items():
            if blobs.counts[i, k] < min_core:
                continue
            rs, cs = blob_box(blobs, i, pad=2)
            parts = cv2.morphologyEx(((blobs.labels[rs, cs] == i) & (cls[rs, cs] == k)).astype(np.uint8),
                                     cv2.MORPH_CLOSE, kernel)
            n, lab_img, st, ce = cv2.connectedComponentsWithStats(parts, connectivity=8)
            for j in range(1, n):
                if st[j, cv2.CC_STAT_AREA] >= min_core:
                    found[p].append({"blob": i, "x": ce[j][0] + cs.start, "y": ce[j][1] + rs.start,
                                     "box": (rs, cs), "core": lab_img == j})
    max_side = 2 * ccfg.radius_slack * max(cm["radius_px"].values())
    for p, cands in found.items():
        if not cands:
            continue
        costs = []
        for c in cands:
            i = c["blob"]
            alone = sum(1 for o in itertools.chain(*found.values()) if o["blob"] == i) == 1 and \
                max(blobs.stats[i, 2:4]) <= max_side
            c["cues"] = castles.measure(gray[c["box"]], c["core"],
                                        float(blobs.stats[i, cv2.CC_STAT_AREA]) if alone else None, ccfg)
            terms = castles.value_terms(c["cues"], cm, p, ccfg)
            costs.append(terms.sum(axis=1))
        values, margins = castles.assign_values(np.array(costs), cm["values"])
        for c, value, margin, cost in zip(cands, values, margins, costs):
            tx, ty, i = c["x"], c["y"], c["blob"]
            if value is None:
                doubts.append(f"there seem to be more {p} castles than a player owns; the one at "
                              f"{where(tx, ty)} was left out")
                continue
            v = str(value)
            bx, by = _castle_base(tx, ty, v, model)
            rs, cs = blob_box(blobs, i)
            yy, xx = np.ogrid[rs, cs]
            owned[rs, cs] |= (blobs.labels[rs, cs] == i) & \
                ((xx - bx) ** 2 + (yy - by) ** 2 <= (ccfg.radius_slack * cm["radius_px"][v]) ** 2)
            g = groove_at(bx, by)
            details["castles"].append((p, value, bx, by, c["cues"], [round(float(x), 3) for x in cost]))
            if g not in state_grooves:
                if g == 0:
                    doubts.append(f"a {p} castle stands outside every groove ({where(bx, by)})")
                continue
            if margin < conf_cfg.value_margin:
                alt = next(cm["values"][k] for k in np.argsort(cost) if cm["values"][k] != value)
                doubts.append(f"the {p} castle in groove {g} may be worth {alt} rather than {value}")
            if near_border(by):
                doubts.append(f"the {p} castle at {where(bx, by)} stands on the line between two grooves")
            state_grooves[g]["castles"].append({"player": p, "value": value})

    # 6. sandpiper: best composition + size match among blobs without a castle
    bird_groove = None
    if "sandpiper" in model:
        bird = model["sandpiper"]
        want = np.asarray(bird["composition"])
        best = None
        for i in range(1, blobs.n):
            a = blobs.stats[i, cv2.CC_STAT_AREA]
            if a < min_area:
                continue
            rs, cs = blob_box(blobs, i)
            if owned[rs, cs][blobs.labels[rs, cs] == i].any():
                continue
            comp = blobs.counts[i] / max(a, 1)
            d = 0.5 * float(np.abs(comp - want).sum()) + abs(float(np.log(a / bird["area_px2"])))
            if best is None or d < best[0]:
                best = (d, i)
        if best is not None and best[0] < cfg.bird_max_distance:
            d, i = best
            cx, cy = blobs.centroids[i]
            bx, by = cx + bird["offset_px"][0], cy + bird["offset_px"][1]
            rs, cs = blob_box(blobs, i)
            owned[rs, cs] |= blobs.labels[rs, cs] == i
            g = groove_at(bx, by)
            details["bird"] = (bx, by, d)
            if g in state_grooves:
                bird_groove = g
            if d > cfg.bird_max_distance - conf_cfg.bird_margin:
                doubts.append("the sandpiper was hard to recognise; check where it stands")
            if near_border(by):
                doubts.append("the sandpiper stands on the line between two grooves")

    # a hand or an arm: a thick part of a blob that no castle, the bird or the cloth explains
    # (castles in a cluster own their footprints; thin cloth fringes and shadows erode away)
    details["occluder"], i = _occluder_fraction(fg & ~owned & (cls != A.sea), blobs, A, cfg)
    if details["occluder"] > cfg.occluder_min_fraction:
        # say what was measured: a large patch unlike the empty board and every piece (a hand, an
        # object, a shadow or a change of light can all do that)
        x, y, w, h, _ = blobs.stats[i]
        bright = float(np.median(gray[blobs.labels == i])) - float(np.median(
            cv2.cvtColor(A.empty, cv2.COLOR_BGR2GRAY)[blobs.labels == i]))
        tone, cause = ("darker than", " or a shadow falls on it") if bright < -cfg.fg_brightness else \
            (("brighter than", " or a lamp's glare falls on it") if bright > cfg.fg_brightness
             else ("differently coloured from", ""))
        if tone != "differently coloured from" and light["board_range"] > cfg.light_occluder_range:
            raise UnreadableBoardError(
                "uneven-light", f"{details['occluder']:.0%} of the board ({w / A.ppm / 10:.0f} × {h / A.ppm / 10:.0f} cm "
                f"around {where(*blobs.centroids[i])}) looks {tone} the empty board while the light is uneven "
                f"(one part of the board {light['board_range']:.1f}x brighter than another): a shadow, a lamp's "
                "light or something lying there; light the board evenly, clear the view and take the photo again")
        raise UnreadableBoardError(
            "occluded", f"{details['occluder']:.0%} of the board ({w / A.ppm / 10:.0f} × {h / A.ppm / 10:.0f} cm around "
            f"{where(*blobs.centroids[i])}) looks {tone} the empty board and like no learned piece: something "
            f"lies over it{cause}; clear the view and take the photo again")

    # 7. shells: the rest of every blob
    rest = (fg & ~owned).astype(np.uint8)
    n, lab_img, st, ce = cv2.connectedComponentsWithStats(rest, connectivity=8)
    if n > 1:
        cl = np.minimum(cls, A.K).astype(np.int32)
        sel = lab_img > 0
        counts = np.bincount(lab_img[sel] * (A.K + 1) + cl[sel], minlength=n * (A.K + 1)).reshape(n, A.K + 1)
        cdist = _colour_distances(lab_img, sel, n, Bc, A)
        for j in range(1, n):
            area = int(st[j, cv2.CC_STAT_AREA])
            if area < min_area:
                continue
            sc = counts[j, A.shell_k]
            if sc.sum() < (1 - cfg.max_unknown_fraction) * area:
                if area >= 0.7 * min(shell_areas.values()):
                    doubts.append(f"something that is not a game piece lies at {where(*ce[j])}")
                continue
            c = model["shell_colours"][int(np.argmax(sc))]
            purity = float(sc.max() / sc.sum())
            details.setdefault("purity", []).append(purity)
            if purity < cfg.min_shell_purity:
                doubts.append(f"shells of different colours touch at {where(*ce[j])}; all were counted as {c}")
            ratio = area / shell_areas[c]
            if ratio < 0.5:
                if ratio >= cfg.min_blob_fraction:
                    doubts.append(f"a small {c} speck at {where(*ce[j])} was not counted as a shell")
                continue
            count = max(1, int(round(ratio)))
            thick = _thickness(j, lab_img, st, shell_areas[c]) if ratio >= 1.5 else 1.0
            dist = float(cdist[j, model["shell_colours"].index(c)])
            details.setdefault("shell_parts", []).append((c, round(ratio, 2), round(thick, 2), round(dist, 2)))
            if thick > cfg.max_shell_thickness or dist > cfg.max_shell_colour_distance:
                # not shells: a blob many shells thick, or of a colour off every shell's
                size = f"{st[j, cv2.CC_STAT_WIDTH] / A.ppm / 10:.0f} × {st[j, cv2.CC_STAT_HEIGHT] / A.ppm / 10:.0f} cm"
                why = (f"{thick:.1f} shells thick" if thick > cfg.max_shell_thickness
                       else f"its colour is {dist:.1f} spreads from the learned {c} shells'")
                if ratio >= cfg.max_unexplained_shells:
                    raise UnreadableBoardError(
                        "occluded", f"an object of about {size} at {where(*ce[j])} is neither shells nor a castle "
                        f"({why}) and may hide pieces; clear it away and take the photo again")
                doubts.append(f"something that is not a game piece lies at {where(*ce[j])} ({size}, {why}); "
                              "it was not counted")
                continue
            if abs(ratio - np.floor(ratio) - 0.5) < conf_cfg.shell_count_slack:
                doubts.append(f"the {c} shells at {where(*ce[j])} could be {int(ratio)} or {int(ratio) + 1}")
            x, y = ce[j]
            g = groove_at(x, y)
            details["shells"].append((c, count, float(x), float(y)))
            if g in state_grooves and near_border(y):
                doubts.append(f"the {c} shell at {where(x, y)} lies on the line between two grooves")
            if g in state_grooves:
                state_grooves[g]["shells"][c] += count
            elif g == 0:
                doubts.append(f"a {c} shell lies outside every groove ({where(*ce[j])})")

    state = {"game": "strand-unter", "sea_front": front, "sandpiper": bird_groove,
             "grooves": [state_grooves[n] for n in visible]}
    confidence = float(np.clip(photo.registration.score, 0, 1)) ** 0.5
    confidence *= conf_cfg.doubt_factor ** len(doubts)
    confidence = min(confidence, cap)
    details["labels"] = cls
    details["foreground"] = fg
    return Reading(state=state, confidence=round(confidence, 3), warnings=doubts, details=details)
