"""Read a Strand unter board from a registered photo: the stages in order, and the confidence.

Input: a :class:`~vision.types.Photo` (decoded photo, its registration, the calibration).
Output: a :class:`~vision.types.Reading`: the contract's ``state`` (sea front, sandpiper, every
visible groove with shells per colour and castles), ``confidence`` (the estimated probability
that the whole state is right), warnings, and ``details`` for the annotator and logs.

Stages (one module each):

1. :mod:`~vision.strand_unter.lighting`: the board rectified and corrected to the calibration's
   light; photo-quality checks (too dark, glare, blur, noise: :mod:`vision.image.quality`);
2. pixel classes through the calibration's lookup table (:mod:`~vision.strand_unter.colour`);
3. :mod:`~vision.strand_unter.sea`: the cloth and the sea front;
4. :mod:`~vision.strand_unter.blobs`: foreground against the empty board below the cloth;
5. :mod:`~vision.strand_unter.castles`: castles, their owners, values and grooves (parallax from
   the camera recovered from the homography, moved with a bumped board);
6. :mod:`~vision.strand_unter.bird`: the sandpiper;
7. :mod:`~vision.strand_unter.shells`: shells in what is left;
8. :mod:`~vision.strand_unter.occlusion`: a hand or an object over the grooves → ``occluded``
   (changed pixels nothing explains: the foreground's, and a weak but consistent colour change
   where something sand-like lies, :func:`~vision.strand_unter.blobs.weak_change`, or a shell's
   colour where the foreground saw too little of it: a doubt, "something faint"), or a patch of
   no cloth colour on the sea cloth, a shell thick and as large (:func:`~vision.strand_unter.occlusion.check_cloth`);
9. :mod:`~vision.strand_unter.confidence`: the product of every decision's posterior.

Source: ``shared/rules/strand-unter.md`` §Components, ``shared/contracts/strand-unter.md`` §state.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.image import quality
from vision.strand_unter import colour
from vision.strand_unter.assets import assets
from vision.strand_unter.bird import find_bird, touching_shell_colour
from vision.strand_unter.blobs import find_blobs, foreground, weak_change
from vision.strand_unter.castles import find_castles
from vision.strand_unter.cloth_reach import cloth_edge_mm
from vision.strand_unter.confidence import Decisions
from vision.strand_unter.config import CONFIDENCE, READING, REGISTRATION
from vision.strand_unter.geometry import scale_homography, warp_board
from vision.strand_unter.lighting import normalise
from vision.strand_unter.occlusion import check_cloth, check_patch, faint_things, judge_parts, shell_thick
from vision.strand_unter.sea import find_sea
from vision.strand_unter.shells import read_shells
from vision.strand_unter.surround import check_noise, surround_detail, surround_noise
from vision.types import Photo, Reading


def read(photo: Photo, cfg=READING, conf_cfg=CONFIDENCE) -> Reading:
    """Read the Strand unter state from a registered photo (see the module docstring).

    Args:
        photo: BGR uint8 photo (decoded at the calibration's reduction), its registration
            (board mm → this image's px), the calibration with the learned model.
    Returns:
        :class:`~vision.types.Reading` with the contract's ``state``, the confidence in [0, 1],
        warnings, and ``details`` (positions in work px) for the annotator.
    Raises:
        UnreadableBoardError: ``too-dark``, ``too-blurred``, ``glare``, ``too-noisy``,
            ``uneven-light``, ``occluded`` (messages say what was measured and where);
            ``calibration-incomplete``.
    """
    cal = photo.calibration
    A = assets(cal)
    decisions = Decisions()

    # 1. light and photo quality
    lit = normalise(photo, A, cfg)
    Bc = lit.image
    decisions.doubts += lit.doubts
    # how well the light's change is undone: the piece-free surround's colour error after the same
    # correction; a colour that far off may put a pale piece into the sand or a shell into another class
    decisions.add("light", float(np.exp(-0.5 * (lit.residual_ab / conf_cfg.light_sigma_ab) ** 2)), [
        "the light's colour changed unevenly since calibration (a lamp?); pale pieces may be missed: "
        "check the reading, or light the board as at calibration"])
    cls = colour.classify(Bc, A.lut, A.bits)

    # 3. sea front
    sea = find_sea(Bc, cls, A, cfg, conf_cfg)
    decisions.add("sea front", sea.posterior, sea.doubts)
    decisions.cap = min(decisions.cap, sea.cap)
    decisions.doubts += sea.remarks
    figures = _check_quality(photo, A, lit, sea, decisions, cfg, conf_cfg)

    # 4. foreground blobs below the cloth and its stick
    fg, noise, stick, beyond = _foreground_below_stick(Bc, cls, sea.edge, A, cfg)
    blobs = find_blobs(fg, cls, A.K)

    # 5. castles
    nadir = _nadir_px(photo, A)
    gray = cv2.cvtColor(Bc, cv2.COLOR_BGR2GRAY)
    castles, owned, doubts = find_castles(blobs, cls, Bc, A, nadir, lit.residual_ab, stick=stick, fg=fg, gray=gray)
    decisions.doubts += doubts
    visible = set(sea.visible)
    grooves = {n: {"number": n, "shells": {c: 0 for c in A.shell_colours}, "castles": []} for n in sea.visible}
    castles, shell_cls = _enter_castles(castles, cls, A, visible, grooves, decisions, conf_cfg)

    # 6. sandpiper
    bird = find_bird(blobs, owned, Bc, A, lit.residual_ab, classes=cls)
    if bird.mask is not None:
        owned |= bird.mask
    decisions.add("sandpiper", bird.posterior, bird.doubts, kind=None if bird.groove is not None else "no sandpiper")
    beside = _shell_beside_bird(bird, cls, A, visible, grooves, decisions, cfg)
    bird_groove = bird.groove if bird.groove in visible else None

    # 7. shells: the rest of every blob
    parts = read_shells(fg & ~owned, shell_cls, Bc, A, lit.residual_ab)

    # 8. a hand or an arm: changed pixels (strongly, or weakly but consistently) that no castle, the
    # bird, a shell or the cloth explains, thick and large (thin cloth fringes and shadows erode away)
    occluder = _judge_unexplained(Bc, cls, gray, fg, owned, parts, beyond, A, lit, visible, decisions, cfg, conf_cfg)
    on_cloth = check_cloth(cls, sea.mask, A, cfg)      # … or lying on the cloth, where no piece is looked for
    shells = _enter_shells(parts.parts, A, visible, grooves, decisions, cfg, conf_cfg) + beside

    state = {"game": "strand-unter", "sea_front": sea.front, "sandpiper": bird_groove,
             "grooves": [grooves[n] for n in sea.visible]}
    decisions.add("registration", float(np.clip(photo.registration.score, 0, 1)) ** 0.5, [])
    confidence, warnings = decisions.result(conf_cfg)
    details = {"sea": sea.mask, "coverage": sea.coverage, "gains": lit.gains.tolist(), "noise": noise,
               "quality": figures, "light": lit.figures, "residual_ab": lit.residual_ab, "occluder": occluder,
               "cloth_occluder": on_cloth,
               "castles": [(c.player, c.value, c.x, c.y, c.cues, c.cost) for c in castles],
               "shells": shells, "bird": (bird.x, bird.y, bird.d2) if bird.groove is not None else None,
               "posteriors": decisions.table(), "labels": cls, "foreground": fg}
    return Reading(state=state, confidence=float(confidence), warnings=warnings, details=details)


def _check_quality(photo: Photo, A, lit, sea, decisions: Decisions, cfg, conf_cfg) -> dict:
    """The photo-quality figures (glare, sharpness against the empty board, the surround's detail
    and noise); too blurred or too noisy refuses the photo, grainy is a doubt in ``decisions``.

    Raises:
        UnreadableBoardError: ``too-blurred``, ``too-noisy``, and :func:`vision.image.quality.check`'s.
    """
    model = photo.calibration.model
    if A.ref_quality is None:   # the empty board's glare and sharpness, once per calibration
        A.ref_quality = {"glare": quality.glare_fraction(A.empty, A.on_grooves),
                         "sharpness": quality.sharpness(A.empty_gray, A.on_grooves)}
    figures = quality.check(lit.raw, gains=lit.gains, board_mask=~sea.mask & A.on_grooves,
                            reference_figures=A.ref_quality)
    figures["detail"], figures["noise"] = _surround_figures(photo, A)
    quality.check_blur(figures["detail"], model.get("detail_ratio"), cfg.min_detail_share)
    check_noise(figures["noise"], model.get("noise_sigma"), cfg)
    if model.get("noise_sigma") is not None and \
            figures["noise"] > cfg.noise_doubt_ratio * max(float(model["noise_sigma"]), cfg.noise_floor):
        decisions.add("noise", conf_cfg.noise_posterior, [
            f"the photo is grainy (pixel noise {figures['noise']:.1f} grey levels beside the board against "
            f"{float(model['noise_sigma']):.1f} at calibration); small pieces may be misread"])
    return figures


def _foreground_below_stick(Bc: np.ndarray, cls: np.ndarray, edge: np.ndarray, A, cfg):
    """The foreground against the empty board below the cloth and its stick (a castle standing just
    in front of the stick rises into its band: only player colours count there).

    Args:
        Bc: the corrected board, BGR uint8 (H, W, 3); cls: its pixel classes; edge: float32 (W,)
            the cloth's edge per column (work px).
    Returns:
        (foreground bool (H, W), the scan's noise figure, the stick's band bool (H, W), the grooves
        beyond the stick's band bool (H, W)).
    """
    model = A.model
    # (row numbers as float32: the same comparisons with the float32 edge, several times faster than int64's)
    rows = np.arange(cls.shape[0], dtype=np.float32)[:, None]
    below = rows >= edge[None, :]
    stick_px = (float(model.get("stick_mm", 0.0)) + cfg.stick_extra_mm) * A.ppm
    stick_end = (edge + stick_px)[None, :]
    stick = below & (rows < stick_end)                       # the stick's band under the cloth's edge
    valid = A.on_grooves & below
    if edge.max() > 0:          # (before the foreground's opening: no sliver of the stick is left)
        valid &= ~stick | cv2.LUT(cls, A.is_player.view(np.uint8)).view(bool)   # (a table lookup: cv2.LUT beats np.take)
    beyond = A.on_grooves & (rows >= stick_end)              # the grooves beyond the stick's band
    fg, noise = foreground(Bc, A.empty, A.basis, valid=valid, cfg=cfg, sample=beyond)
    return fg, noise, stick, beyond


def _enter_castles(castles: list, cls: np.ndarray, A, visible: set, grooves: dict, decisions: Decisions, conf_cfg):
    """The castles read entered into ``grooves`` with their value, owner and groove decisions; the
    pieces read as no castle entered as doubts, those that look like a shell given that shell's class.

    Returns:
        (the castles with a value, the pixel classes the shells are read from: ``cls`` or a copy).
    """
    shell_cls = cls
    for c in [c for c in castles if c.value is None]:
        if c.shell is not None:
            if shell_cls is cls:
                shell_cls = cls.copy()
            (rs, cs), core = c.core            # its coloured pixels are read as that shell's
            shell_cls[rs, cs][core] = A.names.index(f"shell/{c.shell}")
        if c.groove in visible or c.groove == 0:
            decisions.add(f"{c.player}-looking piece is no castle", c.p_value, [
                f"the piece at {A.where(c.x, c.y)} was read as a {c.shell} shell, but it may be a {c.player} castle"
                if c.shell else f"the {c.player} patch at {A.where(c.x, c.y)} looks like a shadow, not a castle; it "
                "was not counted" if c.p_castle < 0.5 else
                f"the {c.player} piece at {A.where(c.x, c.y)} was not counted as a castle"])
    castles = [c for c in castles if c.value is not None]
    for c in castles:
        where = A.where(c.x, c.y)
        if c.groove not in visible:
            if c.groove == 0:
                decisions.add("castle outside the grooves", conf_cfg.unexplained_posterior,
                              [f"a {c.player} castle stands outside every groove ({where})"])
            continue
        grooves[c.groove]["castles"].append({"player": c.player, "value": c.value})
        decisions.add(f"{c.player} castle value", c.p_value, [f"the {c.player} castle in groove {c.groove} may be "
                                                               f"worth {_alternative(c)} rather than {c.value}"],
                      kind="castle value")
        decisions.add(f"{c.player} castle owner", c.p_owner, [f"the castle in groove {c.groove} at {where} may "
                                                               f"belong to another player than {c.player}"])
        decisions.add(f"{c.player} castle is no shadow", c.p_castle, [f"the {c.player} castle at {where} may be a "
                                                                      "shadow or a hand rather than a castle"])
        decisions.add(f"{c.player} castle groove", c.p_groove, [f"the {c.player} castle at {where} stands on the "
                                                                 "line between two grooves"])
    return castles, shell_cls


def _judge_unexplained(Bc, cls, gray, fg, owned, parts, beyond, A, lit, visible: set, decisions: Decisions, cfg,
                       conf_cfg):
    """Changed pixels that no castle, the bird, a shell or the cloth explains: a large thick patch
    refuses the photo (``occluded``), the unexplained parts and faint things are decisions.

    Returns:
        The occluder figures of :func:`~vision.strand_unter.occlusion.check_patch`.
    Raises:
        UnreadableBoardError: ``occluded``.
    """
    explained = owned | (fg & ~owned & ~parts.unexplained)
    # the weak change next to a piece read is its rim; next to a speck too small to read (the part of
    # a pale shell that stood out in this light) it may be the rest of a piece: no halo there
    read_ = owned | (fg & ~owned & ~parts.unexplained & ~parts.specks)
    halo = cv2.dilate(read_.astype(np.uint8), cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (cfg.weak_window_px + 2,) * 2)) > 0
    weak = weak_change(Bc, A.empty, A.basis, beyond, cfg, empty_half=A.empty_half)
    weak_only = weak & ~halo & ~fg & (cls != A.sea)
    # … and a shell's colour where the foreground saw too little of it (a pale shell on pale sand)
    weak_only |= _shell_coloured(cls, A, cfg) & beyond & ~halo
    occluder = check_patch(((fg & ~explained) & (cls != A.sea)) | shell_thick(weak_only, A), gray, A, lit.figures, cfg)
    doubts, p_clear = judge_parts(parts.parts, A, visible, cfg, conf_cfg)
    decisions.add("nothing unexplained", p_clear, doubts)
    doubts, p_faint = faint_things(weak_only, A, visible, cfg, conf_cfg)
    decisions.add("nothing faint", p_faint, doubts)
    return occluder


def _enter_shells(parts: list, A, visible: set, grooves: dict, decisions: Decisions, cfg, conf_cfg) -> list:
    """The shells read entered into ``grooves`` with their colour, count and groove decisions.

    Returns:
        [(colour, count, x, y)] of every part read as shells (work px).
    """
    shells = []
    for part in parts:
        if part.why == "shadow":
            decisions.add("shadow, not shells", 1.0 - part.p_shell, [
                f"the {part.shadow_of} patch at {A.where(part.x, part.y)} looks like sand in a shadow's edge; "
                "it was not counted as shells: check the light on the board"])
            continue
        if part.colour is None or part.count == 0:
            if part.colour is not None and part.ratio >= cfg.min_blob_fraction:
                decisions.add("speck", part.p_count, [f"a small {part.colour} speck at {A.where(part.x, part.y)} "
                                                      "was not counted as a shell"])
            continue
        where = A.where(part.x, part.y)
        shells.append((part.colour, part.count, part.x, part.y))
        if part.groove in visible:
            grooves[part.groove]["shells"][part.colour] += part.count
            decisions.add("shell colour", part.p_colour, [f"the shells at {where} may not be {part.colour}"])
            decisions.add("shell count", part.p_count, [f"the {part.colour} shells at {where} could be "
                                                        f"{part.count - 1} or {part.count + 1}"], kind="shell count")
            decisions.add("shell is no shadow", part.p_shell, [f"the {part.colour} shells at {where} may be sand "
                                                               "in a shadow: check the light on the board"])
            decisions.add("shell groove", part.p_groove, [f"the {part.colour} shell at {where} lies on the line "
                                                          "between two grooves"])
        elif part.groove == 0:
            decisions.add("shell outside the grooves", conf_cfg.unexplained_posterior,
                          [f"a {part.colour} shell lies outside every groove ({where})"])
    return shells


def _shell_beside_bird(bird, cls, A, visible: set, grooves: dict, decisions: Decisions, cfg) -> list:
    """A shell merged into the bird's blob (the blob most likely holds more than the bird,
    :func:`~vision.strand_unter.bird.alone_posterior`) is counted in the bird's groove in the colour
    of the blob's excess pixels (:func:`~vision.strand_unter.bird.touching_shell_colour`), doubted
    by both posteriors; otherwise the bird's blob being alone is a decision.

    Returns:
        [(colour, 1, x, y)] for the shell counted (work px), or [].
    """
    if bird.groove is None:
        return []
    where = A.where(bird.x, bird.y)
    touching = touching_shell_colour(bird, cls, A, cfg) if bird.p_alone < 0.5 else None
    if touching is None or bird.groove not in visible:
        decisions.add("nothing beside the sandpiper", bird.p_alone, [
            f"the sandpiper's outline at {where} is larger than at calibration: a shell touching it may not "
            "have been counted; move it apart from the bird"])
        return []
    colour, p_colour = touching
    grooves[bird.groove]["shells"][colour] += 1
    decisions.add("shell beside the sandpiper", 1.0 - bird.p_alone, [
        f"a {colour} shell touching the sandpiper at {where} was counted, though the bird hides part of it; "
        "move it apart from the bird to be sure"])
    decisions.add("shell colour", p_colour, [f"the shell touching the sandpiper at {where} may not be {colour}"])
    return [(colour, 1, bird.x, bird.y)]


def _shell_coloured(cls: np.ndarray, A, cfg=READING) -> np.ndarray:
    """Pixels of a shell's learned colour in compact groups (bool (H, W)): the classes after a
    morphological opening of radius ``cfg.open_px`` (single noisy pixels of the sand drop out)."""
    table = np.zeros(256, np.uint8)
    table[A.shell_k] = 1
    m = cv2.LUT(cls, table)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * cfg.open_px + 1,) * 2)
    return cv2.morphologyEx(m, cv2.MORPH_OPEN, k) > 0


def _alternative(c) -> int | str:
    """The castle's next most likely value (for a warning)."""
    order = np.argsort(c.cost)
    return int(order[1]) if len(order) > 1 and int(order[0]) == c.value else int(order[0])


def _nadir_px(photo: Photo, A) -> tuple[float, float] | None:
    """The camera's nadir in this photo's board frame (work px).

    The calibration found it in the calibrated board frame; a bumped board carries its frame
    along, so the nadir (fixed over the table) is mapped through the board's motion: the
    calibrated homography (scaled to this photo) inverse, then the scan's.
    """
    par = A.model.get("parallax") or {}
    if "nadir_px" not in par:
        return None
    nx, ny = par["nadir_px"]
    reg = photo.registration
    if getattr(reg, "source", "corners") == "corners":
        return nx, ny
    cal = photo.calibration
    H0 = scale_homography(cal.H_px_from_mm, photo.image.shape[1] / cal.image_size[0])
    p_mm = np.array([(nx + 0.5) / A.ppm, (ny + 0.5) / A.ppm, 1.0])
    img = H0 @ p_mm
    q = np.linalg.solve(np.asarray(reg.H_px_from_mm, np.float64), img)
    q = q[:2] / q[2]
    return float(q[0] * A.ppm - 0.5), float(q[1] * A.ppm - 0.5)


def _surround_figures(photo: Photo, A) -> tuple[float, float]:
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
