"""Hands, arms and foreign objects over the Strand unter grooves.

Input: the foreground no castle, the sandpiper or the cloth explains; the parts
:mod:`vision.strand_unter.shells` could not read as shells; the scan's blobs and figures.
Output: nothing when the grooves are clear; a doubt (warning + a posterior < 1) per small
unexplained thing; ``occluded`` (exit 3, :class:`~vision.errors.UnreadableBoardError`) naming
where, when something the calibration has no class for covers enough of the grooves to hide a
piece: a thick unexplained patch of at least ``occluder_min_shells`` shells' area (measured
after an erosion of ``occluder_erode_mm``: thin cloth fringes and shadows vanish; a faint colour
change counts only where a whole shell fits under it, :func:`shell_thick`), or one part at
least ``max_unexplained_shells`` shells large whose colour is off every shell's or that is many
shells thick, or a patch of no cloth colour on the sea cloth where a whole shell fits and as large
as the thick patch (:func:`check_cloth`: nothing of the game lies on the cloth). Under uneven light, a much darker or brighter patch is refused as ``uneven-light``
instead (a shadow or a lamp's glare can do that too).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import UnreadableBoardError
from vision.strand_unter import stats
from vision.strand_unter.blobs import components
from vision.strand_unter.config import CONFIDENCE, READING, SHELLS


def occluder_fraction(unexplained: np.ndarray, A, cfg=READING) -> tuple[float, tuple]:
    """The largest unexplained patch's thick part, as a fraction of the grooves' area.

    Args:
        unexplained: bool (H, W) changed pixels nothing explains.
    Returns:
        (max over its connected patches of (pixels left after an erosion of
        ``cfg.occluder_erode_mm``) / grooves' px, that patch's (x, y, w, h) and centroid (x, y)).
    """
    r = max(1, int(round(cfg.occluder_erode_mm * A.ppm)))
    thick = cv2.erode(unexplained.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2))
    total = int(cv2.countNonZero(thick))
    if total == 0:
        return 0.0, ()
    n, lab, st, ce = components(unexplained)
    counts = np.bincount(lab[thick > 0], minlength=n)
    i = 1 + int(np.argmax(counts[1:]))
    return float(counts[i]) / A.board_px, (tuple(int(v) for v in st[i, :4]), tuple(float(v) for v in ce[i]), lab == i)


def shell_thick(mask: np.ndarray, A) -> np.ndarray:
    """The parts of ``mask`` wide enough to hide a shell: its opening by a disc of the calibration's
    median shell radius (bool (H, W)).

    A colour change too thin for a whole shell to fit under it (the ridges' tint where the light
    bounced off the sea cloth or the frame differs from the empty board's) hides no piece.
    """
    one = A.one_shell_px2
    r = max(1, int(round(np.sqrt(one / np.pi))))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2)
    return cv2.morphologyEx(mask.view(np.uint8), cv2.MORPH_OPEN, disc).view(bool)


def check_patch(unexplained: np.ndarray, gray: np.ndarray, A, light: dict, cfg=READING) -> float:
    """Refuse a photo with a large unexplained patch over the grooves; returns the patch's fraction.

    Raises:
        UnreadableBoardError: ``occluded`` (or ``uneven-light`` when the patch is much darker or
            brighter than the empty board while the light is uneven), naming its size and place.
    """
    one = A.one_shell_px2
    frac, patch = occluder_fraction(unexplained, A, cfg)
    if frac * A.board_px < cfg.occluder_min_shells * one:
        return frac
    (x, y, w, h), centre, region = patch
    bright = stats.median(gray[region]) - stats.median(A.empty_gray[region])
    tone, cause = ("darker than", " or a shadow falls on it") if bright < -cfg.fg_brightness else \
        (("brighter than", " or a lamp's glare falls on it") if bright > cfg.fg_brightness
         else ("differently coloured from", ""))
    size = f"{w / A.ppm / 10:.0f} × {h / A.ppm / 10:.0f} cm around {A.where(*centre)}"
    if tone != "differently coloured from" and light["board_range"] > cfg.light_occluder_range:
        raise UnreadableBoardError(
            "uneven-light", f"{frac:.0%} of the board ({size}) looks {tone} the empty board while the light is "
            f"uneven (one part of the board {light['board_range']:.1f}x brighter than another): a shadow, a lamp's "
            "light or something lying there; light the board evenly, clear the view and take the photo again")
    raise UnreadableBoardError(
        "occluded", f"{frac:.0%} of the board ({size}) looks {tone} the empty board and like no learned piece: "
        f"something lies over it{cause}; clear the view and take the photo again")


def faint_things(weak_only: np.ndarray, A, visible, cfg=READING, conf=CONFIDENCE) -> tuple[list[str], float]:
    """Doubts for compact, shell-sized patches seen only by the weak colour change: a piece whose
    colour is close to the sand's under this light may lie there unread.

    A patch counts when it is at least half a shell's area, at least ``cfg.min_occluder_thickness``
    shell radii thick (or, smaller than a shell, as many of its own disc's radius), compact (its box at most twice as long as wide and at most 2.5 shells across:
    the stick's shadow, ridges and cloth fringes are bands) and in a visible groove.

    Returns:
        (doubts, posterior that none of them is a piece).
    """
    one = A.one_shell_px2
    if cv2.countNonZero(weak_only.view(np.uint8)) < cfg.faint_min_shells * one:
        return [], 1.0
    n, lab, st, ce = components(weak_only)
    r_shell = np.sqrt(one / np.pi)
    doubts, post = [], 1.0
    for j in range(1, n):
        x, y, w, h, area = st[j]
        if area < cfg.faint_min_shells * one or A.groove_at(*ce[j]) not in visible \
                or max(w, h) > cfg.faint_max_elongation * min(w, h) or max(w, h) > cfg.faint_max_shell_radii * r_shell:
            continue                      # too small, under the cloth, a band (a shadow, a ridge) or no piece's size
        crop = np.pad((lab[y:y + h, x:x + w] == j).astype(np.uint8), 1)
        if cv2.distanceTransform(crop, cv2.DIST_L2, 5).max() < cfg.min_occluder_thickness * min(
                r_shell, np.sqrt(area / np.pi)):
            continue
        doubts.append(f"something faint lies at {A.where(*ce[j])}: a piece that looks like the sand in this light? "
                      "It was not counted")
        post *= conf.faint_posterior
    return doubts, post


def judge_parts(parts, A, visible, cfg=READING, conf=CONFIDENCE) -> tuple[list[str], float]:
    """Doubts and their posterior for the parts that are no shells; refuses a large one.

    A part in a groove under the cloth hides nothing that counts, nor does a cloth-coloured part (a
    fold of the cloth); a thin part (less than
    ``cfg.min_occluder_thickness`` shell radii thick: the stick's shadow, a cloth fringe, a crease)
    cannot hide a piece; anything else that is no shell is a doubt, or ``occluded`` when it is at
    least ``cfg.max_unexplained_shells`` shells large.

    Args:
        parts: :class:`~vision.strand_unter.shells.Part` list; visible: the grooves not under the cloth.
    Returns:
        (doubts, posterior that none of them hides a piece).
    Raises:
        UnreadableBoardError: ``occluded`` for a thick part ≥ ``cfg.max_unexplained_shells`` shells large.
    """
    doubts, post = [], 1.0
    one = A.one_shell_px2
    for part in parts:
        if part.colour is not None or part.groove not in visible or part.why in ("cloth", "shadow"):
            continue
        ratio = part.area / one
        size = f"{part.size_cm[0]:.0f} × {part.size_cm[1]:.0f} cm"
        why = {"thick": (f"{part.thickness:.1f} shells thick" if part.thickness > SHELLS.max_thickness else
                         f"{ratio:.0f} shells large in one clump"), "ring": "a ring around something",
               }.get(part.why, "its colour is unlike every learned shell's")
        if part.thickness < cfg.min_occluder_thickness:
            continue
        if ratio >= cfg.max_unexplained_shells:
            raise UnreadableBoardError(
                "occluded", f"an object of about {size} at {A.where(part.x, part.y)} is neither shells nor a castle "
                f"({why}) and may hide pieces; clear it away and take the photo again")
        if ratio >= cfg.unexplained_doubt_shells:
            doubts.append(f"something that is not a game piece lies at {A.where(part.x, part.y)} ({size}, {why}); "
                          "it was not counted")
            post *= conf.unexplained_posterior
    return doubts, post



def cloth_patch(cls: np.ndarray, cloth: np.ndarray, A, cfg=READING) -> tuple[float, float, tuple, float]:
    """The largest patch inside the sea cloth's region over the grooves that is of no cloth class
    and where a whole shell fits, as a multiple of the area that refuses.

    Nothing of the game lies on the cloth (``shared/rules/strand-unter.md``: shells and castles
    under the sea are hidden or gone, the sandpiper stands in the groove in front of it), and the
    reader looks for pieces only below the cloth's edge; a hand lying on the cloth is seen there
    as colours the calibration did not learn as the cloth's. A fold's shadow, the cloth's fringe
    or a ragged edge are thinner than a shell: the mask is opened by a disc of the calibration's
    median shell radius (:func:`shell_thick`).

    Args:
        cls: uint8 (H, W) pixel classes of the corrected board (``A.sea`` is the cloth's);
        cloth: bool (H, W) the cloth's region (rows above its edge, :class:`~vision.strand_unter.sea.Sea`).
    Returns:
        (largest patch's area / (``cfg.occluder_min_shells`` shells' area), its thickness (distance
        transform's maximum, shell radii), its centroid (x, y) work px, the thickest not-cloth spot
        before the opening (shell radii; below 1 nothing is left)).
    """
    one = A.one_shell_px2
    r_shell = np.sqrt(one / np.pi)
    m = cloth & A.on_grooves & (cls != A.sea)
    if not m.any():
        return 0.0, 0.0, (), 0.0
    raw = float(cv2.distanceTransform(np.pad(m.view(np.uint8), 1), cv2.DIST_L2, 5).max()) / r_shell
    thick = shell_thick(m, A)
    n, lab, st, ce = components(thick)
    if n <= 1:
        return 0.0, 0.0, (), raw
    i = 1 + int(np.argmax(st[1:, 4]))
    x, y, w, h, area = st[i]
    crop = np.pad((lab[y:y + h, x:x + w] == i).astype(np.uint8), 1)
    t = float(cv2.distanceTransform(crop, cv2.DIST_L2, 5).max()) / r_shell
    return float(area) / (cfg.occluder_min_shells * one), t, (float(ce[i][0]), float(ce[i][1])), raw


def check_cloth(cls: np.ndarray, cloth: np.ndarray, A, cfg=READING) -> float:
    """Refuse a photo with a hand (or anything) lying on the sea cloth: a patch of no cloth class
    inside the cloth's region, a whole shell thick and at least ``cfg.occluder_min_shells`` shells
    large (:func:`cloth_patch`); returns the patch's figure (multiples of that area).

    Raises:
        UnreadableBoardError: ``occluded``, naming the patch's size and place.
    """
    figure, thickness, centre, _raw = cloth_patch(cls, cloth, A, cfg)
    if not cfg.cloth_occluder or figure < 1.0:
        return figure
    area = figure * cfg.occluder_min_shells
    raise UnreadableBoardError(
        "occluded", f"something about {area:.0f} shells large and {thickness:.1f} shells thick that is not the sea "
        f"cloth's colour lies on the cloth near {A.where(*centre)}: it may hide pieces at the cloth's edge; "
        "clear the view and take the photo again")
